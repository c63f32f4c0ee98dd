"""Issue 27: the company chop (seal) is a PNG or JPEG kept in the company profile's row, edited
beside the logo in the admin; anything else is refused at its field and changes nothing."""

from __future__ import annotations

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image, ImageDraw

from portal.models import CompanyProfile
from tests.portal.test_company_profile import FORM


def chop_png() -> bytes:
    """A red ring on a transparent background, as a scanned chop is usually kept."""
    image = Image.new("RGBA", (240, 240), (255, 255, 255, 0))
    ImageDraw.Draw(image).ellipse((10, 10, 230, 230), outline=(200, 20, 30, 255), width=14)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


CHANGE = "/admin/portal/companyprofile/1/change/"


@pytest.fixture
def admin_client(client, make_user):
    client.force_login(make_user("root", role=None, is_staff=True, is_superuser=True))
    CompanyProfile.objects.create(legal_name_en="Fabric")
    return client


def test_a_transparent_png_chop_is_kept_in_the_row_and_shown_in_the_admin(admin_client):
    png = chop_png()
    response = admin_client.post(
        CHANGE, {**FORM, "chop_upload": SimpleUploadedFile("chop.png", png, "image/png")}
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    profile = CompanyProfile.objects.get()
    assert bytes(profile.chop) == png and profile.chop_type == "image/png"
    assert profile.logo is None  # the logo is its own field
    page = admin_client.get(CHANGE).content.decode()
    assert 'name="chop_upload"' in page and page.count('src="data:image/png;base64,') == 1


@pytest.mark.parametrize(
    ("upload", "message"),
    [
        (b'<svg xmlns="http://www.w3.org/2000/svg"><circle r="9"/></svg>', "Upload a PNG or JPEG"),
        (b"GIF89a" + b"\0" * 10, "Upload a PNG or JPEG image."),
        (b"\x89PNG\r\n\x1a\n" + b"\0" * 100, "Upload a PNG or JPEG image."),  # only its start
        (b"\x89PNG\r\n\x1a\n" + b"\0" * (512 * 1024), "The company chop may take at most 512 KB."),
    ],
)
def test_a_chop_that_is_not_a_small_png_or_jpeg_is_refused_at_its_field(
    admin_client, upload, message
):
    response = admin_client.post(
        CHANGE, {**FORM, "chop_upload": SimpleUploadedFile("chop.svg", upload, "image/png")}
    )
    assert response.status_code == 200
    form = response.context["adminform"].form
    assert message in " ".join(form.errors["chop_upload"])
    assert CompanyProfile.objects.get().chop is None
    assert CompanyProfile.objects.get().legal_name_en == "Fabric"  # nothing saved


def test_the_chop_can_be_removed(admin_client):
    CompanyProfile.objects.filter(pk=1).update(chop=chop_png(), chop_type="image/png")
    assert admin_client.post(CHANGE, {**FORM, "chop_remove": "on"}).status_code == 302
    profile = CompanyProfile.objects.get()
    assert profile.chop is None and profile.chop_type == ""


def test_a_users_job_title_is_edited_in_the_admin(admin_client, make_user):
    user = make_user("zhao", role="sales-manager")
    page = admin_client.get(f"/admin/portal/user/{user.pk}/change/").content.decode()
    assert 'name="job_title"' in page
