"""A refused answer lands the reader at the fault (#27 item 3).

The accept form sent back keeps the reader where they were: each fault is written under its
field, which is marked (aria-invalid, the message named by aria-describedby) and the first in
page order is focused when the page loads (autofocus, so no script is needed); the "I accept"
tick, the chosen option and optional items and their total are kept, so nothing is typed or
chosen twice. A fault no field owns stays one message above the button and takes the focus.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from proposals.models import Acceptance
from proposals.share.services import share_link_create
from quoting.customers.models import VatZone
from quoting.quotes.models import Quote
from quoting.quotes.selectors import offer_choice
from tests.proposals.choice_world import optional_line, quote_with_choices
from tests.quoting.factories import world_fresh

pytestmark = pytest.mark.django_db

BAD_CODE = "91110000600037341X"  # a wrong check character (the right one is L)
SIGNED = {"revision": 1, "name": "Li Wei", "agreed": "on", "signature_kind": "typed"}


class _Inputs(HTMLParser):
    """Every input's attributes, by id, and the ids carrying autofocus, in page order."""

    def __init__(self) -> None:
        super().__init__()
        self.by_id: dict[str, dict[str, str | None]] = {}
        self.focused: list[str] = []
        self.faults: dict[str, str] = {}  # message id -> its text
        self.general = ""  # the message above the button
        self._fault: str | None = None

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag in ("input", "textarea", "p") and attributes.get("id"):
            self.by_id[attributes["id"]] = attributes
        if "autofocus" in attributes:
            self.focused.append(attributes.get("id") or tag)
        if (attributes.get("id") or "").startswith("fault-"):
            self._fault = attributes["id"]
            self.faults[self._fault] = ""
        if attributes.get("id") == "accept-error":
            self._fault, self.general = "accept-error", ""

    def handle_data(self, data):
        if self._fault == "accept-error":
            self.general += data
        elif self._fault:
            self.faults[self._fault] += data

    def handle_endtag(self, tag):
        if tag in ("span", "p"):
            self._fault = None


def inputs(response) -> _Inputs:
    parsed = _Inputs()
    parsed.feed(response.content.decode())
    return parsed


@pytest.fixture(scope="module")
def offer(module_world_uncatalogued) -> int:
    """The quote with choices, sent, made once for the module (its send asks a manager's
    approval first): every test reads it afresh, and what a test writes is rolled back."""
    return quote_with_choices(module_world_uncatalogued).pk


@pytest.fixture
def world(module_world_uncatalogued, db):
    return world_fresh(module_world_uncatalogued)


@pytest.fixture
def quote(offer, db):
    return Quote.objects.get(pk=offer)


@pytest.fixture
def token(quote, world):
    return share_link_create(quote=quote, user=world.sales)[1]


def test_a_refused_credit_code_is_marked_at_its_field_and_focused(client, token):
    response = client.post(f"/p/{token}/accept?lang=zh-hans", SIGNED | {"invoice_tax_id": BAD_CODE})
    page = inputs(response)

    assert response.status_code == 400 and Acceptance.objects.count() == 0
    field = page.by_id["id_invoice_tax_id"]
    assert field["aria-invalid"] == "true"
    assert field["aria-describedby"] == "fault-invoice_tax_id"
    assert page.focused == ["id_invoice_tax_id"]  # the one fault, and nothing else focused
    assert "统一社会信用代码" in page.faults["fault-invoice_tax_id"]
    assert "accept-error" not in page.by_id  # not repeated above the button
    assert field["value"] == BAD_CODE  # as typed, to be corrected


def test_the_tick_and_every_field_are_kept_as_filled(client, token):
    filled = SIGNED | {"title": "CTO", "company": "Fabrikam", "po_number": "PO-7"}
    page = inputs(
        client.post(f"/p/{token}/accept?lang=zh-hans", filled | {"invoice_tax_id": BAD_CODE})
    )

    assert "checked" in page.by_id["id_agreed"]
    assert page.by_id["id_agreed"].get("aria-invalid") is None
    kept = {
        name: page.by_id[f"id_{name}"]["value"]
        for name in ("name", "title", "company", "po_number")
    }
    assert kept == {"name": "Li Wei", "title": "CTO", "company": "Fabrikam", "po_number": "PO-7"}


def test_the_first_fault_in_page_order_takes_the_focus(client, token):
    """The name (top of the form) is missing and the credit code (below) is wrong: both are
    marked, the name is focused."""
    sent = SIGNED | {"name": "", "invoice_tax_id": BAD_CODE}
    page = inputs(client.post(f"/p/{token}/accept?lang=zh-hans", sent))

    assert page.by_id["id_name"]["aria-invalid"] == "true"
    assert page.focused == ["id_name"]
    assert "fault-name" in page.faults


def test_an_unticked_acceptance_is_marked_at_the_tick(client, token):
    sent = {key: value for key, value in SIGNED.items() if key != "agreed"}
    page = inputs(client.post(f"/p/{token}/accept?lang=en", sent))

    assert page.by_id["id_agreed"]["aria-invalid"] == "true"
    assert page.focused == ["id_agreed"] and page.faults["fault-agreed"]


def test_the_chosen_option_items_and_total_survive_a_refusal(client, quote, token):
    optics = optional_line(quote, "Spare optics kit")
    sent = SIGNED | {"alternative": "Better", "optional": [str(optics.key)]}
    response = client.post(f"/p/{token}/accept?lang=zh-hans", sent | {"invoice_tax_id": BAD_CODE})
    html = response.content.decode()

    chosen = offer_choice(
        revision=quote.current_revision, alternative="Better", optional_keys=[str(optics.key)]
    ).totals
    as_quoted = quote.current_revision.total
    assert chosen.total != as_quoted
    headline = re.search(r'class="offer-total"[^>]*>([^<]+)<', html).group(1)
    assert headline.startswith(f"{chosen.total:,.2f}")
    assert re.search(r'name="alternative" value="Better" checked', html)
    assert re.search(rf'name="optional" value="{optics.key}" checked', html)


def test_a_fault_no_field_owns_is_one_message_above_the_button_and_focused(client, token):
    """A revision number that is no number (the hidden input tampered with): no input the
    reader sees is at fault, the message is."""
    page = inputs(client.post(f"/p/{token}/accept?lang=en", SIGNED | {"revision": "R1"}))

    assert page.by_id["accept-error"]["tabindex"] == "-1"
    assert page.focused == ["accept-error"]
    assert "whole number" in page.general
    assert not page.faults


def test_a_fault_at_a_field_the_page_leaves_out_is_not_lost(client, world, token):
    """An English page for a foreign customer asks for no fapiao details: a credit code sent
    anyway is refused in the message above the button."""
    world.customer.vat_zone = VatZone.EXPORT
    world.customer.save(update_fields=["vat_zone"])
    page = inputs(client.post(f"/p/{token}/accept?lang=en", SIGNED | {"invoice_tax_id": BAD_CODE}))

    assert "id_invoice_tax_id" not in page.by_id
    assert page.focused == ["accept-error"]
    assert "check character" in page.general
