from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ProposalsConfig(AppConfig):
    name = "proposals"
    verbose_name = _("Proposals and share links")

    def ready(self) -> None:
        import logging

        from quoting.signals import revision_frozen

        from . import tasks  # noqa: F401 - registers the app's jobs (portal.queueing.enqueue)
        from .logs import redact_share_tokens

        revision_frozen.connect(_retire_drafts, dispatch_uid="proposals.retire_drafts")

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


def _retire_drafts(sender, *, revision, **kwargs) -> None:
    """A revision was sent: the previews rendered while it was a draft are retired."""
    from .services import proposals_retire_drafts

    proposals_retire_drafts(revision=revision)
