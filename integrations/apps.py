from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class IntegrationsConfig(AppConfig):
    name = "integrations"
    verbose_name = _("Integrations")

    def ready(self) -> None:
        from . import (
            schema,  # noqa: F401  (registers the token scheme with drf-spectacular)
            tasks,  # noqa: F401 - registers the app's jobs (portal.queueing.enqueue)
        )
