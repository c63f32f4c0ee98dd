"""The seller's company profile: one row, edited in the admin, a PNG or JPEG logo kept in the row,
and a demo seller from setup_demo."""

from __future__ import annotations

import base64

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from portal.models import CompanyProfile
from portal.services import demo_company_profile_ensure

TINY_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
FORM = {
    "legal_name_en": "Shenzhen Fabric Networks Co., Ltd.",
    "legal_name_zh": "深圳织网网络有限公司",
    "address_en": "9 Keji South Road, Shenzhen",
    "address_zh": "深圳市南山区科技南路9号",
    "phone": "+86 755 8600 0100",
    "email": "sales@fabric.example",
    "website": "",
    "tax_number": "91440300MA5ABCDE1X",
    "bank_name": "China Merchants Bank",
    "bank_name_zh": "招商银行",
    "bank_account": "7559 1234",
}
ADD, CHANGE = "/admin/portal/companyprofile/add/", "/admin/portal/companyprofile/1/change/"


@pytest.fixture
def admin_client(client, make_user):
    client.force_login(make_user("root", role=None, is_staff=True, is_superuser=True))
    return client


def test_there_is_only_ever_one_profile(db):
    CompanyProfile.objects.create(legal_name_en="One")
    CompanyProfile(legal_name_en="Two").save()
    assert list(CompanyProfile.objects.values_list("pk", "legal_name_en")) == [(1, "Two")]


def test_the_chinese_name_and_address_fall_back_to_english_when_empty(db):
    profile = CompanyProfile.objects.create(legal_name_en="Fabric Ltd.", address_en="Shenzhen")
    assert profile.legal_name_for("zh-hans") == "Fabric Ltd."
    assert profile.address_for("zh-hans") == "Shenzhen"
    profile.legal_name_zh = "织网"
    assert profile.legal_name_for("zh-hans") == "织网"
    assert profile.legal_name_for("en") == "Fabric Ltd."


def test_the_admin_list_opens_the_one_profile_or_the_form_to_create_it(admin_client):
    assert admin_client.get("/admin/portal/companyprofile/").url == ADD
    response = admin_client.post(
        ADD,
        {**FORM, "logo_upload": SimpleUploadedFile("logo.png", TINY_PNG, content_type="image/png")},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    profile = CompanyProfile.objects.get()
    assert profile.legal_name_zh == "深圳织网网络有限公司" and profile.bank_name_zh == "招商银行"
    assert bytes(profile.logo) == TINY_PNG and profile.logo_type == "image/png"

    assert admin_client.get("/admin/portal/companyprofile/").url == CHANGE
    assert admin_client.get(ADD).status_code == 403  # no second seller
    assert admin_client.get("/admin/portal/companyprofile/1/delete/").status_code == 403
    assert 'src="data:image/png;base64,' in admin_client.get(CHANGE).content.decode()


@pytest.mark.parametrize(
    ("upload", "message"),
    [
        (
            b'<svg xmlns="http://www.w3.org/2000/svg"><image href="file:///etc/passwd"/></svg>',
            "Upload a PNG or JPEG image.",
        ),
        (b"GIF89a" + b"\0" * 10, "Upload a PNG or JPEG image."),
        (TINY_PNG + b"\0" * (512 * 1024), "The logo may take at most 512 KB."),
    ],
)
def test_a_logo_that_is_not_a_small_png_or_jpeg_is_refused_beside_its_field(
    admin_client, upload, message
):
    response = admin_client.post(
        ADD,
        {
            **FORM,
            "logo_upload": SimpleUploadedFile("logo.svg", upload, content_type="image/svg+xml"),
        },
    )
    assert response.status_code == 200 and message in response.content.decode()
    assert not CompanyProfile.objects.exists()


def test_the_logo_can_be_removed(admin_client):
    CompanyProfile.objects.create(legal_name_en="Fabric", logo=TINY_PNG, logo_type="image/png")
    response = admin_client.post(CHANGE, {**FORM, "logo_remove": "on"})
    assert response.status_code == 302
    profile = CompanyProfile.objects.get()
    assert profile.logo is None and profile.logo_type == ""


def test_a_users_phone_is_edited_in_the_admin(admin_client, make_user):
    user = make_user("wang")
    page = admin_client.get(f"/admin/portal/user/{user.pk}/change/").content.decode()
    assert 'name="phone"' in page


def test_setup_demo_fills_a_demo_seller_once_and_keeps_an_edited_one(capsys, settings, seeded):
    settings.DEBUG = True
    call_command("setup_demo")
    profile = CompanyProfile.objects.get()
    assert profile.legal_name_en and profile.legal_name_zh and profile.tax_number
    assert "demo company profile created" in capsys.readouterr().out

    profile.legal_name_en = "Our real name"
    profile.save()
    assert demo_company_profile_ensure() is False
    call_command("setup_demo")
    assert CompanyProfile.objects.get().legal_name_en == "Our real name"
    from portal.models import User

    assert User.objects.get(username="sales").phone  # printed on the demo proposals
