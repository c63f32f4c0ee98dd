"""The one Celery app. Workers: `celery -A portal worker`; beat: `celery -A portal beat`."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings.base")

app = Celery("fabricquote")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
