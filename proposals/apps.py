from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ProposalsConfig(AppConfig):
    name = "proposals"
    verbose_name = _("Proposals and share links")

    def ready(self) -> None:
        import logging

        from .logs import redact_share_tokens

        # Share-link URLs carry the token: Django's request logs (404s, runserver, gunicorn's
        # access log) must never write it down.
        loggers = (
            "django.request",
            "django.server",
            "django.security.csrf",
            "gunicorn.access",
            "gunicorn.error",
        )
        for name in loggers:
            logging.getLogger(name).addFilter(redact_share_tokens)
