"""What the customer signs is what the reseller books (issue 22, item 1).

On acceptance the accepted revision's chosen alternative and optional items become the quote's
booked configuration: the API (`booked`), the quote list, the quote page, the work queues, the
quote.accepted webhook and the installation pack follow it. An answer recorded by staff books the
revision as quoted.
"""

from __future__ import annotations

from unittest import mock

import pytest

from integrations.models import WebhookDelivery, WebhookEndpoint
from integrations.webhooks import webhook_secret_new
from proposals.share.services import share_link_create
from quoting.designs.models import SavedDesign
from quoting.quotes.models import InstallPack, Notification, NotificationKind, QuoteStatus
from quoting.quotes.selectors import booked_choice, offer_choice, quote_list_rows
from quoting.quotes.services.install import design_to_install, install_pack_request
from quoting.quotes.services.quotes import (
    quote_add_alternative,
    quote_create_from_design,
    quote_mark_accepted,
    quote_send,
)
from tests.api_schema import assert_matches_schema
from tests.proposals.choice_world import optional_line, quote_with_choices
from tests.quoting.api_world import design_make, token_client
from tests.quoting.factories import quote_reload
from tests.quoting.servers_world import LARGER_TOTAL, quote_with_a_larger_alternative

pytestmark = pytest.mark.django_db


@pytest.fixture
def quote(world):
    return quote_with_choices(world)


@pytest.fixture
def endpoint(world):
    with mock.patch("integrations.webhooks.enqueue_or_leave_to_sweeper"):
        yield WebhookEndpoint.objects.create(
            url="https://crm.example/hook",
            secret=webhook_secret_new(),
            events=["quote.accepted"],
            created_by=world.sales,
        )


def _accept(client, quote, world, **choice):
    _link, token = share_link_create(quote=quote, user=world.sales)
    answer = client.post(
        f"/p/{token}/accept?lang=en",
        {"revision": 1, "name": "Li Wei", "title": "CTO", "agreed": "on", **choice},
    )
    assert answer.status_code == 302, answer.content[:400]
    return quote_reload(quote)


def test_the_choice_on_the_link_becomes_the_booked_configuration(client, quote, world, endpoint):
    training = optional_line(quote, "On-site training day")
    expected = offer_choice(
        revision=quote.current_revision, alternative="Best", optional_keys=[str(training.key)]
    ).totals
    assert expected.total != quote.current_revision.total

    quote = _accept(client, quote, world, alternative="Best", optional=[str(training.key)])

    assert quote.status == QuoteStatus.ACCEPTED
    assert quote.booked_revision_id == quote.current_revision_id
    assert (quote.booked_alternative, quote.booked_optional) == ("Best", [str(training.key)])
    assert quote.booked_total == expected.total
    choice = booked_choice(quote=quote)
    assert {ln.description for ln in choice.lines} == {
        "QM9700 managed switch, 4 spines",
        "Installation",
        "On-site training day",
    }

    # The API: `booked` has the totals' shape plus revision, alternative and optional keys.
    body = token_client(world.sales, scope="read").get(f"/api/v1/quotes/{quote.pk}/").json()
    assert body["booked"] == {
        "subtotal": f"{expected.subtotal:.2f}",
        "discount": f"{expected.discount:.2f}",
        "net": f"{expected.net:.2f}",
        "tax": f"{expected.tax:.2f}",
        "total": f"{expected.total:.2f}",
        "tax_breakdown": [row.as_json() for row in expected.tax_breakdown],
        "revision": 1,
        "alternative": "Best",
        "optional": [str(training.key)],
    }
    assert body["totals"]["total"] == f"{quote.current_revision.total:.2f}"  # as sent, kept
    assert_matches_schema(body, "/api/v1/quotes/{id}/")

    # The webhook carries the same booking: its totals, revision and choice.
    data = WebhookDelivery.objects.get(event_type="quote.accepted").payload["data"]
    assert data["totals"] == {"currency": body["currency"]} | {
        name: body["booked"][name] for name in ("subtotal", "discount", "net", "tax", "total")
    }
    assert data["revision"]["label"] == f"R{body['booked']['revision']}"
    assert data["acceptance"]["chosen_alternative"] == body["booked"]["alternative"]
    assert [o["key"] for o in data["acceptance"]["chosen_optional"]] == body["booked"]["optional"]


def test_an_accepted_alternative_books_its_own_design_in_place_of_every_line_of_the_chosen_one(
    client, world
):
    """The chosen design quotes GPU servers and per-GPU licences beside its network; the
    alternative "Larger" replaces all of them (tests/quoting/servers_world.py's figures), the
    lines added by hand staying. Its licences, not the chosen design's, start their term."""
    quote = quote_with_a_larger_alternative(world)
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)

    quote = _accept(client, quote_reload(quote), world, alternative="Larger")

    assert quote.booked_alternative == "Larger"
    assert quote.booked_total == LARGER_TOTAL
    choice = booked_choice(quote=quote)
    assert {(ln.sku or ln.description, ln.section) for ln in choice.lines} == {
        ("SW-A", "alternatives"),
        ("SRV-8", "alternatives"),
        ("BCM-GPU", "alternatives"),
        ("UFM-EP", "alternatives"),
        ("Rack cabling kit", "network"),
        ("Installation", "services"),
    }
    started = quote.booked_revision.lines.filter(starts_on__isnull=False)
    assert {(ln.sku, ln.quantity, ln.section) for ln in started} == {
        ("BCM-GPU", 24, "alternatives"),
        ("UFM-EP", 24, "alternatives"),
    }


def test_the_list_the_page_and_the_api_list_show_the_booked_total(client, quote, world):
    training = optional_line(quote, "On-site training day")
    quote = _accept(client, quote, world, alternative="Better", optional=[str(training.key)])

    (row,) = quote_list_rows(quotes=[quote])
    assert row.total == quote.booked_total != quote.current_revision.total

    client.force_login(world.sales)
    listed = client.get("/quotes/").content.decode()
    assert f"{quote.booked_total:,.2f}" in listed

    page = client.get(f"/quotes/{quote.pk}/").content.decode()
    assert 'id="quote-booked"' in page and f"{quote.booked_total:,.2f}" in page
    assert "Better" in page and "On-site training day" in page
    assert "Accepted and booked" in page


def test_an_answer_taken_by_staff_books_the_revision_as_quoted(quote, world, endpoint):
    quote_mark_accepted(quote=quote, actor=world.sales, expected_version=quote.version)
    quote = quote_reload(quote)
    assert (quote.booked_alternative, quote.booked_optional) == ("", [])
    assert quote.booked_total == quote.current_revision.total
    data = WebhookDelivery.objects.get(event_type="quote.accepted").payload["data"]
    assert data["acceptance"]["chosen_alternative"] == "" and data["revision"]["label"] == "R1"
    assert data["totals"]["total"] == f"{quote.booked_total:.2f}"


def test_a_quote_not_accepted_has_no_booking(quote, world):
    assert booked_choice(quote=quote) is None
    body = token_client(world.sales, scope="read").get(f"/api/v1/quotes/{quote.pk}/").json()
    assert body["booked"] is None


def test_the_installation_pack_of_a_booked_alternative_lays_out_its_own_design(client, world):
    infiniband = design_make(world.project, name="InfiniBand")
    ethernet = SavedDesign.objects.create(
        project=world.project,
        name="Spectrum-X",
        requirements={"gpu_count": 32, "protocol": "ethernet"},
        result={"bom": infiniband.bom},
        created_by=world.sales,
    )
    quote = quote_create_from_design(project=world.project, design=infiniband, user=world.sales)
    quote_add_alternative(
        quote=quote,
        design=ethernet,
        label="Ethernet",
        user=world.sales,
        expected_version=quote.version,
    )
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    revision = quote_reload(quote).current_revision
    before = install_pack_request(revision=revision, user=world.sales, site={})
    assert before.requirements == infiniband.requirements

    quote = _accept(client, quote_reload(quote), world, alternative="Ethernet")

    assert design_to_install(revision) == ethernet
    pack = install_pack_request(revision=revision, user=world.sales, site={})
    assert pack.pk != before.pk and pack.requirements == ethernet.requirements
    # Asking again returns the alternative's pack, not the quote's own design's.
    again = install_pack_request(revision=revision, user=world.sales, site={})
    assert again.pk == pack.pk
    assert InstallPack.objects.filter(revision=revision).count() == 2


def test_the_owners_notification_says_the_booked_total(client, quote, world):
    quote = _accept(client, quote, world, alternative="Best")
    note = Notification.objects.get(quote=quote, kind=NotificationKind.QUOTE_ACCEPTED)
    assert f"Booked: {quote.booked_total:,.2f} CNY." in note.message()
    assert quote.booked_total != quote.current_revision.total
