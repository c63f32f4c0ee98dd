"""The signed copy's certificate says how the signer was verified (#27): the masked address and
when its one-time code was given back, in the signer's time zone; "not verified by e-mail" for a
link without an address. Acceptances recorded by staff (the API) never need a code."""

from __future__ import annotations

import zoneinfo

import pytest

from proposals.models import Acceptance, DocumentStatus
from proposals.share.services import share_link_create
from tests.api_schema import assert_matches_schema
from tests.proposals.acceptance.test_acceptance_signature import accept
from tests.proposals.conftest import pdf_reader, sent_pdf
from tests.quoting.api_world import token_client

pytestmark = pytest.mark.django_db


def _certificate(world, sent_quote, capture, language: str, **link) -> tuple[str, Acceptance]:
    sent_pdf(sent_quote.current_revision, language)
    shared, _token = share_link_create(quote=sent_quote, user=world.sales, **link)
    accept(shared, capture, language=language, signer_timezone="Asia/Shanghai")
    acceptance = Acceptance.objects.get()
    assert acceptance.signed_status == DocumentStatus.READY, acceptance.signed_error
    text = pdf_reader(bytes(acceptance.signed_pdf)).pages[-1].extract_text()
    return "".join(text.split()), acceptance  # squeezed: lines wrap where the cell ends


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "Signer's e-mail l…@pcl.example verified by one-time code at {when}"),
        ("zh-hans", "签署人邮箱 l…@pcl.example 已于 {when} 通过一次性验证码验证"),
    ],
)
def test_the_certificate_prints_the_signers_verified_email(
    world, sent_quote, django_capture_on_commit_callbacks, language, said
):
    text, acceptance = _certificate(
        world,
        sent_quote,
        django_capture_on_commit_callbacks,
        language,
        recipient_email="li.wei@pcl.example",
    )
    at = acceptance.signer_email_verified_at.astimezone(zoneinfo.ZoneInfo("Asia/Shanghai"))
    when = f"{at:%Y-%m-%d %H:%M:%S} UTC+08:00 (Asia/Shanghai)"
    assert "".join(said.format(when=when).split()) in text
    assert acceptance.signer_email == "li.wei@pcl.example"
    # The CRM reads it too, in the published schema.
    body = token_client(world.sales).get(f"/api/v1/quotes/{sent_quote.pk}/acceptance/").json()
    assert body["signer_email"] == "li.wei@pcl.example"
    assert body["signer_email_verified_at"] == acceptance.signer_email_verified_at.isoformat()
    assert_matches_schema(body, "/api/v1/quotes/{id}/acceptance/")


def test_a_link_without_an_email_prints_that_the_signer_was_not_verified(
    world, sent_quote, django_capture_on_commit_callbacks
):
    text, acceptance = _certificate(world, sent_quote, django_capture_on_commit_callbacks, "en")
    assert "Signer'se-mailNotverifiedbye-mail" in text
    assert acceptance.signer_email_verified_at is None
    body = token_client(world.sales).get(f"/api/v1/quotes/{sent_quote.pk}/acceptance/").json()
    assert (body["signer_email"], body["signer_email_verified_at"]) == ("", None)
    assert_matches_schema(body, "/api/v1/quotes/{id}/acceptance/")
