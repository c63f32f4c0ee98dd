"""The signer's one-time code as a customer gets it (#27): asked for, e-mailed by the queued
task, read from the message. Tests that accept on a link with a recipient e-mail take this
step like the signer does."""

from __future__ import annotations

import re

from django.core import mail
from django.test import TestCase

from proposals.acceptance.services import signer_code_send

CODE_LINE = re.compile(r"^\s*(\d{6})\s*$", re.MULTILINE)


def code_in(message) -> str:
    """The code an e-mail carries: the 6 digits on a line of their own in its text part."""
    found = CODE_LINE.findall(message.body)
    assert len(found) == 1, message.body
    return found[0]


def code_emailed(link, revision_number: int = 1) -> str:
    """Ask for a code as the "E-mail me a code" button does and read it from the outbox; the
    e-mail goes after the commit, by the task, as in production."""
    sent = len(mail.outbox)
    with TestCase.captureOnCommitCallbacks(execute=True):
        signer_code_send(link=link, revision_number=revision_number)
    assert len(mail.outbox) == sent + 1, "no signing code was e-mailed"
    return code_in(mail.outbox[-1])


def code_asked_on_page(client, token: str, data: dict, *, lang: str = "en"):
    """Press "E-mail me a code" on the share page with the form as filled: (response, code)."""
    sent = len(mail.outbox)
    with TestCase.captureOnCommitCallbacks(execute=True):
        response = client.post(f"/p/{token}/accept?lang={lang}", {**data, "send_code": "1"})
    code = code_in(mail.outbox[-1]) if len(mail.outbox) == sent + 1 else ""
    return response, code
