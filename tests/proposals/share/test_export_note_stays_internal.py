"""The export-control note is the staff's: a quote sent after its check shows the customer
nothing of it, on the share page (both languages), in the PDF or in the webhook's data."""

from __future__ import annotations

import json

from django.test import Client

from catalog.models import Product
from proposals.share.services import share_link_create
from quoting.customers.models import ExportDestination
from quoting.quotes.models import QuoteEvent, QuoteEventVerb
from quoting.quotes.services.quotes import (
    quote_add_product,
    quote_create,
    quote_export_check,
    quote_send,
)
from quoting.quotes.signals import quote_announced
from tests.proposals.conftest import pdf_text, sent_pdf
from tests.quoting.factories import ProductFactory, price_set

# What the note or its check would leave behind, in either language.
INTERNAL = (
    "5A992.c",
    "export classification",
    "Export control",
    "export-control",
    "legal advice",
    "I have checked this",
    "出口管制",
    "法律意见",
    "我已核查",
)


def _checked_and_sent(world):
    product = ProductFactory(
        part_number="SW-1",
        name="QM9790 switch",
        export_classification="5A992.c",
        export_classification_source="verify",
    )
    price_set(product, "CNY", "100000.00")
    ExportDestination.objects.create(country="CN", note="Check the end user.")
    quote = quote_create(project=world.project, user=world.sales)
    quote_add_product(
        quote=quote, sku="SW-1", quantity=2, user=world.sales, expected_version=quote.version
    )
    quote_export_check(quote=quote, user=world.sales, expected_version=quote.version)
    announced = []

    def keep(sender, event_type, data, **kwargs):
        announced.append(json.dumps(data, default=str))

    quote_announced.connect(keep)
    try:
        quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    finally:
        quote_announced.disconnect(keep)
    quote.refresh_from_db()
    return quote, announced


def _leaks(text: str) -> list[str]:
    return [word for word in INTERNAL if word.lower() in text.lower()]


def test_the_share_page_pdf_and_webhook_data_never_show_the_export_note(world):
    quote, announced = _checked_and_sent(world)
    assert QuoteEvent.objects.filter(quote=quote, verb=QuoteEventVerb.EXPORT_CHECKED).exists()
    assert Product.objects.get(part_number="SW-1").export_classification == "5A992.c"
    _, token = share_link_create(quote=quote, user=world.sales)

    english = Client().get(f"/p/{token}?lang=en")
    chinese = Client().get(f"/p/{token}?lang=zh-hans")
    pdf = pdf_text(bytes(sent_pdf(quote.current_revision, "en").pdf))

    assert english.status_code == 200 and chinese.status_code == 200
    assert "SW-1" in english.content.decode() and "SW-1" in pdf  # the line itself is there
    assert _leaks(english.content.decode()) == []
    assert _leaks(chinese.content.decode()) == []
    assert _leaks(pdf) == []
    assert announced and all(_leaks(data) == [] for data in announced)
