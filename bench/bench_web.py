"""Throughput of the portal's pages next to a bare Django page, both served by gunicorn.

Run: .venv/bin/python bench/bench_web.py [--quotes 100[,100000]] [--duration 5]

In one run on this machine (issue 12, item 5): a bare Django project (a hello view and a page
looping over 50 rows) and FabricQuote itself, each served by gunicorn with 2 sync workers and
production settings on a loopback port, are loaded by wrk with 16 connections. It prints req/s,
p50 and p99 per page, the p50 of single requests one at a time, and each page's throughput as a
ratio to the bare 50-row page of the same run (the floor): that ratio, not the raw figures, is
what compares across machines and across a busy or quiet moment.

The portal side runs `portal.settings.production` (a fresh SECRET_KEY, ALLOWED_HOSTS 127.0.0.1,
requests marked X-Forwarded-Proto: https as a proxy would), with DATABASE_URL and REDIS_URL from
the environment. Without DATABASE_URL it uses a throw-away SQLite file. A PostgreSQL database
whose name starts with "bench" is the bench's own: dropped and created again for each run and
dropped at the end (--keep-db keeps it); any other name must be empty, and `test` is refused.
It seeds through the project's services: a quote made from a saved design, padded to 200 lines
and sent, with a share link; a signed-in sales user; a read API token; and bulk quotes so that
the list holds --quotes quotes. `--quotes 100,100000` measures every page with 100 quotes, then
seeds up to 100,000 and measures the two lists again (the issue asks for within 2x).

wrk comes from Debian (installed with apt-get when missing). Every server is stopped and every
temporary file removed on the way out, also on errors and Ctrl-C. The figures are noisy on a
shared machine: the floor is measured again after every portal page (each page's ratio is to the
two floor runs around it) and the load average is printed next to them.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import http.client
import io
import os
import re
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CONNECTIONS = 16
WRK_THREADS = 2
FLOOR = "bare Django: 50-row template"
# Issue 12 item 5: each page's req/s as a share of the floor's, at least.
RATIO_TARGETS = {
    "share page /p/<token>, 200-line quote": 0.5,
    "quote page, 200 lines, signed in": 0.15,
    "API quote detail": 0.4,
    "API quote list": 0.4,
}
QUOTE_PAGE = "quote page, 200 lines, signed in"
QUOTE_PAGE_P50_MS = 25.0
LIST_TARGETS = ("quote list, signed in", "API quote list")
QUOTE_LINES = 200


# --- the bare Django floor ----------------------------------------------------------------------

BARE_VIEWS = """\
from decimal import Decimal

from django.http import HttpResponse
from django.shortcuts import render

ROWS = [
    {"position": n, "sku": f"MCP4Y10-N{n:03d}", "description": f"Passive copper cable, {n} m",
     "quantity": 1 + n % 7, "unit_price": Decimal("1234.56"),
     "amount": Decimal("1234.56") * (1 + n % 7)}
    for n in range(1, 51)
]


def hello(request):
    return HttpResponse("Hello, world.")


def rows(request):
    return render(request, "rows.html", {"title": "Fifty rows", "rows": ROWS})
"""
BARE_URLS = """\
from django.urls import path

from . import views

urlpatterns = [path("hello/", views.hello), path("rows/", views.rows)]
"""
BARE_TEMPLATE = """\
<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ title }}</title></head>
<body><h1>{{ title }}</h1>
<table>
  <thead><tr><th>#</th><th>SKU</th><th>Description</th><th>Qty</th><th>Unit</th><th>Amount</th>
  </tr></thead>
  <tbody>
  {% for row in rows %}
    <tr><td>{{ row.position }}</td><td>{{ row.sku }}</td><td>{{ row.description }}</td>
      <td>{{ row.quantity }}</td><td>{{ row.unit_price }}</td><td>{{ row.amount }}</td></tr>
  {% endfor %}
  </tbody>
</table>
</body></html>
"""
BARE_SETTINGS = """

# bench_web: production-like, as the portal is served.
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
TEMPLATES[0]["DIRS"] = [BASE_DIR / "templates"]
"""


def bare_project_build(directory: Path) -> Path:
    """`django-admin startproject bare` with two views; returns the project directory."""
    directory.mkdir()
    subprocess.run(
        [sys.executable, "-m", "django", "startproject", "bare", str(directory)],
        check=True,
        env=_env_without_django(),
    )
    (directory / "bare" / "views.py").write_text(BARE_VIEWS)
    (directory / "bare" / "urls.py").write_text(BARE_URLS)
    (directory / "templates").mkdir()
    (directory / "templates" / "rows.html").write_text(BARE_TEMPLATE)
    with (directory / "bare" / "settings.py").open("a") as settings_file:
        settings_file.write(BARE_SETTINGS)
    return directory


def _env_without_django() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}


# --- servers ------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Server:
    name: str
    port: int
    process: subprocess.Popen
    log: Path


@contextlib.contextmanager
def gunicorn(
    *, name: str, app: str, cwd: Path, env: dict, workers: int, log: Path, ready_path: str
) -> Iterator[Server]:
    """gunicorn with `workers` sync workers on a loopback port; stopped (with its workers) on
    exit, whatever happens."""
    port = free_port()
    with log.open("wb") as log_file:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                app,
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                str(workers),
                "--worker-class",
                "sync",
                "--chdir",
                str(cwd),
                "--log-level",
                "warning",
            ],
            cwd=cwd,
            env=env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: the workers go down with it
        )
    server = Server(name, port, process, log)
    try:
        _wait_ready(server, ready_path)
        yield server
    finally:
        _stop(process)


def _wait_ready(server: Server, path: str, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"{server.name} exited at start:\n{_tail(server.log)}")
        try:
            http_get(server.port, path, {}, timeout=5)
            return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"{server.name} did not answer within {timeout:.0f} s:\n{_tail(server.log)}")


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)  # gunicorn's graceful stop, workers included
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


def _tail(log: Path, lines: int = 30) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def http_get(
    port: int, path: str, headers: dict, *, timeout: float = 60
) -> tuple[int, bytes, float]:
    """One GET on a fresh connection (gunicorn's sync workers close it anyway); ms taken."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        start = time.perf_counter()
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        body = response.read()
        return response.status, body, (time.perf_counter() - start) * 1000
    finally:
        connection.close()


# --- wrk ----------------------------------------------------------------------------------------


def wrk_ensure() -> str:
    found = shutil.which("wrk")
    if found:
        return found
    print("wrk is missing: apt-get install -y wrk", flush=True)
    quiet = {
        "stdout": subprocess.DEVNULL,
        "env": {**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
    }
    if subprocess.run(["apt-get", "install", "-y", "wrk"], check=False, **quiet).returncode:
        subprocess.run(["apt-get", "update"], check=True, **quiet)
        subprocess.run(["apt-get", "install", "-y", "wrk"], check=True, **quiet)
    found = shutil.which("wrk")
    if not found:
        raise SystemExit("wrk could not be installed (apt-get install wrk)")
    return found


@dataclass
class Load:
    rps: float
    p50_ms: float
    p99_ms: float
    requests: int
    errors: int  # non-2xx/3xx answers and socket errors


UNIT_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0, "h": 3_600_000.0}


def wrk_parse(text: str) -> Load:
    def number(pattern: str) -> float:
        found = re.search(pattern, text)
        return float(found.group(1)) if found else 0.0

    percentiles = {
        int(p): float(value) * UNIT_MS[unit]
        for p, value, unit in re.findall(r"^\s*(\d+)%\s+([\d.]+)(us|ms|s|m|h)\s*$", text, re.M)
    }
    socket_errors = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text
    )
    errors = int(number(r"Non-2xx or 3xx responses: (\d+)"))
    if socket_errors:
        errors += sum(int(g) for g in socket_errors.groups())
    return Load(
        rps=number(r"Requests/sec:\s+([\d.]+)"),
        p50_ms=percentiles.get(50, float("nan")),
        p99_ms=percentiles.get(99, float("nan")),
        requests=int(number(r"(\d+) requests in")),
        errors=errors,
    )


def wrk_run(wrk: str, url: str, headers: dict, seconds: int) -> Load:
    """16 connections for `seconds`, loopback only; killed if it overruns."""
    if not url.startswith("http://127.0.0.1:"):
        raise ValueError("the bench only loads loopback servers")
    argv = [
        wrk,
        "-t",
        str(WRK_THREADS),
        "-c",
        str(CONNECTIONS),
        "-d",
        f"{seconds}s",
        "--timeout",
        "10s",
        "--latency",
    ]
    for name, value in headers.items():
        argv += ["-H", f"{name}: {value}"]
    done = subprocess.run(
        [*argv, url], capture_output=True, text=True, check=False, timeout=seconds + 30
    )
    if done.returncode:
        raise RuntimeError(f"wrk failed: {done.stderr or done.stdout}")
    return wrk_parse(done.stdout)


# --- the portal: database, settings, seed -------------------------------------------------------


def database_prepare(url: str, *, keep: bool) -> str | None:
    """Make DATABASE_URL's PostgreSQL database ready; returns its name when the bench owns it
    (and so drops it at the end)."""
    import dj_database_url
    import psycopg
    from psycopg import sql

    config = dj_database_url.parse(url)
    if "postgresql" not in config["ENGINE"]:
        raise SystemExit("DATABASE_URL: the bench knows PostgreSQL (or nothing, for SQLite)")
    name, host = config["NAME"], config["HOST"] or "127.0.0.1"
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit(f"DATABASE_URL: the bench only talks to loopback, not {host}")
    if name == "test" or name.startswith("test_"):
        raise SystemExit("DATABASE_URL: the `test` databases belong to the test suite")
    owned = name.startswith("bench")
    admin = {
        "host": host,
        "port": config["PORT"] or 5432,
        "user": config["USER"] or None,
        "password": config["PASSWORD"] or None,
        "autocommit": True,
    }
    with psycopg.connect(dbname="postgres", **admin) as connection:
        exists = connection.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [name]
        ).fetchone()
        if exists and owned:
            connection.execute(
                sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name))
            )
            exists = None
        if not exists:
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    if not owned:
        with psycopg.connect(dbname=name, **admin) as connection:
            tables = connection.execute(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"
            ).fetchone()[0]
        if tables:
            raise SystemExit(
                f"DATABASE_URL: {name} is not empty (name it bench_... to let the "
                f"bench drop and create it)"
            )
    return None if keep or not owned else name


def database_drop(url: str, name: str) -> None:
    import dj_database_url
    import psycopg
    from django.db import connections
    from psycopg import sql

    connections.close_all()
    config = dj_database_url.parse(url)
    with psycopg.connect(
        dbname="postgres",
        host=config["HOST"] or "127.0.0.1",
        port=config["PORT"] or 5432,
        user=config["USER"] or None,
        password=config["PASSWORD"] or None,
        autocommit=True,
    ) as connection:
        connection.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )


def portal_environment(tmp: Path) -> dict[str, str]:
    """Production settings for this process (the seed) and the portal's gunicorn alike."""
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "portal.settings.production",
            "SECRET_KEY": secrets.token_urlsafe(64),
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "TRUSTED_PROXY_COUNT": "0",  # wrk connects to gunicorn directly
            "FABRICQUOTE_VAR_DIR": str(tmp / "var"),
            "STATIC_ROOT": str(tmp / "static"),
            "MEDIA_ROOT": str(tmp / "media"),
            # DRF keeps one timestamp per request of the window in the cache and reads it back on
            # every request: a one-second window keeps that list (and the bench) short and sane.
            "API_RATE": "1000000/second",
        }
    )
    (tmp / "var").mkdir(exist_ok=True)
    return dict(os.environ)


@dataclass
class Seeded:
    quote_id: int
    quote_number: str
    share_token: str
    session_cookie: str
    api_token: str
    user_id: int
    projects: list = field(default_factory=list)


def seed(*, quotes: int) -> Seeded:
    """The catalog, a sales user in a team with ten customers, bulk quotes up to `quotes` and
    one real quote of 200 lines from a saved design, sent and shared."""
    from django.conf import settings
    from django.contrib.auth.models import Group
    from django.core.management import call_command
    from django.test import Client

    from catalog.models import Product
    from integrations.models import TokenScope
    from integrations.services import api_token_issue
    from portal.models import SALES, User
    from proposals.documents.services import proposal_render, proposal_request
    from proposals.share.services import share_link_create
    from quoting.customers.models import Customer, Project, Team
    from quoting.designs.services.saved import design_save
    from quoting.quotes.models import LineKind, QuoteLine, Section
    from quoting.quotes.services.quotes import quote_create_from_design, quote_send

    call_command("migrate", verbosity=0)
    call_command("collectstatic", "--noinput", verbosity=0)
    call_command("load_catalog", verbosity=0, stdout=io.StringIO())
    user = User.objects.create_user(username="bench-sales", password=secrets.token_urlsafe(16))
    user.groups.add(Group.objects.get_or_create(name=SALES)[0])
    team = Team.objects.create(name="Bench")
    team.members.add(user)
    projects = []
    for n in range(10):
        customer = Customer.objects.create(
            team=team, owner=user, company=f"Bench customer {n}", default_currency="CNY"
        )
        projects.append(Project.objects.create(customer=customer, name=f"Cluster {n}", owner=user))

    quotes_bulk(count=quotes - 1, user=user, projects=projects)

    design = design_save(
        project=projects[0],
        name="128 GPUs",
        user=user,
        requirements={
            "server_count": 16,
            "gpus_per_server": 8,
            "nic_generation": "NDR",
            "switch_part_number": "MQM9790-NS2F",
            "subnet_manager": "on-switch",
            "label": projects[0].customer.company,
        },
    )
    quote = quote_create_from_design(project=projects[0], design=design, user=user)
    revision = quote.current_revision
    have = revision.lines.count()
    products = list(Product.objects.order_by("part_number"))
    QuoteLine.objects.bulk_create(
        QuoteLine(
            revision=revision,
            position=have + n,
            section=Section.NETWORK,
            kind=LineKind.PRODUCT,
            product=products[n % len(products)],
            sku=products[n % len(products)].part_number,
            description=products[n % len(products)].name[:500],
            quantity=1 + n % 7,
            unit_price=Decimal("1234.56"),
        )
        for n in range(1, QUOTE_LINES - have + 1)
    )
    quote.refresh_from_db()
    quote_send(quote=quote, user=user, expected_version=quote.version)
    _, share_token = share_link_create(quote=quote, user=user, recipient_name="Bench reader")
    # Its PDF rendered here, as a worker would have: the share page is measured as customers
    # see it days after sending (download ready), not while the PDF is being made.
    document = proposal_request(revision=quote.current_revision, user=user)
    proposal_render(document_id=document.pk)
    _, api_token = api_token_issue(user=user, scope=TokenScope.READ, name="bench")
    browser = Client()
    browser.force_login(user)
    session = browser.cookies[settings.SESSION_COOKIE_NAME].value
    _analyze()
    return Seeded(
        quote_id=quote.pk,
        quote_number=quote.number,
        share_token=share_token,
        session_cookie=f"{settings.SESSION_COOKIE_NAME}={session}",
        api_token=api_token,
        user_id=user.pk,
        projects=projects,
    )


# Drafts, sent, answered and expired quotes, as a real list holds them.
STATUS_CYCLE = ("draft", "sent", "sent", "accepted", "declined", "expired", "draft", "sent")
BATCH = 2000


def quotes_bulk(*, count: int, user, projects) -> None:
    """`count` more quotes, numbered in the series after the existing ones, in bulk: a revision
    each (frozen with stored totals unless a draft; drafts get three lines)."""
    from django.db import transaction
    from django.db.models import OuterRef, Subquery
    from django.utils import timezone

    from quoting.conf import quoting_setting
    from quoting.quotes.models import (
        LineKind,
        Quote,
        QuoteCounter,
        QuoteLine,
        QuoteRevision,
        Section,
    )

    if count <= 0:
        return
    series = quoting_setting("QUOTING_NUMBER_SERIES")
    today, now = timezone.localdate(), timezone.now()
    with transaction.atomic():
        QuoteCounter.objects.get_or_create(series=series, year=today.year)
        counter = QuoteCounter.objects.select_for_update().get(series=series, year=today.year)
        first, counter.last = counter.last + 1, counter.last + count
        counter.save(update_fields=["last"])
        for start in range(first, first + count, BATCH):
            seqs = range(start, min(start + BATCH, first + count))
            quotes = Quote.objects.bulk_create(
                Quote(
                    number=f"{series}-{today.year}-{seq:05d}",
                    series=series,
                    year=today.year,
                    seq=seq,
                    customer=projects[seq % len(projects)].customer,
                    project=projects[seq % len(projects)],
                    owner=user,
                    currency="CNY",
                    status=STATUS_CYCLE[seq % len(STATUS_CYCLE)],
                    valid_until=today
                    + dt.timedelta(days=-5 if seq % len(STATUS_CYCLE) == 5 else 30),
                )
                for seq in seqs
            )
            revisions = QuoteRevision.objects.bulk_create(
                _revision_bulk(quote, user=user, now=now) for quote in quotes
            )
            QuoteLine.objects.bulk_create(
                QuoteLine(
                    revision=revision,
                    position=n,
                    section=Section.NETWORK,
                    kind=LineKind.FREE_TEXT,
                    sku=f"BULK-{n}",
                    description=f"Cable bundle {n}",
                    quantity=n,
                    unit_price=Decimal("999.00"),
                )
                for revision in revisions
                if revision.frozen_at is None
                for n in (1, 2, 3)
            )
        Quote.objects.filter(
            series=series, year=today.year, seq__gte=first, current_revision__isnull=True
        ).update(
            current_revision=Subquery(
                QuoteRevision.objects.filter(quote=OuterRef("pk"), number=1).values("pk")[:1]
            )
        )
    _analyze()


def _revision_bulk(quote, *, user, now):
    from quoting.quotes.models import QuoteRevision

    revision = QuoteRevision(quote=quote, number=1, created_by=user, tax_percent=Decimal(13))
    if quote.status != "draft":
        net = Decimal(1000 + quote.seq % 997) * 100
        revision.frozen_at = revision.sent_at = now
        revision.subtotal, revision.discount_amount, revision.net = net, Decimal(0), net
        revision.tax_amount = net * Decimal("0.13")
        revision.total = net + revision.tax_amount
    return revision


def _analyze() -> None:
    """Planner statistics as a running database has them (autovacuum lags behind bulk loads)."""
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    connection.close()


# --- measuring ----------------------------------------------------------------------------------


@dataclass
class Target:
    name: str
    server: str  # "bare" or "portal"
    path: str
    headers: dict
    expect: bytes  # in the body of a good answer


@dataclass
class Result:
    target: Target
    load: Load
    single_p50_ms: float
    floor_rps: float = float("nan")  # the bare 50-row page's req/s around this measurement


def targets_make(seeded: Seeded) -> list[Target]:
    https = {"X-Forwarded-Proto": "https"}  # production redirects plain http; a proxy sets this
    browser = {**https, "Cookie": seeded.session_cookie}
    api = {**https, "Authorization": f"Bearer {seeded.api_token}", "Accept": "application/json"}
    number = seeded.quote_number.encode()
    series = seeded.quote_number.rsplit("-", 1)[0].encode()  # lists: newer quotes come first
    return [
        Target("bare Django: hello", "bare", "/hello/", {}, b"Hello"),
        Target(FLOOR, "bare", "/rows/", {}, b"MCP4Y10-N050"),
        Target(
            "share page /p/<token>, 200-line quote",
            "portal",
            f"/p/{seeded.share_token}",
            https,
            number,
        ),
        Target(QUOTE_PAGE, "portal", f"/quotes/{seeded.quote_id}/", browser, number),
        Target("quote list, signed in", "portal", "/quotes/", browser, series),
        Target("API quote detail", "portal", f"/api/v1/quotes/{seeded.quote_id}/", api, number),
        Target("API quote list", "portal", "/api/v1/quotes/", api, series),
    ]


def measure(
    target: Target, server: Server, *, wrk: str, seconds: int, warmup: int, singles: int
) -> Result:
    status, body, _ = http_get(server.port, target.path, target.headers)
    if status != 200 or target.expect not in body:
        raise RuntimeError(
            f"{target.name}: {target.path} answered {status}, not the expected page:\n"
            f"{body[:600].decode(errors='replace')}\n{_tail(server.log)}"
        )
    url = f"http://127.0.0.1:{server.port}{target.path}"
    if warmup > 0:
        wrk_run(wrk, url, target.headers, warmup)  # both workers warm, caches filled
    samples = []
    for _ in range(singles):
        status, _, ms = http_get(server.port, target.path, target.headers)
        if status != 200:
            raise RuntimeError(f"{target.name}: {status} on a single request")
        samples.append(ms)
    single = statistics.median(samples) if samples else float("nan")
    return Result(target, wrk_run(wrk, url, target.headers, seconds), single)


def measure_all(
    targets: list[Target], servers: dict[str, Server], floor: Target, measuring: dict
) -> tuple[list[Result], list[float]]:
    """Every target; each portal page between two runs of the floor, its ratio to their mean.

    On a shared machine the floor itself moves (2x within minutes): a ratio to the floor
    measured around the page is the figure that holds still."""
    results: list[Result] = []
    floors: list[float] = []

    def floor_run() -> float:
        again = measure(floor, servers["bare"], **{**measuring, "warmup": 0, "singles": 0})
        floors.append(again.load.rps)
        return again.load.rps

    for target in targets:
        if target.server == "bare":
            results.append(measure(target, servers["bare"], **measuring))
            if target is floor:
                floors.append(results[-1].load.rps)
            continue
        before = floors[-1] if floors else floor_run()
        result = measure(target, servers[target.server], **measuring)
        result.floor_rps = (before + floor_run()) / 2
        results.append(result)
    for result in results:
        if result.target.server == "bare":
            result.floor_rps = floors[0]
    return results, floors


def load_average() -> str:
    one, five, _ = os.getloadavg()
    return f"{one:.1f} (1 min), {five:.1f} (5 min)"


def milliseconds(value: float) -> str:
    return f"{value / 1000:.2f} s" if value >= 1000 else f"{value:.1f} ms"


def table_print(results: list[Result], floors: list[float]) -> None:
    print(
        f"| {'target':<40} | {'req/s':>8} | {'p50':>9} | {'p99':>9} | {'single p50':>10} | "
        f"{'x bare 50-row':>13} | {'errors':>6} |"
    )
    print(f"|{'-' * 42}|{'-' * 10}:|{'-' * 10}:|{'-' * 10}:|{'-' * 11}:|{'-' * 14}:|{'-' * 7}:|")
    for result in results:
        load = result.load
        ratio = load.rps / result.floor_rps if result.floor_rps else float("nan")
        print(
            f"| {result.target.name:<40} | {load.rps:>8,.0f} | {milliseconds(load.p50_ms):>9} | "
            f"{milliseconds(load.p99_ms):>9} | {milliseconds(result.single_p50_ms):>10} | "
            f"{ratio:>13.2f} | {load.errors:>6} |"
        )
    print(
        f"The bare 50-row page was measured {len(floors)} times, between the pages: "
        f"{min(floors):,.0f} to {max(floors):,.0f} req/s (median "
        f"{statistics.median(floors):,.0f}); each page's ratio is to the two runs around it."
    )


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def targets_print(by_name: dict[str, Result]) -> None:
    print("\nIssue 12 item 5 targets (ratios to the bare 50-row page of this run; informational):")
    for name, least in RATIO_TARGETS.items():
        ratio = by_name[name].load.rps / by_name[name].floor_rps
        print(f"  {name:<40} >= {least:.2f}x   {ratio:5.2f}x   {verdict(ratio >= least)}")
    single = by_name[QUOTE_PAGE].single_p50_ms
    print(
        f"  {'quote page, single request p50':<40} < {QUOTE_PAGE_P50_MS:.0f} ms  "
        f"{milliseconds(single):>9}   {verdict(single < QUOTE_PAGE_P50_MS)}"
    )


def lists_compare(
    before: dict[str, Result], after: dict[str, Result], counts: tuple[int, int]
) -> None:
    print(
        f"\nQuote lists with {counts[0]:,} and {counts[1]:,} quotes (the issue: within 2x; "
        f"judged on req/s as a share of the floor, under load time is its inverse):"
    )
    for name in LIST_TARGETS:
        old, new = before[name], after[name]
        share_old, share_new = (r.load.rps / r.floor_rps for r in (old, new))
        slower = share_old / share_new if share_new else float("inf")
        single = new.single_p50_ms / old.single_p50_ms
        print(
            f"  {name:<24} req/s {old.load.rps:,.0f} -> {new.load.rps:,.0f}, "
            f"{share_old:.2f}x -> {share_new:.2f}x the floor ({slower:.2f}x slower); single "
            f"p50 {milliseconds(old.single_p50_ms)} -> {milliseconds(new.single_p50_ms)} "
            f"({single:.2f}x)   {verdict(slower <= 2)}"
        )


def log_print(server: Server) -> None:
    """Errors the server logged while measured: a fast page that fails is no figure."""
    lines = server.log.read_text(errors="replace").splitlines()
    errors = [line for line in lines if " ERROR " in line or "Traceback" in line]
    print(f"\n{server.name} log: {len(lines)} lines, {len(errors)} errors")
    for line in errors[:5]:
        print(f"  {line[:200]}")


# --- the run ------------------------------------------------------------------------------------


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quotes",
        default="100",
        help="quotes in the list: N, or N,M to measure the lists again with M",
    )
    parser.add_argument("--duration", type=int, default=5, help="seconds of load per page")
    parser.add_argument("--warmup", type=int, default=1, help="seconds of load before each")
    parser.add_argument(
        "--singles",
        type=int,
        default=15,
        help="single requests, one at a time, per page (their p50 is printed)",
    )
    parser.add_argument("--workers", type=int, default=2, help="gunicorn sync workers")
    parser.add_argument(
        "--keep-db",
        action="store_true",
        help="keep the bench_... PostgreSQL database after the run",
    )
    args = parser.parse_args()
    args.counts = tuple(int(n) for n in args.quotes.split(","))
    if (
        not 1 <= len(args.counts) <= 2
        or args.counts[0] < 1
        or sorted(args.counts) != list(args.counts)
    ):
        parser.error("--quotes is N or N,M with 1 <= N <= M")
    if not (1 <= args.duration <= 120 and 0 <= args.warmup <= 30 and 1 <= args.singles <= 200):
        parser.error("--duration 1..120 s, --warmup 0..30 s, --singles 1..200")
    return args


def main() -> None:
    args = arguments()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # run the clean-up on kill too
    wrk = wrk_ensure()
    database_url = os.environ.get("DATABASE_URL", "")
    with (
        tempfile.TemporaryDirectory(prefix="fq-bench-web-") as tmp_name,
        contextlib.ExitStack() as cleanup,
    ):
        tmp = Path(tmp_name)
        env = portal_environment(tmp)
        if database_url:
            owned = database_prepare(database_url, keep=args.keep_db)
            if owned:
                cleanup.callback(database_drop, database_url, owned)
        import django

        django.setup()
        started = time.monotonic()
        seeded = seed(quotes=args.counts[0])
        print(f"seeded {args.counts[0]:,} quotes in {time.monotonic() - started:.0f} s", flush=True)
        bare_dir = bare_project_build(tmp / "bare")
        servers = {
            "bare": cleanup.enter_context(
                gunicorn(
                    name="bare Django",
                    app="bare.wsgi",
                    cwd=bare_dir,
                    workers=args.workers,
                    env={**_env_without_django(), "DJANGO_SETTINGS_MODULE": "bare.settings"},
                    log=tmp / "bare.log",
                    ready_path="/hello/",
                )
            ),
            "portal": cleanup.enter_context(
                gunicorn(
                    name="FabricQuote",
                    app="portal.wsgi",
                    cwd=ROOT,
                    workers=args.workers,
                    env=env,
                    log=tmp / "portal.log",
                    ready_path="/healthz",
                )
            ),
        }
        measuring = {
            "wrk": wrk,
            "seconds": args.duration,
            "warmup": args.warmup,
            "singles": args.singles,
        }
        database = (
            f"PostgreSQL {database_url.rsplit('/', 1)[-1]}"
            if database_url
            else "SQLite (throw-away)"
        )
        print(
            f"\ngunicorn {args.workers} sync workers each, production settings; wrk "
            f"{WRK_THREADS} threads x {CONNECTIONS} connections x {args.duration:g} s per page "
            f"(+{args.warmup:g} s warm-up); {database}; Redis "
            f"{'yes' if os.environ.get('REDIS_URL') else 'no (local memory cache)'}; "
            f"{os.cpu_count()} CPUs; {args.counts[0]:,} quotes; load average "
            f"{load_average()}",
            flush=True,
        )
        targets = targets_make(seeded)
        floor = next(t for t in targets if t.name == FLOOR)
        results, floors = measure_all(targets, servers, floor, measuring)
        by_name = {r.target.name: r for r in results}
        print()
        table_print(results, floors)
        targets_print(by_name)
        print(f"load average after: {load_average()}")

        if len(args.counts) == 2:
            from portal.models import User

            started = time.monotonic()
            quotes_bulk(
                count=args.counts[1] - args.counts[0],
                user=User.objects.get(pk=seeded.user_id),
                projects=seeded.projects,
            )
            print(
                f"\nseeded up to {args.counts[1]:,} quotes in "
                f"{time.monotonic() - started:.0f} s; load average {load_average()}",
                flush=True,
            )
            again, floors = measure_all(
                [t for t in targets if t.name in LIST_TARGETS], servers, floor, measuring
            )
            print()
            table_print(again, floors)
            lists_compare(by_name, {r.target.name: r for r in again}, args.counts)
        log_print(servers["portal"])
        print(
            textwrap.dedent("""
            Figures from a shared machine: compare ratios within one run, not raw req/s across
            runs. errors = non-2xx answers and socket errors seen by wrk (should be 0).""")
        )


if __name__ == "__main__":
    main()
