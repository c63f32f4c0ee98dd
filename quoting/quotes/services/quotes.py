"""Writes to quotes: numbering, pricing, revisions, approvals and the lifecycle.

Rules every function here keeps:
- Each edit takes `expected_version` and claims the quote with UPDATE ... WHERE version = it,
  so two people editing the same draft cannot silently overwrite each other (StaleVersion).
- A sent revision is frozen. Editing a sent (declined, expired) quote opens the next revision,
  a copy of the last one; lines of an older revision are refused with RevisionFrozen.
- Every state change and every price, quantity or discount change writes a QuoteEvent.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable, Sequence
from decimal import Decimal, InvalidOperation

from django.db import transaction
from django.db.models import F, Max
from django.utils import timezone, translation
from django.utils.translation import gettext, ngettext

from catalog.models import (
    SPARES_CLASS_OF_CATEGORY,
    Category,
    Product,
    TaxCategory,
    Unit,
    tax_category_of,
)
from catalog.selectors import replaceable_units, services_per_node, spares_ratios
from portal.header_counts import work_counts_changed
from portal.models import CompanyProfile, User
from quoting.conf import quoting_setting
from quoting.customers.models import Contact, Project
from quoting.customers.selectors import vat_rates_for
from quoting.customers.services import external_id_check, external_id_clean, unique_save
from quoting.designs.models import SavedDesign, TcoScenario
from quoting.designs.selectors import FxLock, PricedBom, bom_priced
from quoting.designs.services.snapshots import design_snapshot_current
from quoting.designs.services.tco import tco_options_check
from quoting.designs.services.tco import workload_check as tco_workload_check
from quoting.engine.errors import InvalidInput
from quoting.engine.money import MONEY_MAX, TOTAL_MAX, Totals, round_money
from quoting.engine.spares import spares_kit
from quoting.errors import (
    IllegalTransition,
    InvalidValue,
    MissingPrices,
    NotAllowed,
    QuoteExpired,
    RevisionFrozen,
    StaleVersion,
)
from quoting.quotes.events import (
    approval_data,
    event_date,
    event_subjects,
    event_time,
    event_totals,
    event_user,
)
from quoting.quotes.models import (
    ANSWERABLE_WHILE_DRAFTING,
    TOTALLED_SECTIONS,
    TRANSITIONS,
    Approval,
    ApprovalDecision,
    LineKind,
    LineOrigin,
    NotificationKind,
    Quote,
    QuoteCounter,
    QuoteEvent,
    QuoteEventVerb,
    QuoteLine,
    QuoteRevision,
    QuoteStatus,
    Section,
    milestone_key,
    schedule_keys,
    spares_kit_label,
)
from quoting.quotes.permissions import (
    approval_decide_check,
    export_check_sendable,
    may_decide_approvals,
    may_edit_cost,
    quote_send_check,
)
from quoting.quotes.selectors import (
    kits_follow_the_option,
    line_amount,
    offer_choice,
    option_basis,
    revision_content_fingerprint,
    revision_export_note,
    revision_gate,
    revision_lead_time,
    revision_totals,
    schedule_text,
)
from quoting.quotes.services.notifications import approvers, notify, person_name
from quoting.quotes.services.snapshots import (
    revision_snapshot_from_design,
    revision_tco_options,
    revision_tco_refresh,
)
from quoting.quotes.services.support import revision_support_follow
from quoting.quotes.signals import quote_announced, revision_frozen

MAX_QUANTITY = 1_000_000
# A product sold by the year (support, subscription licences) is quoted for a year's term.
YEAR_TERM_MONTHS = 12
MAX_LINES_PER_REVISION = 500  # the PDF and the page stay usable; a fabric BOM has ~20 lines
KEEP = object()  # quote_update_terms: leave the quote's contact or external id as it is


# --- small helpers -------------------------------------------------------------------------------


def _plain(value):
    """JSON-safe audit details: Decimal and dates as text, exactly as they were."""
    if isinstance(value, Decimal | dt.date):
        return str(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _event(
    quote: Quote,
    verb: QuoteEventVerb,
    *,
    actor: User | None,
    revision: QuoteRevision | None = None,
    **details,
) -> QuoteEvent:
    return QuoteEvent.objects.create(
        quote=quote,
        revision=revision or quote.current_revision,
        actor=actor,
        verb=verb,
        details=_plain(details),
    )


def _announce(
    quote: Quote,
    event_type: str,
    *,
    revision: QuoteRevision | None,
    totals: Totals | None = None,
    **members,
) -> None:
    """Tell the apps above quoting (webhooks) what happened to `quote`, inside the caller's
    transaction: every payload starts with its quote, revision, customer, project and contact
    (quoting.quotes.events), then `totals` where money is involved, then the event's own
    `members` (the catalogue: integrations.catalogue, docs/webhooks.md)."""
    data = event_subjects(quote, revision)
    if totals is not None:
        data["totals"] = event_totals(totals, currency=quote.currency)
    quote_announced.send(
        sender=Quote, event_type=event_type, customer_id=quote.customer_id, data=data | members
    )


def _percent(value, field: str) -> Decimal:
    try:
        percent = Decimal(str(value))
    except (InvalidOperation, ValueError):
        raise InvalidValue(gettext("Enter a percentage such as 5 or 12.5."), field=field) from None
    if not percent.is_finite() or not Decimal(0) <= percent <= Decimal(100):
        raise InvalidValue(gettext("A percentage must be between 0 and 100."), field=field)
    if percent != percent.quantize(Decimal("0.01")):
        raise InvalidValue(gettext("Use at most two decimal places for a percentage."), field=field)
    return percent.quantize(Decimal("0.01"))  # as the NUMERIC(5, 2) column gives it back


MAX_MILESTONES = 10  # a schedule longer than this is a payment plan, not an offer's terms
MILESTONE_LABEL_MAX = 100
ADDITIONAL_TERMS_MAX = 2000


def payment_schedule_clean(milestones) -> list[dict]:
    """A payment schedule as stored: [{"label", "percent"}], each percent above 0 with at most
    two places, together exactly 100 (compared as Decimals, never rounded into place). An empty
    schedule is allowed: the proposal then prints none. The first fault is refused, named by its
    path (`payment_schedule[1].percent`) so a form or the API shows it at the field."""
    milestones = list(milestones or [])
    if len(milestones) > MAX_MILESTONES:
        raise InvalidValue(
            gettext("A payment schedule has at most %(count)s milestones.")
            % {"count": MAX_MILESTONES},
            field="payment_schedule",
        )
    cleaned = []
    for index, milestone in enumerate(milestones):
        at = f"payment_schedule[{index}]"
        label = str(milestone.get("label") or "").strip()
        if not label:
            raise InvalidValue(gettext("Name the milestone."), field=f"{at}.label")
        if len(label) > MILESTONE_LABEL_MAX:
            raise InvalidValue(
                gettext("Keep the milestone's name under %(count)s characters.")
                % {"count": MILESTONE_LABEL_MAX},
                field=f"{at}.label",
            )
        try:
            percent = Decimal(str(milestone.get("percent")))
        except (InvalidOperation, ValueError):
            percent = None
        if percent is None or not percent.is_finite():
            raise InvalidValue(gettext("Enter a percentage such as 30."), field=f"{at}.percent")
        if not Decimal(0) < percent <= Decimal(100):
            raise InvalidValue(
                gettext("A milestone's percentage must be above 0 and at most 100."),
                field=f"{at}.percent",
            )
        if percent != percent.quantize(Decimal("0.01")):
            raise InvalidValue(
                gettext("Use at most two decimal places for a percentage."), field=f"{at}.percent"
            )
        cleaned.append({"label": milestone_key(label), "percent": f"{percent:.2f}"})
    total = sum((Decimal(m["percent"]) for m in cleaned), Decimal(0))
    if cleaned and total != Decimal(100):
        raise InvalidValue(
            gettext("The milestones add up to %(total)s %%; they must add up to exactly 100 %%.")
            % {"total": f"{total:.2f}"},
            field="payment_schedule",
        )
    return cleaned


def _additional_terms(value: str, field: str = "additional_terms") -> str:
    value = value.strip()
    if len(value) > ADDITIONAL_TERMS_MAX:
        raise InvalidValue(
            gettext("Keep the additional terms under %(count)s characters.")
            % {"count": ADDITIONAL_TERMS_MAX},
            field=field,
        )
    return value


def _default_payment_schedule() -> list[dict]:
    """The company profile's default, checked again: a profile edited in the admin by hand must
    not start quotes with a schedule they could not save. Standard milestones stay keys, so
    the proposal names them in whichever language it is read in (milestone_label)."""
    default = (
        CompanyProfile.objects.filter(pk=CompanyProfile.SINGLETON_PK)
        .values_list("payment_schedule", flat=True)
        .first()
    )
    try:
        schedule = payment_schedule_clean(default)
    except (InvalidValue, AttributeError, TypeError):
        return []
    return schedule


def _tco_options(revision: QuoteRevision, value) -> list[str]:
    try:
        return tco_options_check(revision.tco_snapshot, value)
    except InvalidInput as error:
        raise InvalidValue(error.errors["tco_options"][0], field="tco_options") from None


def _workload(value) -> str:
    try:
        return tco_workload_check(value)
    except InvalidInput as error:
        raise InvalidValue(error.errors["workload"][0], field="workload") from None


def _tco_follows(revision: QuoteRevision, *, user: User) -> None:
    """The draft's TCO follows its prices: computed again after every change to them, once
    the support priced per device or as a share of the hardware has followed the lines."""
    revision_support_follow(revision=revision, user=user)
    revision_tco_refresh(revision=revision, user=user)


def _quantity(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_QUANTITY:
        raise InvalidValue(
            gettext("The quantity must be a whole number from 0 to %(most)s.")
            % {"most": f"{MAX_QUANTITY:,}"},
            field="quantity",
        )
    return value


def _assert_fits(revision: QuoteRevision, *, field: str) -> None:
    """Every line amount and the quote's totals fit their columns.

    Each quantity and price may be within its own limits and their product still not fit
    (10,000 x 999,999,999,999.99): refused at the edit, with the field to fix, rather than
    failing when the revision is read or frozen. Callers run it inside the edit's transaction,
    so the refused change is rolled back.
    """
    limit = f"{TOTAL_MAX:,}"
    lines = list(revision.lines.all())
    for line in lines:
        amount = line_amount(
            quantity=line.quantity,
            unit_price=line.unit_price,
            discount_percent=line.discount_percent,
        )
        if amount > TOTAL_MAX:
            raise InvalidValue(
                gettext(
                    "This line would come to %(amount)s, more than a quote can hold "
                    "(%(limit)s); lower its quantity or its price."
                )
                % {"amount": f"{amount:,}", "limit": limit},
                field=field,
            )
    totals = revision_totals(revision=revision, lines=lines)
    if max(totals.subtotal, totals.total) > TOTAL_MAX:
        raise InvalidValue(
            gettext(
                "The quote would total %(amount)s, more than a quote can hold (%(limit)s); "
                "lower a quantity or a price."
            )
            % {"amount": f"{max(totals.subtotal, totals.total):,}", "limit": limit},
            field=field,
        )


def _money(value, field: str) -> Decimal:
    try:
        amount = Decimal(str(value))
    except (InvalidOperation, ValueError):
        raise InvalidValue(gettext("Enter an amount such as 1200.00."), field=field) from None
    if not amount.is_finite() or amount < 0 or amount > MONEY_MAX:
        raise InvalidValue(
            gettext("The amount must be between 0 and %(most)s.") % {"most": f"{MONEY_MAX:,}"},
            field=field,
        )
    if amount != round_money(amount):
        raise InvalidValue(gettext("Use at most two decimal places for an amount."), field=field)
    return round_money(amount)


# --- concurrency and the state machine ----------------------------------------------------------


def _claim(quote: Quote, *, expected_version: int | None) -> Quote:
    """Bump the version (locking the row until commit) and reload the quote.

    With an expected version the UPDATE only matches that version: a race-safe check, with no
    window between reading and writing. Without one (the expiry job, the customer's link) the
    row is still locked so two transitions cannot interleave.
    """
    rows = Quote.objects.filter(pk=quote.pk)
    if expected_version is not None:
        rows = rows.filter(version=expected_version)
    if not rows.update(version=F("version") + 1, updated_at=timezone.now()):
        current = Quote.objects.filter(pk=quote.pk).values_list("version", flat=True).first()
        raise StaleVersion(expected=expected_version, current=current)
    # Every write to a quote passes here (status, validity, approvals, the revision sent): the
    # headers' work-queue counts are counted again.
    work_counts_changed()
    quote.refresh_from_db()
    return quote


def _edits_quote(service: Callable) -> Callable:
    """Run a service on a private copy of `quote`, in one transaction.

    The caller's object takes the new state (version, status, current revision) only when the
    service succeeds, so a refused edit leaves it as it was and a retry sends the right version.
    """

    @functools.wraps(service)
    def run(*, quote: Quote, **kwargs):
        with transaction.atomic():
            working = Quote.objects.get(pk=quote.pk)
            result = service(quote=working, **kwargs)
        for f in Quote._meta.concrete_fields:
            setattr(quote, f.attname, getattr(working, f.attname))
        quote._state.fields_cache.pop("current_revision", None)
        return result

    return run


def _transition(quote: Quote, to: str, *, actor: User | None, **details) -> None:
    if to not in TRANSITIONS[quote.status]:
        raise IllegalTransition(
            gettext("A quote that is %(status)s cannot become %(to)s.")
            % {"status": quote.get_status_display().lower(), "to": QuoteStatus(to).label.lower()},
            field="status",
        )
    before = quote.status
    quote.status = to
    quote.save(update_fields=["status", "updated_at"])
    _event(quote, QuoteEventVerb.STATUS_CHANGED, actor=actor, before=before, after=to, **details)


def _assert_not_frozen(revision: QuoteRevision) -> None:
    # The last defence: whatever path a write takes, a sent revision never changes.
    if revision.is_frozen:
        raise RevisionFrozen(
            gettext(
                "%(revision)s of %(number)s was sent and can no longer change; edit the quote "
                "to open the next revision."
            )
            % {"revision": revision.label, "number": revision.quote.number}
        )


def _current(quote: Quote) -> QuoteRevision:
    return QuoteRevision.objects.select_related("quote").get(pk=quote.current_revision_id)


def _revision_next(quote: Quote, *, user: User) -> QuoteRevision:
    """A draft copy of the current revision: same lines (keys kept for the diff), prices, rate,
    tax, discount and snapshots. Prices are not looked up again: what was offered stays offered.
    """
    old = _current(quote)
    set_aside = QuoteRevision.objects.filter(
        quote=quote, number=old.number + 1, sent_at__isnull=True
    ).first()
    if set_aside is not None:
        # The draft set aside when the customer declined the sent revision: the work resumes.
        quote.current_revision = set_aside
        quote.save(update_fields=["current_revision", "updated_at"])
        return set_aside
    new = QuoteRevision.objects.create(
        quote=quote,
        number=old.number + 1,
        created_by=user,
        fx_source_currency=old.fx_source_currency,
        fx_rate=old.fx_rate,
        fx_rate_date=old.fx_rate_date,
        tax_percent=old.tax_percent,
        discount_percent=old.discount_percent,
        design=old.design,
        design_snapshot=old.design_snapshot,
        tco=old.tco,
        tco_snapshot=old.tco_snapshot,
        workload=old.workload,
        tco_options=old.tco_options,
        design_drawing=old.design_drawing,
        design_drawings=old.design_drawings,
        tco_charts=old.tco_charts,
        snapshot_version=old.snapshot_version,
        design_list_value=old.design_list_value,
        payment_schedule=old.payment_schedule,
        additional_terms=old.additional_terms,
        additional_terms_zh=old.additional_terms_zh,
    )
    copies = list(old.lines.select_related("product", "design"))
    for line in copies:
        line.pk = None
        line.revision = new
    QuoteLine.objects.bulk_create(copies)
    quote.current_revision = new
    quote.save(update_fields=["current_revision", "updated_at"])
    _event(
        quote, QuoteEventVerb.REVISION_CREATED, actor=user, revision=new,
        source=old.label, created=new.label,
    )  # fmt: skip
    if not kits_follow_the_option(old):
        # Sent before each option carried its kit, its alternatives have none; under the draft's
        # rule an option without a kit would offer no spares at all. Kits that would take the
        # draft past the line cap are left out, all of them (the audit trail says so), rather
        # than refused: refusing would refuse every edit of the sent quote, the removals that
        # make room too.
        _alternatives_kits_sized(new, copies, user=user, over_the_cap=KIT_LEFT_OUT)
    return new


# _alternatives_kits_sized, on a kit that would take the revision past MAX_LINES_PER_REVISION:
KIT_REFUSED = "refused"  # nothing is added, InvalidValue on "lines" names the cap and the count
KIT_LEFT_OUT = "left out"  # no kit is added; each event says how many lines were left out


def _alternatives_kits_sized(
    revision: QuoteRevision, lines: list[QuoteLine], *, user: User, over_the_cap: str
) -> None:
    """Give each alternative on `revision` without a kit its spares kit, sized as
    quote_add_alternative sizes it, from the option's own lines (what it offers: its design may
    have been stored again since), at the end of the revision, one event per option. Kits past
    MAX_LINES_PER_REVISION are handled as `over_the_cap` says."""
    kits = []
    start = _end_position(revision)
    groups: dict[str, list[QuoteLine]] = {}
    for line in lines:
        if line.alternative_group:
            groups.setdefault(line.alternative_group, []).append(line)
    for label, group in groups.items():
        if any(ln.origin == LineOrigin.SPARES_KIT for ln in group):
            continue
        rows = [
            {
                "sku": ln.sku,
                "name": ln.description,
                "category": ln.product.category if ln.product else "",
                "quantity": ln.quantity,
                "role": ln.role,
            }
            for ln in group
            if ln.section == Section.ALTERNATIVES and ln.sku
        ]
        design = next((ln.design for ln in group if ln.design_id), None)
        kit, kit_unpriced = _spares_kit_lines(
            revision, bom=rows, start=start, group=label, design=design
        )
        if kit or kit_unpriced:
            kits.append((label, kit, kit_unpriced))
            start += len(kit)
    held = revision.lines.count()
    adding = sum(len(kit) for _label, kit, _unpriced in kits)
    if over_the_cap == KIT_REFUSED and held + adding > MAX_LINES_PER_REVISION:
        raise InvalidValue(
            ngettext(
                "Sending adds each option's spares kit (%(adding)s line): the quote would hold "
                "%(count)s lines, more than the %(most)s a quote holds. Remove lines or an "
                "alternative, then send it.",
                "Sending adds each option's spares kit (%(adding)s lines): the quote would hold "
                "%(count)s lines, more than the %(most)s a quote holds. Remove lines or an "
                "alternative, then send it.",
                adding,
            )
            % {"adding": adding, "count": held + adding, "most": MAX_LINES_PER_REVISION},
            field="lines",
        )
    # All the kits or none: with one option's kit added and another's left out, the send (which
    # sizes kits only for a draft none of whose options has one) would send that option
    # offering no spares without anyone choosing so. With none, the send sizes them all and
    # refuses, naming the count.
    left_out = held + adding > MAX_LINES_PER_REVISION
    if not left_out:
        QuoteLine.objects.bulk_create([line for _label, kit, _unpriced in kits for line in kit])
    for label, kit, kit_unpriced in kits:
        _event(
            revision.quote,
            QuoteEventVerb.ALTERNATIVE_KIT_ADDED,
            actor=user,
            revision=revision,
            label=label,
            spares_kit_lines=0 if left_out else len(kit),
            **({"spares_kit_left_out": len(kit)} if left_out else {}),
            **({"spares_kit_unpriced": ", ".join(kit_unpriced)} if kit_unpriced else {}),
        )


def quote_sent_revision_reinstate(*, quote: Quote, revision: QuoteRevision) -> Quote:
    """The customer answers the sent `revision` while the next one is still a draft: the offer
    they answer is the one they read, so it is current (and the quote sent) again.

    The draft is kept, unsent, and resumed by the next edit (after a decline); its pending
    approvals are withdrawn. Call inside the answer's transaction, the quote's row locked.
    """
    if quote.current_revision_id == revision.pk or quote.status not in ANSWERABLE_WHILE_DRAFTING:
        return quote
    draft = _current(quote)
    if draft.is_frozen or draft.number != revision.number + 1 or not revision.is_frozen:
        raise IllegalTransition("This revision can no longer be answered.", field="revision")
    _claim(quote, expected_version=quote.version)
    draft.approvals.filter(decision=ApprovalDecision.PENDING).update(
        decision=ApprovalDecision.WITHDRAWN, decided_at=timezone.now()
    )
    before = quote.status
    quote.current_revision, quote.status = revision, QuoteStatus.SENT
    quote.save(update_fields=["current_revision", "status", "updated_at"])
    _event(
        quote, QuoteEventVerb.STATUS_CHANGED, actor=None, revision=revision, before=before,
        after=QuoteStatus.SENT, reason="answered by the customer while the next revision was a "
        "draft", set_aside=draft.label,
    )  # fmt: skip
    return quote


def _editable_revision(quote: Quote, *, user: User) -> QuoteRevision:
    """The revision an edit goes to, after making the quote a draft again if it has to be."""
    if quote.status == QuoteStatus.ACCEPTED:
        raise IllegalTransition(
            gettext("The customer accepted this quote; it can no longer change."), field="status"
        )
    revision = _current(quote)
    if revision.is_frozen:
        sent = revision
        revision = _revision_next(quote, user=user)
        _transition(quote, QuoteStatus.DRAFT, actor=user, reason="edited after it was sent")
        _announce(
            quote,
            "quote.revised",
            revision=revision,
            totals=revision_totals(revision=revision),
            revised={"from_revision": {"id": sent.pk, "label": sent.label}, "by": event_user(user)},
        )
    elif quote.status in (QuoteStatus.AWAITING_APPROVAL, QuoteStatus.APPROVED):
        # The approval was for the lines as they were; a change needs a new look.
        revision.approvals.filter(decision=ApprovalDecision.PENDING).update(
            decision=ApprovalDecision.WITHDRAWN, decided_at=timezone.now()
        )
        _transition(
            quote, QuoteStatus.DRAFT, actor=user, reason="edited; the approval no longer applies"
        )
    _assert_not_frozen(revision)
    return revision


def _line_in(revision: QuoteRevision, line: QuoteLine, *, looked_at: int) -> QuoteLine:
    """The line of `revision` that `line` stands for.

    `looked_at` is the revision that was current before this edit: when the edit just opened
    the next revision, its lines are copies with the same keys. A line of any older revision
    is frozen history.
    """
    if line.revision_id == revision.pk:
        return QuoteLine.objects.get(pk=line.pk)
    if line.revision_id != looked_at:
        if not revision.quote.revisions.filter(pk=line.revision_id).exists():
            raise InvalidValue(gettext("This line is not on this quote."), field="line")
        raise RevisionFrozen(
            gettext(
                "This line belongs to an older revision than %(revision)s, and a sent revision "
                "never changes; edit the current revision instead."
            )
            % {"revision": revision.label},
            field="line",
        )
    try:
        return revision.lines.get(key=line.key)
    except QuoteLine.DoesNotExist:
        raise InvalidValue(
            gettext("This line is not on the quote any more."), field="line"
        ) from None


# --- numbering -----------------------------------------------------------------------------------


def _quote_number_take(*, series: str, year: int) -> int:
    """The next number of the series, gapless: the counter row is locked until the creating
    transaction ends, and rolls back with it if the quote is never created."""
    QuoteCounter.objects.get_or_create(series=series, year=year)
    counter = QuoteCounter.objects.select_for_update().get(series=series, year=year)
    counter.last += 1
    counter.save(update_fields=["last"])
    return counter.last


# --- pricing -------------------------------------------------------------------------------------


def _lock_fx(revision: QuoteRevision, fx: FxLock | None) -> None:
    if fx and not revision.fx_rate:
        revision.fx_source_currency, revision.fx_rate, revision.fx_rate_date = (
            fx.source,
            fx.rate,
            fx.as_of,
        )
        revision.save(update_fields=["fx_source_currency", "fx_rate", "fx_rate_date"])


def _revision_fx(revision: QuoteRevision) -> FxLock | None:
    if not revision.fx_rate:
        return None
    return FxLock(revision.fx_source_currency, revision.fx_rate, revision.fx_rate_date)


SECTION_OF_CATEGORY = {
    Category.SERVICE: Section.SERVICES,
    Category.SUPPORT: Section.SUPPORT,
    Category.STORAGE: Section.BACKUP,
}


def section_of_product(*, category: str, gpu_count: int | None = None, unit: str = "") -> str:
    """The part of the plan a product is quoted under unless the user names another: a server
    with GPUs under GPU servers (a server without them is a management host of the fabric, a
    UFM host: network), software licensed per GPU per year (AI Enterprise, Base Command Manager)
    under cluster management, third-party storage under backup, services and support in theirs,
    the rest of the fabric under network."""
    if category == Category.SERVER and gpu_count:
        return Section.GPU_SERVERS
    if category == Category.SOFTWARE and unit == Unit.GPU_YEAR:
        return Section.CLUSTER_MANAGEMENT
    return SECTION_OF_CATEGORY.get(category, Section.NETWORK)


def _product_section(product: Product) -> str:
    return section_of_product(
        category=product.category, gpu_count=product.gpu_count, unit=product.unit
    )


def _section_of(line: QuoteLine) -> str:
    """Where a line belongs when it is not optional: its product's section, or services."""
    if line.product_id is None:
        return Section.SERVICES
    return _product_section(line.product)


def _kind_of(product: Product | None) -> str:
    if product is None:
        return LineKind.FREE_TEXT
    return LineKind.SERVICE if product.category == Category.SERVICE else LineKind.PRODUCT


def _priced(revision: QuoteRevision, bom: list[dict], currency: str) -> PricedBom:
    """The rows priced now by the one pricing rule (bom_priced), at the revision's locked rate
    if it has one; the rate used is locked on the revision. Raises MissingPrices naming every
    SKU left without a price."""
    priced = bom_priced(bom=bom, currency=currency, fx=_revision_fx(revision))
    if priced.missing:
        raise MissingPrices(list(priced.missing), currency)
    _lock_fx(revision, priced.fx)
    return priced


def _bom_lines(
    *,
    revision: QuoteRevision,
    priced: PricedBom,
    start: int,
    section: str | None = None,
    group: str = "",
    design: SavedDesign | None = None,
    origin: str = LineOrigin.DESIGN,
) -> list[QuoteLine]:
    """Unsaved lines for a design's priced bill of materials (`design`: an alternative's), or
    for what is sized from it (`origin`)."""
    products = Product.objects.in_bulk({ln.sku for ln in priced.lines}, field_name="part_number")
    rates = vat_rates_for(revision.quote.customer)
    lines = []
    for position, row in enumerate(priced.lines, start=start):
        product = products.get(row.sku)
        lines.append(
            QuoteLine(
                revision=revision,
                position=position,
                section=section
                or (
                    _product_section(product)
                    if product
                    else SECTION_OF_CATEGORY.get(row.category, Section.NETWORK)
                ),
                alternative_group=group,
                kind=_kind_of(product),
                product=product,
                sku=row.sku,
                description=(row.name or (product.name if product else row.sku))[:500],
                quantity=_quantity(row.quantity),
                unit_price=row.unit_price,
                list_price=row.unit_price,
                unit_cost=row.unit_cost,
                role=row.role[:40],
                price_source=row.source[:300],
                origin=origin,
                design=design,
                term_months=YEAR_TERM_MONTHS if row.paid_yearly else None,
                vat_percent=rates.get(
                    tax_category_of(
                        tax_category=product.tax_category if product else "",
                        category=row.category,
                    )
                ),
            )
        )
    return lines


def _spares_kit_lines(
    revision: QuoteRevision,
    *,
    bom: list[dict],
    start: int,
    group: str = "",
    design: SavedDesign | None = None,
) -> tuple[list[QuoteLine], list[str]]:
    """Unsaved: the design's spares kit at the catalog's ratios, as optional lines after its
    BOM: offered, not ordered, so the required lines and the totals stay the design's. Its parts
    are the BOM's and the PSUs and fans inside its switches, priced at the rate the BOM locked. A
    kit part with no price in the quote's currency (a PSU NVIDIA publishes no price for) is left
    out and named, second: an offer does not block the quote as an unpriced part of the design
    does.

    An alternative's kit (`group`, `design`: the alternative's) is sized from its own bill of
    materials at the same ratios, under its group: offered only with that option
    (selectors.optional_offered)."""
    kit = spares_kit(
        bom,
        ratios=spares_ratios(),
        class_of_category=SPARES_CLASS_OF_CATEGORY,
        units_of=replaceable_units(),
    )
    if not kit:
        return [], []
    with translation.override("en"):  # the line keeps English words; pages show them translated
        rows = [
            {
                "sku": k.sku,
                "name": spares_kit_label(k.spare_class, k.percent, k.base, name=k.name),
                "category": k.category,
                "quantity": k.quantity,
                "role": k.role,
            }
            for k in kit
        ]
    currency = revision.quote.currency
    unpriced = list(bom_priced(bom=rows, currency=currency, fx=_revision_fx(revision)).missing)
    rows = [row for row in rows if row["sku"] not in unpriced]
    if not rows:
        return [], unpriced
    priced = _priced(revision, rows, currency)
    lines = _bom_lines(
        revision=revision,
        priced=priced,
        start=start,
        section=Section.OPTIONAL,
        group=group,
        design=design,
        origin=LineOrigin.SPARES_KIT,
    )
    return lines, unpriced


def _node_service_lines(revision: QuoteRevision, *, nodes: int, start: int) -> list[QuoteLine]:
    """Unsaved: the catalog's services priced per node (tuning, firmware audit, acceptance
    tests), one per compute node of the design, as optional lines: offered with the fabric for
    the customer to take, so the design's totals and the approval gate's list value stay the
    hardware's."""
    rows = [
        {"sku": p.part_number, "name": p.name, "category": p.category, "quantity": nodes}
        for p in services_per_node()
    ]
    if not rows or nodes <= 0:
        return []
    priced = _priced(revision, rows, revision.quote.currency)
    return _bom_lines(
        revision=revision,
        priced=priced,
        start=start,
        section=Section.OPTIONAL,
        origin=LineOrigin.NODE_SERVICES,
    )


def _next_position(revision: QuoteRevision) -> int:
    """The position of a line added by hand, refused when the revision is full."""
    count = revision.lines.count()
    if count >= MAX_LINES_PER_REVISION:
        raise InvalidValue(
            gettext("A quote holds at most %(most)s lines.") % {"most": MAX_LINES_PER_REVISION},
            field="lines",
        )
    return _end_position(revision)


def _end_position(revision: QuoteRevision) -> int:
    return (revision.lines.aggregate(m=Max("position"))["m"] or 0) + 1


def _lines_create(revision: QuoteRevision, lines: list[QuoteLine], *, field: str) -> None:
    """Save `lines` (a design's BOM, its kit, its services: every line added in bulk), all or
    none: refused on `field` before anything is written when they would take the revision past
    MAX_LINES_PER_REVISION."""
    count = revision.lines.count() + len(lines)
    if count > MAX_LINES_PER_REVISION:
        raise InvalidValue(
            gettext("A quote holds at most %(most)s lines; this would bring it to %(count)s lines.")
            % {"most": MAX_LINES_PER_REVISION, "count": count},
            field=field,
        )
    QuoteLine.objects.bulk_create(lines)


# --- creating quotes -----------------------------------------------------------------------------


def _contact_of(customer_id: int, contact: Contact | None) -> Contact | None:
    if contact is not None and contact.customer_id != customer_id:
        raise InvalidValue(gettext("This contact belongs to another customer."), field="contact")
    return contact


def _crm_links(quote: Quote, *, contact, external_id) -> dict:
    """The changes of the quote's contact and external id asked for (KEEP: left as they are)."""
    links = {}
    if contact is not KEEP and getattr(contact, "pk", None) != quote.contact_id:
        links["contact"] = _contact_of(quote.customer_id, contact)
    if external_id is not KEEP:
        external_id = external_id_clean(external_id)
        if external_id != quote.external_id:
            links["external_id"] = external_id
    return links


@transaction.atomic
def quote_create(
    *,
    project: Project,
    user: User,
    currency: str | None = None,
    valid_until: dt.date | None = None,
    contact: Contact | None = None,
    external_id: str | None = None,
) -> Quote:
    """An empty draft quote, R1, numbered `<series>-<year>-<00042>`; `contact` (one of the
    customer's) and `external_id` (a CRM's, unique: AlreadyExists) as the CRM says."""
    # Locked so that the project cannot change customer under the new quote (project_update).
    project = Project.objects.select_for_update().select_related("customer").get(pk=project.pk)
    customer = project.customer
    contact = _contact_of(customer.pk, contact)
    currency = (currency or customer.default_currency).upper()
    if len(currency) != 3 or not currency.isalpha():
        raise InvalidValue(
            gettext("Use a three-letter currency code such as CNY."), field="currency"
        )
    today = timezone.localdate()
    valid_until = valid_until or today + dt.timedelta(days=quoting_setting("QUOTING_VALIDITY_DAYS"))
    if valid_until < today:
        raise InvalidValue(gettext("The validity date is in the past."), field="valid_until")
    series, year = quoting_setting("QUOTING_NUMBER_SERIES"), today.year
    seq = _quote_number_take(series=series, year=year)
    quote = Quote(
        number=f"{series}-{year}-{seq:05d}",
        series=series,
        year=year,
        seq=seq,
        customer=customer,
        project=project,
        contact=contact,
        external_id=external_id_clean(external_id),
        owner=user,
        currency=currency,
        valid_until=valid_until,
    )
    unique_save(quote, lambda: external_id_check(quote, quote.external_id))
    vat = quoting_setting("QUOTING_VAT_PERCENT").get(customer.vat_zone, Decimal(0))
    revision = QuoteRevision.objects.create(
        quote=quote,
        number=1,
        created_by=user,
        tax_percent=Decimal(vat),
        payment_schedule=_default_payment_schedule(),
    )
    quote.current_revision = revision
    quote.save(update_fields=["current_revision"])
    work_counts_changed()  # a new draft may already be expiring within the week
    _event(
        quote,
        QuoteEventVerb.CREATED,
        actor=user,
        number=quote.number,
        currency=currency,
        valid_until=valid_until,
        tax_percent=revision.tax_percent,
    )
    _announce(
        quote,
        "quote.created",
        revision=revision,
        created={
            "by": event_user(user),
            "valid_until": event_date(valid_until),
        },
    )
    return quote


@transaction.atomic
def quote_create_from_design(
    *,
    project: Project,
    design: SavedDesign,
    user: User,
    currency: str | None = None,
    tco: TcoScenario | None = None,
    workload: str | None = None,
    contact: Contact | None = None,
    external_id: str | None = None,
) -> Quote:
    """A draft whose lines are the design's bill of materials, priced in the quote currency.

    Without a TCO scenario the quote gets the design's own comparison (this fabric against the
    other family and a commodity build) for `workload` (default: the design's), so the
    proposal can show what the network is worth.
    """
    if workload is not None:
        _workload(workload)
    if design.project_id != project.pk:
        raise InvalidValue(gettext("This design belongs to another project."), field="design")
    if tco is not None and tco.project_id != project.pk:
        raise InvalidValue(gettext("This TCO scenario belongs to another project."), field="tco")
    quote = quote_create(
        project=project, user=user, currency=currency, contact=contact, external_id=external_id
    )
    design = design_snapshot_current(design=design)
    revision = quote.current_revision
    # A missing price raises here and rolls the whole quote back, number included.
    priced = _priced(revision, design.bom, quote.currency)
    # The design's snapshot, frozen on the revision; its TCO priced as these lines are.
    revision_snapshot_from_design(
        revision=revision, design=design, priced=priced, user=user, tco=tco, workload=workload
    )
    lines = _bom_lines(revision=revision, priced=priced, start=1)
    kit, kit_unpriced = _spares_kit_lines(revision, bom=design.bom, start=len(lines) + 1)
    services = _node_service_lines(
        revision, nodes=design.result.get("node_count") or 0, start=len(lines) + len(kit) + 1
    )
    _lines_create(revision, [*lines, *kit, *services], field="design")
    # What the customer was shown, at list: the approval gate measures the quote against it.
    revision.design_list_value = sum(
        (ln.quantity * ln.list_price for ln in lines if ln.section in TOTALLED_SECTIONS),
        Decimal("0.00"),
    )
    revision.save(update_fields=["design_list_value"])
    _assert_fits(revision, field="design")
    _event(
        quote,
        QuoteEventVerb.LINES_FROM_DESIGN,
        actor=user,
        design=design.name,
        lines=len(lines),
        spares_kit_lines=len(kit),
        service_lines=len(services),
        fx_rate=revision.fx_rate,
        fx_source_currency=revision.fx_source_currency,
        # Named only when some are: the catalog manager prices them to have them offered.
        **({"spares_kit_unpriced": ", ".join(kit_unpriced)} if kit_unpriced else {}),
    )
    return quote


# --- editing -------------------------------------------------------------------------------------


@_edits_quote
def quote_revise(*, quote: Quote, user: User, expected_version: int) -> QuoteRevision:
    """Open the quote for editing: the next revision if the current one was sent."""
    _claim(quote, expected_version=expected_version)
    return _editable_revision(quote, user=user)


@_edits_quote
def quote_add_product(
    *,
    quote: Quote,
    sku: str,
    quantity: int,
    user: User,
    expected_version: int,
    section: str | None = None,
    discount_percent: Decimal | int | str = 0,
) -> QuoteLine:
    """A catalog product (hardware, service or support tier) priced from the price lists."""
    quantity, discount = _quantity(quantity), _percent(discount_percent, "discount_percent")
    product = Product.objects.filter(part_number=sku).first()
    if product is None:
        raise InvalidValue(
            gettext("There is no product %(sku)s in the catalog.") % {"sku": sku}, field="sku"
        )
    if section is not None and section not in Section.values:
        raise InvalidValue(gettext("Unknown section."), field="section")
    if section == Section.ALTERNATIVES:
        raise InvalidValue(gettext("Alternatives come from a saved design."), field="section")
    _claim(quote, expected_version=expected_version)
    revision = _editable_revision(quote, user=user)
    price = _priced(revision, [{"sku": sku, "quantity": quantity}], quote.currency).lines[0]
    line = QuoteLine.objects.create(
        revision=revision,
        position=_next_position(revision),
        section=section or _product_section(product),
        kind=_kind_of(product),
        product=product,
        sku=sku,
        description=product.name[:500],
        quantity=quantity,
        unit_price=price.unit_price,
        list_price=price.unit_price,
        unit_cost=price.unit_cost,
        discount_percent=discount,
        price_source=price.source[:300],
        term_months=YEAR_TERM_MONTHS if price.paid_yearly else None,
        vat_percent=vat_rates_for(quote.customer).get(
            tax_category_of(tax_category=product.tax_category, category=product.category)
        ),
    )
    _assert_fits(revision, field="quantity")
    _event(
        quote,
        QuoteEventVerb.LINE_ADDED,
        actor=user,
        revision=revision,
        sku=sku,
        quantity=quantity,
        unit_price=line.unit_price,
        discount_percent=discount,
        section=line.section,
    )
    _tco_follows(revision, user=user)
    line.refresh_from_db()  # support per device or as a share of hardware has followed the offer
    return line


@_edits_quote
def quote_add_free_text(
    *,
    quote: Quote,
    description: str,
    quantity: int,
    unit_price,
    user: User,
    expected_version: int,
    section: str = Section.SERVICES,
    discount_percent: Decimal | int | str = 0,
) -> QuoteLine:
    """A line the catalog does not have (a site survey, freight), priced by hand."""
    description = (description or "").strip()
    if not description or len(description) > 500:
        raise InvalidValue(
            gettext("Describe the line in 1 to 500 characters."), field="description"
        )
    if section not in Section.values or section == Section.ALTERNATIVES:
        raise InvalidValue(gettext("Unknown section."), field="section")
    quantity, price = _quantity(quantity), _money(unit_price, "unit_price")
    discount = _percent(discount_percent, "discount_percent")
    _claim(quote, expected_version=expected_version)
    revision = _editable_revision(quote, user=user)
    line = QuoteLine.objects.create(
        revision=revision,
        position=_next_position(revision),
        section=section,
        kind=LineKind.FREE_TEXT,
        description=description,
        quantity=quantity,
        unit_price=price,
        discount_percent=discount,
        price_source="entered by hand",
        # A line typed by hand is taxed as what its section sells: work or goods.
        vat_percent=vat_rates_for(quote.customer).get(
            TaxCategory.SERVICES
            if section in (Section.SERVICES, Section.SUPPORT)
            else TaxCategory.GOODS
        ),
    )
    _assert_fits(revision, field="unit_price")
    _tco_follows(revision, user=user)
    _event(
        quote,
        QuoteEventVerb.LINE_ADDED,
        actor=user,
        revision=revision,
        description=description,
        quantity=quantity,
        unit_price=price,
        discount_percent=discount,
        section=section,
    )
    return line


@_edits_quote
def quote_update_line(
    *,
    quote: Quote,
    line: QuoteLine,
    user: User,
    expected_version: int,
    quantity: int | None = None,
    discount_percent=None,
    unit_price=None,
    optional: bool | None = None,
    unit_cost=None,
    vat_percent=None,
    vat_reason: str = "",
) -> QuoteLine:
    """Change a line's quantity, discount or (by hand) unit price, or whether it is optional;
    managers and catalog managers may also correct its unit cost, and managers override its
    VAT rate, with a reason.

    "Optional" is not a field of its own: it is the optional section (offered, outside the
    totals, the customer may include it on the link; offer_choice prices it). Turned off, the
    line goes back to the section its product belongs to (a free-text line to services)."""
    changes = {}
    if quantity is not None:
        changes["quantity"] = _quantity(quantity)
    if discount_percent is not None:
        changes["discount_percent"] = _percent(discount_percent, "discount_percent")
    if unit_price is not None:
        changes["unit_price"] = _money(unit_price, "unit_price")
    if unit_cost is not None:
        if not may_edit_cost(user=user):
            raise NotAllowed(gettext("Only managers and catalog managers can change a unit cost."))
        changes["unit_cost"] = _money(unit_cost, "unit_cost")
    if vat_percent is not None:
        if not may_decide_approvals(user=user):
            raise NotAllowed(gettext("Only a manager can override a line's VAT rate."))
        reason = (vat_reason or "").strip()
        if not reason or len(reason) > 200:
            raise InvalidValue(
                gettext(
                    "Say why this line's VAT rate differs from the table (up to 200 characters)."
                ),
                field="vat_reason",
            )
        changes["vat_percent"] = _percent(vat_percent, "vat_percent")
        changes["vat_reason"] = reason
    _claim(quote, expected_version=expected_version)
    looked_at = quote.current_revision_id
    revision = _editable_revision(quote, user=user)
    target = _line_in(revision, line, looked_at=looked_at)
    if optional is not None and bool(optional) != (target.section == Section.OPTIONAL):
        if target.section == Section.ALTERNATIVES:
            raise InvalidValue(
                gettext("A line of an alternative cannot be optional."), field="optional"
            )
        if target.alternative_group:  # a kit offered with an option is never ordered without it
            raise InvalidValue(
                gettext(
                    "A line of an alternative's spares kit stays optional: remove it if it is "
                    "not to be offered."
                ),
                field="optional",
            )
        changes["section"] = Section.OPTIONAL if optional else _section_of(target)
    before = {f: getattr(target, f) for f in changes}
    for name, value in changes.items():
        setattr(target, name, value)
    if "unit_price" in changes and changes["unit_price"] != before["unit_price"]:
        target.price_source = f"set by hand (was {before['unit_price']})"[:300]
    target.save()
    _assert_fits(revision, field="unit_price" if "unit_price" in changes else "quantity")
    _tco_follows(revision, user=user)
    _event(
        quote,
        QuoteEventVerb.LINE_CHANGED,
        actor=user,
        revision=revision,
        line=target.sku or target.description[:60],
        before=before,
        after=changes,
    )
    return target


@_edits_quote
def quote_remove_line(*, quote: Quote, line: QuoteLine, user: User, expected_version: int) -> None:
    _claim(quote, expected_version=expected_version)
    looked_at = quote.current_revision_id
    revision = _editable_revision(quote, user=user)
    target = _line_in(revision, line, looked_at=looked_at)
    target.delete()
    _tco_follows(revision, user=user)
    _event(
        quote,
        QuoteEventVerb.LINE_REMOVED,
        actor=user,
        revision=revision,
        line=target.sku or target.description[:60],
        quantity=target.quantity,
        unit_price=target.unit_price,
    )


@_edits_quote
def quote_update_terms(
    *,
    quote: Quote,
    user: User,
    expected_version: int,
    discount_percent=None,
    tax_percent=None,
    valid_until: dt.date | None = None,
    workload: str | None = None,
    payment_schedule=None,
    additional_terms: str | None = None,
    additional_terms_zh: str | None = None,
    tco_options: list[str] | None = None,
    contact=KEEP,
    external_id=KEEP,
) -> Quote:
    """The quote's terms in one edit: the quote-level discount (applied to the subtotal of the
    rounded lines), the VAT rate (0 for export), the validity date, the workload its TCO assumes
    (a preset's key; the TCO is computed again), the payment schedule (milestones summing to 100
    %, payment_schedule_clean), the additional terms printed with the standard ones
    (`additional_terms_zh`: their Chinese text, for the Chinese documents) and the TCO options
    its proposal shows (names of its comparison's options, tco_options_check). None leaves a
    term as it is. One version bump and one event per term that really changed, all or nothing;
    when nothing changes, nothing is written (an approved quote stays approved).

    `contact` (one of the customer's, or None) and `external_id` (None or empty clears it) say
    whom and which CRM record the quote is for: not terms, so changing only them bumps the
    version but opens no revision and keeps an approval (KEEP leaves them as they are)."""
    links = _crm_links(quote, contact=contact, external_id=external_id)
    discount = None if discount_percent is None else _percent(discount_percent, "discount_percent")
    tax = None if tax_percent is None else _percent(tax_percent, "tax_percent")
    workload = None if workload is None else _workload(workload)
    schedule = None if payment_schedule is None else payment_schedule_clean(payment_schedule)
    additional_terms = None if additional_terms is None else _additional_terms(additional_terms)
    if additional_terms_zh is not None:
        additional_terms_zh = _additional_terms(additional_terms_zh, "additional_terms_zh")
    if valid_until is not None and valid_until < timezone.localdate():
        raise InvalidValue(gettext("The validity date is in the past."), field="valid_until")
    current = _current(quote)
    if workload is not None and current.design_id is None:
        raise InvalidValue(
            gettext("This quote has no design to compare fabrics for."), field="workload"
        )
    if tco_options is not None:
        tco_options = _tco_options(current, tco_options)
    terms_kept = (
        discount in (None, current.discount_percent)
        and tax in (None, current.tax_percent)
        and valid_until in (None, quote.valid_until)
        and workload in (None, current.workload)
        # None kept is an empty one; a standard milestone kept in words is its key.
        and (schedule is None or schedule == schedule_keys(current.payment_schedule))
        and additional_terms in (None, current.additional_terms)
        and additional_terms_zh in (None, current.additional_terms_zh)
        and tco_options in (None, revision_tco_options(revision=current))
    )
    if terms_kept and not links:
        if quote.version != expected_version:
            raise StaleVersion(expected=expected_version, current=quote.version)
        return quote
    _claim(quote, expected_version=expected_version)
    if links:
        for name, value in links.items():
            setattr(quote, name, value)
        unique_save(quote, lambda: external_id_check(quote, quote.external_id))
        if terms_kept:
            return quote
    revision = _editable_revision(quote, user=user)
    if discount is not None and discount != revision.discount_percent:
        _event(
            quote,
            "discount_changed",
            actor=user,
            revision=revision,
            before=revision.discount_percent,
            after=discount,
        )
        revision.discount_percent = discount
        revision.save(update_fields=["discount_percent"])
        _assert_fits(revision, field="discount_percent")
        _tco_follows(revision, user=user)
    if workload is not None and workload != revision.workload:
        _event(
            quote,
            QuoteEventVerb.WORKLOAD_CHANGED,
            actor=user,
            revision=revision,
            before=revision.workload,
            after=workload,
        )
        revision_tco_refresh(revision=revision, user=user, workload=workload)
    if tco_options is not None and tco_options != revision_tco_options(revision=revision):
        _event(
            quote,
            QuoteEventVerb.TCO_OPTIONS_CHANGED,
            actor=user,
            revision=revision,
            before=revision_tco_options(revision=revision),
            after=tco_options,
        )
        revision.tco_options = tco_options
        revision.save(update_fields=["tco_options"])
    if valid_until is not None and valid_until != quote.valid_until:
        _event(
            quote, QuoteEventVerb.VALIDITY_CHANGED, actor=user,
            before=quote.valid_until, after=valid_until,
        )  # fmt: skip
        quote.valid_until = valid_until
        quote.save(update_fields=["valid_until", "updated_at"])
    if tax is not None and tax != revision.tax_percent:
        _event(
            quote, QuoteEventVerb.TAX_CHANGED, actor=user, before=revision.tax_percent, after=tax
        )
        revision.tax_percent = tax
        revision.save(update_fields=["tax_percent"])
        _assert_fits(revision, field="tax_percent")
    _payment_terms_set(
        quote,
        revision,
        user=user,
        schedule=schedule,
        terms={"additional_terms": additional_terms, "additional_terms_zh": additional_terms_zh},
    )
    return quote


def _payment_terms_set(
    quote: Quote, revision: QuoteRevision, *, user: User, schedule, terms: dict[str, str | None]
):
    """quote_update_terms' payment schedule and additional terms (each language's text, by its
    field's name; None: kept): an event for each changed."""
    if schedule is not None and schedule != schedule_keys(revision.payment_schedule):
        _event(
            quote, QuoteEventVerb.PAYMENT_TERMS_CHANGED, actor=user,
            before=schedule_text(revision.payment_schedule), after=schedule_text(schedule),
        )  # fmt: skip
        revision.payment_schedule = schedule
        revision.save(update_fields=["payment_schedule"])
    for name, text in terms.items():
        if text is None or text == getattr(revision, name):
            continue
        _event(
            quote, QuoteEventVerb.PAYMENT_TERMS_CHANGED, actor=user,
            before=getattr(revision, name), after=text,
        )  # fmt: skip
        setattr(revision, name, text)
        revision.save(update_fields=[name])


def quote_set_discount(
    *, quote: Quote, discount_percent, user: User, expected_version: int
) -> QuoteRevision:
    """The quote-level discount alone (quote_update_terms)."""
    quote_update_terms(
        quote=quote, user=user, expected_version=expected_version, discount_percent=discount_percent
    )
    return _current(quote)


def quote_set_terms(
    *,
    quote: Quote,
    user: User,
    expected_version: int,
    valid_until: dt.date | None = None,
    tax_percent=None,
) -> Quote:
    """The validity date and the VAT rate (quote_update_terms)."""
    return quote_update_terms(
        quote=quote,
        user=user,
        expected_version=expected_version,
        valid_until=valid_until,
        tax_percent=tax_percent,
    )


@_edits_quote
def quote_add_alternative(
    *, quote: Quote, design: SavedDesign, label: str, user: User, expected_version: int
) -> list[QuoteLine]:
    """Another fabric option (good / better / best), priced now, offered beside the chosen one.

    Its lines (the design's bill of materials) sit in the alternatives section under `label`,
    outside the totals; chosen, they take the place of every line of the chosen design's bill of
    materials, whatever its section (selectors.replaced_by_alternatives). Its spares kit, sized
    from its own bill of materials at the catalog's ratios, follows as optional lines under
    `label`: the customer who orders this option may include it (and not the chosen design's).
    Returns the alternative's lines, then its kit's.
    """
    label = (label or "").strip()
    if not label or len(label) > 100:
        raise InvalidValue(gettext("Name the alternative in 1 to 100 characters."), field="label")
    if design.project_id != quote.project_id:
        raise InvalidValue(gettext("This design belongs to another project."), field="design")
    _claim(quote, expected_version=expected_version)
    revision = _editable_revision(quote, user=user)
    if revision.lines.filter(alternative_group=label).exists():
        raise InvalidValue(
            gettext("There is already an alternative called %(label)s.") % {"label": label},
            field="label",
        )
    lines = _bom_lines(
        revision=revision,
        priced=_priced(revision, design.bom, quote.currency),
        start=_end_position(revision),
        section=Section.ALTERNATIVES,
        group=label,
        design=design,
    )
    kit, kit_unpriced = _spares_kit_lines(
        revision, bom=design.bom, start=lines[-1].position + 1 if lines else 1, group=label,
        design=design,
    )  # fmt: skip
    _lines_create(revision, [*lines, *kit], field="design")
    _assert_fits(revision, field="design")
    _event(
        quote,
        QuoteEventVerb.ALTERNATIVE_ADDED,
        actor=user,
        revision=revision,
        label=label,
        design=design.name,
        lines=len(lines),
        spares_kit_lines=len(kit),
        # Named only when some are, as for the chosen design's kit.
        **({"spares_kit_unpriced": ", ".join(kit_unpriced)} if kit_unpriced else {}),
    )
    return [*lines, *kit]


@_edits_quote
def quote_remove_alternative(*, quote: Quote, label: str, user: User, expected_version: int) -> int:
    """Withdraw an alternative (all its lines, and its spares kit) from the current revision;
    returns how many lines of the alternative went. An unknown label is refused on "label" and
    changes nothing."""
    _claim(quote, expected_version=expected_version)
    revision = _editable_revision(quote, user=user)
    lines = revision.lines.filter(section=Section.ALTERNATIVES, alternative_group=label)
    count = lines.count()
    if not count:
        raise InvalidValue(
            gettext("There is no alternative called %(label)s.") % {"label": label[:100]},
            field="label",
        )
    # Only an alternative's lines and its kit carry its group (the line's check constraint).
    revision.lines.filter(alternative_group=label).delete()
    _tco_follows(revision, user=user)
    _event(
        quote,
        QuoteEventVerb.ALTERNATIVE_REMOVED,
        actor=user,
        revision=revision,
        label=label,
        lines=count,
    )
    return count


# --- approvals -----------------------------------------------------------------------------------


@_edits_quote
def quote_request_approval(
    *, quote: Quote, user: User, expected_version: int, note: str = ""
) -> Approval:
    _claim(quote, expected_version=expected_version)
    revision = _current(quote)
    gate = revision_gate(revision=revision, user=user)
    if not gate.needs_approval:
        raise InvalidValue(
            gettext(
                "Every configuration the link offers is within your approval rule: the quote "
                "can be sent."
            ),
            field="discount_percent",
        )
    _transition(quote, QuoteStatus.AWAITING_APPROVAL, actor=user)
    approval = Approval.objects.create(
        revision=revision,
        requested_by=user,
        request_note=note[:2000],
        discount_percent=gate.largest_discount,
        margin_percent=gate.lowest_margin,
        worst_choice=gate.worst.label()[:200],
        worst_choice_key=gate.worst.key(),
        required_role=gate.required_role,
    )
    _event(
        quote,
        QuoteEventVerb.APPROVAL_REQUESTED,
        actor=user,
        discount_percent=approval.discount_percent,
        note=note[:2000],
    )
    _announce(
        quote,
        "approval.requested",
        revision=revision,
        totals=revision_totals(revision=revision),
        approval=approval_data(approval),
    )
    notify(
        kind=NotificationKind.APPROVAL_REQUESTED,
        quote=quote,
        recipients=approvers(role=gate.required_role),
        actor=user,
        who=person_name(user),
        discount=approval.discount_percent,
        note=note,
    )
    return approval


def _decide(
    quote: Quote, *, user: User, approve: bool, reason: str, expected_version: int | None
) -> Approval:
    """Managers decide, never on their own request, and only up to their own limit."""
    if not may_decide_approvals(user=user):  # before the version: a role never has a say
        raise NotAllowed(gettext("Only a sales manager can approve or reject a discount."))
    _claim(quote, expected_version=expected_version)
    approval = Approval.objects.filter(
        revision_id=quote.current_revision_id, decision=ApprovalDecision.PENDING
    ).first()
    approval_decide_check(user=user, quote=quote, approval=approval, approve=approve)
    approval.decision = ApprovalDecision.APPROVED if approve else ApprovalDecision.REJECTED
    approval.decided_by, approval.decided_at, approval.reason = user, timezone.now(), reason
    approval.save(update_fields=["decision", "decided_by", "decided_at", "reason"])
    _transition(quote, QuoteStatus.APPROVED if approve else QuoteStatus.DRAFT, actor=user)
    _event(
        quote,
        QuoteEventVerb.APPROVED if approve else QuoteEventVerb.REJECTED,
        actor=user,
        discount_percent=approval.discount_percent,
        reason=reason,
    )
    _announce(
        quote,
        "approval.decided",
        revision=approval.revision,
        totals=revision_totals(revision=approval.revision),
        approval=approval_data(approval),
    )
    notify(
        kind=NotificationKind.APPROVAL_DECIDED,
        quote=quote,
        recipients=[quote.owner, approval.requested_by],
        actor=user,
        who=person_name(user),
        approved=approve,
        discount=approval.discount_percent,
        note=reason,
    )
    return approval


@_edits_quote
def quote_approve(
    *, quote: Quote, user: User, reason: str = "", expected_version: int | None = None
) -> Approval:
    return _decide(
        quote, user=user, approve=True, reason=reason[:2000], expected_version=expected_version
    )


@_edits_quote
def quote_reject(
    *, quote: Quote, user: User, reason: str, expected_version: int | None = None
) -> Approval:
    """Back to draft, with the reason the sales engineer will read."""
    if not (reason or "").strip():
        raise InvalidValue(
            gettext("Say why, so the sales engineer knows what to change."), field="reason"
        )
    return _decide(
        quote, user=user, approve=False, reason=reason[:2000], expected_version=expected_version
    )


# --- the lifecycle -------------------------------------------------------------------------------


@_edits_quote
def quote_send(*, quote: Quote, user: User, expected_version: int) -> QuoteRevision:
    """Freeze the current revision (totals stored) and mark the quote sent."""
    _claim(quote, expected_version=expected_version)
    revision = _current(quote)
    gate = revision_gate(revision=revision, user=user)
    quote_send_check(quote=quote, revision=revision, user=user, gate=gate)
    if quote.valid_until < timezone.localdate():
        raise QuoteExpired(
            gettext(
                "The quote was valid until %(date)s; set a new validity date before sending it."
            )
            % {"date": quote.valid_until},
            field="valid_until",
        )
    _assert_not_frozen(revision)
    if not revision.lines.exists():
        raise InvalidValue(
            gettext("A quote needs at least one line before it is sent."), field="lines"
        )
    lines = list(revision.lines.select_related("product", "design"))
    if not any(ln.alternative_group and ln.origin == LineOrigin.SPARES_KIT for ln in lines):
        # A draft made before each option carried its own spares kit (content version 6) is
        # sent under that rule: its options get their kits now, or choosing one would offer no
        # spares at all (selectors.kits_follow_the_option). Kits that would take it past the line
        # cap refuse the send, naming the count: the sender can still remove lines and send,
        # where a kit left out would send an option offering no spares without anyone choosing so.
        _alternatives_kits_sized(revision, lines, user=user, over_the_cap=KIT_REFUSED)
    _assert_fits(revision, field="lines")
    export_check_sendable(revision_export_note(revision=revision))
    _tco_follows(revision, user=user)  # what is frozen is priced as sent
    totals = revision_totals(revision=revision)
    now = timezone.now()
    revision.subtotal, revision.discount_amount, revision.net = (
        totals.subtotal,
        totals.discount,
        totals.net,
    )
    revision.tax_amount, revision.total = totals.tax, totals.total
    revision.tax_breakdown = [row.as_json() for row in totals.tax_breakdown]
    # Frozen with the rest: a lead time the catalog manager changes later is for later offers.
    lead_time = revision_lead_time(revision=revision)
    revision.lead_time_weeks = lead_time.weeks
    revision.lead_time_unknown = list(lead_time.totals.unknown)
    # What its options' services per node and share-of-hardware support are priced on, as the
    # draft priced them: frozen with the rest, so a later catalog or a design stored again never
    # moves an option's figures from those the PDF prints.
    revision.option_basis = option_basis(
        revision, list(revision.lines.select_related("product"))
    ).as_json()
    revision.frozen_at = revision.sent_at = now
    revision.save()
    # The fingerprint of what the database now holds (not of the values computed above): every
    # PDF served, bound or signed as this revision must have been rendered from exactly it.
    revision.content_sha256 = revision_content_fingerprint(revision=revision)
    revision.save(update_fields=["content_sha256"])
    revision_frozen.send(sender=QuoteRevision, revision=revision)
    _transition(
        quote, QuoteStatus.SENT, actor=user, revision_label=revision.label, total=totals.total
    )
    _announce(
        quote,
        "quote.sent",
        revision=revision,
        totals=totals,
        sent={
            "at": event_time(revision.sent_at),
            "by": event_user(user),
            "valid_until": event_date(quote.valid_until),
            # The delivery time the proposal prints, frozen above; None: it prints none.
            "lead_time_weeks": revision.lead_time_weeks,
        },
    )
    return revision


@_edits_quote
def quote_export_check(*, quote: Quote, user: User, expected_version: int) -> QuoteEvent:
    """Record that `user` checked the export-control note of the current revision as it stands
    (its content fingerprint, the destination and the lines, in the audit trail): what sending
    asks for. Not legal advice, and nothing the customer sees."""
    _claim(quote, expected_version=expected_version)
    revision = _current(quote)
    _assert_not_frozen(revision)
    note = revision_export_note(revision=revision)
    if note is None:
        raise InvalidValue(
            gettext(
                "This quote needs no export-control check: no line carries a classification "
                "for a listed destination."
            ),
            field="export_check",
        )
    return _event(
        quote,
        QuoteEventVerb.EXPORT_CHECKED,
        actor=user,
        revision=revision,
        destination=note.destination,
        classified=", ".join(f"{line.sku} ({line.classification})" for line in note.lines),
        fingerprint=note.fingerprint,
    )


def _booked_totals(quote: Quote) -> Totals:
    return Totals(
        quote.booked_subtotal,
        quote.booked_discount,
        quote.booked_net,
        quote.booked_tax,
        quote.booked_total,
    )


def _staff_acceptance(quote: Quote, *, actor: User | None, note) -> dict:
    """quote.accepted's `acceptance` for an answer staff recorded (no signature, no link): the
    share link's shape (proposals.acceptance.services), what staff cannot know left empty."""
    keys = [str(key) for key in quote.booked_optional or []]
    described = {
        str(key): description
        for key, description in QuoteLine.objects.filter(
            revision_id=quote.booked_revision_id, key__in=keys
        ).values_list("key", "description")
    }
    return {
        "recorded_by": "staff",
        "recorded_by_user": event_user(actor),
        "note": str(note or "")[:2000],
        "signer": "",
        "title": "",
        "company": "",
        "signed_at": event_time(quote.booked_at),
        "signer_email": "",  # staff vouch for the customer: no one-time code
        "signer_email_verified_at": None,
        "signer_timezone": "",
        "signature_kind": None,
        "language": None,
        "share_link": None,
        "browser": "",
        "system": "",
        "is_mobile": None,
        "document_sha256": None,
        "signed_status": None,
        "signed_pdf_url": None,
        "signed_sha256": None,
        "po_number": "",
        "invoice": None,
        "chosen_alternative": quote.booked_alternative,
        "chosen_optional": [{"key": key, "description": described.get(key, "")} for key in keys],
        "as_sent_totals": event_totals(
            revision_totals(revision=quote.booked_revision), currency=quote.currency
        ),
        "countersignature": None,  # a seller countersigns a signed acceptance only
    }


def _book(
    quote: Quote, *, revision: QuoteRevision | None, alternative: str, optional: Sequence[str]
) -> None:
    """Record the booked configuration, priced by the link's own function (offer_choice): what
    the reseller orders, invoices and installs from now on."""
    revision = revision or _current(quote)
    choice = offer_choice(revision=revision, alternative=alternative, optional_keys=optional)
    totals = choice.totals
    quote.booked_revision = revision
    quote.booked_alternative = choice.alternative
    quote.booked_optional = choice.optional_keys
    quote.booked_at = timezone.now()
    quote.booked_subtotal, quote.booked_discount, quote.booked_net = (
        totals.subtotal,
        totals.discount,
        totals.net,
    )
    quote.booked_tax, quote.booked_total = totals.tax, totals.total
    quote.booked_tax_breakdown = [row.as_json() for row in totals.tax_breakdown]
    quote.save(update_fields=[name for name in BOOKED_FIELDS])
    # Support and licences run from the acceptance (staff may move the start later).
    QuoteLine.objects.filter(
        pk__in=[line.pk for line in choice.lines if line.term_months], starts_on__isnull=True
    ).update(starts_on=timezone.localdate())


BOOKED_FIELDS = (
    "booked_revision",
    "booked_alternative",
    "booked_optional",
    "booked_at",
    "booked_subtotal",
    "booked_discount",
    "booked_net",
    "booked_tax",
    "booked_total",
    "booked_tax_breakdown",
)


@_edits_quote
def quote_mark_accepted(
    *,
    quote: Quote,
    actor: User | None = None,
    expected_version: int | None = None,
    webhook_data: dict | None = None,
    revision: QuoteRevision | None = None,
    alternative: str = "",
    optional: Sequence[str] = (),
    **details,
) -> Quote:
    """The customer's yes (`details`: their name and title, from the share link), booked: the
    accepted `revision` (the current one unless given) with the `alternative` and `optional`
    items the customer chose (none: as quoted) becomes the quote's booked configuration.

    `webhook_data`: more for the quote.accepted payload only (the share link's acceptance:
    signer, the accepted PDF's SHA-256, purchase details), not written to the audit event."""
    _claim(quote, expected_version=expected_version)
    if quote.status == QuoteStatus.EXPIRED or (
        quote.status == QuoteStatus.SENT and quote.valid_until < timezone.localdate()
    ):
        raise QuoteExpired(
            gettext(
                "This quote was valid until %(date)s and can no longer be accepted; ask for a "
                "new revision."
            )
            % {"date": quote.valid_until},
            field="status",
        )
    _transition(quote, QuoteStatus.ACCEPTED, actor=actor, **details)
    _book(quote, revision=revision, alternative=alternative, optional=optional)
    # At the booked configuration's totals; `acceptance` is the share link's signature
    # (webhook_data, built by proposals) or, for an answer staff recorded, the same shape.
    _announce(
        quote,
        "quote.accepted",
        revision=quote.booked_revision,
        totals=_booked_totals(quote),
        acceptance=webhook_data or _staff_acceptance(quote, actor=actor, note=details.get("note")),
    )
    notify(
        kind=NotificationKind.QUOTE_ACCEPTED,
        quote=quote,
        recipients=[quote.owner],
        actor=actor,
        who=str(details.get("name") or ""),
        booked=f"{quote.booked_total:,.2f}",
        currency=quote.currency,
    )
    return quote


@_edits_quote
def quote_mark_declined(
    *,
    quote: Quote,
    actor: User | None = None,
    reason: str = "",
    expected_version: int | None = None,
) -> Quote:
    _claim(quote, expected_version=expected_version)
    _transition(quote, QuoteStatus.DECLINED, actor=actor, reason=reason[:2000])
    revision = _current(quote)
    _announce(
        quote,
        "quote.declined",
        revision=revision,
        totals=revision_totals(revision=revision),
        declined={"reason": reason[:2000]},
    )
    notify(
        kind=NotificationKind.QUOTE_DECLINED,
        quote=quote,
        recipients=[quote.owner],
        actor=actor,
        note=reason,
    )
    return quote


def quotes_expire_overdue(*, today: dt.date | None = None) -> int:
    """Sent quotes past their validity date become expired; returns how many did.

    Idempotent: a second run finds nothing. Each quote is its own transaction, re-checked under
    its row lock, so a customer accepting at the same moment wins or loses cleanly. Drafts are
    left alone: quote_send already refuses a draft past its validity.
    """
    today = today or timezone.localdate()
    due = Quote.objects.filter(status=QuoteStatus.SENT, valid_until__lt=today).values_list(
        "pk", flat=True
    )
    expired = 0
    for pk in list(due):
        with transaction.atomic():
            quote = Quote.objects.select_for_update().get(pk=pk)
            if quote.status != QuoteStatus.SENT or quote.valid_until >= today:
                continue
            _claim(quote, expected_version=None)
            _transition(quote, QuoteStatus.EXPIRED, actor=None, valid_until=quote.valid_until)
            revision = _current(quote)
            _announce(
                quote,
                "quote.expired",
                revision=revision,
                totals=revision_totals(revision=revision),
                expired={"valid_until": event_date(quote.valid_until)},
            )
            expired += 1
    return expired
