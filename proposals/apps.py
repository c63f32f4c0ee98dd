from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ProposalsConfig(AppConfig):
    name = "proposals"
    verbose_name = _("Proposals and share links")

    def ready(self) -> None:
        import logging

        from proposals import (  # noqa: F401 - registers the app's jobs and deploy checks
            checks,
            tasks,
        )
        from proposals.documents.signals import document_ready
        from proposals.share.logs import redact_share_tokens
        from quoting.quotes.signals import revision_frozen

        revision_frozen.connect(_revision_sent, dispatch_uid="proposals.revision_sent")
        document_ready.connect(_pdf_ready_remembered, dispatch_uid="proposals.pdf_ready")
        document_ready.connect(_signed_copies_made, dispatch_uid="proposals.signed_copies")

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

        # Importing WeasyPrint turns Pillow's LOAD_TRUNCATED_IMAGES on for the whole process. It
        # is imported on the first render now, not with the app (proposals/documents/renderer.py):
        # on from the start, as before, so that an upload (portal.forms, a company chop) is judged
        # the same before and after the process's first render. Signatures are decoded with it
        # off whatever it is (proposals/acceptance/signature.py).
        from PIL import ImageFile

        ImageFile.LOAD_TRUNCATED_IMAGES = True


def _revision_sent(sender, *, revision, **kwargs) -> None:
    """A revision was sent: the previews rendered while it was a draft are retired, and its
    sent PDFs are requested in every language (rendered once the send commits)."""
    from proposals.documents.services import proposals_retire_drafts, proposals_sent_request

    proposals_retire_drafts(revision=revision)
    proposals_sent_request(revision=revision)


def _pdf_ready_remembered(sender, *, document, **kwargs) -> None:
    """The share page stops asking the database whether this PDF is ready (after the commit)."""
    from django.db import transaction

    from proposals.share.pages import shared_pdf_ready_remember

    revision, language = document.revision, document.language
    transaction.on_commit(lambda: shared_pdf_ready_remember(revision=revision, language=language))


def _signed_copies_made(sender, *, document, **kwargs) -> None:
    """The accepted PDF is ready: the signed copies waiting for it are made now."""
    from proposals.acceptance.services import signed_copies_waiting_for

    signed_copies_waiting_for(document)
