from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class IntegrationsConfig(AppConfig):
    name = "integrations"
    verbose_name = _("Integrations")

    def ready(self) -> None:
        from integrations import (
            schema,  # noqa: F401  (registers the token scheme with drf-spectacular)
            tasks,  # noqa: F401 - registers the app's jobs (portal.queueing.enqueue)
        )
        from quoting.quotes.signals import quote_announced

        quote_announced.connect(
            _quote_event_to_webhooks, dispatch_uid="integrations.quote_announced"
        )


def _quote_event_to_webhooks(
    sender, *, event_type: str, customer_id: int, data: dict, **kwargs
) -> None:
    """A quote event (quoting.quotes.signals) becomes a webhook for every endpoint that hears it."""
    from integrations.webhooks import webhook_emit

    webhook_emit(event_type=event_type, customer_id=customer_id, data=data)
