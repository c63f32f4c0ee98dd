"""A revision's payment schedule and additional terms (issue 27 item 6): milestones summing to
exactly 100 %, taken from the company's default by a new quote, edited on the quote page and in
the API while a draft, frozen with the revision when it is sent."""

from __future__ import annotations

from decimal import Decimal

import pytest

from portal.models import CompanyProfile
from quoting.engine.money import milestone_amounts
from quoting.errors import InvalidValue
from quoting.quotes.models import QuoteEvent, QuoteRevision
from quoting.quotes.selectors import revision_content_fingerprint
from quoting.quotes.services.quotes import (
    payment_schedule_clean,
    quote_create,
    quote_update_terms,
)
from tests.proposals.conftest import quote_sent

THIRTY_SIXTY_TEN = [
    {"label": "On order", "percent": "30"},
    {"label": "On delivery", "percent": "60"},
    {"label": "On acceptance", "percent": "10"},
]


def _schedule(*percents: str) -> list[dict]:
    return [{"label": f"Milestone {n}", "percent": p} for n, p in enumerate(percents, 1)]


def _refused(milestones) -> InvalidValue:
    with pytest.raises(InvalidValue) as refused:
        payment_schedule_clean(milestones)
    return refused.value


def test_a_milestone_schedule_must_sum_to_exactly_100_percent():
    assert _refused(_schedule("30", "60", "9.99")).field == "payment_schedule"
    assert "99.99 %" in _refused(_schedule("30", "60", "9.99")).message
    assert _refused(_schedule("30", "60", "10.01")).field == "payment_schedule"
    assert payment_schedule_clean(_schedule("30", "60", "10")) == [
        {"label": "Milestone 1", "percent": "30.00"},
        {"label": "Milestone 2", "percent": "60.00"},
        {"label": "Milestone 3", "percent": "10.00"},
    ]
    # Exact Decimals: thirds to the cent do not make 100.
    assert _refused(_schedule("33.33", "33.33", "33.33")).field == "payment_schedule"
    assert len(payment_schedule_clean(_schedule("33.33", "33.33", "33.34"))) == 3


@pytest.mark.parametrize("percent", ["0", "-10", "0.00", "abc", "12.345", "101"])
def test_each_milestone_is_above_0_with_at_most_two_places_named_at_its_field(percent):
    refused = _refused(_schedule("100", percent))
    assert refused.field == "payment_schedule[1].percent"


def test_a_milestone_needs_a_name_and_a_schedule_at_most_ten_milestones():
    assert _refused([{"label": " ", "percent": "100"}]).field == "payment_schedule[0].label"
    assert _refused(_schedule(*["9.09"] * 11)).field == "payment_schedule"
    assert len(payment_schedule_clean(_schedule(*["10"] * 10))) == 10
    assert payment_schedule_clean([]) == []  # no schedule: the proposal prints none


@pytest.mark.parametrize(
    ("total", "percents", "amounts"),
    [
        ("100.00", ["33.33", "33.33", "33.34"], ["33.33", "33.33", "33.34"]),
        ("1000.01", ["30", "60", "10"], ["300.00", "600.01", "100.00"]),
        ("0.05", ["50", "50"], ["0.03", "0.02"]),  # half up, the last takes the rest
        ("123456.78", ["30", "60", "10"], ["37037.03", "74074.07", "12345.68"]),
    ],
)
def test_milestone_amounts_are_rounded_to_cents_and_sum_to_the_total(total, percents, amounts):
    got = milestone_amounts(Decimal(total), [Decimal(p) for p in percents])
    assert got == [Decimal(a) for a in amounts]
    assert sum(got) == Decimal(total)


def test_a_new_quote_keeps_the_standard_milestones_by_key_and_shows_them_in_the_readers_language(
    world,
):
    """Kept by key, never in the writer's language (#27 item 4): an English customer's quote
    reads in Chinese to a Chinese reader, and the other way round."""
    from django.utils import translation

    from quoting.quotes.models import milestone_label

    CompanyProfile.objects.create(legal_name_en="Seller", payment_schedule=THIRTY_SIXTY_TEN)
    world.customer.language = "zh-hans"
    world.customer.save()
    kept = quote_create(project=world.project, user=world.sales).current_revision
    assert kept.payment_schedule == [
        {"label": "On order", "percent": "30.00"},
        {"label": "On delivery", "percent": "60.00"},
        {"label": "On acceptance", "percent": "10.00"},
    ]
    with translation.override("zh-hans"):
        assert [milestone_label(m["label"]) for m in kept.payment_schedule] == [
            "下单时",
            "到货时",
            "验收后",
        ]
    with translation.override("en"):
        assert milestone_label("验收后") == "On acceptance"  # kept in Chinese before: still read
        assert milestone_label("Final acceptance") == "Final acceptance"  # typed: as typed


def test_a_standard_milestone_typed_in_chinese_is_kept_by_its_key():
    assert payment_schedule_clean(
        [{"label": "下单时", "percent": "40"}, {"label": "验收合格后", "percent": "60"}]
    ) == [
        {"label": "On order", "percent": "40.00"},
        {"label": "验收合格后", "percent": "60.00"},  # not a standard one: as typed
    ]


def test_without_a_company_default_a_new_quote_has_no_schedule(world):
    assert (
        quote_create(project=world.project, user=world.sales).current_revision.payment_schedule
        == []
    )


def test_a_sent_revision_keeps_its_schedule_and_terms_an_edit_opens_the_next(world):
    quote = quote_sent(world)
    sent = QuoteRevision.objects.get(pk=quote.current_revision_id)
    assert sent.payment_schedule == []
    quote_update_terms(
        quote=quote,
        user=world.sales,
        expected_version=quote.version,
        payment_schedule=THIRTY_SIXTY_TEN,
        additional_terms="Installation on site in Shenzhen by 2027-03-31.",
    )
    sent.refresh_from_db()
    draft = QuoteRevision.objects.get(pk=quote.current_revision_id)
    assert sent.payment_schedule == [] and sent.additional_terms == ""
    assert draft.number == sent.number + 1
    assert [m["percent"] for m in draft.payment_schedule] == ["30.00", "60.00", "10.00"]
    assert draft.additional_terms == "Installation on site in Shenzhen by 2027-03-31."
    verbs = QuoteEvent.objects.filter(revision=draft).values_list("verb", flat=True)
    assert list(verbs).count("payment_terms_changed") == 2


def test_the_fingerprint_covers_the_schedule_and_the_additional_terms(world):
    quote = quote_sent(world)
    quote_update_terms(
        quote=quote, user=world.sales, expected_version=quote.version,
        payment_schedule=THIRTY_SIXTY_TEN,
    )  # fmt: skip
    draft = QuoteRevision.objects.get(pk=quote.current_revision_id)
    before = revision_content_fingerprint(revision=draft)
    QuoteRevision.objects.filter(pk=draft.pk).update(
        payment_schedule=payment_schedule_clean(_schedule("40", "60"))
    )
    changed = revision_content_fingerprint(revision=draft)
    assert changed != before
    QuoteRevision.objects.filter(pk=draft.pk).update(additional_terms="Delivery DDP Shenzhen.")
    assert revision_content_fingerprint(revision=draft) not in (before, changed)


def test_an_unchanged_schedule_writes_nothing(world):
    quote = quote_create(project=world.project, user=world.sales)
    quote_update_terms(
        quote=quote, user=world.sales, expected_version=quote.version, payment_schedule=[]
    )
    assert quote.version == 1


# --- the quote page ------------------------------------------------------------------------------


def _form(version: int, rows: list[tuple[str, str]], terms: str = "") -> dict:
    data = {
        "expected_version": version,
        "additional_terms": terms,
        "milestone-TOTAL_FORMS": len(rows),
        "milestone-INITIAL_FORMS": 0,
        "milestone-MIN_NUM_FORMS": 0,
        "milestone-MAX_NUM_FORMS": 10,
    }
    for n, (label, percent) in enumerate(rows):
        data[f"milestone-{n}-label"], data[f"milestone-{n}-percent"] = label, percent
    return data


@pytest.fixture
def page(client, world):
    quote = quote_create(project=world.project, user=world.sales)
    client.force_login(world.sales)
    return client, quote, f"/quotes/{quote.pk}/payment-terms/"


def test_the_quote_page_refuses_a_schedule_of_99_99_percent_keeping_what_was_typed(page):
    client, quote, url = page
    rows = [("On order", "30"), ("On delivery", "60"), ("Final acceptance", "9.99"), ("", "")]
    response = client.post(url, _form(quote.version, rows, terms="Delivery DDP"))
    html = response.content.decode()
    assert response.status_code == 400
    assert "The milestones add up to 99.99 %; they must add up to exactly 100 %." in html
    assert 'value="Final acceptance"' in html and 'value="9.99"' in html
    assert "Delivery DDP</textarea>" in html
    quote.refresh_from_db()
    assert quote.current_revision.payment_schedule == []


def test_the_quote_page_names_a_non_positive_milestone_at_its_percent(page):
    client, quote, url = page
    response = client.post(url, _form(quote.version, [("On order", "100"), ("Later", "0")]))
    html = response.content.decode()
    assert response.status_code == 400
    message = "A milestone&#x27;s percentage must be above 0 and at most 100."
    assert (
        f'<div id="err-milestone-1-percent" class="field-error" role="alert">{message}</div>'
        in html
    )


def test_the_quote_page_saves_a_schedule_of_100_percent_and_its_terms(page):
    client, quote, url = page
    rows = [("On order", "30"), ("", ""), ("On delivery", "60"), ("On acceptance", "10")]
    response = client.post(url, _form(quote.version, rows, terms="Delivery DDP Shenzhen."))
    assert response.status_code == 302
    revision = QuoteRevision.objects.get(pk=quote.current_revision_id)
    assert revision.payment_schedule == [
        {"label": "On order", "percent": "30.00"},
        {"label": "On delivery", "percent": "60.00"},
        {"label": "On acceptance", "percent": "10.00"},
    ]
    assert revision.additional_terms == "Delivery DDP Shenzhen."
    shown = client.get(f"/quotes/{quote.pk}/").content.decode()
    assert 'value="On delivery"' in shown and 'value="60.00"' in shown


def test_the_quote_page_shows_the_milestone_errors_in_chinese(page):
    client, quote, url = page
    client.cookies["django_language"] = "zh-hans"
    response = client.post(url, _form(quote.version, [("下单时", "30"), ("到货时", "60")]))
    assert "各付款节点合计 90.00 %，须恰好合计 100 %。" in response.content.decode()


# --- the API -------------------------------------------------------------------------------------


def _patch(api, quote, body):
    return api.patch(
        f"/api/v1/quotes/{quote.pk}/", body, format="json", HTTP_IF_MATCH=f'"{quote.version}"'
    )


def test_the_api_refuses_a_schedule_of_99_99_percent_at_payment_schedule(api, qw):
    response = _patch(api, qw.quote, {"payment_schedule": _schedule("30", "60", "9.99")})
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["payment_schedule"]


@pytest.mark.parametrize("percent", ["0", "-5"])
def test_the_api_names_a_non_positive_milestone_by_its_path(api, qw, percent):
    response = _patch(api, qw.quote, {"payment_schedule": _schedule("100", percent)})
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["payment_schedule[1].percent"]


def test_the_api_refuses_a_malformed_milestone_by_its_path(api, qw):
    response = _patch(
        api, qw.quote, {"payment_schedule": [{"label": "On order", "percent": "1.234"}]}
    )
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["payment_schedule[0].percent"]


def test_the_api_sets_and_reads_the_schedule_and_terms(api, qw):
    response = _patch(
        api,
        qw.quote,
        {"payment_schedule": THIRTY_SIXTY_TEN, "additional_terms": "Delivery DDP Shenzhen."},
    )
    assert response.status_code == 200, response.json()
    expected = [
        {"label": "On order", "percent": "30.00"},
        {"label": "On delivery", "percent": "60.00"},
        {"label": "On acceptance", "percent": "10.00"},
    ]
    assert response.json()["payment_schedule"] == expected
    assert response.json()["additional_terms"] == "Delivery DDP Shenzhen."
    assert api.get(f"/api/v1/quotes/{qw.quote.pk}/").json()["payment_schedule"] == expected
    revisions = api.get(f"/api/v1/quotes/{qw.quote.pk}/revisions/").json()
    assert revisions[-1]["payment_schedule"] == expected


def test_the_revision_diff_shows_a_changed_schedule_and_terms(client, world):
    quote = quote_sent(world)
    quote_update_terms(
        quote=quote, user=world.sales, expected_version=quote.version,
        payment_schedule=THIRTY_SIXTY_TEN, additional_terms="Delivery DDP Shenzhen.",
    )  # fmt: skip
    client.force_login(world.sales)
    html = client.get(f"/quotes/{quote.pk}/diff/?a=1&b=2").content.decode()
    assert (
        "Payment schedule: — → On order 30.00 %; On delivery 60.00 %; On acceptance 10.00 %" in html
    )
    assert "Additional terms: — → Delivery DDP Shenzhen." in html


def test_the_diff_and_the_audit_trail_name_the_milestones_in_the_readers_language(client, world):
    """Written in English, read in Chinese (#27 item 4); a schedule kept in Chinese before and
    the same one kept by key since are no change."""
    from django.utils import translation

    from quoting.quotes.display import event_detail_rows
    from quoting.quotes.models import QuoteEvent
    from quoting.quotes.selectors import revision_diff

    quote = quote_sent(world)
    quote_update_terms(
        quote=quote, user=world.sales, expected_version=quote.version,
        payment_schedule=THIRTY_SIXTY_TEN,
    )  # fmt: skip
    world.sales.language = "zh-hans"
    world.sales.save()
    client.force_login(world.sales)
    html = client.get(f"/quotes/{quote.pk}/diff/?a=1&b=2").content.decode()
    assert "下单时 30.00 %; 到货时 60.00 %; 验收后 10.00 %" in html

    event = QuoteEvent.objects.filter(quote=quote, verb="payment_terms_changed").get()
    assert event.details["after"] == "On order 30.00 %; On delivery 60.00 %; On acceptance 10.00 %"
    with translation.override("zh-hans"):
        rows = event_detail_rows(event.verb, event.details)
    assert rows[0][1] == "— → 下单时 30.00 %; 到货时 60.00 %; 验收后 10.00 %"

    one, two = QuoteRevision.objects.filter(quote=quote).order_by("number")
    QuoteRevision.objects.filter(pk=one.pk).update(
        payment_schedule=[
            {"label": "下单时", "percent": "30.00"},
            {"label": "到货时", "percent": "60.00"},
            {"label": "验收后", "percent": "10.00"},
        ]
    )
    one.refresh_from_db()
    assert "payment_schedule" not in revision_diff(old=one, new=two).terms


def test_a_schedule_kept_in_chinese_before_saved_again_unchanged_changes_nothing(world):
    """The same milestones, kept in words before and posted again (the Chinese form shows them
    so): no change, no new revision, the sent text left as it was (its fingerprint too)."""
    quote = quote_sent(world)
    kept = [{"label": "下单时", "percent": "40.00"}, {"label": "验收后", "percent": "60.00"}]
    QuoteRevision.objects.filter(pk=quote.current_revision_id).update(payment_schedule=kept)
    quote.refresh_from_db()
    for posted in (
        kept,
        [{"label": "On order", "percent": "40"}, {"label": "On acceptance", "percent": "60"}],
    ):
        quote_update_terms(
            quote=quote, user=world.sales, expected_version=quote.version, payment_schedule=posted
        )
        quote.refresh_from_db()
        assert quote.status == "sent" and quote.current_revision.number == 1
        assert quote.current_revision.payment_schedule == kept


def test_an_empty_schedule_on_a_revision_without_one_changes_nothing(world):
    quote = quote_sent(world)
    QuoteRevision.objects.filter(pk=quote.current_revision_id).update(payment_schedule=None)
    quote_update_terms(
        quote=quote, user=world.sales, expected_version=quote.version, payment_schedule=[]
    )
    quote.refresh_from_db()
    assert quote.status == "sent" and quote.current_revision.number == 1
