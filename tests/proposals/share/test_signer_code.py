"""The signer's one-time code (#27): on a link with a recipient e-mail, an acceptance is recorded
only with the code e-mailed to that address. "E-mail me a code" is a button of the accept form
(no script needed): the form is checked, kept as filled and returned with the code's field
focused. The code is 6 digits, kept as a keyed hash, valid 10 minutes, 5 wrong tries, one use;
a link gets a new one at most once a minute and 5 an hour. A link without an address accepts as
before, and the record says the signer was not verified by e-mail."""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import re

import pytest
from django.conf import settings
from django.core import mail
from django.utils import timezone

from proposals.acceptance.services import signer_code_send
from proposals.acceptance.signer_codes import (
    CodeThrottled,
    signer_code_spend,
    signer_code_verified,
)
from proposals.models import Acceptance, ShareLink, SignerCode
from proposals.share.services import share_link_create
from quoting.errors import InvalidValue
from quoting.quotes.models import Quote
from quoting.quotes.selectors import offer_choice
from tests.proposals.acceptance.test_acceptance_signature import data_url, drawn_png
from tests.proposals.choice_world import optional_line, quote_with_choices
from tests.proposals.share.test_share_form_faults import inputs
from tests.proposals.signer_codes import code_asked_on_page, code_emailed, code_in
from tests.quoting.factories import world_fresh

pytestmark = pytest.mark.django_db

RECIPIENT = "li.wei@pcl.example"
SIGNED = {"revision": 1, "name": "Li Wei", "agreed": "on", "signature_kind": "typed"}


@pytest.fixture
def seller(world):
    world.sales.email = "wang.wei@reseller.example"
    world.sales.save(update_fields=["email"])
    return world.sales


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
def shared(quote, seller):
    """(link, token) of a link made for the recipient's address."""
    return share_link_create(
        quote=quote, user=seller, recipient_name="Li Wei", recipient_email=RECIPIENT
    )


def _accept(client, token, data, *, lang="en"):
    return client.post(f"/p/{token}/accept?lang={lang}", data)


# --- the rule ------------------------------------------------------------------------------------


def test_a_link_with_an_email_records_no_acceptance_without_the_code(client, shared):
    _link, token = shared
    plain = client.get(f"/p/{token}?lang=en").content.decode()
    assert "l***@pcl.example" in plain and 'name="send_code"' in plain
    assert RECIPIENT not in plain  # masked for whoever else holds the link

    response = _accept(client, token, SIGNED)
    page = inputs(response)

    assert response.status_code == 400 and Acceptance.objects.count() == 0
    assert page.by_id["id_signer_code"]["aria-invalid"] == "true"
    assert page.focused == ["id_signer_code"]
    assert "E-mail me a code" in page.faults["fault-signer_code"]


def test_email_me_a_code_keeps_the_form_as_filled_and_focuses_the_code(client, quote, shared):
    _link, token = shared
    optics = optional_line(quote, "Spare optics kit")
    drawing = data_url(drawn_png())
    filled = SIGNED | {
        "title": "CTO",
        "alternative": "Better",
        "optional": [str(optics.key)],
        "signature_kind": "drawn",
        "signature_data": drawing,
    }
    response, code = code_asked_on_page(client, token, filled)
    html = response.content.decode()
    page = inputs(response)

    assert response.status_code == 200 and Acceptance.objects.count() == 0
    assert page.focused == ["id_signer_code"] and page.by_id["id_signer_code"]["value"] == ""
    assert "We e-mailed a code to l***@pcl.example. It is valid for 10 minutes." in html
    assert "checked" in page.by_id["id_agreed"] and page.by_id["id_title"]["value"] == "CTO"
    assert page.by_id["id_signature_data"]["value"] == drawing  # drawn once, not twice
    assert 'data-chosen="drawn"' in html
    assert re.search(r'name="alternative" value="Better" checked', html)
    assert re.search(rf'name="optional" value="{optics.key}" checked', html)
    chosen = offer_choice(
        revision=quote.current_revision, alternative="Better", optional_keys=[str(optics.key)]
    ).totals
    assert (
        re.search(r'class="offer-total"[^>]*>([^<]+)<', html)
        .group(1)
        .startswith(f"{chosen.total:,.2f}")
    )
    assert re.fullmatch(r"\d{6}", code)


def test_the_code_email_goes_to_the_recipient_in_the_links_language_from_the_portal(
    client, quote, seller, world
):
    link, token = share_link_create(
        quote=quote, user=seller, recipient_email=RECIPIENT, send_email=True, language="zh-hans"
    )
    mail.outbox.clear()
    _response, code = code_asked_on_page(client, token, SIGNED)  # the page read in English
    (sent,) = mail.outbox

    assert sent.to == [RECIPIENT] and sent.from_email == settings.DEFAULT_FROM_EMAIL
    assert sent.reply_to == ["wang.wei@reseller.example"]
    assert sent.subject == f"报价 {quote.number} 的签署验证码"
    assert code in sent.body and "10 分钟" in sent.body
    html, mimetype = sent.alternatives[0]
    assert mimetype == "text/html" and code in html and 'lang="zh-hans"' in html

    english, _ = share_link_create(quote=quote, user=seller, recipient_email=RECIPIENT)
    english_code = code_emailed(english)
    assert mail.outbox[-1].subject == f"Your signing code for offer {quote.number}"
    assert english_code in mail.outbox[-1].body


def test_the_right_code_records_the_acceptance_with_the_verified_address(client, shared):
    link, token = shared
    _response, code = code_asked_on_page(client, token, SIGNED)
    before = timezone.now()

    response = _accept(client, token, SIGNED | {"signer_code": f"{code[:3]} {code[3:]}"})

    assert response.status_code == 302
    acceptance = Acceptance.objects.get()
    assert acceptance.signer_email == RECIPIENT
    assert before <= acceptance.signer_email_verified_at <= timezone.now()
    assert SignerCode.objects.get(link=link).used_at == acceptance.signer_email_verified_at


def test_a_link_without_an_email_accepts_without_a_code_and_is_recorded_unverified(
    client, quote, seller
):
    _link, token = share_link_create(quote=quote, user=seller, recipient_name="Li Wei")
    plain = client.get(f"/p/{token}?lang=en").content.decode()
    assert 'name="send_code"' not in plain and 'id="id_signer_code"' not in plain

    assert _accept(client, token, SIGNED).status_code == 302
    acceptance = Acceptance.objects.get()
    assert acceptance.signer_email == "" and acceptance.signer_email_verified_at is None
    assert mail.outbox == []


def test_the_setting_off_lets_a_link_with_an_email_accept_unverified(client, shared, settings):
    settings.PROPOSALS_SIGNER_CODE = False
    _link, token = shared
    assert _accept(client, token, SIGNED).status_code == 302
    assert Acceptance.objects.get().signer_email_verified_at is None


# --- wrong, expired, spent -----------------------------------------------------------------------


def test_a_wrong_code_is_refused_at_its_field_with_everything_kept_and_the_try_counted(
    client, shared
):
    link, token = shared
    _response, code = code_asked_on_page(client, token, SIGNED)
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"

    response = _accept(client, token, SIGNED | {"title": "CTO", "signer_code": wrong})
    page = inputs(response)

    assert response.status_code == 400 and Acceptance.objects.count() == 0
    assert page.focused == ["id_signer_code"]
    assert "4 tries left" in page.faults["fault-signer_code"]
    assert page.by_id["id_title"]["value"] == "CTO" and "checked" in page.by_id["id_agreed"]
    assert SignerCode.objects.get(link=link).tries == 1


def test_five_wrong_codes_kill_the_code_until_a_new_one_is_sent(client, shared):
    link, token = shared
    _response, code = code_asked_on_page(client, token, SIGNED)
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"
    for _ in range(5):
        last = inputs(_accept(client, token, SIGNED | {"signer_code": wrong}))
    assert "last try" in last.faults["fault-signer_code"]

    refused = inputs(_accept(client, token, SIGNED | {"signer_code": code}))  # right, too late
    assert "Too many wrong codes" in refused.faults["fault-signer_code"]
    assert Acceptance.objects.count() == 0 and SignerCode.objects.get(link=link).tries == 5

    SignerCode.objects.update(created_at=timezone.now() - dt.timedelta(minutes=2))
    _response, fresh = code_asked_on_page(client, token, SIGNED)
    assert _accept(client, token, SIGNED | {"signer_code": fresh}).status_code == 302


def test_an_expired_code_is_refused(client, shared):
    link, token = shared
    _response, code = code_asked_on_page(client, token, SIGNED)
    SignerCode.objects.filter(link=link).update(expires_at=timezone.now() - dt.timedelta(seconds=1))

    page = inputs(_accept(client, token, SIGNED | {"signer_code": code}))

    assert "expired" in page.faults["fault-signer_code"] and Acceptance.objects.count() == 0
    assert SignerCode.objects.get(link=link).expires_at - SignerCode.objects.get(
        link=link
    ).created_at < dt.timedelta(minutes=10, seconds=1)


def test_a_code_is_spent_by_the_acceptance_it_verifies_and_works_once(shared):
    link, _token = shared
    code = code_emailed(link)
    verified = signer_code_verified(link=link, revision_number=1, code=code)
    signer_code_spend(verified, now=timezone.now())

    with pytest.raises(InvalidValue) as again:  # a second request that verified it too
        signer_code_spend(verified, now=timezone.now())
    assert again.value.field == "signer_code"
    with pytest.raises(InvalidValue):  # and the code itself is no longer live
        signer_code_verified(link=link, revision_number=1, code=code)


def test_a_new_code_replaces_the_one_before(shared):
    link, _token = shared
    first = code_emailed(link)
    SignerCode.objects.update(created_at=timezone.now() - dt.timedelta(minutes=2))
    second = code_emailed(link)

    if first != second:  # 1 in a million they are the same digits
        with pytest.raises(InvalidValue):
            signer_code_verified(link=link, revision_number=1, code=first)
    assert signer_code_verified(link=link, revision_number=1, code=second)


# --- throttled, hashed, never logged -------------------------------------------------------------


def test_a_new_code_at_most_once_a_minute_and_five_an_hour(client, shared):
    link, token = shared
    code_asked_on_page(client, token, SIGNED)

    response, code = code_asked_on_page(client, token, SIGNED | {"title": "CTO"})
    page = inputs(response)
    assert response.status_code == 429 and code == ""
    assert "a moment ago" in page.faults["fault-signer_code"]
    assert page.by_id["id_title"]["value"] == "CTO"  # the form kept

    for _ in range(4):
        SignerCode.objects.update(created_at=timezone.now() - dt.timedelta(minutes=5))
        assert code_emailed(link)
    SignerCode.objects.update(created_at=timezone.now() - dt.timedelta(minutes=5))
    with pytest.raises(CodeThrottled) as refused:
        signer_code_send(link=link, revision_number=1)
    assert "5 codes were e-mailed for this link in the last hour" in refused.value.message
    assert SignerCode.objects.filter(link=link).count() == 5


def test_a_code_is_sent_only_for_a_form_that_would_be_accepted(client, shared):
    _link, token = shared
    response, code = code_asked_on_page(client, token, SIGNED | {"name": ""})
    assert response.status_code == 400 and code == "" and not SignerCode.objects.exists()
    assert inputs(response).focused == ["id_name"]


def test_the_code_is_kept_only_as_a_keyed_hash_and_never_logged(
    shared, monkeypatch, caplog, django_capture_on_commit_callbacks
):
    link, _token = shared
    caplog.set_level(logging.DEBUG)
    queued = []
    monkeypatch.setattr(
        "portal.queueing.enqueue", lambda name, *args, **options: queued.append((args, options))
    )
    with django_capture_on_commit_callbacks(execute=True):
        row = signer_code_send(link=link, revision_number=1)
    ((code_id, code), options) = queued[0]

    assert code_id == row.pk and options["argsrepr"] == f"({row.pk}, '<code>')"
    stored = SignerCode.objects.filter(pk=row.pk).values().get()
    assert code not in str(stored).replace(stored["code_hash"], "")
    assert stored["code_hash"] != hashlib.sha256(code.encode()).hexdigest()  # keyed, not bare
    assert code not in caplog.text


def test_a_broker_that_refuses_the_code_logs_no_code(shared, monkeypatch, caplog):
    from django.test import TestCase
    from kombu.exceptions import OperationalError

    def refused(*args, **kwargs):
        raise OperationalError("broker down")

    link, _token = shared
    monkeypatch.setattr("portal.queueing.enqueue", refused)
    monkeypatch.setattr("portal.queueing._paused_until", 0.0)
    caplog.set_level(logging.DEBUG)
    with TestCase.captureOnCommitCallbacks(execute=True):
        signer_code_send(link=link, revision_number=1)
    assert "proposals.signer_code_email" in caplog.text and "'<code>'" in caplog.text
    assert mail.outbox == []


def test_the_email_task_sends_only_the_links_live_code(shared):
    from proposals.share.mail import signer_code_email_send

    link, _token = shared
    code = code_emailed(link)
    row = SignerCode.objects.get(link=link)
    assert code_in(mail.outbox[-1]) == code
    assert not signer_code_email_send(code_id=row.pk, code=f"{(int(code) + 1) % 10**6:06d}")
    SignerCode.objects.filter(pk=row.pk).update(used_at=timezone.now())
    assert not signer_code_email_send(code_id=row.pk, code=code)  # spent while queued
    assert ShareLink.objects.filter(pk=link.pk).exists()
