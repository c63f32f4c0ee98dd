"""The customer signs off the installed fabric through the quote's share link, with the same
signature as the offer's acceptance: staff ask on an as-built check of the accepted revision;
the share page shows the check and its report; the signature is recorded and printed on the
report; bad input comes back at its field and records nothing."""

from __future__ import annotations

import base64
import io

import pytest
from django.urls import reverse
from PIL import Image, ImageDraw

from proposals.acceptance.as_built import as_built_sign, as_built_sign_off_ask
from proposals.acceptance.services import share_accept
from proposals.documents.as_built import as_built_report_pdf
from proposals.models import AsBuiltSignOff
from proposals.share.services import share_link_create
from quoting.errors import IllegalTransition
from quoting.quotes.models import QuoteStatus
from quoting.quotes.services.as_built import as_built_check_run, as_built_plan
from quoting.quotes.services.quotes import quote_create_from_design, quote_send
from tests.proposals.conftest import pdf_reader, pdf_text
from tests.quoting.api_world import quote_world_make, token_client
from tests.quoting.quotes.as_built_world import ibnetdiscover_text, links_of


@pytest.fixture
def qw(seeded, make_user):
    return quote_world_make(make_user)


def _send(qw):
    quote = qw.quote
    quote_send(quote=quote, user=qw.world.sales, expected_version=quote.version)
    quote.refresh_from_db()
    return quote


@pytest.fixture
def accepted(qw, django_capture_on_commit_callbacks):
    """The design's quote sent, and accepted through a link: (quote, link, token)."""
    quote = _send(qw)
    link, token = share_link_create(quote=quote, user=qw.world.sales, recipient_name="Li Wei")
    with django_capture_on_commit_callbacks(execute=False):
        share_accept(link=link, revision_number=1, name="Li Wei", title="CTO", agreed=True)
    quote.refresh_from_db()
    assert quote.status == QuoteStatus.ACCEPTED
    return quote, link, token


def check_of(qw, quote, *, drop: int = 0):
    revision = quote.booked_revision
    links = links_of(as_built_plan(revision))
    text = ibnetdiscover_text(links[drop:])
    return as_built_check_run(
        revision=revision, user=qw.world.sales, filename="fabric.txt", content=text.encode()
    )


def result_url(quote, check) -> str:
    return reverse("quoting:quote-as-built-result", args=[quote.pk, 1, check.pk])


def ask_url(quote, check) -> str:
    return reverse("proposals:as-built-sign-off", args=[quote.pk, 1, check.pk])


def sign_fields(sign_off, **extra) -> dict:
    return {
        "sign_off": sign_off.pk,
        "name": "Li Wei",
        "title": "CTO",
        "company": "Shenzhen AI Lab",
        "remarks": "",
        "agreed": "on",
        "signature_kind": "typed",
        "signature_text": "",
        **extra,
    }


def drawn_data_url() -> str:
    image = Image.new("RGBA", (600, 200), (255, 255, 255, 0))
    ImageDraw.Draw(image).line([(40, 150), (200, 40), (380, 160), (560, 50)], fill="black", width=6)
    out = io.BytesIO()
    image.save(out, "PNG")
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()


def test_staff_ask_and_the_customer_signs_with_a_typed_signature(client, qw, accepted):
    quote, link, token = accepted
    check = check_of(qw, quote)
    client.force_login(qw.world.sales)
    page = client.get(result_url(quote, check)).content.decode()
    assert f'action="{ask_url(quote, check)}"' in page
    response = client.post(ask_url(quote, check))
    assert response.status_code == 302
    sign_off = AsBuiltSignOff.objects.get()
    assert sign_off.as_built_check == check and sign_off.offered_by == qw.world.sales
    assert "Asked on" in client.get(result_url(quote, check)).content.decode()
    client.logout()

    shared = client.get(f"/p/{token}?lang=en").content.decode()
    section = shared.split('id="as-built"', 1)[1]
    assert f"Cabled as planned: {check.planned_count} of {check.planned_count} links." in section
    assert f'action="/p/{token}/as-built/sign?lang=en#as-built"' in section
    assert f'href="/p/{token}/as-built.pdf?lang=en"' in section
    assert "signature.js" in shared

    response = client.post(f"/p/{token}/as-built/sign?lang=en", sign_fields(sign_off))
    assert response.status_code == 302
    assert "signed=1" in response["Location"] and response["Location"].endswith("#as-built")
    sign_off.refresh_from_db()
    assert (sign_off.signer_name, sign_off.signer_title, sign_off.signature_kind) == (
        "Li Wei",
        "CTO",
        "typed",
    )
    assert sign_off.link == link and sign_off.signed_at and bytes(sign_off.signature_png)
    after = client.get(response["Location"]).content.decode()
    assert 'id="as-built-signed"' in after and "Shenzhen AI Lab" in after
    assert 'id="as-built-form"' not in after

    report = client.get(f"/p/{token}/as-built.pdf?lang=en")
    assert report.status_code == 200 and report.content.startswith(b"%PDF")
    text = pdf_text(report.content)
    assert "Li Wei, CTO" in text and "signed on the share page of this quote" in text
    images = [image for page in pdf_reader(report.content).pages for image in page.images]
    assert images, "the signature image is printed"

    client.force_login(qw.world.sales)
    assert "Signed by Li Wei on" in client.get(result_url(quote, check)).content.decode()


def test_a_drawn_signature_and_remarks_on_a_check_with_problems(qw, accepted):
    quote, link, _ = accepted
    check = check_of(qw, quote, drop=1)
    assert not check.passed
    sign_off = as_built_sign_off_ask(check=check, user=qw.world.sales)
    as_built_sign(
        link=link,
        sign_off_id=sign_off.pk,
        name="李伟",
        agreed=True,
        remarks="C000001 to be re-plugged by Friday.",
        signature_kind="drawn",
        signature_data=drawn_data_url(),
        language="zh-hans",
    )
    sign_off.refresh_from_db()
    assert sign_off.signature_kind == "drawn" and sign_off.remarks.startswith("C000001")
    text = pdf_text(as_built_report_pdf(check=check, language="zh-hans"))
    assert "李伟" in text and "C000001 to be re-plugged by Friday." in text


def test_without_the_tick_the_form_comes_back_at_the_field_and_nothing_is_signed(
    client, qw, accepted
):
    quote, _, token = accepted
    sign_off = as_built_sign_off_ask(check=check_of(qw, quote), user=qw.world.sales)
    fields = sign_fields(sign_off, remarks="kept remarks")
    del fields["agreed"]
    response = client.post(f"/p/{token}/as-built/sign?lang=en", fields)
    assert response.status_code == 400
    page = response.content.decode()
    form = page.split('id="as-built-form"', 1)[1].split("</form>", 1)[0]
    assert 'value="Li Wei"' in form and "kept remarks" in form
    assert 'class="error"' in form.split('id="id_agreed"', 1)[1]
    assert not AsBuiltSignOff.objects.get().signed


def test_an_empty_drawn_signature_is_refused_at_its_field(client, qw, accepted):
    quote, _, token = accepted
    sign_off = as_built_sign_off_ask(check=check_of(qw, quote), user=qw.world.sales)
    blank = Image.new("RGBA", (600, 200), (255, 255, 255, 0))
    out = io.BytesIO()
    blank.save(out, "PNG")
    data = "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()
    response = client.post(
        f"/p/{token}/as-built/sign?lang=en",
        sign_fields(sign_off, signature_kind="drawn", signature_data=data),
    )
    page = response.content.decode()
    assert response.status_code == 400
    assert 'id="fault-signature"' in page and 'id="as-built-error"' not in page
    assert 'aria-describedby="fault-signature" autofocus' in page
    assert not AsBuiltSignOff.objects.get().signed


def test_a_signed_report_cannot_be_signed_again(client, qw, accepted):
    quote, link, token = accepted
    check = check_of(qw, quote)
    sign_off = as_built_sign_off_ask(check=check, user=qw.world.sales)
    as_built_sign(link=link, sign_off_id=sign_off.pk, name="Li Wei", agreed=True)
    response = client.post(f"/p/{token}/as-built/sign?lang=en", sign_fields(sign_off))
    assert response.status_code == 409
    assert "already been signed" in response.content.decode()
    with pytest.raises(IllegalTransition, match="already signed this check"):
        as_built_sign_off_ask(check=check, user=qw.world.sales)


def test_asking_again_replaces_an_unsigned_request(client, qw, accepted):
    quote, link, token = accepted
    first = as_built_sign_off_ask(check=check_of(qw, quote, drop=1), user=qw.world.sales)
    second = as_built_sign_off_ask(check=check_of(qw, quote), user=qw.world.sales)
    assert list(AsBuiltSignOff.objects.all()) == [second]
    response = client.post(f"/p/{token}/as-built/sign?lang=en", sign_fields(first))
    assert response.status_code == 409
    assert "replaced by a newer one" in response.content.decode()


def test_only_a_check_of_the_accepted_revision_can_be_signed_off(client, qw):
    quote = _send(qw)
    revision = quote.current_revision
    links = links_of(as_built_plan(revision))
    check = as_built_check_run(
        revision=revision,
        user=qw.world.sales,
        filename="fabric.txt",
        content=ibnetdiscover_text(links).encode(),
    )
    client.force_login(qw.world.sales)
    page = client.get(result_url(quote, check)).content.decode()
    assert "Only a check of the accepted revision" in page
    response = client.post(ask_url(quote, check), follow=True)
    assert "Only a check of the accepted revision can be signed off" in response.content.decode()
    assert not AsBuiltSignOff.objects.exists()


def test_another_quotes_link_cannot_sign_it(qw, accepted):
    quote, _, _ = accepted
    sign_off = as_built_sign_off_ask(check=check_of(qw, quote), user=qw.world.sales)
    other_quote = quote_create_from_design(
        project=qw.world.project, design=qw.design, user=qw.world.sales
    )
    quote_send(quote=other_quote, user=qw.world.sales, expected_version=other_quote.version)
    other_link, _ = share_link_create(quote=other_quote, user=qw.world.sales)
    with pytest.raises(IllegalTransition):
        as_built_sign(link=other_link, sign_off_id=sign_off.pk, name="Mallory", agreed=True)
    assert not AsBuiltSignOff.objects.get().signed


def test_another_teams_user_cannot_ask(client, qw, accepted):
    quote, _, _ = accepted
    check = check_of(qw, quote)
    client.force_login(qw.world.other_sales)
    assert client.post(ask_url(quote, check)).status_code == 404
    assert not AsBuiltSignOff.objects.exists()


def test_the_share_page_section_reads_in_chinese(client, qw, accepted):
    quote, _, token = accepted
    as_built_sign_off_ask(check=check_of(qw, quote), user=qw.world.sales)
    page = client.get(f"/p/{token}?lang=zh-hans").content.decode()
    section = page.split('id="as-built"', 1)[1].split("</section>", 1)[0]
    assert "已安装网络验收" in section and "签署验收报告" in section


# --- the API ---------------------------------------------------------------------------------


def sign_off_url(quote, check) -> str:
    return f"/api/v1/quotes/{quote.pk}/revisions/1/as-built/{check.pk}/sign-off/"


def test_the_api_asks_and_reads_the_sign_off(qw, accepted):
    quote, link, _ = accepted
    check = check_of(qw, quote)
    api = token_client(qw.world.sales)
    assert api.get(sign_off_url(quote, check)).status_code == 404
    response = api.post(sign_off_url(quote, check), HTTP_IDEMPOTENCY_KEY="ask-1")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["check_id"], body["signed"], body["asked_by"]) == (check.pk, False, "wang")
    assert api.post(sign_off_url(quote, check), HTTP_IDEMPOTENCY_KEY="ask-1").json() == body
    as_built_sign(link=link, sign_off_id=body["id"], name="Li Wei", agreed=True, remarks="ok")
    signed = api.get(sign_off_url(quote, check)).json()
    assert signed["signed"] is True and signed["signer_name"] == "Li Wei"
    assert signed["remarks"] == "ok" and signed["signed_at"]
    again = api.post(sign_off_url(quote, check))
    assert again.status_code == 409
    assert "already signed" in again.json()["detail"]


def test_the_api_refuses_a_check_of_a_quote_not_accepted(qw):
    quote = _send(qw)
    revision = quote.current_revision
    check = as_built_check_run(
        revision=revision,
        user=qw.world.sales,
        filename="fabric.txt",
        content=ibnetdiscover_text(links_of(as_built_plan(revision))).encode(),
    )
    response = token_client(qw.world.sales).post(sign_off_url(quote, check))
    assert response.status_code == 409
    assert "accepted revision" in response.json()["detail"]
    other = token_client(qw.world.other_sales)
    assert other.get(sign_off_url(quote, check)).status_code == 404
