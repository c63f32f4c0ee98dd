"""The one Celery app. Workers: `celery -A portal worker`; beat: `celery -A portal beat`."""

import os

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings.base")

app = Celery("fabricquote")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
def worker_statement_timeout(**kwargs) -> None:
    """A task may run a statement for longer than a web request may (DB_STATEMENT_TIMEOUT): up to
    DB_WORKER_STATEMENT_TIMEOUT, by default its hard time limit. Set before the pool forks, so
    every worker process connects with it (libpq: the later `-c` wins)."""
    from django.conf import settings
    from django.db import connections

    from portal.settings.base import statement_timeout_option

    options = settings.DATABASES["default"].get("OPTIONS", {})
    if "options" in options:  # PostgreSQL (portal/settings/base.py)
        worker = statement_timeout_option(settings.DB_WORKER_STATEMENT_TIMEOUT)
        options["options"] = f"{options['options']} {worker}"
        connections["default"].close()  # one opened before this would keep the web's limit
