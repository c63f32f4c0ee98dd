"""The quote list with 100 and with 100,000 quotes: page and API time, query plans and counts.

Run on an EMPTY PostgreSQL database (the plans are what matters; SQLite has other ones):
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/fq_bench_list \
        .venv/bin/python bench/bench_quote_list.py [repeats]
It seeds 100 quotes, measures, grows them to 100,000 (bulk inserts: 200 customers in 20 teams,
the signed-in sales user's team holds a tenth of them) and measures again. For each size it
prints the p50 of the HTML list and the API list, for a manager (sees every quote) and a sales
user (sees their team's), and EXPLAIN ANALYZE times of the page's list and count queries with
the list's usual filters.
"""

from __future__ import annotations

import datetime as dt
import statistics
import sys
import time
from decimal import Decimal

from benchsetup import django_ready, sized_runs  # bench/, the script's folder, is on sys.path

django_ready()

from django.contrib.auth.models import Group  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.utils import timezone  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

from integrations.services import api_token_issue  # noqa: E402
from portal.models import SALES, SALES_MANAGER, User  # noqa: E402
from quoting.customers.models import Customer, Project, Team  # noqa: E402
from quoting.quotes.models import Quote, QuoteRevision, QuoteStatus  # noqa: E402

SIZES = (100, 100_000)
TEAMS, CUSTOMERS_PER_TEAM, OWNERS_PER_TEAM = 20, 10, 5
STATUSES = list(QuoteStatus.values)
BATCH = 5_000


def timed(call, repeats: int) -> tuple[float, float]:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        response = call()
        samples.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200, response.content[:500]
    return statistics.median(samples), min(samples)


def world() -> dict:
    sales_group = Group.objects.get_or_create(name=SALES)[0]
    manager = User.objects.create_user("bench-manager")
    manager.groups.add(Group.objects.get_or_create(name=SALES_MANAGER)[0])
    owners, customers = [], []
    for t in range(TEAMS):
        team = Team.objects.create(name=f"Team {t}")
        members = [User.objects.create_user(f"sales-{t}-{m}") for m in range(OWNERS_PER_TEAM)]
        for member in members:
            member.groups.add(sales_group)
        team.members.add(*members)
        for c in range(CUSTOMERS_PER_TEAM):
            customer = Customer.objects.create(team=team, owner=members[0], company=f"C {t}-{c}")
            Project.objects.create(customer=customer, owner=members[0], name=f"P {t}-{c}")
            customers.append(customer)
        owners.append(members)
    projects = {p.customer_id: p for p in Project.objects.all()}
    return {"manager": manager, "sales": owners[0][0], "owners": owners, "customers": customers,
            "projects": projects}  # fmt: skip


def seed(w: dict, start: int, stop: int) -> None:
    """Quotes start..stop-1, each with one revision (frozen unless a draft)."""
    now = timezone.now()
    for low in range(start, stop, BATCH):
        quotes = []
        for i in range(low, min(stop, low + BATCH)):
            customer = w["customers"][i % len(w["customers"])]
            team = (i % len(w["customers"])) // CUSTOMERS_PER_TEAM
            quotes.append(Quote(
                number=f"Q-2026-{i + 1:06d}", series="Q", year=2026, seq=i + 1,
                customer=customer, project=w["projects"][customer.pk],
                owner=w["owners"][team][i % OWNERS_PER_TEAM], currency="CNY",
                status=STATUSES[i % len(STATUSES)], valid_until=dt.date(2027, 1, 1),
            ))  # fmt: skip
        Quote.objects.bulk_create(quotes)
        QuoteRevision.objects.bulk_create(
            QuoteRevision(
                quote=q, number=1, created_by=q.owner,
                frozen_at=None if q.status == QuoteStatus.DRAFT else now,
                **({} if q.status == QuoteStatus.DRAFT else dict.fromkeys(
                    ("subtotal", "net", "total"), Decimal("1000.00")) | dict.fromkeys(
                    ("discount_amount", "tax_amount"), Decimal(0))),
            )
            for q in quotes
        )  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE quoting_quote q SET current_revision_id = r.id,"
            " created_at = now() - (q.id % 700) * interval '1 day',"
            " updated_at = now() - (q.id % 300) * interval '1 hour'"
            " FROM quoting_quoterevision r"
            " WHERE r.quote_id = q.id AND q.current_revision_id IS NULL"
        )
        cursor.execute("VACUUM ANALYZE")


def explain(sql: str, params, runs: int = 3) -> tuple[float, str]:
    """The fastest of a few EXPLAIN ANALYZE runs (ms) and the plan's top node."""
    times = []
    with connection.cursor() as cursor:
        for _ in range(runs):
            cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql, params)
            plan = [row[0] for row in cursor.fetchall()]
            times.extend(float(line.split()[2]) for line in plan if line.startswith("Execution"))
    return min(times), plan[0].split("  (")[0]


def list_queries(client, url: str) -> tuple[int, list[tuple[str, str, tuple]]]:
    """How many queries the page runs, and its list and count queries on quoting_quote."""
    calls = []

    def record(execute, sql, params, many, context):
        calls.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        response = client.get(url)
    assert response.status_code == 200, response.content[:300]
    picked = []
    for sql, params in calls:
        if 'FROM "quoting_quote"' in sql:
            kind = "count" if "COUNT(*)" in sql else "list" if "LIMIT" in sql else "other"
            picked.append((kind, sql, params))
    return len(calls), picked


def measure(w: dict, size: int, repeats: int) -> None:
    html, api = Client(HTTP_HOST="127.0.0.1"), APIClient(HTTP_HOST="127.0.0.1")
    sales = w["sales"]
    customer = w["customers"][0]
    views = [
        ("/quotes/", ""),
        ("/quotes/", "?status=sent"),
        ("/quotes/", f"?owner={sales.pk}"),
        ("/quotes/", f"?customer={customer.pk}"),
        ("/quotes/", "?created_from=2026-06-01"),
        ("/api/v1/quotes/", ""),
        ("/api/v1/quotes/", "?ordering=-updated_at"),
        ("/api/v1/quotes/", "?status=draft&ordering=-created_at"),
    ]
    print(f"\n== {size:,} quotes")
    print(
        f"{'who':<8} {'url':<48} {'p50 ms':>7} {'min ms':>7} {'queries':>7}  "
        "explain: list / count ms"
    )
    for who in ("manager", "sales"):
        user = w[who]
        html.force_login(user)
        _token, raw = api_token_issue(user=user, scope="read", name=f"bench {size}")
        api.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
        for path, query in views:
            client = api if path.startswith("/api/") else html
            if who == "manager" and "owner=" in query:
                continue
            url = path + query
            p50, fastest = timed(lambda client=client, url=url: client.get(url), repeats)
            count, picked = list_queries(client, url)
            times = {}
            for kind, sql, params in picked:
                if kind in ("list", "count") and kind not in times:
                    times[kind] = explain(sql, params)
            shown = " / ".join(
                f"{times[k][0]:.2f} ({times[k][1]})" if k in times else "-"
                for k in ("list", "count")
            )
            print(f"{who:<8} {url:<48} {p50:>7.1f} {fastest:>7.1f} {count:>7}  {shown}")


def main() -> None:
    if connection.vendor != "postgresql":
        sys.exit("Set DATABASE_URL to an empty PostgreSQL database: the plans are the point.")
    sized_runs(
        world=world,
        seed=seed,
        measure=measure,
        sizes=SIZES,
        empty_message="The database must be empty.",
    )


if __name__ == "__main__":
    main()
