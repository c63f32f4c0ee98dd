"""gunicorn's settings for the portal: `gunicorn -c gunicorn.conf.py portal.wsgi` (Dockerfile,
docker-compose.yml). Command-line flags override what is set here.

The application is preloaded: the master imports and warms it once (`when_ready` below) and the
workers are forked from it ready to answer, so a HUP replaces the workers without the stall of
every new worker importing Django first (issue 28, item 6). The price: a HUP no longer loads new
code (the master keeps the modules it imported). New code is deployed with `bin/web-reload`:
USR2 starts a second master that imports the new code next to the old one, which keeps serving
until the new workers are up, then the old master is retired (docs/operations.md, "gunicorn and
reloading without a stall").
"""

import os
from pathlib import Path

bind = ["0.0.0.0:8000"]
workers = int(os.environ.get("WEB_CONCURRENCY") or 3)
accesslog = "-"  # stdout, beside the portal's own log
preload_app = True
# Where bin/web-reload finds the master; a rolling reload's second master writes "<pidfile>.2"
# until the old one has gone. Absolute (the master may change directory).
pidfile = os.environ.get("GUNICORN_PIDFILE") or str(
    Path(os.environ.get("FABRICQUOTE_VAR_DIR") or Path(__file__).resolve().parent / "var")
    / "gunicorn.pid"
)
Path(pidfile).parent.mkdir(parents=True, exist_ok=True)
# gunicorn 25.1+ opens a control socket at one path per user ($HOME/.gunicorn/gunicorn.ctl): during
# a rolling reload the old master's exit would delete the new master's socket, and nothing here
# uses it (gunicorn 23/24 ignore this setting).
control_socket_disable = True


def when_ready(server):
    """In the master, after the preload and before the first fork: finish what every worker
    would otherwise do on its first requests, so that a forked worker answers at once."""
    if not server.cfg.preload_app:
        return
    from django.conf import settings
    from django.db import connections
    from django.template import TemplateDoesNotExist
    from django.template.loader import get_template
    from django.urls import reverse
    from django.utils import translation

    # Every URL module and view (an import error stops this master here, before it serves:
    # during a rolling reload the old master then simply keeps serving).
    for language, _name in settings.LANGUAGES:  # the resolver's reverse tables are per language
        with translation.override(language):
            reverse("healthz")
    for name in ("base.html", "registration/login.html", "portal/home.html", "503.html"):
        try:
            get_template(name)  # compiled once into the cached loader, shared by all workers
        except TemplateDoesNotExist:
            server.log.warning("gunicorn.conf.py: no template %s to warm", name)
    # Nothing above queries the database, but a connection opened in the master would be one
    # socket shared by every forked worker (interleaved protocol, corrupt answers): close it.
    # Redis needs nothing: redis-py opens its connections lazily and drops a pool inherited
    # across a fork (it checks the pid).
    connections.close_all()
