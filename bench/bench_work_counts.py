"""The header's work counts (portal/work.py) with 1,000 and 50,000 quotes: queries and time.

Every signed-in page pays for them, so they must stay one aggregate query whatever the number
of quotes. Runs on the embedded SQLite by default (a throwaway file), or on an EMPTY PostgreSQL
database given as DATABASE_URL (then with the plan of the query):
    .venv/bin/python bench/bench_work_counts.py [repeats]
Quotes are spread over 20 teams and all statuses, valid for 0 to 60 more days; a third of the
sent ones have a share link that was opened.
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
from portal.work import work_counts  # noqa: E402
from proposals.models import ShareLink  # noqa: E402
from quoting.customers.models import Customer, Project, Team  # noqa: E402
from quoting.quotes.models import Approval, Quote, QuoteRevision, QuoteStatus  # noqa: E402

SIZES = (1_000, 50_000)
TEAMS, CUSTOMERS_PER_TEAM, OWNERS_PER_TEAM = 20, 10, 5
STATUSES = list(QuoteStatus.values)
BATCH = 5_000


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


def seed(w: dict, start: int, stop: int) -> None:
    now, today = timezone.now(), timezone.localdate()
    for low in range(start, stop, BATCH):
        quotes = []
        for i in range(low, min(stop, low + BATCH)):
            customer = w["customers"][i % len(w["customers"])]
            team = (i % len(w["customers"])) // CUSTOMERS_PER_TEAM
            quotes.append(Quote(
                number=f"Q-2026-{i + 1:06d}", series="Q", year=2026, seq=i + 1,
                customer=customer, project=w["projects"][customer.pk],
                owner=w["owners"][team][i % OWNERS_PER_TEAM], currency="CNY",
                status=STATUSES[i % len(STATUSES)],
                valid_until=today + dt.timedelta(days=i % 61),
            ))  # fmt: skip
        Quote.objects.bulk_create(quotes)
        revisions = QuoteRevision.objects.bulk_create(
            QuoteRevision(
                quote=q,
                number=1,
                created_by=q.owner,
                sent_at=None if q.status == QuoteStatus.DRAFT else now,
            )
            for q in quotes
        )
        Approval.objects.bulk_create(
            Approval(revision=r, requested_by=r.created_by, discount_percent=15)
            for r in revisions
            if r.quote.status == QuoteStatus.AWAITING_APPROVAL
        )
        ShareLink.objects.bulk_create(
            ShareLink(
                quote=q,
                token_hash=f"{q.number}-{q.pk}",
                created_by=q.owner,
                expires_at=now + dt.timedelta(days=30),
                use_count=1,
                last_used_at=now + dt.timedelta(minutes=1),
            )
            for q in quotes
            if q.status == QuoteStatus.SENT and q.seq % 3 == 0
        )
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE quoting_quote SET current_revision_id = (SELECT r.id FROM"
            " quoting_quoterevision r WHERE r.quote_id = quoting_quote.id)"
            " WHERE current_revision_id IS NULL"
        )
        cursor.execute("ANALYZE")


def measure(w: dict, size: int, repeats: int) -> None:
    print(f"\n== {size:,} quotes ({connection.vendor})")
    print(f"{'who':<8} {'p50 ms':>7} {'min ms':>7} {'queries':>7}  counts")
    for who in ("manager", "sales"):
        samples = []
        for _ in range(repeats):
            user = User.objects.get(pk=w[who].pk)  # roles not loaded: as on a new request
            with CaptureQueriesContext(connection) as captured:
                start = time.perf_counter()
                counts = work_counts(user=user)
                samples.append((time.perf_counter() - start) * 1000)
        print(
            f"{who:<8} {statistics.median(samples):>7.2f} {min(samples):>7.2f} "
            f"{len(captured):>7}  {counts}"
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
