"""The site's icon: linked from every page and answered at /favicon.ico, which browsers ask for
on their own."""

import pytest
from django.contrib.staticfiles import finders


@pytest.mark.django_db
def test_favicon_ico_answers_with_the_svg_icon_without_signing_in(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"
    assert response.content.startswith(b"<svg") and b"FabricQuote" in response.content
    assert "max-age=" in response["Cache-Control"]


@pytest.mark.django_db
def test_favicon_ico_refuses_anything_but_reading(client):
    assert client.post("/favicon.ico").status_code == 405


ICON_LINK = '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">'


@pytest.mark.django_db
def test_the_portal_and_share_pages_link_the_icon(client, make_user):
    assert finders.find("favicon.svg")
    assert ICON_LINK in client.get("/accounts/login/").content.decode()
    assert ICON_LINK in client.get("/p/no-such-token").content.decode()  # the share pages' base
    client.force_login(make_user("wang"))
    assert ICON_LINK in client.get("/").content.decode()
