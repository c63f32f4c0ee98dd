"""The staff's export-control note: classified lines (other than EAR99) for a customer in a
destination the admin lists show a note on the quote page; sending, from the page or the API,
waits until someone checked it for the revision as it stands."""

from __future__ import annotations

import re

import pytest

from catalog.models import Product
from quoting.customers.models import ExportDestination
from quoting.errors import ExportCheckRequired, InvalidValue
from quoting.quotes.models import QuoteEvent, QuoteEventVerb, QuoteLine, QuoteStatus
from quoting.quotes.selectors import revision_export_note
from quoting.quotes.services.quotes import quote_export_check, quote_send, quote_update_line
from tests.quoting.api_world import token_client
from tests.quoting.factories import quote_reload


def _classify(part_number: str, classification: str, source: str = "verify") -> None:
    Product.objects.filter(part_number=part_number).update(
        export_classification=classification, export_classification_source=source
    )


@pytest.fixture
def listed(qw):
    """The quote world's leaf switch classified 5A992.c (to verify), its customer (CN) listed."""
    _classify("SW-1", "5A992.c")
    ExportDestination.objects.create(country="CN", note="Check the end user against the lists.")
    return qw


def _note_section(page: str) -> str:
    found = re.search(r'<section id="export-note".*?</section>', page, re.S)
    return found.group(0) if found else ""


def _check(qw) -> QuoteEvent:
    quote = quote_reload(qw.quote)
    return quote_export_check(quote=quote, user=qw.world.sales, expected_version=quote.version)


def _send(qw):
    quote = quote_reload(qw.quote)
    return quote_send(quote=quote, user=qw.world.sales, expected_version=quote.version)


def test_no_note_for_a_customer_outside_the_listed_destinations(qw):
    _classify("SW-1", "5A992.c")
    ExportDestination.objects.create(country="IR")

    assert revision_export_note(revision=quote_reload(qw.quote).current_revision) is None
    _send(qw)
    assert quote_reload(qw.quote).status == QuoteStatus.SENT


def test_no_note_for_unclassified_or_ear99_items(qw):
    _classify("SW-1", "EAR99", "NVIDIA letter 2026-10")
    ExportDestination.objects.create(country="CN")  # CB-1 stays unclassified

    assert revision_export_note(revision=quote_reload(qw.quote).current_revision) is None
    _send(qw)
    assert quote_reload(qw.quote).status == QuoteStatus.SENT


def test_the_note_lists_the_classified_lines_their_source_and_the_destination(client, listed):
    client.force_login(listed.world.sales)

    note = _note_section(client.get(f"/quotes/{listed.quote.pk}/").content.decode())

    assert "<code>SW-1</code>" in note and "<code>5A992.c</code>" in note
    assert "to verify: not confirmed" in note
    assert "CN" in note and "Check the end user against the lists." in note
    assert "Not legal advice" in note and "never shown to the customer" in note
    assert "CB-1" not in note  # unclassified: not listed
    assert "I have checked this" in note


def test_the_page_refuses_to_send_until_the_note_is_checked_then_sends(client, listed):
    client.force_login(listed.world.sales)
    url = f"/quotes/{listed.quote.pk}/"

    refused = client.post(url + "send/", {"expected_version": quote_reload(listed.quote).version})
    assert refused.status_code == 409
    assert "Read the export-control note" in refused.content.decode()
    assert quote_reload(listed.quote).status == QuoteStatus.DRAFT

    checked = client.post(
        url + "export-check/", {"expected_version": quote_reload(listed.quote).version}
    )
    assert checked.status_code == 302
    event = QuoteEvent.objects.get(quote=listed.quote, verb=QuoteEventVerb.EXPORT_CHECKED)
    assert event.actor == listed.world.sales and event.at is not None
    assert event.details["destination"] == "CN"
    assert event.details["classified"] == "SW-1 (5A992.c)"
    note = _note_section(client.get(url).content.decode())
    assert f"Checked by {listed.world.sales.username}" in note
    assert "I have checked this" not in note

    sent = client.post(url + "send/", {"expected_version": quote_reload(listed.quote).version})
    assert sent.status_code == 302
    assert quote_reload(listed.quote).status == QuoteStatus.SENT


def test_the_api_answers_409_export_check_required_until_checked(listed):
    api = token_client(listed.world.sales)
    url = f"/api/v1/quotes/{listed.quote.pk}/"

    def version() -> str:
        return f'"{quote_reload(listed.quote).version}"'

    refused = api.post(url + "send/", {}, format="json", HTTP_IF_MATCH=version())
    assert refused.status_code == 409
    problem = refused.json()
    assert problem["code"] == "export_check_required"
    assert problem["destination"] == "CN"
    assert problem["lines"] == [{"sku": "SW-1", "classification": "5A992.c", "source": "verify"}]
    assert "export_check" in problem["errors"]

    checked = api.post(url + "export-check/", {}, format="json", HTTP_IF_MATCH=version())
    assert checked.status_code == 200, checked.json()
    sent = api.post(url + "send/", {}, format="json", HTTP_IF_MATCH=version())
    assert sent.status_code == 200, sent.json()
    assert sent.json()["status"] == QuoteStatus.SENT


def test_a_line_changed_after_the_check_needs_a_new_check(listed):
    _check(listed)
    quote = quote_reload(listed.quote)
    line = QuoteLine.objects.get(revision=quote.current_revision, sku="SW-1")
    quote_update_line(
        quote=quote, line=line, user=listed.world.sales, expected_version=quote.version, quantity=3
    )

    with pytest.raises(ExportCheckRequired):
        _send(listed)
    note = revision_export_note(revision=quote_reload(listed.quote).current_revision)
    assert note.checked is None

    _check(listed)
    _send(listed)
    assert quote_reload(listed.quote).status == QuoteStatus.SENT


def test_a_quote_that_needs_no_check_refuses_one(qw):
    with pytest.raises(InvalidValue) as error:
        _check(qw)

    assert error.value.field == "export_check"
    assert not QuoteEvent.objects.filter(verb=QuoteEventVerb.EXPORT_CHECKED).exists()


def test_the_note_and_the_refusal_read_in_chinese(client, make_user, listed):
    Product.objects.filter(part_number="SW-1").update(name_zh="QM9790 交换机（中文名）")
    listed.world.sales.language = "zh-hans"
    listed.world.sales.save()
    client.force_login(listed.world.sales)
    url = f"/quotes/{listed.quote.pk}/"

    note = _note_section(client.get(url).content.decode())
    # The line keeps the name it was made with; the note names it in the reader's language.
    assert "QM9790 交换机（中文名）" in note
    refused = client.post(url + "send/", {"expected_version": quote_reload(listed.quote).version})

    assert "出口管制" in note and "不构成法律意见" in note and "我已核查" in note
    assert "出口管制" in refused.content.decode()
    assert "Read the export-control note" not in refused.content.decode()


def test_the_admin_lists_destinations_by_their_iso_code(admin_client, db):
    url = "/admin/quoting/exportdestination/add/"

    refused = admin_client.post(url, {"country": "cn", "note": ""})
    saved = admin_client.post(url, {"country": "CN", "note": "Check the end user."})

    assert refused.status_code == 200 and "two-letter ISO 3166 code" in refused.content.decode()
    assert saved.status_code == 302
    assert list(ExportDestination.objects.values_list("country", "note")) == [
        ("CN", "Check the end user.")
    ]


def test_the_note_never_reaches_the_customer_in_either_language(
    client, listed, django_capture_on_commit_callbacks
):
    """Issue 26 item 6: the note is for staff, "never shown to the customer": neither the
    proposal (English or Chinese) nor the share page names the classification, the destination's
    note or the check."""
    from proposals.documents.pdf import proposal_html
    from proposals.share.services import share_link_create

    _check(listed)
    _send(listed)
    quote = quote_reload(listed.quote)
    with django_capture_on_commit_callbacks(execute=True):
        _link, token = share_link_create(quote=quote, user=listed.world.sales)
    pages = {
        "proposal en": proposal_html(revision=quote.current_revision, language="en"),
        "proposal zh": proposal_html(revision=quote.current_revision, language="zh-hans"),
        "share page": client.get(f"/p/{token}").content.decode(),
    }
    assert "SW-1" in pages["proposal en"]  # the classified line itself is quoted
    for name, page in pages.items():
        for staff_only in (
            "5A992",
            "export-note",
            "Check the end user against the lists.",
            "export-control",
            "出口管制",
            "Not legal advice",
        ):
            assert staff_only not in page, (name, staff_only)
