"""The signer's one-time code (#27): before an acceptance is recorded on a link that names its
recipient's e-mail, the signer types a code e-mailed to that address, so the record says the
signer reads it, not merely that someone held the link.

A code is 6 digits from `secrets`, e-mailed once (the broker message is its only other copy) and
kept as a keyed hash (HMAC with the project's secret key, bound to the link and the revision):
the database alone cannot be searched for it, though 6 digits are few. It lasts
PROPOSALS_SIGNER_CODE_MINUTES, allows PROPOSALS_SIGNER_CODE_TRIES wrong tries, and is spent by
the acceptance it verifies. Links without an address accept as before: the Acceptance then says
the signer was not verified by e-mail (signer_email empty).
"""

from __future__ import annotations

import datetime as dt
import secrets
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from proposals.conf import proposals_setting
from proposals.models import ShareLink, SignerCode
from quoting.errors import InvalidValue, QuoteError

CODE_DIGITS = 6
FIELD = "signer_code"  # the accept form's input, where every refusal below is shown


class CodeThrottled(QuoteError):
    """A new code asked for too soon: the form comes back, the message at the code field."""

    status_code = 429


@dataclass(frozen=True)
class Verified:
    """A code given back right, not spent yet: the acceptance spends it in its transaction."""

    code_id: int
    email: str


def signer_code_required(link: ShareLink) -> bool:
    """The rule: a link with a recipient e-mail asks for a code (unless PROPOSALS_SIGNER_CODE is
    off); one without has no address to verify and accepts unverified."""
    return bool(link.recipient_email) and bool(proposals_setting("PROPOSALS_SIGNER_CODE"))


def email_masked(address: str, hidden: str = "***") -> str:
    """li.wei@example.com -> l***@example.com: enough for the signer to know where to look,
    not the whole address for whoever else holds the link."""
    local, _at, domain = (address or "").partition("@")
    return f"{local[:1]}{hidden}@{domain}" if domain else ""


def code_new() -> str:
    return f"{secrets.randbelow(10**CODE_DIGITS):0{CODE_DIGITS}d}"


def code_hash(*, link_id: int, revision_id: int, code: str) -> str:
    """Keyed (SECRET_KEY) and bound to the link and revision: the same digits hash differently
    on another link, and a stolen table cannot be searched without the key."""
    value = f"{link_id}:{revision_id}:{code}"
    return salted_hmac("proposals.signer_code", value, algorithm="sha256").hexdigest()


def code_matches(row: SignerCode, code: str) -> bool:
    expected = code_hash(link_id=row.link_id, revision_id=row.revision_id, code=code)
    return constant_time_compare(expected, row.code_hash)


def code_minutes() -> int:
    return int(proposals_setting("PROPOSALS_SIGNER_CODE_MINUTES"))


def code_send_refusal(link: ShareLink, now: dt.datetime) -> str:
    """Why the link gets no new code now ("" when it may): at most one a RESEND_SECONDS, at most
    PER_HOUR an hour. Counted from the rows (call with the link locked), so every web process
    counts the same and a Redis outage opens nothing."""
    wait = int(proposals_setting("PROPOSALS_SIGNER_CODE_RESEND_SECONDS"))
    per_hour = int(proposals_setting("PROPOSALS_SIGNER_CODES_PER_HOUR"))
    recent = list(
        SignerCode.objects.filter(link=link, created_at__gt=now - dt.timedelta(hours=1))
        .order_by("created_at")
        .values_list("created_at", flat=True)
    )
    if recent and (now - recent[-1]).total_seconds() < wait:
        seconds = max(1, wait - int((now - recent[-1]).total_seconds()))
        return ngettext(
            "A code was e-mailed a moment ago: check your inbox (and spam folder), or ask for "
            "a new code in %(seconds)s second.",
            "A code was e-mailed a moment ago: check your inbox (and spam folder), or ask for "
            "a new code in %(seconds)s seconds.",
            seconds,
        ) % {"seconds": seconds}
    if len(recent) >= per_hour:
        minutes = max(1, int((recent[0] + dt.timedelta(hours=1) - now).total_seconds() // 60) + 1)
        return ngettext(
            "%(count)s codes were e-mailed for this link in the last hour: use the latest, or "
            "ask for a new one in %(minutes)s minute.",
            "%(count)s codes were e-mailed for this link in the last hour: use the latest, or "
            "ask for a new one in %(minutes)s minutes.",
            minutes,
        ) % {"count": len(recent), "minutes": minutes}
    return ""


def signer_code_verified(*, link: ShareLink, revision_number: int, code: str) -> Verified:
    """The link's live code, checked against `code`; raises InvalidValue at the code field.

    A wrong code counts a try, committed here even though the acceptance is refused (the
    refusal must not roll it back); past PROPOSALS_SIGNER_CODE_TRIES the code is dead and a new
    one is needed. Spending it (one use) is the acceptance's: signer_code_spend."""
    code = "".join((code or "").split())
    tries_allowed = int(proposals_setting("PROPOSALS_SIGNER_CODE_TRIES"))
    masked = email_masked(link.recipient_email)
    with transaction.atomic():
        row = (
            SignerCode.objects.select_for_update()
            .select_related("revision")
            .filter(link=link, used_at__isnull=True, replaced_at__isnull=True)
            .order_by("-created_at", "-pk")
            .first()
        )
        if row is None:
            raise InvalidValue(
                _(
                    "To sign, confirm your e-mail: press “E-mail me a code” and type the "
                    "%(digits)s digits we send to %(email)s."
                )
                % {"digits": CODE_DIGITS, "email": masked},
                field=FIELD,
            )
        if row.revision.number != revision_number:
            raise InvalidValue(
                _("The offer changed after this code was sent: ask for a new code."), field=FIELD
            )
        if row.expires_at <= timezone.now():
            raise InvalidValue(
                _("This code has expired (codes last %(minutes)s minutes): ask for a new one.")
                % {"minutes": code_minutes()},
                field=FIELD,
            )
        if row.tries >= tries_allowed:
            raise InvalidValue(
                _("Too many wrong codes were typed: ask for a new code."), field=FIELD
            )
        if not (len(code) == CODE_DIGITS and code.isdigit()):
            raise InvalidValue(
                _("Type the %(digits)s digits of the code we e-mailed to %(email)s.")
                % {"digits": CODE_DIGITS, "email": masked},
                field=FIELD,
            )
        right = code_matches(row, code)
        if not right:
            row.tries += 1
            SignerCode.objects.filter(pk=row.pk).update(tries=row.tries)
    if not right:  # raised outside the block: the try counted above stays counted
        left = tries_allowed - row.tries
        if left <= 0:
            raise InvalidValue(
                _("That is not the code we sent, and it was the last try: ask for a new code."),
                field=FIELD,
            )
        raise InvalidValue(
            ngettext(
                "That is not the code we sent: %(left)s try left.",
                "That is not the code we sent: %(left)s tries left.",
                left,
            )
            % {"left": left},
            field=FIELD,
        )
    return Verified(code_id=row.pk, email=row.email)


def signer_code_spend(verified: Verified, *, now: dt.datetime) -> None:
    """One use: spent in the acceptance's transaction (undone with it); a code another request
    spent first refuses this one."""
    spent = SignerCode.objects.filter(
        pk=verified.code_id, used_at__isnull=True, replaced_at__isnull=True
    ).update(used_at=now)
    if not spent:
        raise InvalidValue(_("This code was used already: ask for a new code."), field=FIELD)
