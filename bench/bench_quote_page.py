"""Latency of the quote page (the builder) with 10 and 200 lines, end to end through Django.

Run: .venv/bin/python bench/bench_quote_page.py [repeats]. Uses a throw-away SQLite database
(set DATABASE_URL to measure PostgreSQL instead: it must be empty). Prints p50 / p95 of the full
page, of the htmx answer to a quantity change, and the number of queries of each.
"""

from __future__ import annotations

import statistics
import sys
import time
from decimal import Decimal

from benchsetup import django_ready  # bench/, the script's folder, is on sys.path

django_ready()

from django.contrib.auth.models import Group  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from catalog.models import Product  # noqa: E402
from portal.models import SALES, User  # noqa: E402
from quoting.customers.models import (  # noqa: E402
    Customer,
    Project,
    Team,  # noqa: E402
)
from quoting.quotes.models import QuoteLine  # noqa: E402
from quoting.quotes.services.quotes import quote_create  # noqa: E402

SIZES = (10, 200)


def timed(call, repeats: int) -> tuple[float, float]:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        response = call()
        samples.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200, response.content[:500]
    samples.sort()
    return statistics.median(samples), samples[max(0, int(len(samples) * 0.95) - 1)]


def queries(call) -> int:
    with CaptureQueriesContext(connection) as captured:
        call()
    return len(captured)


def quote_with_lines(*, user: User, project: Project, count: int):
    quote = quote_create(project=project, user=user)
    products = list(Product.objects.order_by("part_number")[:count])
    QuoteLine.objects.bulk_create(
        QuoteLine(
            revision=quote.current_revision,
            position=i + 1,
            product=products[i % len(products)],
            sku=products[i % len(products)].part_number,
            description=products[i % len(products)].name,
            quantity=1 + i % 7,
            unit_price=Decimal("1234.56"),
            discount_percent=Decimal(i % 5),
        )
        for i in range(count)
    )
    return quote


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    call_command("migrate", verbosity=0)
    call_command("load_catalog", verbosity=0)
    user, _ = User.objects.get_or_create(username="bench")
    user.groups.add(Group.objects.get_or_create(name=SALES)[0])
    team, _ = Team.objects.get_or_create(name="Bench")
    team.members.add(user)
    customer, _ = Customer.objects.get_or_create(
        team=team, company="Bench Ltd", defaults={"owner": user}
    )
    project, _ = Project.objects.get_or_create(
        customer=customer, name="Bench", defaults={"owner": user}
    )
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(user)
    print(
        f"{'lines':>6} {'page p50':>9} {'page p95':>9} {'queries':>8} "
        f"{'edit p50':>9} {'edit p95':>9} {'queries':>8}  (ms)"
    )
    for count in SIZES:
        quote = quote_with_lines(user=user, project=project, count=count)
        url = f"/quotes/{quote.pk}/"
        line = QuoteLine.objects.filter(revision=quote.current_revision).first()
        page = timed(lambda url=url: client.get(url), repeats)
        page_queries = queries(lambda url=url: client.get(url))

        def edit(quote=quote, line=line, state={"n": 0}):  # noqa: B006 (a counter across calls)
            quote.refresh_from_db()
            state["n"] += 1
            return client.post(
                f"/quotes/{quote.pk}/lines/{line.pk}/",
                {"expected_version": quote.version, "quantity": 1 + state["n"] % 9},
                HTTP_HX_REQUEST="true",
            )

        change = timed(edit, repeats)
        edit_queries = queries(edit)
        print(
            f"{count:>6} {page[0]:>9.1f} {page[1]:>9.1f} {page_queries:>8} "
            f"{change[0]:>9.1f} {change[1]:>9.1f} {edit_queries:>8}"
        )


if __name__ == "__main__":
    main()
