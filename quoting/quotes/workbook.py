"""The quote as an Excel workbook (.xlsx), for buyers who work in Excel: the API's
`GET /api/v1/quotes/{id}/xlsx/`, the quote page's button and the share page's (`/p/<token>/xlsx`).

Two sheets, and a third when the revision has terms to print, their tabs named in the workbook's
language (in Chinese 报价单, BOM, 条款). "Quote": the seller, the customer,
the quote's dates and currency, the lines by section, and the totals as formulas a buyer can
audit, following the printed rounding rule (quoting.engine.money): each amount
`=ROUND(qty*price*(100-disc)/100,2)` (Excel's ROUND is half away from zero: half up for the
positive amounts a quote has), the subtotal `=SUM` of the amounts, the quote discount and VAT
each `=ROUND(...,2)`. Optional items and alternatives are listed in their own blocks, outside
the totals, as the quote shows them. "BOM": part numbers and quantities by part number, by role
and by rack. "Terms": the delivery time when the proposal prints it ("Delivery: about N weeks
after order.", quoting.quotes.selectors.revision_lead_time), the payment schedule, each
milestone's amount of the configuration's total as the proposal's Terms print it
(quoting.engine.money.milestone_amounts: to the cent, the last takes the rounding), and the
additional terms in the workbook's language (QuoteRevision.additional_terms_for).

Which configuration: an accepted quote's booked one (quoting.quotes.selectors.booked_choice:
exactly the lines of its totals), else the revision asked for as quoted.

The customer's variant never holds cost or margin. The internal one (`internal=True`, for users
who may see margins: the caller checks quoting.quotes.permissions.may_view_margin) adds unit
cost, cost total, margin and margin % per line and for the configuration.

Amounts are written as numbers (exact decimal digits) with the format `#,##0.00`, never as text.
openpyxl writes formulas without their results: Excel and LibreOffice compute them on opening.
"""

from __future__ import annotations

import csv
import io
import zipfile
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext
from openpyxl import Workbook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.worksheet.worksheet import Worksheet

from catalog.models import Product
from portal.models import CompanyProfile
from quoting.designs.display import cable_lengths, cable_lengths_said
from quoting.designs.svg.racks import rack_names
from quoting.engine.fabric.bom import bom_role_label
from quoting.engine.money import milestone_amounts
from quoting.quotes.margins import Margin, line_margin, lines_margin
from quoting.quotes.models import (
    TOTALLED_SECTIONS,
    InstallPack,
    InstallPackStatus,
    LineKind,
    Quote,
    QuoteLine,
    QuoteRevision,
    Section,
    milestone_label,
)
from quoting.quotes.selectors import (
    ROUNDING_RULE,
    OfferChoice,
    alternatives_rule,
    booked_choice,
    kit_of_configuration,
    kits_follow_the_option,
    offer_choice,
    revision_alternatives,
    revision_lead_time,
)
from quoting.templatetags.quoting_numbers import rmb_in_words

XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
MONEY_FORMAT = "#,##0.00"
QUANTITY_FORMAT = "#,##0"
PERCENT_FORMAT = "0.00"
DATE_FORMAT = "yyyy-mm-dd"
EXCEL_MAX_ROW_POINTS = 409  # Excel's tallest row

BOLD = Font(bold=True)
TITLE = Font(bold=True, size=14)
WARNING = Font(bold=True, color="C00000")
HEADER_FILL = PatternFill("solid", fgColor="E7E6E6")
WRAP = Alignment(wrap_text=True, vertical="top")

# The quote sheet's columns: #, SKU, description, quantity, unit price, discount %, amount; the
# internal variant adds unit cost, cost total, margin and margin %.
QTY, PRICE, DISC, AMOUNT, VAT = "D", "E", "F", "G", "H"
WIDTHS = {"A": 5, "B": 24, "C": 64, "D": 9, "E": 16, "F": 11, "G": 18, "H": 9}
INTERNAL_WIDTHS = {"I": 16, "J": 18, "K": 18, "L": 11}

# The snapshot's heavy renderings, never read here: the BOM and the racks' rows are read apart.
HEAVY_SNAPSHOTS = (
    "design_snapshot",
    "tco_snapshot",
    "design_drawing",
    "design_drawings",
    "tco_charts",
    "design_racks",
)


@dataclass(frozen=True)
class QuoteXlsx:
    filename: str
    content: bytes
    content_type: str = XLSX_CONTENT_TYPE


@dataclass(frozen=True)
class _Offer:
    """What the workbook prints: the revision, all its lines, and the configuration totalled."""

    quote: Quote
    revision: QuoteRevision
    lines: list[QuoteLine]
    choice: OfferChoice
    booked: bool


# --- reading -------------------------------------------------------------------------------------


def _revision(pk: int) -> QuoteRevision:
    return QuoteRevision.objects.defer(*HEAVY_SNAPSHOTS).get(pk=pk)


def _lines(revision: QuoteRevision) -> list[QuoteLine]:
    return list(revision.lines.select_related("product").order_by("position"))


def _offer(quote: Quote, revision: QuoteRevision | None) -> _Offer:
    quote = Quote.objects.select_related("customer", "project", "owner").get(pk=quote.pk)
    if quote.booked_revision_id is not None:
        booked = _revision(quote.booked_revision_id)
        quote.booked_revision = booked
        lines = _lines(booked)
        return _Offer(quote, booked, lines, booked_choice(quote=quote, lines=lines), True)
    revision = _revision(revision.pk if revision is not None else quote.current_revision_id)
    revision.quote = quote
    lines = _lines(revision)
    return _Offer(quote, revision, lines, offer_choice(revision=revision, lines=lines), False)


@dataclass(frozen=True)
class _Design:
    bom: list[dict]  # the design snapshot's bill of materials
    racks: list[dict]  # the rack appendix's rows (quoting.designs.svg.racks.power_rows)
    lengths: dict | None  # which cable lengths were measured (quoting.designs.display)


def _design(revision: QuoteRevision) -> _Design:
    """The frozen design's BOM, racks and cable lengths, read without the drawings and
    elevations around them."""
    bom, racks, media, site = (
        QuoteRevision.objects.filter(pk=revision.pk)
        .values_list(
            "design_snapshot__bom",
            "design_racks__rows",
            "design_snapshot__media",
            "design_snapshot__site",
        )
        .get()
    )
    return _Design(
        bom if isinstance(bom, list) else [],
        racks if isinstance(racks, list) else [],
        cable_lengths({"media": media, "site": site} if isinstance(media, dict) else None),
    )


def _pack_parts(revision: QuoteRevision) -> list[tuple[str, str, int]] | None:
    """(rack, part number, quantity) from the revision's latest ready installation pack's pick
    list (bom-by-rack.csv); None without one."""
    pack = (
        InstallPack.objects.filter(revision=revision, status=InstallPackStatus.READY)
        .order_by("-created_at", "-pk")
        .only("archive")
        .first()
    )
    if pack is None or not pack.archive:
        return None
    try:
        with zipfile.ZipFile(io.BytesIO(bytes(pack.archive))) as archive:
            name = next((n for n in archive.namelist() if n.endswith("bom-by-rack.csv")), None)
            if name is None:
                return None
            text = archive.read(name).decode("utf-8-sig")
    except (zipfile.BadZipFile, KeyError, UnicodeDecodeError):
        return None
    return [
        (row["rack"], row["sku"], int(row["quantity"]))
        for row in csv.DictReader(io.StringIO(text))
        if row.get("quantity", "").isdigit()
    ]


# --- writing -------------------------------------------------------------------------------------


class Formula(str):
    """A formula we write; any other text starting with "=" is text (a description typed as
    "=HYPERLINK(...)" must never run in the buyer's Excel)."""


class _Sheet:
    """Rows written top to bottom."""

    def __init__(self, sheet: Worksheet, widths: dict[str, int]):
        self.sheet = sheet
        self.row = 0
        for column, width in widths.items():
            sheet.column_dimensions[column].width = width

    def next(self, skip: int = 0) -> int:
        self.row += 1 + skip
        return self.row

    def put(self, column: str, value, *, fmt: str | None = None, font: Font | None = None):
        cell = self.sheet[f"{column}{self.row}"]
        if isinstance(value, str) and not isinstance(value, Formula):
            # Control characters (a company name pasted with a \x0b) cannot be stored in XLSX:
            # openpyxl refuses the whole cell. They print nothing, so they are dropped.
            cell.value = ILLEGAL_CHARACTERS_RE.sub("", value)
            cell.data_type = "s"  # openpyxl would take "=..." for a formula
        else:
            cell.value = str(value) if isinstance(value, Formula) else value
        if fmt:
            cell.number_format = fmt
        if font:
            cell.font = font
        return cell

    def field(self, label: str, value, *, fmt: str | None = None) -> None:
        """A label and its value, when there is one."""
        if value in (None, ""):
            return
        self.next()
        self.put("B", label, font=BOLD)
        cell = self.put("C", value, fmt=fmt)
        if isinstance(value, str) and "\n" in value:
            cell.alignment = WRAP

    def header(self, columns: dict[str, str]) -> None:
        self.next()
        for column, label in columns.items():
            cell = self.put(column, label, font=BOLD)
            cell.fill = HEADER_FILL


def _day(moment):
    return None if moment is None else timezone.localtime(moment).date()


def _parties(out: _Sheet, offer: _Offer) -> None:
    quote, revision = offer.quote, offer.revision
    language = translation.get_language() or "en"
    profile = CompanyProfile.objects.filter(pk=CompanyProfile.SINGLETON_PK).first()
    if profile is not None:
        out.field(_("Offered by"), profile.legal_name_for(language))
        out.field(pgettext("workbook", "Address"), profile.address_for(language))
        out.field(_("Tax number"), profile.tax_number)
        out.field(_("Bank"), profile.bank_name_for(language))
        out.field(_("Account number"), profile.bank_account)
    owner = quote.owner
    contact = [owner.get_full_name() or owner.get_username(), owner.email, owner.phone]
    out.field(_("Your contact"), " · ".join(part for part in contact if part))
    out.next()
    out.field(_("Customer"), quote.customer.company)
    out.field(_("Region"), quote.customer.region)
    out.field(_("Project"), quote.project.name)
    out.next()
    out.field(_("Quote"), quote.number)
    out.field(_("Revision"), revision.label)
    out.field(_("Date created"), _day(revision.created_at), fmt=DATE_FORMAT)
    out.field(_("Date sent"), _day(revision.sent_at), fmt=DATE_FORMAT)
    out.field(_("Valid until"), quote.valid_until, fmt=DATE_FORMAT)
    if offer.booked:  # what the customer accepted: the option and the optional items chosen
        choice = offer.choice
        out.field(_("Accepted"), _day(quote.booked_at), fmt=DATE_FORMAT)
        out.field(_("Option"), choice.alternative or _("As quoted"))
        chosen = "; ".join(line.description_shown for line in choice.optional)
        out.field(_("Optional items included"), chosen or _("none"))
    out.field(_("Currency"), quote.currency)


class _QuoteSheet:
    """The "Quote" sheet: parties, the lines totalled, the totals as formulas, then what is
    offered outside them."""

    def __init__(self, sheet: Worksheet, offer: _Offer, *, internal: bool):
        self.out = _Sheet(sheet, WIDTHS | (INTERNAL_WIDTHS if internal else {}))
        self.offer = offer
        self.internal = internal
        self.discount = offer.revision.discount_percent
        self.columns = {
            "A": "#",
            "B": _("SKU"),
            "C": _("Description"),
            QTY: _("Qty"),
            PRICE: _("Unit price"),
            DISC: _("Discount %"),
            AMOUNT: _("Amount"),
            VAT: _("VAT %"),
        }
        if internal:
            self.columns |= {
                "I": pgettext("workbook", "Unit cost"),
                "J": pgettext("workbook", "Cost total"),
                "K": pgettext("workbook", "Margin"),
                "L": pgettext("workbook", "Margin %"),
            }
        self.number = 0
        self.rates: dict[Decimal, list[int]] = {}  # VAT % -> rows of the totalled lines

    def write(self) -> None:
        out, offer = self.out, self.offer
        out.next()
        out.put("A", f"{_('Quote')} {offer.quote.number} {offer.revision.label}", font=TITLE)
        if not offer.revision.is_frozen:
            out.next()
            out.put("A", _("Draft — not an offer"), font=WARNING)
        out.next()
        _parties(out, offer)
        out.next()
        out.header(self.columns)
        ranges = self._totalled()
        self._totals(ranges)
        if not offer.booked:
            self._offered_apart()
        self._notes()

    # --- lines

    def _line(self, line: QuoteLine) -> int:
        out = self.out
        row = out.next()
        self.number += 1
        out.put("A", self.number)
        out.put("B", line.sku)
        out.put("C", line.description_shown).alignment = WRAP
        out.put(QTY, line.quantity, fmt=QUANTITY_FORMAT)
        out.put(PRICE, line.unit_price, fmt=MONEY_FORMAT)
        out.put(DISC, line.discount_percent, fmt=PERCENT_FORMAT)
        out.put(
            AMOUNT,
            Formula(f"=ROUND({QTY}{row}*{PRICE}{row}*(100-{DISC}{row})/100,2)"),
            fmt=MONEY_FORMAT,
        )
        rate = self.offer.revision.tax_percent if line.vat_percent is None else line.vat_percent
        out.put(VAT, rate, fmt=PERCENT_FORMAT)
        self.rates.setdefault(rate, []).append(row)  # _totals() reads the totalled lines'

        if self.internal:
            self._margin_cells(line_margin(line, discount_percent=self.discount), line.unit_cost)
        return row

    def _margin_cells(self, margin: Margin, unit_cost: Decimal | None = None) -> None:
        if unit_cost is not None:
            self.out.put("I", unit_cost, fmt=MONEY_FORMAT)
        if not margin.known:
            return
        self.out.put("J", margin.cost_total, fmt=MONEY_FORMAT)
        self.out.put("K", margin.margin_amount, fmt=MONEY_FORMAT)
        if margin.margin_percent is not None:
            self.out.put("L", margin.margin_percent, fmt=PERCENT_FORMAT)

    def _block(self, title: str, lines: Iterable[QuoteLine]) -> str | None:
        """A titled block of lines; the range of its amounts ("G12:G20"), None when empty."""
        lines = [line for line in lines if line.quantity]
        if not lines:
            return None
        self.out.next()
        self.out.put("B", title, font=BOLD)
        rows = [self._line(line) for line in lines]
        return f"{AMOUNT}{rows[0]}:{AMOUNT}{rows[-1]}"

    def _section_title(self, section: str) -> str:
        if section == Section.ALTERNATIVES:
            return f"{_('Option')}: {self.offer.choice.alternative}"
        return str(Section(section).label)

    def _totalled(self) -> list[str]:
        """The configuration's lines by section, in the quote's order of sections."""
        lines = self.offer.choice.lines
        ranges = []
        for section in (*TOTALLED_SECTIONS, Section.ALTERNATIVES, Section.OPTIONAL):
            span = self._block(
                self._section_title(section), (ln for ln in lines if ln.section == section)
            )
            if span:
                ranges.append(span)
        return ranges

    # --- totals

    def _total_row(self, label: str, value, *, percent=None, font=None) -> int:
        """A row of the totals: `value` a number, or a formula of this row's number (its
        percentage is in this row's discount column)."""
        out = self.out
        row = out.next()
        out.put("C", label, font=font or BOLD).alignment = Alignment(horizontal="right")
        if percent is not None:
            out.put(DISC, percent, fmt=PERCENT_FORMAT)
        out.put(AMOUNT, value(row) if callable(value) else value, fmt=MONEY_FORMAT, font=font)
        return row

    def _totals(self, ranges: list[str]) -> None:
        """Subtotal, discount, net, VAT and total, one row each; then, per VAT rate, its lines'
        amounts, its share of the quote discount and its tax, each rounded as the quote rounds
        them (quoting.engine.money.totals_compute): the discount and VAT rows add those up."""
        revision, out = self.offer.revision, self.out
        out.next()
        subtotal = self._total_row(_("Subtotal"), Formula(f"=SUM({','.join(ranges) or 0})"))
        p = revision.discount_percent
        rates = sorted(self.rates, reverse=True) or [revision.tax_percent]
        # The per-rate rows sit 5 rows down (after discount, net, VAT, total and one blank):
        # 3 rows per rate, in this order.
        first_rate_row = subtotal + 6
        parts = {
            rate: (first_rate_row + 3 * n, first_rate_row + 3 * n + 1, first_rate_row + 3 * n + 2)
            for n, rate in enumerate(rates)
        }
        discount = self._total_row(
            _("Discount (%(p)s %%)") % {"p": f"{p.normalize():f}"},
            Formula("=" + "+".join(f"{AMOUNT}{d}" for _s, d, _t in parts.values())),
            percent=p,
        )
        net = self._total_row(_("Net"), Formula(f"={AMOUNT}{subtotal}-{AMOUNT}{discount}"))
        tax = self._total_row(
            _("VAT"), Formula("=" + "+".join(f"{AMOUNT}{t}" for _s, _d, t in parts.values()))
        )
        self._total_row(_("Total"), Formula(f"={AMOUNT}{net}+{AMOUNT}{tax}"), font=TITLE)
        out.next()
        for rate, (sub_row, discount_row, _tax_row) in parts.items():
            label = {"p": f"{rate.normalize():f}"}
            rows = self.rates.get(rate, [])
            self._total_row(
                _("Lines at %(p)s %% VAT") % label,
                Formula("=" + ("+".join(f"{AMOUNT}{r}" for r in rows) or "0")),
            )
            self._total_row(
                _("Quote discount on them (%(p)s %%)") % {"p": f"{p.normalize():f}"},
                lambda row, sub_row=sub_row: Formula(
                    f"=ROUND({AMOUNT}{sub_row}*{DISC}{row}/100,2)"
                ),
                percent=p,
            )
            self._total_row(
                _("VAT at %(p)s %%") % label,
                lambda row, sub_row=sub_row, discount_row=discount_row: Formula(
                    f"=ROUND(({AMOUNT}{sub_row}-{AMOUNT}{discount_row})*{DISC}{row}/100,2)"
                ),
                percent=rate,
            )
        if self.offer.quote.currency == "CNY":
            words = rmb_in_words(self.offer.choice.totals.total)
            if words:
                out.next()
                out.put("C", f"{_('Total in words')}: {words}", font=BOLD)
        if self.internal:
            self._margin_total()

    def _margin_total(self) -> None:
        margin = lines_margin(self.offer.choice.lines, discount_percent=self.discount)
        out = self.out
        out.next()
        out.put("C", _("Cost and margin, before VAT"), font=BOLD).alignment = Alignment(
            horizontal="right"
        )
        self._margin_cells(margin)
        if margin.uncosted:
            out.next()
            out.put(
                "C",
                ngettext(
                    "%(count)d line has no known cost: left out of cost and margin.",
                    "%(count)d lines have no known cost: left out of cost and margin.",
                    margin.uncosted,
                )
                % {"count": margin.uncosted},
            )

    # --- outside the totals

    def _offered_apart(self) -> None:
        lines, out = self.offer.lines, self.out
        optional = [ln for ln in lines if ln.section == Section.OPTIONAL and ln.quantity]
        # An option's spares kit is listed under the option, as the proposal prints it.
        kits = defaultdict(list)
        if kits_follow_the_option(self.offer.revision):
            for ln in optional:
                if kit_of_configuration(ln):
                    kits[ln.alternative_group].append(ln)
            optional = [ln for ln in optional if not kit_of_configuration(ln)]
        alternatives = [ln for ln in lines if ln.section == Section.ALTERNATIVES and ln.quantity]
        if optional:
            out.next()
            self._block(str(Section.OPTIONAL.label), optional)
            out.next()
            out.put("C", _("Offered, not included in the totals."))
        if not alternatives:
            return
        out.next()
        out.next()
        out.put("B", str(Section.ALTERNATIVES.label), font=TITLE)
        if_chosen = {
            delta.group: delta.total_if_chosen
            for delta in revision_alternatives(revision=self.offer.revision, lines=lines)
        }
        for group in dict.fromkeys(ln.alternative_group for ln in alternatives):
            span = self._block(
                f"{_('Option')}: {group}",
                (ln for ln in alternatives if ln.alternative_group == group),
            )
            self._total_row(_("Subtotal"), Formula(f"=SUM({span})"))
            self._total_row(_("Total if chosen"), if_chosen[group])
            if kits[group]:
                self._block(
                    _("Its spares kit, optional (offered with this option only)"), kits[group]
                )
        out.next()
        out.put("C", _("Offered, not included in the totals."))
        rule = alternatives_rule(self.offer.revision)  # "": sent, and printed, without one
        if rule:
            out.next()
            out.put("C", _(rule))

    def _notes(self) -> None:
        out, revision, quote = self.out, self.offer.revision, self.offer.quote
        out.next()
        out.next()
        out.put("A", _("All prices in %(currency)s.") % {"currency": quote.currency})
        if revision.fx_rate:
            out.next()
            out.put(
                "A",
                _(
                    "Prices listed in %(source)s were converted at 1 %(source)s = %(rate)s "
                    "%(target)s (rate of %(date)s)."
                )
                % {
                    "source": revision.fx_source_currency,
                    "rate": revision.fx_rate,
                    "target": quote.currency,
                    "date": revision.fx_rate_date.isoformat() if revision.fx_rate_date else "",
                },
            )
        out.next()
        out.put("A", f"{_('Rounding')}: {_(ROUNDING_RULE)}")


# --- the BOM sheet -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Part:
    sku: str
    role: str
    quantity: int
    description: str


def _descriptions(skus: Iterable[str], *, english: bool = False) -> dict[str, str]:
    """The catalog's names of these part numbers in the active language (one query). In
    English only when `english`: the design's own names are the English ones."""
    chinese = (translation.get_language() or "").startswith("zh")
    if not (chinese or english):
        return {}
    rows = Product.objects.filter(part_number__in=set(skus)).values_list(
        "part_number", "name", "name_zh"
    )
    return {sku: (chinese and name_zh) or name for sku, name, name_zh in rows}


def _line_part(line: QuoteLine) -> _Part:
    return _Part(line.sku, line.role, line.quantity, line.description_shown)


def _bom_parts(offer: _Offer, design: _Design) -> tuple[str, list[_Part], bool]:
    """(where the parts come from, the parts, whether they are the design's): the frozen design's
    BOM, unless the configuration replaced its network by an alternative or has no design;
    then its own product lines. A booked configuration adds the optional items chosen."""
    choice = offer.choice
    extra = [_line_part(ln) for ln in choice.optional if ln.sku and ln.quantity]
    if design.bom and not choice.alternative:
        names = _descriptions(row.get("sku", "") for row in design.bom)
        parts = [
            _Part(
                str(row.get("sku", "")),
                str(row.get("role", "")),
                int(row.get("quantity") or 0),
                names.get(row.get("sku", "")) or str(row.get("name", "")),
            )
            for row in design.bom
            if row.get("quantity")
        ]
        source = _("From the design of %(revision)s.") % {"revision": offer.revision.label}
        return source, parts + extra, True
    section = Section.ALTERNATIVES if choice.alternative else Section.NETWORK
    parts = [
        _line_part(ln)
        for ln in choice.lines
        if ln.section == section and ln.sku and ln.kind == LineKind.PRODUCT and ln.quantity
    ]
    if choice.alternative:
        source = _("From the lines of the alternative “%(name)s”.") % {"name": choice.alternative}
    else:
        source = _("From the quote's network lines.")
    return source, parts + extra, False


def _role(role: str) -> str:
    return bom_role_label(role).render(_) if role else ""


def _bom_sheet(sheet: Worksheet, offer: _Offer) -> None:
    out = _Sheet(sheet, {"A": 30, "B": 24, "C": 64, "D": 11, "E": 11, "F": 11})
    design = _design(offer.revision)
    source, parts, of_design = _bom_parts(offer, design)
    out.next()
    title = f"{_('Bill of materials')} {offer.quote.number} {offer.revision.label}"
    out.put("A", title, font=TITLE)
    out.next()
    out.put("A", source)

    totals: Counter[str] = Counter()
    names: dict[str, str] = {}
    for part in parts:
        totals[part.sku] += part.quantity
        names.setdefault(part.sku, part.description)
    out.next()
    out.next()
    out.put("A", _("By part number"), font=BOLD)
    out.header({"B": _("SKU"), "C": _("Description"), "D": _("Quantity")})
    for sku, quantity in totals.items():
        out.next()
        out.put("B", sku)
        out.put("C", names[sku]).alignment = WRAP
        out.put("D", quantity, fmt=QUANTITY_FORMAT)

    out.next()
    out.next()
    out.put("A", _("By role"), font=BOLD)
    out.header({"A": _("Role"), "B": _("SKU"), "C": _("Description"), "D": _("Quantity")})
    for part in parts:
        out.next()
        out.put("A", _role(part.role))
        out.put("B", part.sku)
        out.put("C", part.description).alignment = WRAP
        out.put("D", part.quantity, fmt=QUANTITY_FORMAT)

    if of_design:
        _cable_lengths(out, design.lengths)
        _racks(out, design.racks)
        _rack_parts(out, offer.revision, names)


def _cable_lengths(out: _Sheet, lengths: dict | None) -> None:
    """Which cable lengths were measured on the site and which assumed, worded as the quote
    page and the proposal word it (quoting.designs.display.cable_lengths_said)."""
    if not lengths:
        return
    said = cable_lengths_said(lengths)
    out.next()
    out.next()
    out.put("A", said.heading, font=BOLD)
    if said.site:
        out.next()
        out.put("A", said.site)
    for _kind, tier, text in said.rows:
        out.next()
        out.put("A", tier)
        out.put("B", text)
    if said.note:
        out.next()
        out.put("A", said.note)


def _racks(out: _Sheet, rows: list[dict]) -> None:
    if not rows:
        return
    kinds = {"compute": _("Compute"), "storage": _("Storage")}
    out.next()
    out.next()
    out.put("A", _("Racks"), font=BOLD)
    out.header(
        {
            "A": _("Rack"),
            "B": _("Kind"),
            "C": _("Scalable unit"),
            "D": _("U used / free"),
            "E": _("Typical kW"),
            "F": _("Max kW"),
        }
    )
    for row in rows:
        out.next()
        count = row.get("count") or 1
        out.put("A", rack_names(row.get("racks"), _) + (f" (×{count})" if count > 1 else ""))
        kind = kinds.get(row.get("kind"), _("Network"))
        if row.get("liquid"):
            kind = _("Compute, liquid-cooled rack-scale")
        out.put("B", kind)
        out.put("C", row.get("su", ""))
        out.put("D", f"{row.get('units_used', '')} / {row.get('units_free', '')}")
        out.put("E", row.get("typical_kw"), fmt="0.00")
        out.put("F", row.get("max_kw"), fmt="0.00")


def _rack_parts(out: _Sheet, revision: QuoteRevision, names: dict[str, str]) -> None:
    parts = _pack_parts(revision)
    if not parts:
        return
    missing = {sku for _rack, sku, _n in parts if sku not in names}
    names = names | _descriptions(missing, english=True)
    out.next()
    out.next()
    out.put("A", _("Parts by rack, from the installation pack"), font=BOLD)
    out.header({"A": _("Rack"), "B": _("SKU"), "C": _("Description"), "D": _("Quantity")})
    for rack, sku, quantity in parts:
        out.next()
        out.put("A", rack)
        out.put("B", sku)
        out.put("C", names.get(sku, "")).alignment = WRAP
        out.put("D", quantity, fmt=QUANTITY_FORMAT)


# --- the terms sheet -----------------------------------------------------------------------------

SHARE_FORMAT = '0.00" %"'
AMOUNT_IN_TERMS = "D"


def _terms_sheet(book: Workbook, offer: _Offer) -> None:
    """The "Terms" sheet, as the proposal prints its delivery time, payment schedule and
    additional terms; none for a revision without any (nothing to say)."""
    revision = offer.revision
    schedule = revision.payment_schedule or []
    terms = revision.additional_terms_for(translation.get_language() or "en")
    # The proposal's rule: frozen at the send, and only when every line totalled has one.
    weeks = revision_lead_time(revision=revision, lines=offer.lines).weeks
    if not schedule and not terms and not weeks:
        return
    out = _Sheet(book.create_sheet(_("Terms")), {"A": 5, "B": 40, "C": 12, "D": 18})
    out.next()
    out.put("B", f"{_('Terms')} {offer.quote.number} {revision.label}", font=TITLE)
    if weeks:
        out.next()
        out.next()
        out.put(
            "B",
            ngettext(
                "Delivery: about %(weeks)s week after order.",
                "Delivery: about %(weeks)s weeks after order.",
                weeks,
            )
            % {"weeks": weeks},
        )
    if schedule:
        total = offer.choice.totals.total
        percents = [Decimal(m["percent"]) for m in schedule]
        out.next()
        out.next()
        out.put("B", _("Payment schedule"), font=BOLD)
        out.header({"B": _("Milestone"), "C": _("Share"), AMOUNT_IN_TERMS: _("Amount")})
        for milestone, percent, amount in zip(
            schedule, percents, milestone_amounts(total, percents), strict=True
        ):
            out.next()
            out.put("B", milestone_label(milestone["label"]))
            out.put("C", percent, fmt=SHARE_FORMAT)
            out.put(AMOUNT_IN_TERMS, amount, fmt=MONEY_FORMAT)
        out.next()
        out.put("B", _("Total"), font=BOLD)
        out.put("C", Decimal(100), fmt=SHARE_FORMAT, font=BOLD)
        out.put(AMOUNT_IN_TERMS, total, fmt=MONEY_FORMAT, font=BOLD)
        out.next()
        out.put("B", _("All prices in %(currency)s.") % {"currency": offer.quote.currency})
        if not offer.booked and _offers_choices(offer.lines):  # booked: the total ordered
            out.next()
            out.put(
                "B",
                _(
                    "Each milestone is a share of the total as quoted; with optional items or "
                    "an alternative ordered, of the total ordered."
                ),
            )
    if terms:
        out.next()
        out.next()
        out.put("B", _("Additional terms"), font=BOLD)
        out.next()
        out.put("B", terms).alignment = WRAP
        out.sheet.merge_cells(f"B{out.row}:D{out.row}")
        lines = terms.count("\n") + 1 + len(terms) // 70
        out.sheet.row_dimensions[out.row].height = min(EXCEL_MAX_ROW_POINTS, 15 * lines)


def _offers_choices(lines: list[QuoteLine]) -> bool:
    """Optional items or alternatives: the total ordered may differ from the one quoted."""
    return any(
        ln.section in (Section.OPTIONAL, Section.ALTERNATIVES) and ln.quantity for ln in lines
    )


# --- the workbook --------------------------------------------------------------------------------


def quote_xlsx(
    *,
    quote: Quote,
    language: str,
    internal: bool = False,
    revision: QuoteRevision | None = None,
) -> QuoteXlsx:
    """The workbook of `quote` in `language`: its booked configuration once accepted, else
    `revision` (default: the current one) as quoted. `internal` adds cost and margin: only for
    users who may see them (quoting.quotes.permissions.may_view_margin)."""
    offer = _offer(quote, revision)
    book = Workbook()
    with translation.override(language):
        sheet = book.active
        sheet.title = _("Quote")  # the tabs are named in the workbook's language
        _QuoteSheet(sheet, offer, internal=internal).write()
        _bom_sheet(book.create_sheet("BOM"), offer)
        _terms_sheet(book, offer)
        book.properties.title = f"{offer.quote.number} {offer.revision.label}"
    book.calculation.fullCalcOnLoad = True  # no cached results: compute every formula on open
    content = io.BytesIO()
    book.save(content)
    suffix = "-internal" if internal else ""
    return QuoteXlsx(
        filename=f"{offer.quote.number}-{offer.revision.label}{suffix}.xlsx",
        content=content.getvalue(),
    )
