"""The as-built check through the API: the discovered fabric uploaded as ibnetdiscover printed
it, compared with the revision's plan cable by cable, kept, and printed for signatures."""

from __future__ import annotations

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from pypdf import PdfReader

from quoting.quotes.models import AsBuiltCheck
from quoting.quotes.services.as_built import as_built_plan
from tests.api_errors import field_errors
from tests.quoting.api_world import quote_world_make, token_client
from tests.quoting.quotes.as_built_world import ibnetdiscover_text, links_of, swap_far_ends


@pytest.fixture
def qw(seeded, make_user):
    return quote_world_make(make_user)


@pytest.fixture
def plan(qw):
    return as_built_plan(qw.quote.current_revision)


def url(qw, number: int = 1) -> str:
    return f"/api/v1/quotes/{qw.quote.pk}/revisions/{number}/as-built/"


def upload(client, qw, text: str | bytes, name: str = "fabric.txt", **headers):
    content = text.encode() if isinstance(text, str) else text
    return client.post(
        url(qw), {"discovered": SimpleUploadedFile(name, content)}, format="multipart", **headers
    )


def _swapped_pair(plan) -> tuple[int, int]:
    """Two host cables on the same leaf: swapping their leaf ends is a miswire, not a loss."""
    hosts = [i for i, link in enumerate(plan) if link.a_port.startswith("mlx5_")]
    first = hosts[0]
    second = next(i for i in hosts[1:] if plan[i].z_device == plan[first].z_device)
    return first, second


def test_a_fabric_cabled_as_planned_passes_and_is_kept(api, qw, plan):
    response = upload(api, qw, ibnetdiscover_text(links_of(plan)))
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["passed"] is True and body["problem_count"] == 0
    assert body["ok_count"] == body["planned_count"] == len(plan) > 0
    assert body["missing"] == body["unexpected"] == body["miswired"] == []
    check = AsBuiltCheck.objects.get(pk=body["id"])
    assert check.uploaded_by == qw.world.sales and check.filename == "fabric.txt"
    assert len(check.sha256) == 64 and check.revision == qw.quote.current_revision
    assert api.get(body["url"]).json()["ok_count"] == len(plan)
    assert [c["id"] for c in api.get(url(qw)).json()] == [check.pk]


def test_two_swapped_cables_are_a_miswire_named_by_cable_id_and_label(api, qw, plan):
    first, second = _swapped_pair(plan)
    text = ibnetdiscover_text(swap_far_ends(links_of(plan), first, second))
    body = upload(api, qw, text).json()
    assert body["ok_count"] == len(plan) - 2 and body["passed"] is False
    named = {item["cable_id"] for item in body["miswired"]}
    assert named == {plan[first].cable_id, plan[second].cable_id}
    labels = {item.get("label_a") for item in body["miswired"]}
    assert plan[first].label_a in labels
    assert body["missing"] == [] and body["summary"]["miswired"] == len(body["miswired"])


def test_a_removed_cable_is_missing_by_its_cable_id(api, qw, plan):
    links = links_of(plan)
    body = upload(api, qw, ibnetdiscover_text(links[1:])).json()
    assert [item["cable_id"] for item in body["missing"]] == [plan[0].cable_id]
    assert body["ok_count"] == len(plan) - 1


def test_a_file_that_is_not_ibnetdiscover_output_is_a_400_naming_its_line(api, qw, plan):
    good = ibnetdiscover_text(links_of(plan)).splitlines()
    bad = "\n".join([*good[:9], "[x]\tgarbage that is no port line", *good[9:]])
    response = upload(api, qw, bad)
    assert response.status_code == 400, response.content
    assert "line 10" in " ".join(field_errors(response)["discovered"]).lower()
    for content in (b"PK\x03\x04\x00\x00binary", b"caf\xe9\n"):
        response = upload(api, qw, content)
        assert response.status_code == 400 and "discovered" in field_errors(response)
    assert not AsBuiltCheck.objects.exists()


def test_a_missing_file_is_a_400_on_the_field(api, qw):
    response = api.post(url(qw), {}, format="multipart")
    assert response.status_code == 400 and "discovered" in field_errors(response)


def test_a_file_over_the_limit_is_a_413_on_the_field(api, qw, monkeypatch):
    monkeypatch.setattr("quoting.quotes.api_as_built.AS_BUILT_MAX_BYTES", 10)
    response = upload(api, qw, "x" * 11)
    assert response.status_code == 413
    assert "MB" in field_errors(response)["discovered"][0]


def test_another_teams_quote_is_a_404_and_a_read_token_may_not_upload(qw, plan):
    text = ibnetdiscover_text(links_of(plan))
    assert upload(token_client(qw.world.other_sales), qw, text).status_code == 404
    assert token_client(qw.world.other_sales).get(url(qw)).status_code == 404
    assert upload(token_client(qw.world.sales, scope="read"), qw, text).status_code == 403
    assert not AsBuiltCheck.objects.exists()


def test_a_revision_that_does_not_exist_is_a_404(api, qw, plan):
    response = api.post(
        url(qw, number=9),
        {"discovered": SimpleUploadedFile("f.txt", b"x")},
        format="multipart",
    )
    assert response.status_code == 404


def test_a_retried_upload_gets_the_first_check_and_another_file_under_its_key_is_a_422(
    api, qw, plan
):
    text = ibnetdiscover_text(links_of(plan))
    first = upload(api, qw, text, HTTP_IDEMPOTENCY_KEY="k-1")
    again = upload(api, qw, text, HTTP_IDEMPOTENCY_KEY="k-1")
    assert again.status_code == 201 and again["Idempotent-Replayed"] == "true"
    assert again.json()["id"] == first.json()["id"] and AsBuiltCheck.objects.count() == 1
    other = upload(api, qw, text.replace("4xNDR", "4xHDR", 1), HTTP_IDEMPOTENCY_KEY="k-1")
    assert other.status_code == 422


def _pdf_text(content: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(content)).pages)


def test_the_acceptance_report_prints_the_miswire_in_english_and_chinese(api, qw, plan):
    first, second = _swapped_pair(plan)
    body = upload(api, qw, ibnetdiscover_text(swap_far_ends(links_of(plan), first, second)))
    pdf_url = body.json()["report_pdf_url"]
    english = api.get(pdf_url + "?language=en")
    assert english.status_code == 200 and english["Content-Type"] == "application/pdf"
    text = _pdf_text(english.content)
    assert "As-built acceptance report" in text and qw.quote.number in text
    assert plan[first].cable_id in text and plan[second].cable_id in text
    assert f"Cabled as planned: {len(plan) - 2} of {len(plan)} links" in text
    chinese = _pdf_text(api.get(pdf_url + "?language=zh-hans").content)
    assert "竣工验收报告" in chinese and plan[first].cable_id in chinese
    assert api.get(pdf_url + "?language=fr").status_code == 400
    assert token_client(qw.world.other_sales).get(pdf_url).status_code == 404


def test_a_fabric_never_cabled_prints_the_first_rows_and_says_how_many_more(
    api, qw, plan, monkeypatch
):
    monkeypatch.setattr("proposals.documents.as_built.PDF_ROWS", 2)
    switches = {link.z_device for link in plan} - {link.a_device for link in plan}
    lonely = [(name, 1, f"{name}-peer", 1, "4xNDR") for name in sorted(switches)[:1]]
    body = upload(api, qw, ibnetdiscover_text(lonely)).json()
    assert body["ok_count"] == 0 and len(body["missing"]) == len(plan) > 2
    text = _pdf_text(api.get(body["report_pdf_url"] + "?language=en").content)
    assert plan[1].cable_id in text and plan[2].cable_id not in text
    assert f"And {len(plan) - 2} more" in text
