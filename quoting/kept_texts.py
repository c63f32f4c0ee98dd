"""Status texts rows kept in English only, before they kept their message too: read in the
reader's language for those old rows only (#27 item 4).

A document's, an installation pack's or a signed copy's error, a share link's e-mail error and a
support line's re-pricing reason (an audit event's) are now kept beside their message
(`<field>_message`, quoting.kept_messages), and a page words that message: nothing new is
matched back here. A row kept before then has only its English (its message null), and its page
shows it through kept_text(), which recognises each text below whole, with its figures (no
spaces in a figure), and words it in the active language. A text it does not know (an
exception's own words) reads as kept. The templates are the exact English the services wrote
then: they are not to change, and a new wording belongs in the service's message, not here.

Engine messages a row kept as their English text (a TCO comparison's warnings, before the
comparison kept them as messages) are recognised the same way (KEPT_MESSAGES, kept_message).

A quote line's price source has no message beside it: the services write it in English still,
and price_source_text() words old and new rows alike (PRICE_SOURCES).
"""

from __future__ import annotations

import re

from django.utils.translation import gettext, gettext_noop

from quoting.engine.messages import Message
from quoting.engine.tco import VALUE_BELOW_COST

# Placeholders named `text` hold another kept text (a reason inside "... (2 attempt(s).)"),
# `detail` words kept as they are (an exception's); any other is a figure (no spaces).
KEPT_TEXTS = (
    # proposals.documents.services
    gettext_noop(
        "The renderer stopped %(attempts)s times on this document; it may be too large to render."
    ),
    gettext_noop("%(text)s (%(attempts)s attempt(s).)"),
    gettext_noop("Rendering took too long; the quote may be too large for one document."),
    gettext_noop("The document referred to a resource outside the proposal template."),
    gettext_noop("The signed copy could not be signed: %(detail)s"),
    gettext_noop(
        "The PDF could not be produced (an internal error; the team can see the details)."
    ),
    gettext_noop("The revision's content is not what was sent; this PDF was not kept."),
    # proposals.acceptance.services
    gettext_noop("The accepted PDF could not be made: %(text)s"),
    gettext_noop("The maker stopped %(attempts)s times on this signed copy."),
    # quoting.quotes.services.install, quoting.designs.services.packs
    gettext_noop("The design or site is not buildable: %(detail)s"),
    gettext_noop("The pack could not be built (an internal error; the team can see the details)."),
    # quoting.quotes.services.support: why a support line was priced again (audit trail)
    gettext_noop("per device: %(devices)s switches on this offer"),
    gettext_noop("%(percent)s %% of the hardware on this offer, %(hardware)s"),
    # ... and on a renewal quote, on what the customer owns (quoting.quotes.renewals)
    gettext_noop("per device: %(devices)s switches installed"),
    gettext_noop("%(percent)s %% of the installed hardware, %(hardware)s"),
    # proposals.share.mail, proposals.share.services: why a share link's e-mail did not go
    # (ShareLink.email_error; a mail server's refusal reads as kept, "SMTPException: ...")
    gettext_noop("The link was revoked or expired before the e-mail went out."),
    gettext_noop("The e-mail could not be queued."),
)

# A quote line's price source (QuoteLine.price_source): the services still write it in English,
# as the API gives it, and keep no message beside it, so a page recognises it here whole, a price
# list's name (`detail`) kept as it is (quoting.designs.selectors.bom_priced,
# quoting.quotes.services.quotes). A conversion ("List (USD): USD 10 x 7.1 (2026-01-02)") is
# names and figures only and reads as kept.
PRICE_SOURCES = (
    gettext_noop("%(detail)s (reference)"),
    gettext_noop("entered by hand"),
    gettext_noop("set by hand (was %(price)s)"),
)
# Between a support line's price source and what it follows (quoting.quotes.services.support).
PRICE_SOURCE_NOTE = " · "

# Engine messages ({name} placeholders, quoting.engine.messages) that rows kept as English text
# before they kept the message: a TCO comparison's warnings.
KEPT_MESSAGES = (VALUE_BELOW_COST,)

_PLACEHOLDER = re.compile(r"%\\\((\w+)\\\)s")


def _pattern(template: str) -> re.Pattern:
    escaped = re.escape(template.replace("%%", "%"))
    return re.compile(
        _PLACEHOLDER.sub(
            lambda m: f"(?P<{m[1]}>.+)" if m[1] in ("text", "detail") else rf"(?P<{m[1]}>\S+)",
            escaped,
        )
    )


_PATTERNS = tuple((_pattern(template), template) for template in KEPT_TEXTS)
_PRICE_SOURCE_PATTERNS = tuple((_pattern(template), template) for template in PRICE_SOURCES)

_BRACE = re.compile(r"\\\{(\w+)\\\}")


def _message_pattern(template: str) -> re.Pattern:
    """`template`'s text with each {name} a figure (no spaces); a name met again must repeat it."""
    seen: set[str] = set()

    def group(match: re.Match) -> str:
        name = match[1]
        if name in seen:
            return f"(?P={name})"
        seen.add(name)
        return rf"(?P<{name}>\S+)"

    return re.compile(_BRACE.sub(group, re.escape(template)))


_MESSAGE_PATTERNS = tuple((_message_pattern(t), t) for t in KEPT_MESSAGES)


def kept_message(text: str) -> Message | str:
    """An engine message kept as its English text, back as the message (to be worded in any
    language); a text it does not know, as kept."""
    for pattern, template in _MESSAGE_PATTERNS:
        if match := pattern.fullmatch(text or ""):
            return Message(template, tuple(match.groupdict().items()))
    return text


def kept_text(text: str) -> str:
    """A kept status text in the active language; one this does not know, as kept."""
    if not text:
        return text
    for pattern, template in _PATTERNS:
        if match := pattern.fullmatch(text):
            values = {
                name: kept_text(value) if name == "text" else value
                for name, value in match.groupdict().items()
            }
            return gettext(template) % values
    kept = kept_message(text)
    return kept.render(gettext) if isinstance(kept, Message) else text


def price_source_text(text: str) -> str:
    """A quote line's price source in the active language, on old rows and new alike: the price
    list's part and, on a support line, what it follows (a kept text); what it does not know
    (a price list's name, a conversion's figures) as kept."""
    if not text:
        return text or ""
    source, sep, note = text.partition(PRICE_SOURCE_NOTE)
    for pattern, template in _PRICE_SOURCE_PATTERNS:
        if match := pattern.fullmatch(source):
            source = gettext(template) % match.groupdict()
            break
    return source + (sep + kept_text(note) if sep else "")
