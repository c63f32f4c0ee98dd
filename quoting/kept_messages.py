"""Status texts a row keeps as their message (#27 item 4): a key and its arguments, worded in the
reader's language when a page shows them, never matched back from English.

A row keeps two things side by side: its English text (the API gives it as it is, unchanged),
and `<field>_message`, the engine's Message as JSON (quoting.engine.messages) that the text was
made from. A page words the message (kept_words); a row kept before it had one (its message
null) still goes through quoting.kept_texts, which recognises the English it knows.
"""

from __future__ import annotations

from django.utils.translation import gettext

from quoting.engine.messages import Message
from quoting.kept_texts import kept_text


def as_is(text: str) -> Message:
    """A text no language can word (an exception's or a mail server's own words), kept as a
    message so that it is shown as it is, never taken for a known text."""
    return Message("{text}", (("text", text),))


def kept_fields(field: str, message: Message, *, max_length: int) -> dict:
    """The values to write on a row for `message`: `field`, its English text cut to the column
    (what the API gives), and `<field>_message`, the message a page words."""
    return {field: str(message)[:max_length], f"{field}_message": message.as_json()}


def cleared_fields(field: str) -> dict:
    """The values that clear `field` and its message."""
    return {field: "", f"{field}_message": None}


def kept_words(text: str, message: dict | None) -> str:
    """A row's kept status text in the active language: from its message; a row without one
    (kept before messages) through kept_texts. No text: nothing to show."""
    if not text:
        return text or ""
    if message:
        return Message.from_json(message).render(gettext)
    return kept_text(text)
