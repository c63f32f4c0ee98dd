"""gunicorn.conf.py and bin/web-reload (issue 28, item 6: a graceful reload stalled every request
for about 3.5 s while the new workers imported the application).

The configuration preloads the application, and it is what the Dockerfile and docker-compose.yml
run. A live gunicorn shows what that means: a HUP keeps the code the master imported, and
bin/web-reload brings the code on disk in without a single request failing. How long requests
wait is measured in bench/bench_web_reload.py, not here.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import yaml

from tests.service_helpers import (
    ROOT,
    django_env,
    free_port,
    http_call,
    process_stop,
    wait_for,
)

CONF = ROOT / "gunicorn.conf.py"
GUNICORN = Path(sys.executable).with_name("gunicorn")  # not `python -m gunicorn`: see web-reload
NEWER_SETTINGS = {"control_socket_disable"}  # unknown to gunicorn 23/24, which skip it


def _gunicorn_config(monkeypatch, **env: str):
    """The settings gunicorn would run with: `gunicorn -c gunicorn.conf.py portal.wsgi`."""
    from gunicorn.app.wsgiapp import WSGIApplication

    for name in ("WEB_CONCURRENCY", "GUNICORN_PIDFILE", "GUNICORN_CMD_ARGS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "argv", ["gunicorn", "-c", str(CONF), "portal.wsgi"])
    monkeypatch.chdir(ROOT)
    return WSGIApplication("%(prog)s [OPTIONS] [APP_MODULE]", prog="gunicorn")


def test_gunicorn_conf_preloads_three_workers_on_port_8000(monkeypatch, tmp_path):
    app = _gunicorn_config(monkeypatch, FABRICQUOTE_VAR_DIR=str(tmp_path))
    cfg = app.cfg
    assert cfg.preload_app is True
    assert cfg.bind == ["0.0.0.0:8000"]
    assert cfg.workers == 3
    assert cfg.accesslog == "-"
    assert cfg.pidfile == str(tmp_path / "gunicorn.pid")
    assert cfg.when_ready.__module__ == "__config__"  # the warm-up hook, not gunicorn's no-op

    # gunicorn skips a name it does not know without a word: a typo would go unnoticed.
    names = {
        name
        for name, value in app.get_config_from_filename(str(CONF)).items()
        if not name.startswith("_")
        and not isinstance(value, type)
        and type(value).__name__ != "module"
    }
    assert names - set(cfg.settings) - NEWER_SETTINGS == set()

    cfg = _gunicorn_config(
        monkeypatch, WEB_CONCURRENCY="5", GUNICORN_PIDFILE=str(tmp_path / "web.pid")
    ).cfg
    assert (cfg.workers, cfg.pidfile) == (5, str(tmp_path / "web.pid"))


def test_dockerfile_and_compose_run_gunicorn_with_the_config():
    command = re.search(r"^CMD (.+)$", (ROOT / "Dockerfile").read_text(), re.M).group(1)
    assert json.loads(command) == ["gunicorn", "-c", "gunicorn.conf.py", "portal.wsgi"]

    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    web = " ".join(compose["services"]["web"]["command"].split())
    # exec: gunicorn is the container's PID 1 and gets `docker compose stop`'s TERM itself.
    assert web.endswith('&& exec gunicorn -c gunicorn.conf.py portal.wsgi"'), web


# --- live -----------------------------------------------------------------------------------------

PROBE = """\
import time
from pathlib import Path

from portal.wsgi import application as portal

CODE = "{code}"
HOLD = Path(__file__).with_name("hold")


def application(environ, start_response):
    if environ["PATH_INFO"] == "/hold":  # a request in progress until the test releases it
        HOLD.with_suffix(".started").touch()
        deadline = time.monotonic() + 20
        while not HOLD.with_suffix(".released").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        start_response("200 OK", [("Content-Type", "text/plain"), ("X-Code", CODE)])
        return [b"released"]

    def start(status, headers, exc_info=None):
        return start_response(status, [*headers, ("X-Code", CODE)], exc_info)

    return portal(environ, start)
"""


def _children(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                fields = (entry / "stat").read_text().rpartition(")")[2].split()
                if int(fields[1]) == pid and fields[0] != "Z":
                    found.add(int(entry.name))
    return found


def test_a_hup_keeps_the_code_and_web_reload_brings_the_new_code_without_a_failed_request(tmp_path):
    probe = tmp_path / "reload_probe.py"
    probe.write_text(PROBE.format(code="1"))
    pidfile = tmp_path / "gunicorn.pid"
    env = django_env(
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        FABRICQUOTE_VAR_DIR=str(tmp_path),
        GUNICORN_PIDFILE=str(pidfile),
        PYTHONDONTWRITEBYTECODE="1",  # a .pyc of the same second would hide an edit
        PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}",
    )
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = tmp_path / "gunicorn.log"
    with log.open("w") as sink:
        process = subprocess.Popen(
            [
                str(GUNICORN),
                "-c",
                str(CONF),
                "reload_probe:application",
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                "2",
            ],
            cwd=ROOT,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    answers: list[tuple[float, int | str, str]] = []  # (started, status or error, X-Code)
    stop = threading.Event()

    def client() -> None:
        while not stop.is_set():
            started = time.monotonic()
            try:
                status, headers, _, _ = http_call(base, "GET", "/healthz", timeout=30)
                answers.append((started, status, headers.get("X-Code", "")))
            except (OSError, http.client.HTTPException) as exc:
                answers.append((started, exc.__class__.__name__, ""))
            time.sleep(0.02)  # a steady stream that leaves the masters some CPU

    def code_now() -> str:
        status, headers, body, _ = http_call(base, "GET", "/healthz")
        assert status == 200, body[:300]
        return headers["X-Code"]

    loop = threading.Thread(target=client, daemon=True)
    try:

        def answering() -> bool:
            try:
                return http_call(base, "GET", "/healthz", timeout=5)[0] == 200
            except (OSError, http.client.HTTPException):
                return process.poll() is not None

        assert wait_for(answering, timeout=60, interval=0.2) and process.poll() is None, (
            log.read_text()
        )
        old = int(pidfile.read_text())
        assert old == process.pid
        assert code_now() == "1"
        loop.start()

        # A HUP forks new workers from the preloaded master: the code it imported, not the file.
        probe.write_text(PROBE.format(code="2"))
        first_workers = _children(old)
        os.kill(old, signal.SIGHUP)
        assert wait_for(
            lambda: len(_children(old) - first_workers) == 2 and not _children(old) & first_workers,
            timeout=20,
        ), log.read_text()
        assert code_now() == "1"

        # A request in progress in an old worker when the old master is retired is finished.
        held: dict[str, int | str] = {}

        def hold() -> None:
            try:
                held["status"] = http_call(base, "GET", "/hold", timeout=60)[0]
            except (OSError, http.client.HTTPException) as exc:
                held["status"] = exc.__class__.__name__

        holder = threading.Thread(target=hold, daemon=True)
        holder.start()
        assert wait_for((tmp_path / "hold.started").exists, timeout=20)
        reload = subprocess.Popen(
            [sys.executable, str(ROOT / "bin" / "web-reload"), str(pidfile)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        output = []
        for line in reload.stdout:
            output.append(line)
            if "TERM sent" in line:
                (tmp_path / "hold.released").touch()
        assert reload.wait(timeout=90) == 0, f"{''.join(output)}\n{log.read_text()}"
        finished = time.monotonic()
        holder.join(timeout=30)
        assert held == {"status": 200}
        assert process.wait(timeout=10) == 0  # the old master left on its own, gracefully
        new = int(pidfile.read_text())
        assert new != old and not pidfile.with_name("gunicorn.pid.2").exists()
        assert len(_children(new)) == 2
        assert code_now() == "2"
        time.sleep(0.3)
    finally:
        stop.set()
        if loop.is_alive():
            loop.join(timeout=40)
        # KILL to gunicorn's process group (nothing in it is worth a graceful stop): the first
        # master and what it started, a second master that outlived it too.
        process_stop(process)

    failed = [(status, code) for _, status, code in answers if status != 200]
    assert failed == [], f"{len(failed)} of {len(answers)} requests failed: {failed[:5]}"
    after = [code for started, _, code in answers if started > finished]
    assert after and set(after) == {"2"}, (len(answers), set(after))
    assert len(answers) >= 20
