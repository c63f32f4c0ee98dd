from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class QuotingConfig(AppConfig):
    name = "quoting"
    verbose_name = _("Quoting")

    def ready(self) -> None:
        from quoting.designs import tasks as design_tasks  # noqa: F401 - registers its jobs too
        from quoting.quotes import tasks  # noqa: F401 - registers the app's jobs (portal.queueing.enqueue)
