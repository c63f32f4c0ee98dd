"""The company-admin role (issue 27 item 6): company admins and catalog managers edit the
seller's company profile and the default payment schedule on /settings/company/; anyone else
gets a 403 page in their language with a way back, and the API keeps its JSON problem."""

from __future__ import annotations

import base64
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import RequestFactory

from portal.models import COMPANY_ADMIN, ROLE_GROUPS, CompanyProfile, User
from portal.services import DEMO_COMPANY, demo_users_ensure
from portal.views import permission_denied

URL = "/settings/company/"
TINY_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def _form(rows=(("On order", "30"), ("On delivery", "70")), **fields) -> dict:
    data = {
        "legal_name_en": "Shenzhen Fabric Networks Co., Ltd.",
        "legal_name_zh": "深圳织网网络有限公司",
        "milestone-TOTAL_FORMS": len(rows),
        "milestone-INITIAL_FORMS": 0,
        "milestone-MIN_NUM_FORMS": 0,
        "milestone-MAX_NUM_FORMS": 10,
        **fields,
    }
    for n, (label, percent) in enumerate(rows):
        data[f"milestone-{n}-label"], data[f"milestone-{n}-percent"] = label, percent
    return data


def test_the_company_admin_role_is_appended_after_the_older_roles():
    assert ROLE_GROUPS == ("sales", "sales-manager", "catalog-manager", "director", COMPANY_ADMIN)


@pytest.mark.parametrize("role", [COMPANY_ADMIN, "catalog-manager"])
def test_a_company_admin_or_catalog_manager_edits_the_profile_logo_and_schedule(
    client, make_user, role
):
    client.force_login(make_user("kim", role=role))
    assert client.get(URL).status_code == 200
    logo = SimpleUploadedFile("logo.png", TINY_PNG, content_type="image/png")
    response = client.post(URL, {**_form(), "logo_upload": logo})
    assert response.status_code == 302, response.content.decode()[:3000]
    profile = CompanyProfile.objects.get()
    assert profile.legal_name_zh == "深圳织网网络有限公司" and bytes(profile.logo) == TINY_PNG
    assert profile.payment_schedule == [
        {"label": "On order", "percent": "30.00"},
        {"label": "On delivery", "percent": "70.00"},
    ]


def test_the_company_page_refuses_a_default_schedule_not_summing_to_100_and_a_bad_logo(
    client, make_user
):
    client.force_login(make_user("kim", role=COMPANY_ADMIN))
    gif = SimpleUploadedFile("logo.gif", b"GIF89a" + b"\0" * 10, content_type="image/gif")
    response = client.post(
        URL, {**_form(rows=(("On order", "30"), ("Later", "0"))), "logo_upload": gif}
    )
    html = response.content.decode()
    assert response.status_code == 400 and "Upload a PNG or JPEG image." in html
    response = client.post(URL, _form(rows=(("On order", "30"), ("Later", "69.99"))))
    html = response.content.decode()
    assert response.status_code == 400
    assert "The milestones add up to 99.99 %; they must add up to exactly 100 %." in html
    assert 'value="69.99"' in html and 'value="Shenzhen Fabric Networks Co., Ltd."' in html
    assert not CompanyProfile.objects.exists()


def test_sales_cannot_edit_the_profile_and_get_a_403_page_with_a_way_back(client, make_user):
    client.force_login(make_user("wang", role="sales"))
    response = client.get(URL)
    html = response.content.decode()
    assert response.status_code == 403
    assert "You may not open this page" in html and 'href="/"' in html
    assert client.post(URL, _form()).status_code == 403
    assert not CompanyProfile.objects.exists()


def test_the_403_page_speaks_chinese_to_a_chinese_user(client, make_user):
    client.force_login(make_user("wang", role="sales", language="zh-hans"))
    response = client.get(URL, HTTP_ACCEPT_LANGUAGE="zh-hans")
    html = response.content.decode()
    assert response.status_code == 403
    assert "您无权打开此页面" in html and "返回首页" in html


def test_a_403_under_the_api_stays_a_json_problem():
    request = RequestFactory().get("/api/v1/anything/")
    response = permission_denied(request)
    assert response.status_code == 403
    assert response["Content-Type"] == "application/problem+json"
    assert json.loads(response.content)["status"] == 403


def test_the_demo_has_a_company_admin_and_a_seller_paid_30_60_10(db):
    demo_users_ensure()
    assert User.objects.get(username="company").has_role(COMPANY_ADMIN)
    assert [m["percent"] for m in DEMO_COMPANY["payment_schedule"]] == ["30.00", "60.00", "10.00"]


def test_the_home_page_leads_company_admins_to_the_profile_and_not_sales(client, make_user):
    client.force_login(make_user("kim", role=COMPANY_ADMIN))
    assert f'href="{URL}"' in client.get("/").content.decode()
    client.force_login(make_user("wang", role="sales"))
    assert f'href="{URL}"' not in client.get("/").content.decode()


@pytest.mark.django_db(transaction=True)
def test_the_migration_gives_an_existing_demo_seller_the_demo_schedule_and_no_one_else():
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before, after = (
        ("portal", "0004_company_bank_name_in_chinese"),
        (
            "portal",
            "0005_company_admin_and_payment_schedule",
        ),
    )
    executor = MigrationExecutor(connection)
    executor.migrate([before])
    old = executor.loader.project_state([before]).apps.get_model("portal", "CompanyProfile")
    old.objects.create(pk=1, legal_name_en=DEMO_COMPANY["legal_name_en"])
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([after])
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert CompanyProfile.objects.get().payment_schedule == DEMO_COMPANY["payment_schedule"]


@pytest.mark.parametrize(
    ("role", "sees"),
    [
        (COMPANY_ADMIN, True),
        ("catalog-manager", True),
        ("sales", False),
        ("sales-manager", False),
        ("director", False),
    ],
)
def test_the_navigation_links_the_company_page_for_those_who_may_edit_it(
    client, make_user, role, sees
):
    client.force_login(make_user("kim", role=role))
    page = client.get("/quotes/").content.decode()
    nav = page[page.index('<nav class="mainnav"') : page.index("</nav>")]
    assert (f'href="{URL}"' in nav) is sees


def test_the_company_link_is_in_chinese_and_marks_its_own_page(client, make_user):
    client.force_login(make_user("kim", role=COMPANY_ADMIN, language="zh-hans"))
    page = client.get(URL, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    nav = page[page.index('<nav class="mainnav"') : page.index("</nav>")]
    assert f'<a href="{URL}" aria-current="page">公司</a>' in nav
