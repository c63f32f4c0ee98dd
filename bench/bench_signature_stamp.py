"""The signed copy's stamp (#27): the time to draw the filled signature block of a 50-line
proposal (English and Chinese), at the place recorded when the accepted PDF was rendered (the
block alone, on a page of its own size) and by the fallback of PDFs rendered before positions
were recorded (the whole proposal laid out again); p50 and p95 of wall time, CPU p50 (the
machine is shared), and the stamp's PDF size.

Run: .venv/bin/python bench/bench_signature_stamp.py [repeats]. Uses a throw-away SQLite
database (set DATABASE_URL to an empty PostgreSQL database instead).
"""

from __future__ import annotations

import statistics
import sys
import time

from benchsetup import django_ready  # bench/, the script's folder, is on sys.path

django_ready()

from bench_proposals import percentile, quote_with_lines  # noqa: E402
from django.contrib.auth.models import Group  # noqa: E402
from django.core.management import call_command  # noqa: E402

from portal.models import SALES, User  # noqa: E402
from quoting.customers.models import Customer, Project, Team  # noqa: E402

LINES = 50


def signatures() -> dict:
    import base64

    from proposals.acceptance.signature import signature_typed_png

    def side(name: str) -> dict:
        png = base64.b64encode(signature_typed_png(name)).decode()
        return {"name": name, "title": "CTO", "company": "Bench Ltd", "date": "2026-12-07",
                "signature_uri": f"data:image/png;base64,{png}", "chop_uri": ""}  # fmt: skip

    return {"customer": side("Li Wei"), "seller": side("Zhao Min")}


def main() -> None:
    from proposals.documents.pdf import proposal_rendered, signature_stamp

    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    call_command("migrate", verbosity=0)
    user = User.objects.create_user("bench", password="x")  # noqa: S106
    user.groups.add(Group.objects.get_or_create(name=SALES)[0])
    team = Team.objects.create(name="Bench")
    team.members.add(user)
    customer = Customer.objects.create(company="Bench Ltd", team=team, owner=user, language="en")
    project = Project.objects.create(customer=customer, name="Bench cluster", owner=user)
    revision = quote_with_lines(user=user, project=project, count=LINES).current_revision
    filled = signatures()
    print(f"Signature stamp of a {LINES}-line proposal, {repeats} runs each")
    print(f"{'':>28} {'p50 ms':>8} {'p95 ms':>8} {'CPU p50':>8} {'stamp KB':>9}")
    for language in ("en", "zh-hans"):
        rendered = proposal_rendered(revision=revision, language=language)
        for label, position in (
            ("recorded position", rendered.signature_block),
            ("fallback (laid out again)", None),
        ):
            samples, cpu, size = [], [], 0
            for _ in range(repeats):
                start, start_cpu = time.perf_counter(), time.process_time()
                stamp = signature_stamp(
                    revision=revision,
                    language=language,
                    signatures=filled,
                    original=rendered.pdf,
                    position=position,
                )
                samples.append((time.perf_counter() - start) * 1000)
                cpu.append((time.process_time() - start_cpu) * 1000)
                assert stamp is not None, "no stamp"
                size = len(stamp.pdf)
            print(
                f"{language + ', ' + label:>28} {statistics.median(samples):>8.0f} "
                f"{percentile(samples, 0.95):>8.0f} {statistics.median(cpu):>8.0f} "
                f"{size / 1024:>9.1f}"
            )


if __name__ == "__main__":
    main()
