"""Cost and margin: what the reseller earns on a line, a section and a configuration.

The reseller's own figures: shown only to users who may see them
(quoting.quotes.permissions.may_view_margin), never on the share page, a PDF, the customer's
XLSX, a webhook or an API answer to a token whose user may not.

Revenue is what the customer pays before VAT: each line's amount after its own discount, less
its share of the quote discount (the same percentage on every line of the configuration), kept
as an exact fraction so a margin compared against a rule is never rounded first. A line whose
cost is unknown (free text, a product the price list gives no cost for) is left out of both
revenue and cost, and counted in `uncosted` so the page can say the margin is partial.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from quoting.engine.money import line_amount, round_money
from quoting.quotes.models import TOTALLED_SECTIONS, QuoteLine

HUNDRED = Fraction(100)


@dataclass(frozen=True, slots=True)
class Margin:
    revenue: Fraction  # of the lines with a known cost, after every discount, before VAT
    cost: Fraction
    uncosted: int = 0  # lines left out: their cost is unknown

    def __add__(self, other: Margin) -> Margin:
        return Margin(
            self.revenue + other.revenue, self.cost + other.cost, self.uncosted + other.uncosted
        )

    @property
    def known(self) -> bool:
        return self.revenue > 0 or self.cost > 0

    @property
    def fraction(self) -> Fraction | None:
        """The margin as an exact fraction of revenue (0.25 = 25 %); None without revenue."""
        return (self.revenue - self.cost) / self.revenue if self.revenue else None

    @property
    def cost_total(self) -> Decimal:
        return round_money(_decimal(self.cost))

    @property
    def margin_amount(self) -> Decimal:
        return round_money(_decimal(self.revenue - self.cost))

    @property
    def margin_percent(self) -> Decimal | None:
        fraction = self.fraction
        return None if fraction is None else round_money(_decimal(fraction * HUNDRED))

    def as_json(self) -> dict:
        percent = self.margin_percent
        return {
            "cost_total": f"{self.cost_total:.2f}",
            "margin_amount": f"{self.margin_amount:.2f}",
            "margin_percent": None if percent is None else f"{percent:.2f}",
            "lines_without_cost": self.uncosted,
        }


NO_MARGIN = Margin(Fraction(0), Fraction(0), 0)


def _decimal(value: Fraction) -> Decimal:
    return Decimal(value.numerator) / Decimal(value.denominator)


def line_margin(line: QuoteLine, *, discount_percent: Decimal) -> Margin:
    """One line's margin, with the quote discount `discount_percent` applied to it."""
    if line.unit_cost is None:
        return Margin(Fraction(0), Fraction(0), 1)
    amount = line_amount(
        quantity=line.quantity, unit_price=line.unit_price, discount_percent=line.discount_percent
    )
    revenue = Fraction(amount) * (HUNDRED - Fraction(discount_percent)) / HUNDRED
    return Margin(revenue, Fraction(line.unit_cost) * line.quantity, 0)


def lines_margin(lines: Iterable[QuoteLine], *, discount_percent: Decimal) -> Margin:
    total = NO_MARGIN
    for line in lines:
        total += line_margin(line, discount_percent=discount_percent)
    return total


@dataclass(frozen=True, slots=True)
class RevisionMargins:
    """A revision's margins as the quote page shows them: per line (by pk), per section, and
    for the offer as quoted (the totalled sections). Optional items and alternatives get the
    quote discount too, as the link prices them when chosen."""

    lines: dict[int, Margin]
    sections: dict[str, Margin]
    total: Margin


def revision_margins(lines: Iterable[QuoteLine], *, discount_percent: Decimal) -> RevisionMargins:
    per_line: dict[int, Margin] = {}
    sections: dict[str, Margin] = {}
    total = NO_MARGIN
    for line in lines:
        margin = line_margin(line, discount_percent=discount_percent)
        per_line[line.pk] = margin
        sections[line.section] = sections.get(line.section, NO_MARGIN) + margin
        if line.section in TOTALLED_SECTIONS:
            total += margin
    return RevisionMargins(per_line, sections, total)
