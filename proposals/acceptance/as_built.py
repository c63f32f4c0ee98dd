"""The customer's sign-off of the installed fabric, through the same share link and signature
as the offer's acceptance: staff ask for it on an as-built check of the booked revision; the
customer reads the check's acceptance report on the share page and signs it.

One request per quote at a time: asking again (after the installer fixed what a check found,
say) replaces an unsigned request; a signed sign-off is the record and is never replaced.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from proposals.acceptance.services import _signer_details, signer_checked
from proposals.events import quote_event
from proposals.models import AsBuiltSignOff, ShareLink, SignatureKind
from quoting.errors import IllegalTransition, InvalidValue
from quoting.quotes.models import AsBuiltCheck, Quote, QuoteStatus

REMARKS_MAX = 2000


def as_built_sign_off_ask(*, check: AsBuiltCheck, user) -> AsBuiltSignOff:
    """Ask the customer to sign `check`'s report. Only a check of the booked revision of an
    accepted quote: the customer signs off what they bought."""
    with transaction.atomic():
        quote = Quote.objects.select_for_update().get(pk=check.revision.quote_id)
        if quote.status != QuoteStatus.ACCEPTED or quote.booked_revision_id != check.revision_id:
            raise IllegalTransition(
                _(
                    "Only a check of the accepted revision can be signed off: this quote's "
                    "accepted revision is %(label)s."
                )
                % {"label": quote.booked_revision.label if quote.booked_revision else "—"},
                field="check",
            )
        existing = AsBuiltSignOff.objects.filter(as_built_check__revision__quote=quote)
        if existing.filter(as_built_check=check, signed_at__isnull=False).exists():
            raise IllegalTransition(_("The customer has already signed this check."), field="check")
        existing.filter(signed_at__isnull=True).delete()
        sign_off = AsBuiltSignOff.objects.create(as_built_check=check, offered_by=user)
        quote_event(quote, "quote.as_built_sign_off_asked", revision=check.revision)
    return sign_off


def as_built_sign(
    *,
    link: ShareLink,
    sign_off_id: int,
    name: str,
    title: str = "",
    company: str = "",
    agreed: bool,
    remarks: str = "",
    signature_kind: str = SignatureKind.TYPED,
    signature_text: str = "",
    signature_data: str = "",
    signer_timezone: str = "",
    user_agent: str = "",
    language: str = "",
) -> AsBuiltSignOff:
    """The customer signs the report asked for on the link's quote. Every input is checked
    before anything is written; messages are in the reader's language."""
    name, title = signer_checked(name, title)
    remarks = (remarks or "").strip()
    if len(remarks) > REMARKS_MAX:
        raise InvalidValue(_("Use at most 2,000 characters for your remarks."), field="remarks")
    if not agreed:
        raise InvalidValue(
            _("Tick the box to accept the installed fabric as the report shows it."),
            field="agreed",
        )
    signed = _signer_details(
        name=name,
        company=company,
        signature_kind=signature_kind,
        signature_text=signature_text,
        signature_data=signature_data,
        signer_timezone=signer_timezone,
    )
    with transaction.atomic():
        sign_off = (
            AsBuiltSignOff.objects.select_for_update()
            .select_related("as_built_check__revision")
            .filter(pk=sign_off_id, as_built_check__revision__quote_id=link.quote_id)
            .first()
        )
        if sign_off is None:
            raise IllegalTransition(
                _("This sign-off request was replaced by a newer one: reload the page."),
                field="sign_off",
            )
        if sign_off.signed:
            raise IllegalTransition(_("This report has already been signed."), field="sign_off")
        sign_off.link = link
        sign_off.signer_name = name
        sign_off.signer_title = title
        sign_off.remarks = remarks
        sign_off.signed_at = timezone.now()
        sign_off.language = language
        sign_off.user_agent = (user_agent or "")[:400]
        for key, value in signed.items():
            setattr(sign_off, key, value)
        sign_off.save()
        quote_event(link.quote, "quote.as_built_signed", revision=sign_off.as_built_check.revision)
    return sign_off
