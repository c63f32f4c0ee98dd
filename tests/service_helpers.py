"""Real service processes for tests: a Celery worker subprocess on the real Redis."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@contextlib.contextmanager
def celery_worker(
    *,
    redis_url: str,
    database_url: str | None = None,
    concurrency: int = 1,
    queue: str | None = None,
    extra_env: dict | None = None,
) -> Iterator[tuple[subprocess.Popen, str]]:
    """Start `celery -A portal worker` (prefork) on its own queue; stop it on exit.

    Yields the process and the queue name; send tasks with `queue=` so that no other worker on
    the machine picks them up.
    """
    queue = queue or f"test-{uuid.uuid4().hex[:10]}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "portal.settings.base",
        "REDIS_URL": redis_url,
        "DEBUG": "true",
        **(extra_env or {}),
    }
    if database_url:
        env["DATABASE_URL"] = database_url
    process = subprocess.Popen(  # noqa: S603 - fixed argv, our own interpreter
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "portal",
            "worker",
            "--pool",
            "prefork",
            "--concurrency",
            str(concurrency),
            "--queues",
            queue,
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "--loglevel",
            "WARNING",
            "--hostname",
            f"{queue}@%h",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # a process group of its own, for process_stop
    )
    try:
        yield process, queue
    finally:
        process_stop(process)


def process_stop(process: subprocess.Popen) -> None:
    """KILL to the process group of `process` (started with start_new_session): a Celery worker
    and its pool, or gunicorn and its worker. The test is done with them and nothing in them is
    worth a graceful stop, which took 1.5-3 s each (a worker's warm shutdown closing its pool,
    gunicorn's master waiting for its worker). Returns once every process of the group has died
    (the sockets they held closed)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=10)
    if not wait_for(lambda: not _group_running(process.pid), timeout=10, interval=0.02):
        raise RuntimeError(f"process group {process.pid} outlived a KILL")


def _group_running(group: int) -> bool:
    """Whether a process of `group` is still running. A zombie has died and closed its files:
    it waits to be reaped, an orphan by PID 1, which here took 1.4 s after the KILL."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:  # "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses
            state, _ppid, pgrp = stat.read_text().rsplit(")", 1)[1].split()[:3]
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile
        if int(pgrp) == group and state != "Z":
            return True
    return False


def wait_for(predicate, *, timeout: float, interval: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()


# serve_forever() looks for a shutdown() request once per poll, every half second by default:
# closing a loopback server (a webhook receiver, a timestamp authority) cost its test up to half
# a second.
SHUTDOWN_POLL_SECONDS = 0.05


def serve_in_background(server) -> threading.Thread:
    """Serves `server` (a socketserver, e.g. an http.server.ThreadingHTTPServer) in a daemon
    thread; its shutdown() returns within SHUTDOWN_POLL_SECONDS."""
    thread = threading.Thread(
        target=server.serve_forever, args=(SHUTDOWN_POLL_SECONDS,), daemon=True
    )
    thread.start()
    return thread


# --- throwaway services and a live server, for the fault tests -----------------------------------

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class ThrowawayRedis:
    """A redis-server of our own on a spare loopback port, to stop and start again at will."""

    def __init__(self, directory: Path):
        self.port, self.directory = free_port(), directory
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> ThrowawayRedis:
        import redis

        self.process = subprocess.Popen(  # noqa: S603 - fixed argv
            [
                REDIS_SERVER,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.directory),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis.from_url(self.url, socket_connect_timeout=1)

        def answers() -> bool:
            try:
                return bool(client.ping())
            except redis.RedisError:
                return False

        if not wait_for(answers, timeout=20):
            raise RuntimeError(f"redis-server on port {self.port} did not start")
        return self

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=20)
        self.process = None


def django_env(**variables: str) -> dict[str, str]:
    """The environment of a portal subprocess: base settings, DEBUG off, nothing inherited that
    would point it at the suite's own services."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "DEBUG")
    }
    return {
        **env,
        "DJANGO_SETTINGS_MODULE": "portal.settings.base",
        "DEBUG": "false",
        "PYTHONPATH": str(ROOT),
        **variables,
    }


def run_django(code: str, env: dict[str, str], timeout: float = 120) -> str:
    """Run `code` in a fresh interpreter after django.setup(); returns its stdout."""
    done = subprocess.run(  # noqa: S603 - our own interpreter and code
        [sys.executable, "-c", f"import django; django.setup()\n{code}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode:
        raise RuntimeError(f"subprocess failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


MIGRATE = "from django.core.management import call_command; call_command('migrate', verbosity=0)"


def sqlite_migrate(database: Path, env: dict[str, str]) -> None:
    """`migrate` into the new SQLite file `database` (a portal subprocess's, `env`): a copy of
    one migrated once per fingerprint of the migrations (tests/database_template.py), kept in
    var/test-cache/. A migrate in a fresh interpreter took 10-30 s of each fault drill."""
    from django.conf import settings

    from tests.database_template import fingerprint

    cache = Path(settings.VAR_DIR) / "test-cache"
    kept = cache / f"sqlite-migrated-{fingerprint()}.sqlite3"
    if not kept.exists():
        cache.mkdir(parents=True, exist_ok=True)
        building = cache / f"sqlite-migrating-{os.getpid()}.tmp"
        run_django(MIGRATE, {**env, "DATABASE_URL": f"sqlite:///{building}"})
        for stale in cache.glob("sqlite-migrated-*.sqlite3"):
            if stale != kept:  # the other xdist worker may have just made it and be copying it
                stale.unlink(missing_ok=True)
        os.replace(building, kept)  # whole or not at all, for the other xdist worker
    shutil.copyfile(kept, database)


@contextlib.contextmanager
def live_gunicorn(env: dict[str, str], log: Path) -> Iterator[str]:
    """`gunicorn portal.wsgi` (one worker, access log on) on a spare loopback port; yields its
    base URL. Everything it logs goes to `log`."""
    import http.client

    from gunicorn import config

    port = free_port()
    if not env.get("GUNICORN_PIDFILE") and not env.get("FABRICQUOTE_VAR_DIR"):
        # gunicorn.conf.py writes a pidfile: never the checkout's var/gunicorn.pid, which other
        # tests (pytest-xdist workers) and a developer's own gunicorn would share.
        env = {**env, "GUNICORN_PIDFILE": str(log.with_suffix(".pid"))}
    # Newer gunicorns open a control socket in $HOME: one per machine, so not for tests.
    quiet = ["--no-control-socket"] if "control_socket_disable" in config.Config().settings else []
    with open(log, "w") as sink:
        process = subprocess.Popen(  # noqa: S603 - fixed argv, our own interpreter
            [
                sys.executable,
                "-m",
                "gunicorn",
                "portal.wsgi",
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                "1",
                "--timeout",
                "60",
                "--access-logfile",
                "-",
                "--error-logfile",
                "-",
                *quiet,
            ],
            cwd=ROOT,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # a process group of its own, for process_stop
        )

    def listening() -> bool:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", "/static/none")
            connection.getresponse().read()
            return True
        except OSError:
            return process.poll() is not None  # died: stop waiting, the caller sees it

    try:
        if not wait_for(listening, timeout=60, interval=0.3) or process.poll() is not None:
            raise RuntimeError(f"gunicorn did not start:\n{log.read_text()}")
        yield f"http://127.0.0.1:{port}"
    finally:
        process_stop(process)


def http_call(
    base: str,
    method: str,
    path: str,
    *,
    headers: dict | None = None,
    body: bytes | None = None,
    timeout: float = 60,
):
    """One request, as sent (the path is not re-encoded); returns (status, headers, body,
    seconds)."""
    import http.client
    from urllib.parse import urlsplit

    url = urlsplit(base)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=timeout)
    started = time.monotonic()
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        data = response.read()
    finally:
        connection.close()
    return response.status, dict(response.getheaders()), data, time.monotonic() - started


class TcpProxy:
    """A loopback TCP forwarder to `target` that can be cut (every connection dropped, nothing
    listening) and opened again on the same port: a database outage without touching the
    database."""

    def __init__(self, target_host: str, target_port: int):
        self.target = (target_host, target_port)
        self.port = free_port()
        self._listener = None
        self._connections: set = set()
        self._lock = threading.Lock()

    def open(self) -> TcpProxy:
        import socket

        self._listener = socket.create_server(("127.0.0.1", self.port))
        self._listener.settimeout(0.2)
        threading.Thread(target=self._accept, args=(self._listener,), daemon=True).start()
        return self

    def _accept(self, listener) -> None:
        import socket

        while True:
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:  # closed by cut()
                return
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            with self._lock:
                kept = self._listener is listener  # not cut since accept() returned
                if kept:
                    self._connections.update((client, upstream))
            if not kept:
                self._hang_up(client, upstream)
                return
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @classmethod
    def _pump(cls, source, sink) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            cls._hang_up(source, sink)

    @staticmethod
    def _hang_up(*ends) -> None:
        """Shut down, then close: close() alone neither wakes the other pump's recv() on the
        socket nor sends the far end a FIN while that recv() holds it, which left PostgreSQL
        a session to the test database after the client had gone (its teardown then failed:
        "database is being accessed by other users")."""
        import socket

        for end in ends:
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                end.close()

    def cut(self) -> None:
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        with self._lock:
            connections, self._connections = self._connections, set()
        self._hang_up(*connections)
