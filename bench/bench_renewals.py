"""The home page's renewals queue (quoting.quotes.renewals.renewal_queue) with 1,000 and 50,000
quotes of 10 lines each: queries and time.

Every sales engineer's home page pays for it. Runs on the embedded SQLite by default (a
throwaway file), or on an EMPTY PostgreSQL database given as DATABASE_URL (then with the plan
of the query):
    .venv/bin/python bench/bench_renewals.py [repeats]
Quotes are spread over 20 teams and all statuses; every accepted quote is booked with one
support line of a year's term, started 0 to 364 days ago (a quarter of them come due within 90
days), and nine lines without a term.
"""

from __future__ import annotations

import datetime as dt
import statistics
import time

from benchsetup import (  # bench/, the script's folder, is on sys.path
    django_ready,
    plan_ends,
    sized_runs,
)

django_ready()

from django.contrib.auth.models import Group  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from django.utils import timezone  # noqa: E402

from portal.models import SALES, SALES_MANAGER, User  # noqa: E402
from quoting.customers.models import Customer, Project, Team  # noqa: E402
from quoting.quotes.models import (  # noqa: E402
    Quote,
    QuoteLine,
    QuoteRevision,
    QuoteStatus,
    Section,
)
from quoting.quotes.renewals import renewal_queue  # noqa: E402
from quoting.quotes.selectors import quotes_visible_to  # noqa: E402

SIZES = (1_000, 50_000)
TEAMS, CUSTOMERS_PER_TEAM, OWNERS_PER_TEAM = 20, 10, 5
LINES_PER_QUOTE = 10
STATUSES = list(QuoteStatus.values)
BATCH = 2_000


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
        if t == 0:
            team.members.add(manager)
        for c in range(CUSTOMERS_PER_TEAM):
            customer = Customer.objects.create(team=team, owner=members[0], company=f"C {t}-{c}")
            Project.objects.create(customer=customer, owner=members[0], name=f"P {t}-{c}")
            customers.append(customer)
        owners.append(members)
    projects = {p.customer_id: p for p in Project.objects.all()}
    return {"manager": manager, "sales": owners[0][0], "owners": owners, "customers": customers,
            "projects": projects}  # fmt: skip


def _lines(revision: QuoteRevision, accepted: bool, today: dt.date) -> list[QuoteLine]:
    lines = [
        QuoteLine(revision=revision, position=p, section=Section.NETWORK, sku=f"SW-{p}",
                  description="Switch", quantity=2, unit_price=100)
        for p in range(1, LINES_PER_QUOTE)
    ]  # fmt: skip
    lines.append(
        QuoteLine(
            revision=revision, position=LINES_PER_QUOTE, section=Section.SUPPORT, sku="SUP-1",
            description="Support, 1 year", quantity=1, unit_price=100, term_months=12,
            starts_on=today - dt.timedelta(days=revision.quote.seq % 365) if accepted else None,
        )
    )  # fmt: skip
    return lines


def seed(w: dict, start: int, stop: int) -> None:
    today = timezone.localdate()
    for low in range(start, stop, BATCH):
        quotes = []
        for i in range(low, min(stop, low + BATCH)):
            customer = w["customers"][i % len(w["customers"])]
            team = (i % len(w["customers"])) // CUSTOMERS_PER_TEAM
            quotes.append(Quote(
                number=f"Q-2026-{i + 1:06d}", series="Q", year=2026, seq=i + 1,
                customer=customer, project=w["projects"][customer.pk],
                owner=w["owners"][team][i % OWNERS_PER_TEAM], currency="CNY",
                status=STATUSES[i % len(STATUSES)], valid_until=today,
            ))  # fmt: skip
        Quote.objects.bulk_create(quotes)
        revisions = QuoteRevision.objects.bulk_create(
            QuoteRevision(quote=q, number=1, created_by=q.owner) for q in quotes
        )
        QuoteLine.objects.bulk_create(
            [
                line
                for r in revisions
                for line in _lines(r, r.quote.status == QuoteStatus.ACCEPTED, today)
            ],
            batch_size=5_000,
        )
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE quoting_quote SET current_revision_id = (SELECT r.id FROM"
            " quoting_quoterevision r WHERE r.quote_id = quoting_quote.id)"
            " WHERE current_revision_id IS NULL"
        )
        cursor.execute(
            "UPDATE quoting_quote SET booked_revision_id = current_revision_id"
            " WHERE status = 'accepted' AND booked_revision_id IS NULL"
        )
        cursor.execute("ANALYZE")


def measure(w: dict, size: int, repeats: int) -> None:
    print(f"\n== {size:,} quotes, {size * LINES_PER_QUOTE:,} lines ({connection.vendor})")
    print(f"{'who':<8} {'p50 ms':>7} {'min ms':>7} {'queries':>7}  due quotes")
    for who in ("manager", "sales"):
        samples = []
        for _ in range(repeats):
            user = User.objects.get(pk=w[who].pk)
            mine = quotes_visible_to(user=user).filter(owner=user)
            if who == "manager":
                mine = quotes_visible_to(user=user).filter(customer__team__in=user.teams.all())
            with CaptureQueriesContext(connection) as captured:
                start = time.perf_counter()
                queue = renewal_queue(quotes=mine)
                samples.append((time.perf_counter() - start) * 1000)
        print(
            f"{who:<8} {statistics.median(samples):>7.2f} {min(samples):>7.2f} "
            f"{len(captured):>7}  {queue.count}"
        )
        plan_ends(captured)


def main() -> None:
    sized_runs(
        world=world,
        seed=seed,
        measure=measure,
        sizes=SIZES,
        empty_message="The database is not empty: give an empty one.",
    )


if __name__ == "__main__":
    main()
