"""The as-built check on the quote pages: the upload beside the installation pack, the result
by cable ID and label, the reason of a bad file at its field, the report in both languages."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils.html import escape

from quoting.quotes.models import AsBuiltCheck
from quoting.quotes.services.as_built import as_built_plan
from tests.quoting.api_world import quote_world_make
from tests.quoting.quotes.as_built_world import ibnetdiscover_text, links_of, swap_far_ends


@pytest.fixture
def qw(seeded, make_user):
    return quote_world_make(make_user)


@pytest.fixture
def plan(qw):
    return as_built_plan(qw.quote.current_revision)


@pytest.fixture
def sales(client, qw):
    client.force_login(qw.world.sales)
    return client


def upload_url(qw) -> str:
    return reverse("quoting:quote-as-built", args=[qw.quote.pk, 1])


def post(client, qw, text: str | bytes):
    content = text.encode() if isinstance(text, str) else text
    return client.post(upload_url(qw), {"discovered": SimpleUploadedFile("fabric.txt", content)})


def _swapped(plan) -> tuple[int, int]:
    hosts = [i for i, link in enumerate(plan) if link.a_port.startswith("mlx5_")]
    second = next(i for i in hosts[1:] if plan[i].z_device == plan[hosts[0]].z_device)
    return hosts[0], second


def test_the_quote_page_offers_the_upload_with_its_design(sales, qw):
    page = sales.get(reverse("quoting:quote-detail", args=[qw.quote.pk])).content.decode()
    assert f'action="{upload_url(qw)}"' in page and 'enctype="multipart/form-data"' in page
    assert 'name="discovered"' in page


def test_a_swap_shows_on_the_result_page_by_cable_id_and_label(sales, qw, plan):
    first, second = _swapped(plan)
    response = post(sales, qw, ibnetdiscover_text(swap_far_ends(links_of(plan), first, second)))
    check = AsBuiltCheck.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse(
        "quoting:quote-as-built-result", args=[qw.quote.pk, 1, check.pk]
    )
    page = sales.get(response["Location"]).content.decode()
    assert f"Cabled as planned: {len(plan) - 2} of {len(plan)} links." in page
    assert 'id="as-built-miswired"' in page
    for index in (first, second):
        assert plan[index].cable_id in page and escape(plan[index].label_a) in page
    pdf = reverse("proposals:as-built-pdf", args=[qw.quote.pk, 1, check.pk])
    assert pdf in page
    download = sales.get(pdf + "?language=zh-hans")
    assert download.status_code == 200 and download.content.startswith(b"%PDF")
    quote_page = sales.get(reverse("quoting:quote-detail", args=[qw.quote.pk])).content.decode()
    assert reverse("quoting:quote-as-built-result", args=[qw.quote.pk, 1, check.pk]) in quote_page


def test_a_bad_file_comes_back_with_its_line_at_the_field(sales, qw, plan):
    lines = ibnetdiscover_text(links_of(plan)).splitlines()
    response = post(sales, qw, "\n".join([*lines[:9], "[x]\tnot a port line", *lines[9:]]))
    assert response.status_code == 400
    error = response.content.decode().split('id="err-discovered"', 1)[1].split("</div>", 1)[0]
    assert "line 10" in error.lower()
    assert not AsBuiltCheck.objects.exists()


def test_a_bad_file_is_refused_in_chinese_naming_its_file_and_line(sales, qw, plan):
    sales.cookies["django_language"] = "zh-hans"
    lines = ibnetdiscover_text(links_of(plan)).splitlines()
    response = post(sales, qw, "\n".join([*lines[:9], "[x]\tnot a port line", *lines[9:]]))

    assert response.status_code == 400
    error = response.content.decode().split('id="err-discovered"', 1)[1].split("</div>", 1)[0]
    assert "第 10 行：不是 ibnetdiscover 的输出：" in error, error
    assert "line 10" not in error and "not ibnetdiscover output" not in error


def test_another_teams_user_gets_404_everywhere(client, qw, plan):
    check_url = reverse("quoting:quote-as-built-result", args=[qw.quote.pk, 1, 1])
    client.force_login(qw.world.other_sales)
    assert client.get(upload_url(qw)).status_code == 404
    assert post(client, qw, ibnetdiscover_text(links_of(plan))).status_code == 404
    assert client.get(check_url).status_code == 404
    pdf = reverse("proposals:as-built-pdf", args=[qw.quote.pk, 1, 1])
    assert client.get(pdf).status_code == 404


def test_the_result_page_reads_in_chinese(sales, qw, plan):
    sales.cookies["django_language"] = "zh-hans"
    links = links_of(plan)
    response = post(sales, qw, ibnetdiscover_text(links[1:]))
    page = sales.get(response["Location"], HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "竣工检查" in page and "缺失的链路" in page and plan[0].cable_id in page


def test_a_swaps_details_read_in_the_readers_language(sales, qw, plan):
    first, second = _swapped(plan)
    response = post(sales, qw, ibnetdiscover_text(swap_far_ends(links_of(plan), first, second)))
    english = sales.get(response["Location"]).content.decode()
    table = english.split('id="as-built-miswired"', 1)[1]
    assert f"swapped with {plan[second].cable_id}" in table
    assert "tier: server-leaf" in table and " port 1 to " in table
    assert "swapped_with" not in table and "found_links" not in table
    sales.cookies["django_language"] = "zh-hans"
    chinese = sales.get(response["Location"], HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    table = chinese.split('id="as-built-miswired"', 1)[1]
    assert f"与 {plan[second].cable_id} 互换" in table and "层级：服务器到 Leaf" in table
    assert "端口 1 至" in table and "swapped with" not in table and " port " not in table


def test_the_cables_a_cable_looks_swapped_with_are_listed_in_the_readers_language(sales, qw, plan):
    # A cable of a three-way swap names two: the report keeps them as the API's text, "a, b"
    # (old checks too), and a Chinese page lists them with the enumeration comma.
    first, second = _swapped(plan)
    response = post(sales, qw, ibnetdiscover_text(swap_far_ends(links_of(plan), first, second)))
    check = AsBuiltCheck.objects.get()
    third = plan[next(i for i in range(len(plan)) if i not in (first, second))].cable_id
    both = f"{plan[second].cable_id}, {third}"
    check.result["miswired"][0]["swapped_with"] = both
    AsBuiltCheck.objects.filter(pk=check.pk).update(result=check.result)
    english = sales.get(response["Location"]).content.decode()
    assert f"swapped with {both}" in english.split('id="as-built-miswired"', 1)[1]
    sales.cookies["django_language"] = "zh-hans"
    chinese = sales.get(response["Location"], HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    table = chinese.split('id="as-built-miswired"', 1)[1]
    assert f"与 {plan[second].cable_id}、{third} 互换" in table and both not in table
