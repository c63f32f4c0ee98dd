"""The customer's choice on the link: the price endpoint (JSON, scoped by the token, bad input
refused with a message), the page without script ("Recalculate"), and the accept that records
the choice, its totals and the quote.accepted webhook; nothing recorded on bad input."""

from __future__ import annotations

import uuid
from unittest import mock

import pytest
from django.core.cache import cache

from integrations.models import WebhookDelivery, WebhookEndpoint
from integrations.webhooks import webhook_secret_new
from proposals.acceptance.selectors import chosen_configuration
from proposals.acceptance.services import share_accept
from proposals.models import Acceptance
from proposals.share.services import share_link_create
from quoting.errors import InvalidValue
from quoting.quotes.models import Quote, QuoteEvent, QuoteStatus
from quoting.quotes.selectors import offer_choice, revision_alternatives
from tests.proposals.choice_world import optional_line, quote_with_choices
from tests.quoting.factories import ProjectFactory, quote_reload, world_fresh

pytestmark = pytest.mark.django_db


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


@pytest.fixture
def endpoint(world):
    with mock.patch("integrations.webhooks.enqueue_or_leave_to_sweeper"):
        yield WebhookEndpoint.objects.create(
            url="https://crm.example/hook",
            secret=webhook_secret_new(),
            events=["quote.accepted"],
            created_by=world.sales,
        )


def _price(client, token, **query):
    return client.get(f"/p/{token}/price", query)


# --- the price endpoint ---------------------------------------------------------------------------


def test_the_price_of_a_choice_is_the_servers_in_json(client, quote, token):
    optics = optional_line(quote, "Spare optics kit")
    response = _price(
        client, token, alternative="Better", optional=[str(optics.key)], revision=1, lang="en"
    )
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    data = response.json()
    expected = offer_choice(
        revision=quote.current_revision, alternative="Better", optional_keys=[str(optics.key)]
    ).totals
    assert data["amounts"]["total"] == f"{expected.total:.2f}"
    assert data["figures"]["total"] == f"{expected.total:,.2f} CNY"
    assert data["figures"]["discount"].startswith("−")
    assert data["figures"]["in_words"] == ""  # English page
    assert (data["alternative"], data["optional"]) == ("Better", [str(optics.key)])
    assert "script-src 'self'" in response["Content-Security-Policy"]


def test_as_quoted_the_price_is_the_sent_total(client, quote, token):
    data = _price(client, token).json()
    assert data["amounts"]["total"] == f"{quote.current_revision.total:.2f}"


def test_the_price_in_chinese_gives_the_amount_in_words(client, quote, token):
    data = _price(client, token, alternative="Best", lang="zh-hans").json()
    assert data["figures"]["in_words"].endswith(("元整", "分", "角"))
    best = next(
        a for a in revision_alternatives(revision=quote.current_revision) if a.group == "Best"
    )
    assert data["amounts"]["total"] == f"{best.total_if_chosen:.2f}"


@pytest.mark.parametrize(
    "query, field",
    [
        ({"alternative": "Ultimate"}, "alternative"),
        ({"optional": str(uuid.uuid4())}, "optional"),
        ({"optional": "x" * 37}, "optional"),
        ({"alternative": "x" * 101}, "alternative"),
        ({"revision": "2"}, "revision"),
    ],
)
def test_bad_input_is_a_400_with_a_message(client, token, query, field):
    response = _price(client, token, **query)
    assert response.status_code == 400
    assert response.json()["field"] == field and response.json()["error"]


def test_a_key_twice_is_refused_in_the_readers_language(client, quote, token):
    key = str(optional_line(quote, "Spare optics kit").key)
    response = _price(client, token, optional=[key, key], lang="zh-hans")
    assert response.status_code == 400
    assert response.json()["error"] != "An optional item was chosen twice."  # translated


def test_the_price_is_scoped_by_the_token(client, world, token):
    other_world_quote = quote_with_choices_elsewhere(world)
    key = str(optional_line(other_world_quote, "Spare optics kit").key)
    response = _price(client, token, optional=key)  # another quote's optional line
    assert response.status_code == 400
    unknown = client.get("/p/" + "A" * 43 + "/price")
    assert unknown.status_code == 404 and b"optional" not in unknown.content


def quote_with_choices_elsewhere(world):
    world.project = ProjectFactory(customer=world.customer, name="Another cluster")
    return quote_with_choices(world)


# --- the page: choices shown, recalculated without script ----------------------------------------


def test_the_page_offers_the_alternatives_and_optional_items(client, quote, token):
    page = client.get(f"/p/{token}?lang=en").content.decode()
    assert 'name="alternative" value="Better"' in page and 'name="alternative" value="Best"' in page
    assert f'value="{optional_line(quote, "Spare optics kit").key}"' in page
    assert "proposal/choice.js" in page and 'form="accept-form"' in page


def test_recalculate_shows_the_chosen_totals_and_records_nothing(client, quote, token):
    optics = optional_line(quote, "Spare optics kit")
    page = client.post(
        f"/p/{token}/accept?lang=en",
        {
            "revision": 1,
            "name": "Li Wei",
            "alternative": "Better",
            "optional": [str(optics.key)],
            "recalculate": "1",
        },
    )
    assert page.status_code == 200
    html = page.content.decode()
    total = offer_choice(
        revision=quote.current_revision, alternative="Better", optional_keys=[str(optics.key)]
    ).totals.total
    assert f"{total:,.2f} CNY" in html
    assert 'value="Better" checked' in html and f'value="{optics.key}" checked' in html
    assert 'value="Li Wei"' in html  # the accept form as it was filled in
    assert "This field is required" not in html  # the tick is not asked for: nothing accepted
    assert not Acceptance.objects.exists()
    assert quote_reload(quote).status == QuoteStatus.SENT


# --- the accept -----------------------------------------------------------------------------------


def test_the_accept_records_the_choice_its_totals_and_announces_them(
    client, quote, token, endpoint
):
    optics = optional_line(quote, "Spare optics kit")
    answer = client.post(
        f"/p/{token}/accept?lang=en",
        {
            "revision": 1,
            "name": "Li Wei",
            "title": "CTO",
            "agreed": "on",
            "alternative": "Better",
            "optional": [str(optics.key)],
        },
    )
    assert answer.status_code == 302
    acceptance = Acceptance.objects.get()
    expected = offer_choice(
        revision=quote.current_revision, alternative="Better", optional_keys=[str(optics.key)]
    ).totals
    assert acceptance.chosen_alternative == "Better"
    assert acceptance.chosen_optional == [str(optics.key)]
    assert (
        acceptance.subtotal,
        acceptance.discount_amount,
        acceptance.net,
        acceptance.tax_amount,
        acceptance.total,
    ) == (expected.subtotal, expected.discount, expected.net, expected.tax, expected.total)

    (delivery,) = WebhookDelivery.objects.filter(event_type="quote.accepted")
    data = delivery.payload["data"]
    chosen = data["acceptance"]
    assert chosen["chosen_alternative"] == "Better"
    assert chosen["chosen_optional"] == [
        {"key": str(optics.key), "description": "Spare optics kit"}
    ]
    assert data["totals"]["total"] == f"{expected.total:.2f}"

    configuration = chosen_configuration(acceptance)
    assert configuration.as_json()["accepted_totals"] == {
        name: value for name, value in data["totals"].items() if name != "currency"
    }
    assert configuration.as_sent.total == quote.current_revision.total
    assert [ln.key for ln in configuration.optional] == [optics.key]
    event = QuoteEvent.objects.filter(verb="status_changed", details__after="accepted").get()
    assert event.details["chosen_alternative"] == "Better"


def test_an_accept_as_quoted_records_the_sent_totals(client, quote, token, endpoint):
    client.post(f"/p/{token}/accept", {"revision": 1, "name": "Li Wei", "agreed": "on"})
    acceptance = Acceptance.objects.get()
    assert (acceptance.chosen_alternative, acceptance.chosen_optional) == ("", [])
    assert acceptance.total == quote.current_revision.total
    data = WebhookDelivery.objects.get(event_type="quote.accepted").payload["data"]
    assert (data["acceptance"]["chosen_alternative"], data["acceptance"]["chosen_optional"]) == (
        "",
        [],
    )
    assert data["totals"] == data["acceptance"]["as_sent_totals"]
    assert chosen_configuration(acceptance).is_as_quoted


@pytest.mark.parametrize(
    "choice",
    [
        {"alternative": "Ultimate"},
        {"optional": [str(uuid.uuid4())]},
        {"optional": ["duplicate", "duplicate"]},
    ],
)
def test_an_accept_with_a_choice_not_offered_records_nothing(
    client, quote, token, endpoint, choice
):
    if choice.get("optional") == ["duplicate", "duplicate"]:
        key = str(optional_line(quote, "Spare optics kit").key)
        choice = {"optional": [key, key]}
    answer = client.post(
        f"/p/{token}/accept?lang=en", {"revision": 1, "name": "Li Wei", "agreed": "on", **choice}
    )
    assert answer.status_code == 400
    html = answer.content.decode()
    assert 'role="alert"' in html and ("no alternative called" in html or "optional item" in html)
    assert not Acceptance.objects.exists()
    assert quote_reload(quote).status == QuoteStatus.SENT
    assert not WebhookDelivery.objects.exists()
    assert not QuoteEvent.objects.filter(details__after="accepted").exists()


def test_share_accept_refuses_a_key_of_another_revisions_line(quote, world):
    link, _ = share_link_create(quote=quote, user=world.sales)
    network = quote.current_revision.lines.get(section="network")
    with pytest.raises(InvalidValue):
        share_accept(
            link=link,
            revision_number=1,
            name="Li Wei",
            title="",
            agreed=True,
            optional=[str(network.key)],
        )
    assert not Acceptance.objects.exists()


def test_a_staff_answer_announces_the_offer_as_quoted(quote, world, endpoint):
    from quoting.quotes.services.quotes import quote_mark_accepted

    quote_mark_accepted(quote=quote, actor=world.sales, expected_version=quote.version)
    data = WebhookDelivery.objects.get(event_type="quote.accepted").payload["data"]
    acceptance = data["acceptance"]
    assert (acceptance["recorded_by"], acceptance["share_link"]) == ("staff", None)
    assert (acceptance["chosen_alternative"], acceptance["chosen_optional"]) == ("", [])
    assert data["totals"]["total"] == f"{quote.current_revision.total:.2f}"


# --- both languages -------------------------------------------------------------------------------


def test_the_choice_and_the_staff_view_of_it_read_in_chinese(client, world, quote, token):
    from tests.portal.test_chinese_complete import english_words, report, visible_text

    optics = optional_line(quote, "Spare optics kit")
    user_data = (
        "Better",
        "Best",
        "Spare",
        "optics",
        "kit",
        "On-site",
        "training",
        "day",
        "QM9790",
        "switch",
        "Installation",
        "Li",
        "Wei",
        "Pengcheng",
        "University",
        "GPU",
        "cluster",
        "wang",
        "managed",
        "licence",
        "spines",
    )
    share = client.get(f"/p/{token}?lang=zh-hans").content.decode()
    assert "您的选择" in share and 'data-figure="in_words"' in share  # 大写金额 for CNY
    recalculated = client.post(
        f"/p/{token}/accept?lang=zh-hans",
        {"revision": 1, "alternative": "Best", "recalculate": "1"},
    ).content.decode()
    client.post(
        f"/p/{token}/accept?lang=zh-hans",
        {
            "revision": 1,
            "name": "Li Wei",
            "agreed": "on",
            "alternative": "Better",
            "optional": [str(optics.key)],
        },
    )
    world.sales.language = "zh-hans"
    world.sales.save()
    client.force_login(world.sales)
    panel = client.get(
        f"/quotes/{quote.pk}/proposal-panel/", HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).content.decode()
    assert "客户的选择" in panel, panel
    found = {
        page: english_words(visible_text(text), user_data=user_data)
        for page, text in (("share page", share), ("recalculated", recalculated), ("panel", panel))
    }
    # The quote number's series letter and the link's recipient are data, not prose.
    assert not any(found.values()), report(found)


def test_a_malformed_choice_is_shown_beside_the_choice(client, quote, token):
    answer = client.post(
        f"/p/{token}/accept?lang=en",
        {"revision": 1, "name": "Li Wei", "agreed": "on", "optional": "x" * 40},
    )
    assert answer.status_code == 400
    html = answer.content.decode()
    assert 'class="choice-error error" role="alert">This offer has no such optional item' in html
    assert not Acceptance.objects.exists()


def test_a_configuration_names_keys_it_cannot_find_instead_of_failing(quote, world):
    link, _ = share_link_create(quote=quote, user=world.sales)
    share_accept(link=link, revision_number=1, name="Li Wei", title="", agreed=True)
    acceptance = Acceptance.objects.get()
    acceptance.chosen_optional = ["not-a-key", str(uuid.uuid4())]  # as an old or edited row
    configuration = chosen_configuration(acceptance)
    assert configuration.missing_keys == acceptance.chosen_optional
    assert not configuration.is_as_quoted


def test_the_price_of_a_bad_token_is_the_same_404_and_counts_as_a_miss(
    client, quote, world, settings
):
    from django.utils import timezone

    from proposals.models import ShareLink
    from proposals.share.services import share_link_revoke

    expired, expired_token = share_link_create(quote=quote, user=world.sales)
    ShareLink.objects.filter(pk=expired.pk).update(expires_at=timezone.now())
    revoked, revoked_token = share_link_create(quote=quote, user=world.sales)
    share_link_revoke(link=revoked, user=world.sales)
    answers = {
        (r.status_code, r.content)
        for r in (
            client.get(f"/p/{token}{route}")
            for token in ("x" * 43, expired_token, revoked_token)
            for route in ("", "/price")
        )
    }
    assert len(answers) == 1 and answers.pop()[0] == 404

    settings.PROPOSALS_LINK_MISSES_ALLOWED = 3
    cache.clear()
    codes = [client.get(f"/p/guess-{n}/price").status_code for n in range(5)]
    assert codes == [404, 404, 404, 429, 429]


# --- the accepted offer restates what was accepted ------------------------------------------------


def _accepted_block(html: str) -> str:
    start = html.index('id="accepted"')
    return html[start : html.index("</dl>", start)]


def test_the_accepted_page_restates_the_choice_the_signer_and_the_accepted_total(
    client, quote, token
):
    optics = optional_line(quote, "Spare optics kit")
    client.post(
        f"/p/{token}/accept?lang=en",
        {
            "revision": 1,
            "name": "Li Wei",
            "title": "CTO",
            "company": "Pengcheng Lab",
            "agreed": "on",
            "alternative": "Better",
            "optional": [str(optics.key)],
            "po_number": "PO-2026/0042",
        },
    )
    expected = offer_choice(
        revision=quote.current_revision, alternative="Better", optional_keys=[str(optics.key)]
    ).totals
    assert expected.total != quote.current_revision.total

    html = client.get(f"/p/{token}?lang=en").content.decode()
    block = _accepted_block(html)
    assert "Li Wei, CTO · Pengcheng Lab" in block
    assert 'data-accepted="alternative">Better<' in block
    assert "Spare optics kit" in block and "PO-2026/0042" in block
    total = html[html.index('class="offer-total"') :]
    assert total.split("</dd>")[0].endswith(f"{expected.total:,.2f} CNY")  # accepted, not as sent
    assert 'data-status="accepted"' in html

    chinese = client.get(f"/p/{token}?lang=zh-hans").content.decode()
    assert "接受人" in _accepted_block(chinese) and "Better" in _accepted_block(chinese)


def test_an_offer_accepted_as_quoted_says_so(client, quote, token):
    client.post(f"/p/{token}/accept?lang=en", {"revision": 1, "name": "Li Wei", "agreed": "on"})
    block = _accepted_block(client.get(f"/p/{token}?lang=en").content.decode())
    assert 'data-accepted="alternative">As quoted<' in block
    assert 'data-accepted="optional">none<' in block
