"""What a reload of gunicorn costs the requests in flight: a HUP without preload (the former
command line) next to gunicorn.conf.py's preload, with a HUP and with bin/web-reload.

Run: .venv/bin/python bench/bench_web_reload.py [--rounds 3] [--clients 2] [--after 8]

Issue 28, item 6: "A graceful gunicorn reload stalls every request for about 3.5 s while new
workers import the application." Each scenario starts its own gunicorn (3 sync workers by
default, production settings, a spare loopback port), lets --clients loops request /healthz one
after another for 2 s, triggers the reload and goes on for --after seconds (and at most
--max-requests requests). It prints, per scenario, the requests and failures (an error or any
answer but 200) after the trigger and their p50, p99 and worst latency, next to the worst
before it. The scenarios:

- HUP, no preload: `gunicorn portal.wsgi --workers 3`, as the Dockerfile ran it before. gunicorn
  starts new workers, which import the application, and stops the old ones at once: requests
  wait in the socket's backlog until a new worker has imported Django and the URLconf.
- HUP, gunicorn.conf.py: the workers are forked from the preloaded, warmed master and answer at
  once, but keep the code the master imported at start.
- bin/web-reload, gunicorn.conf.py: USR2 (a second master imports the code now on disk), then
  TERM to the old master once the new workers are up: the way to deploy new code.

Like bench/bench_web.py: production settings with DATABASE_URL and REDIS_URL from the
environment, a throw-away SQLite file without DATABASE_URL (a bench_... PostgreSQL database is
created and dropped). gunicorn is started through its `gunicorn` script, not `python -m
gunicorn` (see bin/web-reload). Every server is stopped and every temporary file removed on the
way out, also on errors and Ctrl-C. Latencies on a shared machine are noisy: run a few --rounds.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_web import (  # noqa: E402
    ROOT,
    database_drop,
    database_prepare,
    free_port,
    load_average,
    milliseconds,
    portal_environment,
)

GUNICORN = str(Path(sys.executable).with_name("gunicorn"))
HEADERS = {"X-Forwarded-Proto": "https"}  # as the TLS proxy marks them (SECURE_SSL_REDIRECT)
LEAD_SECONDS = 2.0


@dataclass
class Scenario:
    name: str
    config: bool  # with gunicorn.conf.py, else the former inline flags
    trigger: str  # "hup" or "web-reload"


SCENARIOS = [
    Scenario("HUP, no preload (before)", config=False, trigger="hup"),
    Scenario("HUP, gunicorn.conf.py (old code)", config=True, trigger="hup"),
    Scenario("bin/web-reload, gunicorn.conf.py", config=True, trigger="web-reload"),
]


@dataclass
class Sample:
    started: float  # time.monotonic()
    ms: float
    failure: str  # "" when it answered 200


@dataclass
class Outcome:
    scenario: Scenario
    before: list[Sample]
    after: list[Sample]
    reload_seconds: float  # how long bin/web-reload took (0 for a HUP)


# --- the server ---------------------------------------------------------------------------------


@contextlib.contextmanager
def gunicorn(
    scenario: Scenario, *, env: dict, workers: int, log: Path, pidfile: Path
) -> Iterator[tuple[subprocess.Popen, int]]:
    """gunicorn on a spare loopback port in its own process group; everything in that group (a
    new master from USR2 too) is stopped on exit."""
    from gunicorn import config

    port = free_port()
    if scenario.config:
        argv = [GUNICORN, "-c", str(ROOT / "gunicorn.conf.py"), "portal.wsgi"]
    else:  # the Dockerfile's CMD before gunicorn.conf.py, which gunicorn would find in ROOT
        empty = log.with_name("no-config.py")
        empty.write_text("# the former command line: no gunicorn.conf.py\n")
        argv = [GUNICORN, "-c", str(empty), "portal.wsgi", "--access-logfile", "-"]
        if "control_socket_disable" in config.Config().settings:  # gunicorn 25.1+, per user
            argv.append("--no-control-socket")
    argv += ["--bind", f"127.0.0.1:{port}", "--workers", str(workers)]
    with log.open("wb") as sink:
        process = subprocess.Popen(
            argv,
            cwd=ROOT,
            env={**env, "GUNICORN_PIDFILE": str(pidfile)},
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 90
        while request(port)[1]:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"gunicorn did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)
        yield process, port
    finally:
        group_stop(process)


def group_stop(process: subprocess.Popen) -> None:
    for sig, seconds in ((signal.SIGTERM, 30), (signal.SIGKILL, 10)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            process.poll()  # reap the first master, which would keep the group alive as a zombie
            try:
                os.killpg(process.pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.1)


def request(port: int) -> tuple[float, str]:
    """GET /healthz on a fresh connection: (ms, failure or "")."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    started = time.perf_counter()
    try:
        connection.request("GET", "/healthz", headers=HEADERS)
        response = connection.getresponse()
        response.read()
        failure = "" if response.status == 200 else f"HTTP {response.status}"
    except (OSError, http.client.HTTPException) as exc:
        failure = exc.__class__.__name__
    finally:
        connection.close()
    return (time.perf_counter() - started) * 1000, failure


# --- a round ------------------------------------------------------------------------------------


def run(scenario: Scenario, *, env: dict, tmp: Path, args: argparse.Namespace) -> Outcome:
    pidfile = tmp / f"gunicorn-{scenario.trigger}.pid"
    with gunicorn(
        scenario, env=env, workers=args.workers, log=tmp / "gunicorn.log", pidfile=pidfile
    ) as (process, port):
        samples: list[Sample] = []
        stop = threading.Event()

        def client() -> None:
            while not stop.is_set() and len(samples) < args.max_requests:
                started = time.monotonic()
                ms, failure = request(port)
                samples.append(Sample(started, ms, failure))

        clients = [threading.Thread(target=client, daemon=True) for _ in range(args.clients)]
        for thread in clients:
            thread.start()
        time.sleep(LEAD_SECONDS)
        trigger = time.monotonic()
        reload_seconds = 0.0
        if scenario.trigger == "hup":
            os.kill(process.pid, signal.SIGHUP)
        else:
            done = subprocess.run(
                [sys.executable, str(ROOT / "bin" / "web-reload"), str(pidfile)],
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            reload_seconds = time.monotonic() - trigger
            if done.returncode:
                stop.set()
                raise RuntimeError(f"bin/web-reload failed: {done.stderr}")
        time.sleep(max(0.0, trigger + args.after - time.monotonic()))
        stop.set()
        for thread in clients:
            thread.join(timeout=40)
    return Outcome(
        scenario,
        [s for s in samples if s.started < trigger],
        [s for s in samples if s.started >= trigger],
        reload_seconds,
    )


# --- the report ---------------------------------------------------------------------------------


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def table_print(outcomes: list[Outcome]) -> None:
    print(
        f"\n{'scenario':<34} {'round':>5} {'requests':>9} {'failed':>7} {'p50':>9} {'p99':>9} "
        f"{'worst':>9} {'worst before':>13} {'reload took':>12}"
    )
    for number, outcome in enumerate(outcomes):
        ms = [s.ms for s in outcome.after]
        took = f"{outcome.reload_seconds:.1f} s" if outcome.reload_seconds else "-"
        print(
            f"{outcome.scenario.name:<34} {number // len(SCENARIOS) + 1:>5} {len(ms):>9,} "
            f"{sum(1 for s in outcome.after if s.failure):>7} "
            f"{milliseconds(percentile(ms, 0.5)):>9} {milliseconds(percentile(ms, 0.99)):>9} "
            f"{milliseconds(max(ms, default=0)):>9} "
            f"{milliseconds(max((s.ms for s in outcome.before), default=0)):>13} {took:>12}"
        )
    failures = [(o.scenario.name, s.failure) for o in outcomes for s in o.after if s.failure]
    for name, failure in failures[:5]:
        print(f"  failed: {name}: {failure}")


def summary_print(outcomes: list[Outcome]) -> None:
    print("\nOver all rounds (worst latency after the trigger; failed requests):")
    for scenario in SCENARIOS:
        mine = [o for o in outcomes if o.scenario is scenario]
        worst = [max((s.ms for s in o.after), default=0) for o in mine]
        failed = sum(1 for o in mine for s in o.after if s.failure)
        print(
            f"  {scenario.name:<34} worst {milliseconds(max(worst))} (median of rounds "
            f"{milliseconds(statistics.median(worst))}), {failed} failed"
        )


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=1, help="times each scenario is run")
    parser.add_argument("--clients", type=int, default=2, help="request loops, one after another")
    parser.add_argument(
        "--after", type=float, default=8.0, help="seconds of requests after the trigger"
    )
    parser.add_argument("--max-requests", type=int, default=50_000, help="per scenario, at most")
    parser.add_argument("--workers", type=int, default=3, help="gunicorn sync workers")
    parser.add_argument(
        "--keep-db",
        action="store_true",
        help="keep the bench_... PostgreSQL database after the run",
    )
    args = parser.parse_args()
    if not (
        1 <= args.rounds <= 10
        and 1 <= args.clients <= 16
        and 1 <= args.after <= 60
        and 1 <= args.workers <= 16
    ):
        parser.error("--rounds 1..10, --clients 1..16, --after 1..60 s, --workers 1..16")
    return args


def main() -> None:
    args = arguments()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # run the clean-up on kill too
    database_url = os.environ.get("DATABASE_URL", "")
    with (
        tempfile.TemporaryDirectory(prefix="fq-bench-reload-") as tmp_name,
        contextlib.ExitStack() as cleanup,
    ):
        tmp = Path(tmp_name)
        env = portal_environment(tmp)
        if database_url:
            owned = database_prepare(database_url, keep=args.keep_db)
            if owned:
                cleanup.callback(database_drop, database_url, owned)
        import gunicorn as gunicorn_package

        database = (
            f"PostgreSQL {database_url.rsplit('/', 1)[-1]}"
            if database_url
            else "SQLite (throw-away)"
        )
        print(
            f"gunicorn {gunicorn_package.__version__}, {args.workers} sync workers, "
            f"production settings; {args.clients} client loops on /healthz, "
            f"{LEAD_SECONDS:g} s before the reload and {args.after:g} s after; {database}; "
            f"Redis {'yes' if os.environ.get('REDIS_URL') else 'no'}; {os.cpu_count()} CPUs; "
            f"load average {load_average()}",
            flush=True,
        )
        outcomes = []
        for number in range(args.rounds):
            for scenario in SCENARIOS:
                outcomes.append(run(scenario, env=env, tmp=tmp, args=args))
                print(f"  round {number + 1}: {scenario.name} done", flush=True)
        table_print(outcomes)
        summary_print(outcomes)
        print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
