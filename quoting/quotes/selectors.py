"""Reads of quotes: who sees which, totals and the rounding rule, approvals, the revision page,
the customer's choice, diffs, the audit trail, notifications and the quote list.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

from django.core.cache import cache as shared_cache
from django.db.models import (
    BooleanField,
    Exists,
    ExpressionWrapper,
    F,
    Func,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    prefetch_related_objects,
)
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from catalog.models import (
    DEVICE_CATEGORIES,
    EXPORT_SOURCE_VERIFY,
    HARDWARE_CATEGORIES,
    Category,
    PricingBasis,
    paid_yearly,
)
from portal.models import User
from quoting.conf import quoting_setting
from quoting.customers.models import PLAN_PARTS, ExportDestination, Project
from quoting.customers.selectors import customer_country, customers_visible_to
from quoting.designs.models import SavedDesign
from quoting.designs.selectors import FxLock, bom_priced
from quoting.engine.messages import Message, message
from quoting.engine.money import TaxRow, Totals, line_amount, round_money, totals_compute
from quoting.errors import InvalidValue
from quoting.quotes import content_hash
from quoting.quotes.margins import RevisionMargins, line_margin, lines_margin, revision_margins
from quoting.quotes.models import (
    SECTION_ORDER,
    TOTALLED_SECTIONS,
    Approval,
    ApprovalRule,
    AsBuiltCheck,
    InstallPack,
    LineKind,
    LineOrigin,
    Notification,
    NotificationEmailOptOut,
    NotificationKind,
    Quote,
    QuoteEvent,
    QuoteEventVerb,
    QuoteLine,
    QuoteRevision,
    Section,
    choice_label,
    milestone_label,
    schedule_keys,
)

# A revision's frozen design and TCO copies and their drawings: large, and read only where the
# design or the proposal is shown; lists and API answers defer them.
REVISION_SNAPSHOTS = (
    "design_snapshot",
    "tco_snapshot",
    "design_drawing",
    "design_drawings",
    "tco_charts",
    "design_racks",
)
CURRENT_REVISION_SNAPSHOTS = tuple(f"current_revision__{name}" for name in REVISION_SNAPSHOTS)


def quotes_visible_to(*, user: User) -> QuerySet[Quote]:
    quotes = Quote.objects.select_related("customer", "project", "owner", "current_revision")
    customers = customers_visible_to(user=user)
    if not customers.query.has_filters():
        return quotes  # sees every customer: no join, so the list's count reads one index
    return quotes.filter(customer__in=customers.values("pk"))


# --- money: the rounding rule and totals --------------------------------------------------------

# Printed on every quote; quoting.engine.money's line_amount() and totals_compute() are its only
# implementation. Marked for extraction only: pages and proposals translate it where they print it.
ROUNDING_RULE = gettext_noop(
    "Each line is rounded to 0.01 (half up) after its discount; the subtotal is the sum of "
    "rounded lines; for each VAT rate, the quote discount and tax are each rounded to 0.01 "
    "(half up)."
)
# How an option's "Total if chosen" is priced (replaced_by_alternatives), said under every list
# of options (the quote page, the proposal, the link, the workbook); translated where printed.
ALTERNATIVES_RULE = gettext_noop(
    "An option takes the place of the proposed design's equipment and licences, whatever their "
    "section; the other items stay, and support priced per switch follows the option (support "
    "priced as a share of the hardware stays as quoted). Optional items are sized for the "
    "proposed design."
)
# The same, from content version 7 (services_follow_the_option): services priced per node and
# support priced as a share of the hardware follow the option too. A revision sent before
# printed one of the rules below and keeps it (alternatives_rule).
ALTERNATIVES_RULE_FOLLOWS = gettext_noop(
    "An option takes the place of the proposed design's equipment and licences, whatever their "
    "section; the other items stay, and support priced per switch or as a share of the "
    "hardware, and services priced per compute node, follow the option. Each configuration has "
    "its own spares kit, sized from its equipment and offered with it only; the other optional "
    "items are offered with any."
)
# The same, from content version 6 (kits_follow_the_option): each configuration carries its own
# spares kit. A revision sent before printed the rule above and keeps it (alternatives_rule).
ALTERNATIVES_RULE_KITS = gettext_noop(
    "An option takes the place of the proposed design's equipment and licences, whatever their "
    "section; the other items stay, and support priced per switch follows the option (support "
    "priced as a share of the hardware stays as quoted). Each configuration has its own spares "
    "kit, sized from its equipment and offered with it only; the other optional items are "
    "offered with any."
)
HUNDRED = Decimal(100)
TOTAL_NAMES = ("subtotal", "discount", "net", "tax", "total")  # Totals' amounts, in print order


def _amount(line: QuoteLine) -> Decimal:
    return line_amount(
        quantity=line.quantity, unit_price=line.unit_price, discount_percent=line.discount_percent
    )


def lines_totals(lines: Iterable[QuoteLine], *, revision: QuoteRevision) -> Totals:
    """The totals of exactly these lines, each at its VAT rate (the revision's where it has
    none), with the revision's quote discount: the one pricing of a set of lines."""
    lines = list(lines)
    return totals_compute(
        line_amounts=[_amount(line) for line in lines],
        line_rates=[line.vat_percent for line in lines],
        discount_percent=revision.discount_percent,
        tax_percent=revision.tax_percent,
    )


def stored_breakdown(value) -> tuple[TaxRow, ...]:
    """A tax breakdown as stored (JSON rows), as TaxRows; () when none was stored."""
    return tuple(TaxRow.from_json(row) for row in value or ())


# --- support priced by the offer it is on (services/support.py says how) --------------------------

FOLLOWING = (PricingBasis.PER_DEVICE, PricingBasis.PERCENT_OF_HARDWARE)
SET_BY_HAND = "set by hand"  # quote_update_line's price_source for a price typed in
SPARE_ROLE = "spare"  # a design's spare switches (quoting/engine/fabric/bom.py)


def _counted(line: QuoteLine) -> bool:
    # An offer's lines: the revision's totalled ones, or a choice's (an alternative's included).
    return line.section not in (Section.OPTIONAL,) and line.product is not None


def offer_devices(lines: Iterable[QuoteLine]) -> int:
    """The devices a per-device support covers: the switches among an offer's lines (those in
    its totals), spares not counted."""
    return sum(
        ln.quantity
        for ln in lines
        if _counted(ln) and ln.product.category in DEVICE_CATEGORIES and ln.role != SPARE_ROLE
    )


def offer_hardware(lines: Iterable[QuoteLine]) -> Decimal:
    """The hardware among an offer's lines (those in its totals): goods bought once, each line
    after its own discount (before the quote discount)."""
    return sum(
        (
            _amount(ln)
            for ln in lines
            if _counted(ln)
            and ln.product.category in HARDWARE_CATEGORIES
            and not paid_yearly(unit=ln.product.unit, category=ln.product.category)
        ),
        Decimal("0.00"),
    )


def share_of_hardware(*, hardware: Decimal, percent: Decimal, least: Decimal) -> Decimal:
    """A year of support at `percent` of `hardware`, rounded to the cent, at least `least`."""
    return max(round_money(hardware * percent / 100), least)


def follows_the_offer(line: QuoteLine) -> bool:
    """Whether the line is support priced by the offer it is on (per device, or a share of the
    hardware) and is priced so still (not set by hand)."""
    return (
        line.product_id is not None
        and line.product.pricing_basis in FOLLOWING
        and line.section != Section.ALTERNATIVES
        and not line.price_source.startswith(SET_BY_HAND)
    )


def support_least_prices(revision: QuoteRevision, lines: list[QuoteLine]) -> dict[str, Decimal]:
    """The catalog's price now of each share-of-hardware product among `lines` (the least a year
    of it costs), at the revision's locked exchange rate; one lookup, none without such a
    line."""
    skus = {ln.sku for ln in lines if ln.product.pricing_basis == PricingBasis.PERCENT_OF_HARDWARE}
    if not skus:
        return {}
    fx = None
    if revision.fx_rate:
        fx = FxLock(revision.fx_source_currency, revision.fx_rate, revision.fx_rate_date)
    priced = bom_priced(
        bom=[{"sku": sku, "quantity": 1} for sku in sorted(skus)],
        currency=revision.quote.currency,
        fx=fx,
    )
    return {ln.sku: ln.unit_price for ln in priced.lines if ln.unit_price is not None}


@dataclass(frozen=True, slots=True)
class FollowedPrice:
    quantity: int
    unit_price: Decimal
    list_price: Decimal | None
    # What it follows: its English in the line's price source and the audit trail's reason,
    # the message kept beside that reason (QuoteEvent.reason_message) for the reader.
    note: Message


def support_followed(
    line: QuoteLine,
    *,
    devices: int,
    hardware: Decimal,
    least: dict[str, Decimal],
    installed: bool = False,
) -> FollowedPrice:
    """A support line that follows the offer (follows_the_offer), priced for an offer of
    `devices` switches and `hardware` (offer_devices, offer_hardware); `installed`: they are the
    installed base a renewal quote renews (renewals.installed_base), and its note says so."""
    # Figures as the English always printed them (a Decimal's own digits: "10.00", not 10.0).
    if line.product.pricing_basis == PricingBasis.PER_DEVICE:
        if installed:
            note = message(
                gettext_noop("per device: {devices} switches installed"), devices=devices
            )
        else:
            note = message(
                gettext_noop("per device: {devices} switches on this offer"), devices=devices
            )
        return FollowedPrice(devices, line.unit_price, line.list_price, note)
    percent = line.product.hardware_percent or Decimal(0)
    price = share_of_hardware(
        hardware=hardware, percent=percent, least=least.get(line.sku, Decimal("0.00"))
    )
    if installed:
        template = gettext_noop("{percent} % of the installed hardware, {hardware}")
    else:
        template = gettext_noop("{percent} % of the hardware on this offer, {hardware}")
    note = message(template, percent=str(percent), hardware=str(hardware))
    return FollowedPrice(line.quantity, price, price, note)


@dataclass(frozen=True, slots=True)
class OptionBasis:
    """What the lines that follow the option chosen are priced on (option_basis): each
    configuration's compute nodes ("" as quoted, else the alternative's group), for the services
    priced per node, and each share-of-hardware support product's (percent, least price)."""

    nodes: dict[str, int]
    support: dict[str, tuple[Decimal, Decimal]]

    def as_json(self) -> dict:
        return {
            "nodes": dict(self.nodes),
            "support": {
                sku: {"percent": str(percent), "least": str(least)}
                for sku, (percent, least) in self.support.items()
            },
        }

    @classmethod
    def from_json(cls, value) -> OptionBasis:
        value = value or {}
        return cls(
            nodes={str(group): int(n) for group, n in (value.get("nodes") or {}).items()},
            support={
                sku: (Decimal(row["percent"]), Decimal(row["least"]))
                for sku, row in (value.get("support") or {}).items()
            },
        )


NO_BASIS = OptionBasis({}, {})


def _follows_the_nodes(line: QuoteLine, basis: OptionBasis) -> bool:
    """Whether the line is one of the proposed design's services priced per node, still one per
    compute node of it (a quantity changed by hand is a decision the option keeps)."""
    return (
        line.origin == LineOrigin.NODE_SERVICES
        and line.section != Section.ALTERNATIVES
        and not line.alternative_group
        and basis.nodes.get("") is not None
        and line.quantity == basis.nodes[""]
    )


def option_basis(revision: QuoteRevision, lines: list[QuoteLine]) -> OptionBasis:
    """What `revision`'s options price their following lines on: as frozen at the send
    (QuoteRevision.option_basis); on a draft, the design snapshot's and each alternative's
    design's node counts and the catalog's percent and least price now, as the draft's own
    support lines are priced (services.support). NO_BASIS on a revision sent before the rule
    (services_follow_the_option). A query or two, only for lines that need them."""
    if not services_follow_the_option(revision):
        return NO_BASIS
    if revision.is_frozen:
        return OptionBasis.from_json(revision.option_basis)
    nodes: dict[str, int] = {}
    if any(ln.origin == LineOrigin.NODE_SERVICES for ln in lines):
        chosen = (revision.design_snapshot or {}).get("node_count")
        if chosen:
            nodes[""] = int(chosen)
        designs = {
            ln.alternative_group: ln.design_id
            for ln in lines
            if ln.section == Section.ALTERNATIVES and ln.design_id
        }
        counted = dict(
            SavedDesign.objects.filter(pk__in=set(designs.values())).values_list(
                "pk", "result__node_count"
            )
        )
        nodes.update({group: int(counted[pk]) for group, pk in designs.items() if counted.get(pk)})
    shares = [
        ln
        for ln in lines
        if ln.section in TOTALLED_SECTIONS
        and follows_the_offer(ln)
        and ln.product.pricing_basis == PricingBasis.PERCENT_OF_HARDWARE
    ]
    least = support_least_prices(revision, shares)
    support = {
        ln.sku: (ln.product.hardware_percent or Decimal(0), least.get(ln.sku, Decimal("0.00")))
        for ln in shares
    }
    return OptionBasis(nodes, support)


def _support_for(
    revision: QuoteRevision,
    lines: list[QuoteLine],
    *,
    alternative: str = "",
    basis: OptionBasis = NO_BASIS,
    optional: Iterable[QuoteLine] = (),
) -> list[QuoteLine]:
    """`lines` (configuration `alternative`'s totalled lines), then the `optional` lines chosen
    with it, those that follow the configuration priced for it: support per device for its
    switches, as services.support prices it for the offer as quoted (an alternative with more
    switches carries the support it would be sold with); and on a revision priced by the rule
    of content version 7 (services_follow_the_option), on what `basis` (option_basis) says,
    support priced as a share of the hardware for its hardware and the proposed design's
    services priced per node for its compute nodes, sold or optional. Changed lines are unsaved
    copies (same key and pk). None follows on a revision sent before the rule
    (whole_design_replaced)."""
    optional = list(optional)
    if not whole_design_replaced(revision):
        return [*lines, *optional]
    devices, hardware = offer_devices(lines), offer_hardware(lines)
    nodes = basis.nodes.get(alternative) if alternative else None
    priced = {}
    for line in [*lines, *optional]:
        quantity, unit_price, list_price = line.quantity, line.unit_price, line.list_price
        if line.section != Section.OPTIONAL and follows_the_offer(line):
            if line.product.pricing_basis == PricingBasis.PER_DEVICE:
                quantity = devices
            elif line.sku in basis.support:
                percent, least = basis.support[line.sku]
                unit_price = list_price = share_of_hardware(
                    hardware=hardware, percent=percent, least=least
                )
        elif nodes and _follows_the_nodes(line, basis):
            quantity = nodes
        if (quantity, unit_price) != (line.quantity, line.unit_price):
            copy = QuoteLine(**{f.attname: getattr(line, f.attname) for f in line._meta.fields})
            copy.product = line.product
            copy.quantity, copy.unit_price, copy.list_price = quantity, unit_price, list_price
            priced[line.pk] = copy
    return [priced.get(ln.pk, ln) for ln in [*lines, *optional]]


def revision_totals(*, revision: QuoteRevision, lines: Iterable[QuoteLine] | None = None) -> Totals:
    """Stored totals of a frozen revision; computed from the lines of a draft. A frozen
    revision's VAT breakdown comes with them unless the query that read it left it out (a
    list, which shows the total only)."""
    if revision.is_frozen and revision.total is not None:
        deferred = "tax_breakdown" in revision.get_deferred_fields()
        return Totals(
            revision.subtotal,
            revision.discount_amount,
            revision.net,
            revision.tax_amount,
            revision.total,
            () if deferred else stored_breakdown(revision.tax_breakdown),
        )
    lines = revision.lines.all() if lines is None else lines
    return lines_totals(
        (line for line in lines if line.section in TOTALLED_SECTIONS), revision=revision
    )


# --- lead times: when the offer can be delivered ---------------------------------------------

# Performed, not shipped: a support term starts on acceptance, a service is scheduled with the
# customer. Free-text lines are left out too: the catalog knows nothing of them.
LEAD_TIME_LEFT_OUT = frozenset({Category.SERVICE, Category.SUPPORT})


@dataclass(frozen=True, slots=True)
class LeadTimeOf:
    """The lead time of some lines: the longest, `weeks` only when every line has one."""

    weeks: int | None
    longest_known: int | None
    unknown: tuple[str, ...] = ()  # the lines without one, by SKU (a free name when none)

    @property
    def counted(self) -> bool:
        return self.longest_known is not None or bool(self.unknown)


@dataclass(frozen=True, slots=True)
class LeadTime:
    """A revision's expected lead time: of the lines in the totals (what the proposal prints,
    as "about N weeks after order", only when every one is known), and apart of the optional
    items and alternatives (a draft's, for the staff's page)."""

    totals: LeadTimeOf
    offered: LeadTimeOf | None = None
    # False: a revision sent before lead times were kept; its proposal printed none.
    recorded: bool = True

    @property
    def weeks(self) -> int | None:
        return self.totals.weeks

    @property
    def offered_differs(self) -> bool:
        return (
            self.offered is not None
            and self.offered.counted
            and (self.offered.longest_known, self.offered.unknown)
            != (self.totals.longest_known, self.totals.unknown)
        )


def _lead_time_counted(line: QuoteLine) -> bool:
    if not line.quantity or line.kind == LineKind.FREE_TEXT:
        return False
    return line.product is None or line.product.category not in LEAD_TIME_LEFT_OUT


def lead_time_of(lines: Iterable[QuoteLine]) -> LeadTimeOf:
    """The longest of the catalog's lead times of these lines, and the lines without one."""
    known, unknown = [], []
    for line in lines:
        if not _lead_time_counted(line):
            continue
        weeks = line.product.lead_time_weeks if line.product is not None else None
        if weeks is None:
            name = line.sku or line.description
            if name not in unknown:
                unknown.append(name)
        else:
            known.append(weeks)
    longest = max(known, default=None)
    return LeadTimeOf(
        weeks=None if unknown else longest, longest_known=longest, unknown=tuple(unknown)
    )


def revision_lead_time(
    *, revision: QuoteRevision, lines: Iterable[QuoteLine] | None = None
) -> LeadTime:
    """A sent revision's lead time as frozen at the send (no line read); a draft's from its lines
    (read with their products when not given) and the catalog's lead times now."""
    if revision.is_frozen:
        unknown = revision.lead_time_unknown
        return LeadTime(
            totals=LeadTimeOf(
                weeks=revision.lead_time_weeks,
                longest_known=revision.lead_time_weeks,
                unknown=tuple(unknown or ()),
            ),
            recorded=unknown is not None,
        )
    if lines is None:
        lines = revision.lines.select_related("product").order_by("position")
    lines = sorted(lines, key=lambda line: line.position)
    return LeadTime(
        totals=lead_time_of(ln for ln in lines if ln.section in TOTALLED_SECTIONS),
        offered=lead_time_of(ln for ln in lines if ln.section not in TOTALLED_SECTIONS),
    )


def revision_content_fingerprint(*, revision: QuoteRevision, version: int | None = None) -> str:
    """The content fingerprint (quoting.quotes.content_hash) of the revision as the database
    holds it now: its fields and every line, read afresh (two queries)."""
    fresh = (
        QuoteRevision.objects.select_related("quote")
        .only(
            *content_hash.FIELDS[version or content_hash.CURRENT_VERSION][0],
            "quote__number",
            "quote__currency",
        )
        .get(pk=revision.pk)
    )
    return content_hash.content_sha256(
        fresh,
        QuoteLine.objects.filter(revision_id=revision.pk),
        quote_number=fresh.quote.number,
        currency=fresh.quote.currency,
        version=version or content_hash.CURRENT_VERSION,
    )


# --- approvals -----------------------------------------------------------------------------------


def approval_rules() -> list[ApprovalRule]:
    """The rules edited in the admin, lowest level first (a handful of rows: one query); the
    QUOTING_DEFAULT_APPROVAL_RULES while none is saved."""
    rules = list(ApprovalRule.objects.order_by("level"))
    return rules or [
        ApprovalRule(
            role=role, level=level, max_discount_percent=discount, min_margin_percent=margin
        )
        for role, level, discount, margin in quoting_setting("QUOTING_DEFAULT_APPROVAL_RULES")
    ]


def sender_rule(*, user: User, rules: list[ApprovalRule]) -> ApprovalRule | None:
    """The highest rule among the user's roles; None for a superuser, who sends anything.
    A user with no rule (no sales role) gets one that allows no discount at all."""
    if user.is_superuser:
        return None
    mine = [rule for rule in rules if user.has_role(rule.role)]
    if mine:
        return mine[-1]
    return ApprovalRule(role="", level=0, max_discount_percent=Decimal(0))


def _below(charged: Fraction, listed: Fraction) -> Fraction:
    """How far below `listed` the customer pays, as an exact fraction (0 at list or above)."""
    if listed <= 0 or charged >= listed:
        return Fraction(0)
    return (listed - charged) / listed


def _list_unit_price(line: QuoteLine) -> Decimal:
    # A free-text line has no list price: what it is charged before its discount stands in.
    return line.unit_price if line.list_price is None else line.list_price


def _as_percent(fraction: Fraction) -> Decimal:
    """An exact fraction as a percentage to 0.01 (half up): for display, never for a compare."""
    return round_money(Decimal(fraction.numerator) * HUNDRED / Decimal(fraction.denominator))


@dataclass(frozen=True, slots=True)
class ChoiceMeasure:
    """One configuration the link offers, measured as the approval rules read it."""

    choice: OfferChoice
    below_list: Fraction  # the deepest discount below list, exact (0.19 = 19 %)
    margin: Fraction | None  # of the lines with a known cost, exact; None when none has one
    total: Decimal  # with VAT, as the link prices it

    @property
    def discount_percent(self) -> Decimal:
        return _as_percent(self.below_list)

    @property
    def margin_percent(self) -> Decimal | None:
        return None if self.margin is None else _as_percent(self.margin)

    def label(self) -> str:
        return choice_label(self.choice.alternative, len(self.choice.optional))

    def key(self) -> dict:
        """The configuration as an approval keeps it (Approval.worst_choice_key)."""
        return {"alternative": self.choice.alternative, "optional": len(self.choice.optional)}


def choice_measure(
    *, revision: QuoteRevision, choice: OfferChoice, listed_floor: Decimal | None = None
) -> ChoiceMeasure:
    """How far below list, and at what margin, the customer pays for `choice`.

    Measured on prices, not on the discount fields, so a unit price set by hand below list
    counts, and a line discount and the quote discount compound (10 % and 10 % are 19 %):
    - per line: its unit price after its discount and the quote discount, against its list;
    - for the whole configuration: its net (before VAT, as the link prices it) against the
      list value of exactly what it contains, or `listed_floor` when that is worth more (the
      design's bill of materials the quote was made from, plus the optional items chosen: lines
      of the design removed or replaced by cheap free-text lines still count). A free-text
      line counts at its own price: it may stand in for removed lines, never for more.
    Every compare is on exact fractions; rounding is for display only.
    """
    quote_discount = Fraction(revision.discount_percent)
    deepest = Fraction(0)
    listed = Fraction(0)
    for line in choice.lines:
        charged = (
            Fraction(line.unit_price)
            * (100 - Fraction(line.discount_percent))
            * (100 - quote_discount)
            / 10000
        )
        deepest = max(deepest, _below(charged, Fraction(_list_unit_price(line))))
        listed += line.quantity * Fraction(_list_unit_price(line))
    if listed_floor is not None:
        listed = max(listed, Fraction(listed_floor))
    deepest = max(deepest, _below(Fraction(choice.totals.net), listed))
    margin = lines_margin(choice.lines, discount_percent=revision.discount_percent)
    return ChoiceMeasure(
        choice=choice,
        below_list=deepest,
        margin=margin.fraction if margin.known else None,
        total=choice.totals.total,
    )


def _optional_orders(
    optional: list[QuoteLine], *, revision: QuoteRevision
) -> list[tuple[QuoteLine, ...]]:
    """The sets of optional items worth measuring among every subset the link allows: none,
    and each first-k of them taken deepest discount first or lowest margin first (the worst
    subset for a ratio of sums is always such a prefix), which includes all of them."""
    if not optional:
        return [()]

    def depth(line: QuoteLine) -> Fraction:
        charged = Fraction(line.unit_price) * (100 - Fraction(line.discount_percent)) / 100
        return _below(charged, Fraction(_list_unit_price(line)))

    def thinness(line: QuoteLine) -> Fraction:
        fraction = line_margin(line, discount_percent=revision.discount_percent).fraction
        return Fraction(2) if fraction is None else fraction

    sets: dict[tuple[int, ...], tuple[QuoteLine, ...]] = {(): ()}
    for ordered in (
        sorted(optional, key=depth, reverse=True),
        sorted(optional, key=thinness),
    ):
        for k in range(1, len(ordered) + 1):
            chosen = tuple(sorted(ordered[:k], key=_position))
            sets[tuple(line.pk for line in chosen)] = chosen
    return list(sets.values())


def revision_offered_measures(
    *,
    revision: QuoteRevision,
    lines: Iterable[QuoteLine] | None = None,
    basis: OptionBasis | None = None,
) -> list[ChoiceMeasure]:
    """Every configuration the link offers that could be the worst one, each priced with the
    link's own function (offer_choice) and measured: the offer as quoted and each alternative,
    each with the optional items as _optional_orders() picks them."""
    lines = _revision_lines(revision) if lines is None else sorted(lines, key=_position)
    alternatives = list(
        dict.fromkeys(ln.alternative_group for ln in lines if ln.section == Section.ALTERNATIVES)
    )
    optional_list = {
        ln.pk: ln.quantity * _list_unit_price(ln) for ln in lines if ln.section == Section.OPTIONAL
    }
    if basis is None:
        basis = option_basis(revision, lines) if alternatives else NO_BASIS
    measures = []
    for alternative in ["", *alternatives]:
        optional = optional_offered(revision, lines, alternative=alternative)
        for chosen in _optional_orders(optional, revision=revision):
            choice = offer_choice(
                revision=revision,
                alternative=alternative,
                optional_keys=[str(ln.key) for ln in chosen],
                lines=lines,
                basis=basis,
            )
            floor = None
            if not alternative and revision.design_list_value is not None:
                floor = revision.design_list_value + sum(
                    (optional_list[ln.pk] for ln in chosen), Decimal(0)
                )
            measures.append(choice_measure(revision=revision, choice=choice, listed_floor=floor))
    return measures


def rule_covers(rule: ApprovalRule, measure: ChoiceMeasure, *, currency: str) -> bool:
    if measure.below_list > Fraction(rule.max_discount_percent) / 100:
        return False
    if (
        rule.min_margin_percent is not None
        and measure.margin is not None
        and measure.margin < Fraction(rule.min_margin_percent) / 100
    ):
        return False
    return not (
        rule.max_total is not None
        and rule.max_total_currency == currency
        and measure.total > rule.max_total
    )


@dataclass(frozen=True, slots=True)
class GateVerdict:
    """The approval gate's answer for one sender: whether they may send the revision alone,
    the configuration furthest beyond their rule (or the deepest one, when within it), and
    which role decides when they may not."""

    needs_approval: bool
    worst: ChoiceMeasure
    lowest_margin: Decimal | None  # of every configuration offered, % to 0.01
    largest_discount: Decimal  # of every configuration offered, % to 0.01
    required_role: str  # "" when no approval is needed
    limit: ApprovalRule | None  # the sender's rule; None for a superuser


def _worst(measures: list[ChoiceMeasure], rule: ApprovalRule | None, currency: str):
    beyond = [
        m for m in measures if rule is not None and not rule_covers(rule, m, currency=currency)
    ]
    pool = beyond or measures
    return max(
        pool,
        key=lambda m: (
            m.below_list,
            -(m.margin if m.margin is not None else Fraction(1)),
            m.total,
        ),
    )


def revision_gate(
    *,
    revision: QuoteRevision,
    user: User,
    lines: Iterable[QuoteLine] | None = None,
    measures: list[ChoiceMeasure] | None = None,
) -> GateVerdict:
    """Whether `user` needs approval to send `revision`: yes when any configuration the link
    offers is beyond their rule. `measures`, when the caller has them (a page's figures), spare
    measuring again."""
    if measures is None:
        measures = revision_offered_measures(revision=revision, lines=lines)
    rules = approval_rules()
    mine = sender_rule(user=user, rules=rules)
    currency = revision.quote.currency
    within = mine is None or all(rule_covers(mine, m, currency=currency) for m in measures)
    required = ""
    if not within:
        above = [rule for rule in rules if rule.level > mine.level]
        covering = [
            rule for rule in above if all(rule_covers(rule, m, currency=currency) for m in measures)
        ]
        required = (covering or above or rules or [mine])[0 if covering else -1].role
    margins = [m.margin for m in measures if m.margin is not None]
    return GateVerdict(
        needs_approval=not within,
        worst=_worst(measures, mine, currency),
        lowest_margin=_as_percent(min(margins)) if margins else None,
        largest_discount=_as_percent(max(m.below_list for m in measures)),
        required_role=required,
        limit=mine,
    )


def revision_largest_discount(
    *, revision: QuoteRevision, lines: Iterable[QuoteLine] | None = None
) -> Decimal:
    """How far below list (%, to 0.01) the customer can pay, in the deepest configuration the
    link offers (choice_measure says how it is measured)."""
    measures = revision_offered_measures(revision=revision, lines=lines)
    return _as_percent(max(m.below_list for m in measures))


def revision_needs_approval(
    *, revision: QuoteRevision, user: User, lines: Iterable[QuoteLine] | None = None
) -> bool:
    return revision_gate(revision=revision, user=user, lines=lines).needs_approval


# --- the revision page ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LineView:
    line: QuoteLine
    amount: Decimal


@dataclass(frozen=True, slots=True)
class AlternativeDelta:
    group: str
    subtotal: Decimal  # the alternative's lines, each rounded
    delta_subtotal: Decimal  # against the lines it replaces (replaced_by_alternatives)
    total_if_chosen: Decimal  # the quote total with this option instead of those lines
    delta_total: Decimal
    # The option's own spares kit, offered with it (optional, outside every total above): each
    # part's number and quantity, and their amount.
    kit: tuple[tuple[str, int], ...] = ()
    kit_subtotal: Decimal = Decimal("0.00")


@dataclass(frozen=True, slots=True)
class FrozenFigures:
    """What a frozen revision's page needs from its lines besides the rows themselves; they
    never change, so they are computed once and kept in the cache."""

    alternatives: list[AlternativeDelta]
    largest_discount: Decimal
    margins: RevisionMargins


FROZEN_FIGURES_SECONDS = 7 * 24 * 3600  # kept a week after the last computation


def frozen_revision_key(revision: QuoteRevision) -> str:
    """A frozen revision in cache keys: its freezing time too, so a key never outlives its row
    (a database restored or made again reuses primary keys)."""
    return f"{revision.pk}:{revision.frozen_at.timestamp()}"


def _frozen_figures_key(revision: QuoteRevision) -> str:
    # v5: an alternative carries its spares kit (AlternativeDelta.kit). v4: an alternative
    # replaces the chosen design's lines, not the network section (#26), on a revision sent
    # under content version 5 or later (whole_design_replaced).
    return f"quoting:frozen-figures:v5:{frozen_revision_key(revision)}"


@dataclass
class RevisionDisplay:
    revision: QuoteRevision
    # None until something reads .sections: a frozen revision's page takes its line table from
    # the cache (quoting.quotes.views.quotes) and then loads no line at all.
    _sections: dict[str, list[LineView]] | None
    totals: Totals
    alternatives: list[AlternativeDelta]
    largest_discount: Decimal  # revision_largest_discount(), computed with the lines
    margins: RevisionMargins  # the reseller's own: shown only where may_view_margin()
    # Every configuration the link offers, measured (revision_offered_measures); None when the
    # figures came from the cache (a frozen revision: its gate no longer matters).
    measures: list[ChoiceMeasure] | None = None
    rounding_rule: str = ROUNDING_RULE
    revisions: list[str] = field(default_factory=list)
    kept: dict[str, object] = field(default_factory=dict)  # what kept_with() found in the cache

    @property
    def quote(self) -> Quote:
        return self.revision.quote

    @property
    def sections(self) -> dict[str, list[LineView]]:
        if self._sections is None:
            self._sections = _sections_of(_revision_lines(self.revision))
        return self._sections


def _revision_lines(revision: QuoteRevision) -> list[QuoteLine]:
    return list(revision.lines.select_related("product").order_by("position"))


def _sections_of(lines: Iterable[QuoteLine]) -> dict[str, list[LineView]]:
    sections: dict[str, list[LineView]] = {s: [] for s in SECTION_ORDER}
    for line in lines:
        sections[line.section].append(LineView(line, _amount(line)))
    return {s: rows for s, rows in sections.items() if rows}


# The content fingerprint version from which a revision is priced by the rule below (its
# lines' origin is fingerprinted from then on). A revision sent before was printed, offered and
# may have been accepted and booked under the earlier rule (an alternative replaces the network
# section; support as quoted): it keeps that rule, so the customer is never asked to accept, and
# the reseller never books, another figure than the one the sent PDF prints.
WHOLE_DESIGN_RULE_VERSION = 5


def whole_design_replaced(revision: QuoteRevision) -> bool:
    """Whether an alternative on `revision` replaces the chosen design's every line and carries
    the support that follows it (a draft, or a revision sent under version 5 or later), or only
    the network section with support as quoted (sent before)."""
    if not revision.is_frozen:
        return True
    head = (revision.content_sha256 or "").partition(":")[0]
    return head.isdigit() and int(head) >= WHOLE_DESIGN_RULE_VERSION


# The content fingerprint version from which each alternative carries its own spares kit
# (optional lines of origin spares_kit under its group) and the customer may include only the
# kit of the configuration they order. A revision sent before offered every optional line with
# every configuration (the proposed design's kit with an alternative too): it keeps that rule.
KIT_PER_OPTION_VERSION = 6


def kits_follow_the_option(revision: QuoteRevision) -> bool:
    """Whether `revision` offers each configuration's spares kit with that configuration only
    (a draft, or a revision sent under version 6 or later), or every optional line with every
    configuration (sent before)."""
    if not revision.is_frozen:
        return True
    head = (revision.content_sha256 or "").partition(":")[0]
    return head.isdigit() and int(head) >= KIT_PER_OPTION_VERSION


# The content fingerprint version from which support priced as a share of the hardware and the
# services priced per node follow the option chosen, as support per switch already did: on what
# QuoteRevision.option_basis froze at the send (each configuration's compute nodes, the
# support's percent and least price), never on a later catalog. A revision sent before printed,
# and may have booked, both as quoted with every option: it keeps that rule.
FOLLOW_THE_OPTION_VERSION = 7


def services_follow_the_option(revision: QuoteRevision) -> bool:
    """Whether `revision`'s options carry the services per node for their compute nodes and the
    share-of-hardware support for their hardware (a draft, or a revision sent under version 7
    or later), or both as quoted (sent before)."""
    if not revision.is_frozen:
        return True
    head = (revision.content_sha256 or "").partition(":")[0]
    return head.isdigit() and int(head) >= FOLLOW_THE_OPTION_VERSION


def kit_of_configuration(line: QuoteLine) -> str | None:
    """The configuration whose spares kit this optional line is ("" the proposed design's, else
    the alternative's group), or None for an optional item offered with any configuration."""
    if line.section == Section.OPTIONAL and line.origin == LineOrigin.SPARES_KIT:
        return line.alternative_group
    return None


def optional_offered(
    revision: QuoteRevision, lines: Iterable[QuoteLine], *, alternative: str = ""
) -> list[QuoteLine]:
    """The optional lines the customer may include with `alternative` ("" as quoted): every
    optional item and the spares kit of that configuration, not another's (a kit of spares for
    parts they would not buy)."""
    optional = [ln for ln in lines if ln.section == Section.OPTIONAL]
    if not kits_follow_the_option(revision):
        return optional
    return [ln for ln in optional if kit_of_configuration(ln) in (None, alternative or "")]


def alternatives_rule(revision: QuoteRevision) -> str:
    """The note said under `revision`'s options, untranslated: the rule it is priced and offered
    by; "" for one sent before any was printed."""
    if services_follow_the_option(revision):
        return ALTERNATIVES_RULE_FOLLOWS
    if kits_follow_the_option(revision):
        return ALTERNATIVES_RULE_KITS
    return ALTERNATIVES_RULE if whole_design_replaced(revision) else ""


def from_the_chosen_design(line: QuoteLine) -> bool:
    """Whether the chosen design put this line on the quote (an alternative's own lines are
    not the chosen design's)."""
    return line.origin == LineOrigin.DESIGN and line.section != Section.ALTERNATIVES


def replaced_by_alternatives(line: QuoteLine, *, from_design: bool) -> bool:
    """Whether an alternative takes this line's place in the totals when the customer chooses
    it: an alternative is another saved design, so it replaces every line of the chosen design's
    bill of materials in the totals, whatever section it sits in (a UFM host and its licences,
    servers, per-GPU software: not the network section alone); the lines entered on the quote
    (services, support, products added by hand) stay. `from_design`: whether the revision holds
    any line from the chosen design; one without (a quote made by hand) has its network section
    replaced, its hand-built fabric being the chosen one."""
    if line.section not in TOTALLED_SECTIONS:
        return False
    if from_design:
        return from_the_chosen_design(line)
    return line.section == Section.NETWORK


def _replaced_and_kept(
    revision: QuoteRevision, lines: list[QuoteLine]
) -> tuple[list[QuoteLine], list[QuoteLine]]:
    """The totalled lines an alternative replaces, and those it keeps."""
    from_design = whole_design_replaced(revision) and any(
        from_the_chosen_design(ln) for ln in lines
    )
    replaced, kept = [], []
    for line in lines:
        if line.section in TOTALLED_SECTIONS:
            if replaced_by_alternatives(line, from_design=from_design):
                replaced.append(line)
            else:
                kept.append(line)
    return replaced, kept


def _has_alternatives(lines: Iterable[QuoteLine]) -> bool:
    return any(ln.section == Section.ALTERNATIVES for ln in lines)


def revision_alternatives(
    *,
    revision: QuoteRevision,
    lines: Iterable[QuoteLine] | None = None,
    basis: OptionBasis | None = None,
) -> list[AlternativeDelta]:
    """Each good / better / best option priced as a delta against the lines it replaces (the
    chosen design's: replaced_by_alternatives), the other lines of the totals kept; offer_choice
    prices the same configurations."""
    lines = _revision_lines(revision) if lines is None else list(lines)
    replaced, kept = _replaced_and_kept(revision, lines)
    replaced_subtotal = sum((_amount(ln) for ln in replaced), Decimal("0.00"))
    groups: dict[str, list[QuoteLine]] = defaultdict(list)
    for line in lines:
        if line.section == Section.ALTERNATIVES:
            groups[line.alternative_group].append(line)
    current = lines_totals([*replaced, *kept], revision=revision)
    if basis is None:
        basis = option_basis(revision, lines) if groups else NO_BASIS
    result = []
    for group, group_lines in groups.items():
        subtotal = sum((_amount(ln) for ln in group_lines), Decimal("0.00"))
        chosen = lines_totals(
            _support_for(revision, [*kept, *group_lines], alternative=group, basis=basis),
            revision=revision,
        )
        kit = [ln for ln in lines if group and kit_of_configuration(ln) == group]
        result.append(
            AlternativeDelta(
                group,
                subtotal,
                subtotal - replaced_subtotal,
                chosen.total,
                chosen.total - current.total,
                kit=tuple((ln.sku or ln.description, ln.quantity) for ln in kit),
                kit_subtotal=sum((_amount(ln) for ln in kit), Decimal("0.00")),
            )
        )
    return result


def revision_for_display(
    *,
    user: User,
    quote_id: int,
    number: int | None = None,
    kept_with: Callable[[QuoteRevision], list[str]] | None = None,
) -> RevisionDisplay:
    """One revision (the current one unless `number` is given) with its lines, totals and
    alternatives, in a constant number of queries however many lines it has. A frozen
    revision's figures come from the cache after its first view, and its lines are only loaded
    when display.sections is read.

    `kept_with(revision)`: more cache keys of a frozen revision, read in the same round trip as
    its figures (display.kept); the page keeps its line table so.

    Raises QuoteRevision.DoesNotExist when the user may not see it (a 404 for views).
    """
    # One statement: whether the user may see the quote, the revision (the current one unless
    # `number`) with its quote, customer and project (the design's figures, not its TCO
    # copies), how many revisions there are, and whether it has approvals or installation packs
    # (most have none: then they are not asked for).
    quote_revisions = QuoteRevision.objects.filter(quote=OuterRef("quote_id")).order_by()
    visible = quotes_visible_to(user=user)
    revisions = QuoteRevision.objects.filter(quote_id=quote_id)
    if visible.query.has_filters():  # else the user sees every quote
        revisions = revisions.filter(quote__in=visible.values("pk"))
    shown = (
        revisions.select_related("quote__customer", "quote__project")
        .defer(*(name for name in REVISION_SNAPSHOTS if name != "design_snapshot"))
        .annotate(
            revision_count=Subquery(
                quote_revisions.annotate(n=Func(F("pk"), function="COUNT")).values("n")
            ),
            last_number=Subquery(
                quote_revisions.annotate(n=Func(F("number"), function="MAX")).values("n")
            ),
            has_approvals=Exists(Approval.objects.filter(revision=OuterRef("pk"))),
            has_install_packs=Exists(InstallPack.objects.filter(revision=OuterRef("pk"))),
            has_as_built_checks=Exists(AsBuiltCheck.objects.filter(revision=OuterRef("pk"))),
        )
    )
    if number is None:
        revision = shown.get(pk=F("quote__current_revision_id"))
    else:
        revision = shown.get(number=number)
    if revision.revision_count == revision.last_number:  # R1 to Rn, none missing: as always
        labels = [f"R{n}" for n in range(1, revision.last_number + 1)]
    else:
        labels = [
            f"R{n}"
            for n in QuoteRevision.objects.filter(quote_id=quote_id)
            .order_by("number")
            .values_list("number", flat=True)
        ]
    kept, figures = {}, None
    if revision.is_frozen:
        figures_key = _frozen_figures_key(revision)
        kept = shared_cache.get_many([figures_key, *(kept_with(revision) if kept_with else ())])
        figures = kept.pop(figures_key, None)
    lines = measures = None
    if figures is None:
        lines = _revision_lines(revision)
        # Read once for both (a draft's: the designs' node counts, the catalog's support prices).
        basis = option_basis(revision, lines) if _has_alternatives(lines) else NO_BASIS
        measures = revision_offered_measures(revision=revision, lines=lines, basis=basis)
        figures = FrozenFigures(
            alternatives=revision_alternatives(revision=revision, lines=lines, basis=basis),
            largest_discount=_as_percent(max(m.below_list for m in measures)),
            margins=revision_margins(lines, discount_percent=revision.discount_percent),
        )
        if revision.is_frozen:
            shared_cache.set(_frozen_figures_key(revision), figures, FROZEN_FIGURES_SECONDS)
    return RevisionDisplay(
        revision=revision,
        _sections=None if lines is None else _sections_of(lines),
        totals=revision_totals(revision=revision, lines=lines),
        alternatives=figures.alternatives,
        largest_discount=figures.largest_discount,
        margins=figures.margins,
        measures=measures,
        revisions=labels,
        kept=kept,
    )


# --- the booked configuration --------------------------------------------------------------------


def booked_choice(*, quote: Quote, lines: Iterable[QuoteLine] | None = None) -> OfferChoice | None:
    """What the customer accepted, as the reseller books, invoices and installs it: the booked
    revision with its chosen alternative and optional items (offer_choice's pricing, so the
    lines are exactly the ones in its totals), at the totals stored when it was booked. None
    until the quote is accepted."""
    if quote.booked_revision_id is None:
        return None
    revision = quote.booked_revision
    lines = _revision_lines(revision) if lines is None else list(lines)
    offered = {str(ln.key) for ln in lines if ln.section == Section.OPTIONAL}
    choice = offer_choice(
        revision=revision,
        alternative=quote.booked_alternative,
        optional_keys=[key for key in quote.booked_optional or [] if key in offered],
        lines=lines,
    )
    if quote.booked_total is None:
        return choice
    return OfferChoice(choice.alternative, choice.optional, choice.lines, _booked_totals(quote))


def _booked_totals(quote: Quote) -> Totals:
    """The totals stored when the quote was booked (they never change after)."""
    return Totals(
        quote.booked_subtotal,
        quote.booked_discount,
        quote.booked_net,
        quote.booked_tax,
        quote.booked_total,
        stored_breakdown(quote.booked_tax_breakdown),
    )


def booked_data(quote: Quote) -> dict | None:
    """`booked` as the API and the quote.accepted webhook carry it: the totals' shape (amounts
    as exact text) plus the revision, the alternative ("" = as quoted) and the optional lines'
    keys. None until accepted."""
    if quote.booked_revision_id is None:
        return None
    totals = _booked_totals(quote)
    return {
        **{name: f"{getattr(totals, name):.2f}" for name in TOTAL_NAMES},
        "tax_breakdown": [row.as_json() for row in totals.tax_breakdown],
        "revision": quote.booked_revision.number,
        "alternative": quote.booked_alternative,
        "optional": list(quote.booked_optional or []),
    }


# --- the customer's choice: an alternative and optional items ---------------------------------


@dataclass(frozen=True, slots=True)
class OfferChoice:
    """What the customer chose of what the revision offers, priced as the quote prices itself.

    `alternative` is a line group of the alternatives section ("" = the offer as quoted): it
    takes the place of the chosen design's lines (replaced_by_alternatives), as
    revision_alternatives() prices it. `optional` are
    the optional lines included, in the quote's order; each adds its amount (after its own
    discount) before the quote discount and VAT.
    """

    alternative: str
    optional: tuple[QuoteLine, ...]
    lines: tuple[QuoteLine, ...]  # every line in the totals of this choice
    totals: Totals

    @property
    def optional_keys(self) -> list[str]:
        return [str(line.key) for line in self.optional]

    @property
    def is_as_quoted(self) -> bool:
        return not self.alternative and not self.optional


@dataclass(frozen=True, slots=True)
class OptionalView:
    line: QuoteLine
    amount: Decimal
    # The configuration whose spares kit the line is ("" the proposed design's, else an
    # alternative's group), offered only with it; None: offered with any configuration.
    kit_of: str | None = None
    # A service priced per node that follows the option (_support_for): its quantity and amount
    # in each configuration, as quoted ("") first; () for a line priced the same in every one.
    priced_each: tuple[tuple[str, int, Decimal], ...] = ()


def _priced_each(
    line: QuoteLine, *, groups: list[str], basis: OptionBasis
) -> tuple[tuple[str, int, Decimal], ...]:
    if not groups or not _follows_the_nodes(line, basis):
        return ()
    quantities = {group: basis.nodes.get(group) or line.quantity for group in groups}
    if set(quantities.values()) == {line.quantity}:
        return ()
    return (
        ("", line.quantity, _amount(line)),
        *(
            (
                group,
                quantity,
                line_amount(
                    quantity=quantity,
                    unit_price=line.unit_price,
                    discount_percent=line.discount_percent,
                ),
            )
            for group, quantity in quantities.items()
        ),
    )


@dataclass(frozen=True, slots=True)
class OfferOptions:
    """What a revision lets the customer choose: its alternatives and its optional lines (each
    configuration's spares kit among them, offered with that configuration: optional_offered)."""

    alternatives: list[AlternativeDelta]
    optional: list[OptionalView]
    lines: list[QuoteLine]  # all the revision's lines, read once: offer_choice(lines=) takes them

    def __bool__(self) -> bool:
        return bool(self.alternatives or self.optional)

    def offered_with(self, alternative: str = "") -> list[OptionalView]:
        """The optional rows the customer may include with `alternative` ("" as quoted): every
        optional item and that configuration's kit, not another's (optional_offered's rule)."""
        return [row for row in self.optional if row.kit_of in (None, alternative or "")]


def offer_options(
    *, revision: QuoteRevision, lines: Iterable[QuoteLine] | None = None
) -> OfferOptions:
    lines = _revision_lines(revision) if lines is None else list(lines)
    per_option = kits_follow_the_option(revision)
    groups = list(
        dict.fromkeys(ln.alternative_group for ln in lines if ln.section == Section.ALTERNATIVES)
    )
    optional = [ln for ln in lines if ln.section == Section.OPTIONAL]
    basis = option_basis(revision, lines) if groups else NO_BASIS
    return OfferOptions(
        alternatives=revision_alternatives(revision=revision, lines=lines, basis=basis),
        optional=[
            OptionalView(
                ln,
                _amount(ln),
                kit_of_configuration(ln) if per_option else None,
                _priced_each(ln, groups=groups, basis=basis),
            )
            for ln in optional
        ],
        lines=lines,
    )


def offer_choice(
    *,
    revision: QuoteRevision,
    alternative: str = "",
    optional_keys: Iterable[str] = (),
    lines: Iterable[QuoteLine] | None = None,
    basis: OptionBasis | None = None,
) -> OfferChoice:
    """The one pricing of a customer's choice (the share page's figures, the accept, the
    acceptance's totals). Only what the revision offers can be chosen; anything else raises
    InvalidValue with a message for the customer, in the active language.

    As quoted (no alternative, no optional line) the totals are the revision's own
    (revision_totals: stored once it is sent), so the page never shows a second figure for it.
    `basis`: option_basis(revision, lines), when the caller prices many choices.
    """
    lines = _revision_lines(revision) if lines is None else sorted(lines, key=_position)
    alternative = alternative or ""
    groups = {ln.alternative_group for ln in lines if ln.section == Section.ALTERNATIVES}
    if alternative and alternative not in groups:
        raise InvalidValue(
            _("This offer has no alternative called “%(name)s”: choose one of those listed.")
            % {"name": alternative[:100]},
            field="alternative",
        )
    keys = [str(key) for key in optional_keys]
    if len(set(keys)) != len(keys):
        raise InvalidValue(_("An optional item was chosen twice."), field="optional")
    offered = {str(ln.key): ln for ln in lines if ln.section == Section.OPTIONAL}
    if any(key not in offered for key in keys):
        raise InvalidValue(
            _("This offer has no such optional item: choose among the optional items listed."),
            field="optional",
        )
    with_it = {str(ln.key) for ln in optional_offered(revision, lines, alternative=alternative)}
    if any(key not in with_it for key in keys):
        raise InvalidValue(
            _(
                "These spare parts are the spares kit of another configuration: include the "
                "spares kit offered with the option you order."
            ),
            field="optional",
        )
    chosen = tuple(ln for ln in lines if str(ln.key) in set(keys))
    if alternative:
        _replaced, kept = _replaced_and_kept(revision, lines)
        option = [
            ln
            for ln in lines
            if ln.section == Section.ALTERNATIVES and ln.alternative_group == alternative
        ]
        if basis is None:
            basis = option_basis(revision, lines)
        totalled = tuple(
            _support_for(
                revision, [*kept, *option], alternative=alternative, basis=basis, optional=chosen
            )
        )
    else:
        totalled = (*(ln for ln in lines if ln.section in TOTALLED_SECTIONS), *chosen)
    if not alternative and not chosen:
        totals = revision_totals(revision=revision, lines=lines)
    else:
        totals = lines_totals(totalled, revision=revision)
    return OfferChoice(
        alternative=alternative,
        optional=chosen,
        lines=tuple(sorted(totalled, key=_position)),
        totals=totals,
    )


def _position(line: QuoteLine) -> int:
    return line.position


# --- revision diff -------------------------------------------------------------------------------

DIFF_FIELDS = ("quantity", "unit_price", "discount_percent")


@dataclass(frozen=True, slots=True)
class LineChange:
    old: QuoteLine
    new: QuoteLine
    changes: dict[str, tuple]  # field -> (before, after)


@dataclass(frozen=True)
class RevisionDiff:
    added: list[QuoteLine]
    removed: list[QuoteLine]
    changed: list[LineChange]
    terms: dict[str, tuple]  # quote discount and VAT, when they changed
    totals_before: Totals
    totals_after: Totals

    @property
    def is_empty(self) -> bool:
        return not (self.added or self.removed or self.changed or self.terms)


def schedule_text(schedule, label: Callable[[str], str] = str) -> str:
    """A payment schedule in one line: "On order 30.00 %; On delivery 70.00 %", each name as
    kept (an audit event keeps it so), or as `label` words it (milestone_label: the reader's)."""
    return "; ".join(f"{label(m['label'])} {m['percent']} %" for m in schedule or [])


def revision_diff(*, old: QuoteRevision, new: QuoteRevision) -> RevisionDiff:
    """Line by line, paired by the key each line keeps when a revision is copied; with each
    line's product, whose name the page prints in the reader's language (description_shown)."""
    old_lines = {ln.key: ln for ln in old.lines.select_related("product").order_by("position")}
    new_lines = {ln.key: ln for ln in new.lines.select_related("product").order_by("position")}
    changed = []
    for key, new_line in new_lines.items():
        old_line = old_lines.get(key)
        if old_line is None:
            continue
        changes = {
            f: (getattr(old_line, f), getattr(new_line, f))
            for f in DIFF_FIELDS
            if getattr(old_line, f) != getattr(new_line, f)
        }
        if changes:
            changed.append(LineChange(old_line, new_line, changes))
    terms = {
        f: (getattr(old, f), getattr(new, f))
        for f in ("discount_percent", "tax_percent")
        if getattr(old, f) != getattr(new, f)
    }
    # The payment schedule and additional terms, each as one line of text.
    if schedule_keys(old.payment_schedule) != schedule_keys(new.payment_schedule):
        terms["payment_schedule"] = (
            schedule_text(old.payment_schedule, milestone_label),
            schedule_text(new.payment_schedule, milestone_label),
        )
    if old.additional_terms != new.additional_terms:
        terms["additional_terms"] = (old.additional_terms, new.additional_terms)
    if old.additional_terms_zh != new.additional_terms_zh:
        terms["additional_terms_zh"] = (old.additional_terms_zh, new.additional_terms_zh)
    return RevisionDiff(
        added=[ln for k, ln in new_lines.items() if k not in old_lines],
        removed=[ln for k, ln in old_lines.items() if k not in new_lines],
        changed=changed,
        terms=terms,
        totals_before=revision_totals(revision=old, lines=old_lines.values()),
        totals_after=revision_totals(revision=new, lines=new_lines.values()),
    )


# --- audit ---------------------------------------------------------------------------------------


def quote_audit_trail(*, quote: Quote) -> QuerySet[QuoteEvent]:
    """Everything that happened to the quote, oldest first."""
    # Of the actor and the revision, only what is shown (their name, its number): cheaper to
    # build and read than whole rows with their snapshots left out.
    return (
        QuoteEvent.objects.filter(quote=quote)
        .select_related("actor", "revision")
        .only(
            "quote_id",
            "revision_id",
            "actor_id",
            "verb",
            "details",
            "reason_message",
            "at",
            "actor__username",
            "revision__number",
        )
        .order_by("at", "pk")
    )


# --- notifications -------------------------------------------------------------------------------


def notifications_for(*, user: User) -> QuerySet[Notification]:
    """`user`'s own inbox, unread first, newest first within each; nobody sees another's."""
    unread = ExpressionWrapper(Q(read_at__isnull=True), output_field=BooleanField())
    return (
        Notification.objects.filter(recipient_id=user.pk)
        .select_related("quote")
        .only("kind", "params", "created_at", "read_at", "quote_id", "quote__number")
        .order_by(unread.desc(), "-created_at", "-pk")
    )


def notifications_unread_count(*, user: User) -> int:
    """The header's badge: one COUNT on the partial index of unread rows."""
    return Notification.objects.filter(recipient_id=user.pk, read_at__isnull=True).count()


def notification_email_kinds(*, user: User) -> list[str]:
    """The kinds `user` gets by e-mail: every kind but those they turned off."""
    off = set(NotificationEmailOptOut.objects.filter(user=user).values_list("kind", flat=True))
    return [kind for kind in NotificationKind.values if kind not in off]


# --- the quote list -------------------------------------------------------------------------------

# What a row of the list shows (_quote_table.html) and quote_list_rows() reads: whole customers,
# projects (their requirements), owners and revisions were most of each row's cost.
LIST_PAGE_COLUMNS = (
    "number",
    "status",
    "currency",
    "valid_until",
    "customer_id",
    "project_id",
    "owner_id",
    "current_revision_id",
    "customer__company",
    "project__name",
    "owner__username",
    "owner__first_name",
    "owner__last_name",
    "current_revision__number",
    "current_revision__frozen_at",
    "current_revision__subtotal",
    "current_revision__discount_amount",
    "current_revision__net",
    "current_revision__tax_amount",
    "current_revision__total",
    "current_revision__discount_percent",
    "current_revision__tax_percent",
    "booked_total",
)


@dataclass(frozen=True, slots=True)
class QuoteListRow:
    """A row of the quote list: the quote (its LIST_PAGE_COLUMNS) and its current total."""

    quote: Quote
    total: Decimal | None


def quote_list_rows(*, quotes: list[Quote]) -> list[QuoteListRow]:
    """Each quote's current total: booked once accepted, stored on frozen revisions, computed
    for drafts from their lines, fetched for the whole page in one query."""
    revisions = [quote.current_revision for quote in quotes if quote.current_revision_id]
    prefetch_related_objects(
        [revision for revision in revisions if not revision.is_frozen], "lines"
    )
    return [
        QuoteListRow(
            quote=quote,
            # An accepted quote shows what was booked: the customer's choice, not the offer.
            total=quote.booked_total
            if quote.booked_total is not None
            else revision_totals(revision=quote.current_revision).total
            if quote.current_revision_id
            else None,
        )
        for quote in quotes
    ]


# --- export control ------------------------------------------------------------------------------

# Classifications that never call for the note: unknown (empty) and EAR99, the EAR's catch-all
# for items on no Commerce Control List entry.
EXPORT_UNREMARKABLE = ("", "EAR99")


@dataclass(frozen=True, slots=True)
class ExportNoteLine:
    position: int
    sku: str
    description: str
    quantity: int
    classification: str
    source: str

    @property
    def to_verify(self) -> bool:
        """Nobody confirmed the classification (the catalog's source is "verify")."""
        return self.source.strip().lower() == EXPORT_SOURCE_VERIFY


@dataclass(frozen=True, slots=True)
class ExportNote:
    """The staff's export-control note of a revision (never shown to the customer, not legal
    advice): its classified lines, the listed destination, and the acknowledgement of these
    contents for this destination, if any."""

    destination: str
    destination_note: str
    lines: tuple[ExportNoteLine, ...]
    fingerprint: str
    checked: QuoteEvent | None

    def as_problem(self) -> dict:
        """What the API's export_check_required problem carries beside its message."""
        return {
            "destination": self.destination,
            "lines": [
                {
                    "sku": line.sku,
                    "classification": line.classification,
                    "source": line.source,
                }
                for line in self.lines
            ],
        }


def revision_export_note(*, revision: QuoteRevision) -> ExportNote | None:
    """The note when the customer's country is a listed destination (ExportDestination) and a
    line's product carries a classification other than EAR99; None otherwise (one query for
    most quotes: the destination's).

    An acknowledgement holds for the revision's content fingerprint as the database has it now
    and the same destination: a line changed since needs a new one. For a draft (the only
    revision sent from); a sent one's check stays in the audit trail."""
    quote = revision.quote
    country = customer_country(quote.customer)
    destination = ExportDestination.objects.filter(country=country).first() if country else None
    if destination is None:
        return None
    lines = tuple(
        ExportNoteLine(
            position=line.position,
            sku=line.sku,
            description=line.description_shown,  # in the reader's language
            quantity=line.quantity,
            classification=line.product.export_classification,
            source=line.product.export_classification_source,
        )
        for line in QuoteLine.objects.filter(revision=revision, product__isnull=False)
        .exclude(product__export_classification__in=EXPORT_UNREMARKABLE)
        .select_related("product")
        .order_by("position", "pk")
    )
    if not lines:
        return None
    fingerprint = revision_content_fingerprint(revision=revision)
    checked = (
        QuoteEvent.objects.filter(
            revision=revision,
            verb=QuoteEventVerb.EXPORT_CHECKED,
            details__destination=country,
            details__fingerprint=fingerprint,
        )
        .select_related("actor")
        .order_by("-at", "-pk")
        .first()
    )
    return ExportNote(
        destination=country,
        destination_note=destination.note,
        lines=lines,
        fingerprint=fingerprint,
        checked=checked,
    )


# --- completeness: the project's plan against the quote ------------------------------------------

# What the staff page and the API say when the project asks for a part and the quote has no line
# for it. One sentence per part, so each language words it whole.
MISSING_PART_MESSAGES = {
    "gpu_servers": gettext_noop(
        "The project asks for GPU servers; this quote has no line for them."
    ),
    "network": gettext_noop("The project asks for the network; this quote has no line for it."),
    "cluster_management": gettext_noop(
        "The project asks for virtualization and cluster management; this quote has no line for it."
    ),
    "backup": gettext_noop("The project asks for DR and backup; this quote has no line for it."),
}


@dataclass(frozen=True, slots=True)
class CompletenessWarning:
    part: str  # a PLAN_PARTS name, which is also the name of its quote section
    message: str  # in the language of the request

    def as_json(self) -> dict:
        return {"part": self.part, "message": self.message}


def revision_completeness(
    *, project: Project, lines: Iterable[QuoteLine]
) -> list[CompletenessWarning]:
    """A warning for each part of the plan the project asks for (needs_<part>) that has no line
    of a quantity in its section of the revision (`lines`), in the order of PLAN_PARTS.

    For staff only: the quote page and the API detail show it; it never blocks sending (the
    customer may buy that part elsewhere, or later) and never reaches the customer. Optional
    items and alternatives do not answer a part: they are offered, not ordered."""
    quoted = {line.section for line in lines if line.quantity}
    return [
        CompletenessWarning(part, _(MISSING_PART_MESSAGES[part]))
        for part, _label in PLAN_PARTS
        if getattr(project, f"needs_{part}") and part not in quoted
    ]


def quote_completeness(*, quote: Quote) -> list[CompletenessWarning]:
    """revision_completeness() of the quote's current revision, read for the API: the project's
    plan, and the lines only when it asks for something (two small queries at most)."""
    asked = [f"needs_{part}" for part, _label in PLAN_PARTS]
    project = Project.objects.only(*asked).get(pk=quote.project_id)
    if not any(getattr(project, name) for name in asked):
        return []
    lines = QuoteLine.objects.filter(revision_id=quote.current_revision_id).only(
        "section", "quantity"
    )
    return revision_completeness(project=project, lines=lines)
