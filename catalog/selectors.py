"""Reads of the catalog: what the engine, the quote builder and the pages need."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Count, Prefetch, Q, QuerySet
from django.utils import timezone

from catalog.models import (
    SPEC_FIELDS,
    Category,
    Lifecycle,
    PriceList,
    PriceListItem,
    Product,
    ReplaceableUnit,
    SparesClass,
    SparesRatio,
    Unit,
    paid_yearly,
)
from quoting.engine.catalog import ProductSpec


@dataclass(frozen=True, slots=True)
class Price:
    part_number: str
    currency: str
    list_price: Decimal
    cost: Decimal | None
    price_list: str
    is_reference: bool
    paid_yearly: bool = False  # the price buys one year (support, per-endpoint licences)


def product_to_spec(product: Product) -> ProductSpec:
    def plain(value):
        # The engine does physics in floats; Decimal stays in the catalog and in money.
        return float(value) if isinstance(value, Decimal) else value

    return ProductSpec(
        part_number=product.part_number,
        name=product.name,
        category=product.category,
        family=product.family,
        generation=product.generation,
        protocol=product.protocol,
        lifecycle=product.lifecycle,
        unit=product.unit,
        **{f: plain(getattr(product, f)) for f in SPEC_FIELDS},
    )


def product_specs(*, include_eol: bool = False) -> list[ProductSpec]:
    """The whole designable catalog as engine specs, in one query."""
    products = Product.objects.all()
    if not include_eol:
        products = products.exclude(lifecycle=Lifecycle.EOL)
    return [product_to_spec(p) for p in products]


def price_lists_active(*, currency: str, on: dt.date | None = None) -> QuerySet[PriceList]:
    on = on or timezone.localdate()
    return (
        PriceList.objects.filter(currency=currency)
        .filter(Q(valid_from__isnull=True) | Q(valid_from__lte=on))
        .filter(Q(valid_until__isnull=True) | Q(valid_until__gte=on))
        # The default list wins; among the others the most recent one.
        .order_by("-is_default", "-valid_from", "-pk")
    )


def price_lookup(
    *, part_numbers: list[str] | set[str], currency: str, on: dt.date | None = None
) -> dict[str, Price]:
    """Prices for these products in this currency on this date, one query.

    A product missing from every active list is missing from the answer: the caller decides
    whether that is an error (a quote line) or fine (a catalog page).
    """
    lists = list(price_lists_active(currency=currency, on=on))
    rank = {pl.pk: i for i, pl in enumerate(lists)}
    items = PriceListItem.objects.filter(
        price_list_id__in=rank, product__part_number__in=set(part_numbers)
    ).select_related("product", "price_list")
    best: dict[str, PriceListItem] = {}
    for item in items:
        pn = item.product.part_number
        if pn not in best or rank[item.price_list_id] < rank[best[pn].price_list_id]:
            best[pn] = item
    return {
        pn: Price(
            pn,
            currency,
            item.list_price,
            item.cost,
            item.price_list.name,
            item.price_list.is_reference,
            paid_yearly(unit=item.product.unit, category=item.product.category),
        )
        for pn, item in best.items()
    }


def product_list(*, with_prices: bool = True) -> QuerySet[Product]:
    products = Product.objects.all()
    if with_prices:
        default_items = (
            PriceListItem.objects.filter(price_list__is_default=True)
            .select_related("price_list")
            .order_by("price_list__currency")
        )
        products = products.prefetch_related(
            Prefetch("prices", queryset=default_items, to_attr="default_prices")
        )
    return products


def catalog_summary() -> list[dict]:
    """Product count per category, for the home page."""
    counts = dict(
        Product.objects.values_list("category").annotate(n=Count("pk")).values_list("category", "n")
    )
    return [
        {"category": c, "label": label, "count": counts.get(c, 0)} for c, label in Category.choices
    ]


def gpu_peak_tflops() -> dict[str, float]:
    """Peak dense BF16 TFLOP/s per GPU model, from the catalog's servers (for the TCO model)."""
    rows = (
        Product.objects.filter(category=Category.SERVER, gpu_peak_tflops__isnull=False)
        .exclude(gpu_model="")
        .values_list("gpu_model", "gpu_peak_tflops")
    )
    return {model: float(tflops) for model, tflops in rows}


def servers_with_power() -> list[tuple[str, str]]:
    """(part number, name in the active language) of the catalog's GPU servers that state their
    power, for the TCO page's server choice; end-of-life ones and servers without GPUs (UFM
    hosts) are left out."""
    rows = (
        Product.objects.filter(category=Category.SERVER, gpu_count__isnull=False)
        .exclude(lifecycle=Lifecycle.EOL)
        .filter(Q(power_typical_w__isnull=False) | Q(power_max_w__isnull=False))
        .order_by("part_number")
    )
    return [(p.part_number, p.display_name) for p in rows]


def product_names_shown(*, part_numbers) -> dict[str, str]:
    """Part number -> the product's name in the active language, for rows that carry the English
    name (a design's BOM); empty in English, where the rows' own names are shown."""
    from django.utils.translation import get_language

    if not (get_language() or "").startswith("zh"):
        return {}
    return dict(
        Product.objects.filter(part_number__in=set(part_numbers))
        .exclude(name_zh="")
        .values_list("part_number", "name_zh")
    )


def spares_ratios() -> dict[str, Decimal]:
    """The spares kit's percent per class (catalog.SparesRatio), in the classes' order."""
    saved = dict(SparesRatio.objects.values_list("spare_class", "percent"))
    return {c: saved[c] for c in SparesClass.values if c in saved}


def replaceable_units() -> dict[str, list[dict]]:
    """The PSUs and fans each switch part holds, for the spares kit's PSU/fan class: {switch
    part number: [{sku, name, category, per_switch}, ...]}. End-of-life units are left out (no
    longer sold as spares)."""
    units: dict[str, list[dict]] = {}
    rows = (
        ReplaceableUnit.objects.exclude(unit__lifecycle=Lifecycle.EOL)
        .select_related("switch", "unit")
        .order_by("switch__part_number", "unit__part_number")
    )
    for row in rows:
        units.setdefault(row.switch.part_number, []).append(
            {
                "sku": row.unit.part_number,
                "name": row.unit.name,
                "category": row.unit.category,
                "per_switch": row.per_switch,
            }
        )
    return units


def services_per_node() -> list[Product]:
    """The active services priced per compute node, which a quote made from a design offers."""
    return list(
        Product.objects.filter(
            category=Category.SERVICE, unit=Unit.NODE, lifecycle=Lifecycle.ACTIVE
        ).order_by("part_number")
    )
