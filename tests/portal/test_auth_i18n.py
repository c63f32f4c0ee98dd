import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command

from portal.models import CATALOG_MANAGER, SALES, SALES_MANAGER


@pytest.mark.django_db
def test_pages_need_a_signed_in_staff_member(client):
    response = client.get("/catalog/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=/catalog/")


@pytest.mark.django_db
def test_a_staff_member_signs_in_with_username_and_password(client, make_user):
    make_user("bob")
    response = client.post("/accounts/login/", {"username": "bob", "password": "pw"})
    assert response.status_code == 302
    assert client.get("/").status_code == 200


@pytest.mark.django_db
def test_a_wrong_password_shows_an_inline_message_and_no_session(client, make_user):
    make_user("bob")
    response = client.post("/accounts/login/", {"username": "bob", "password": "nope"})
    assert response.status_code == 200
    assert "correct username and password" in response.content.decode()
    assert client.get("/").status_code == 302


@pytest.mark.django_db
def test_migrate_creates_the_three_role_groups_with_catalog_permissions():
    names = set(Group.objects.values_list("name", flat=True))
    assert {SALES, SALES_MANAGER, CATALOG_MANAGER} <= names
    catalog_perms = set(
        Group.objects.get(name=CATALOG_MANAGER).permissions.values_list("codename", flat=True)
    )
    assert {"add_product", "change_product", "delete_product", "change_pricelistitem"} <= (
        catalog_perms
    )
    sales_perms = set(Group.objects.get(name=SALES).permissions.values_list("codename", flat=True))
    assert "change_product" not in sales_perms and "view_product" in sales_perms


def test_setup_demo_is_idempotent_and_prints_the_login(capsys, settings, seeded):
    settings.DEBUG = True
    call_command("setup_demo")
    first = capsys.readouterr().out
    call_command("setup_demo")
    second = capsys.readouterr().out
    assert "sales" in first and settings.DEMO_PASSWORD in first
    assert first.count("  created") == 5 and second.count("already there") == 6
    assert "2 customers created" in first and "Demo data: already there." in second
    from portal.models import User

    assert User.objects.get(username="sales").check_password(settings.DEMO_PASSWORD)
    assert User.objects.get(username="catalog").is_staff


@pytest.mark.django_db
def test_setup_demo_refuses_without_debug(settings):
    from django.core.management.base import CommandError

    settings.DEBUG = False
    with pytest.raises(CommandError):
        call_command("setup_demo")


@pytest.mark.django_db
def test_chinese_is_chosen_per_user_and_remembered(client, make_user):
    user = make_user("li")
    client.force_login(user)
    response = client.post("/i18n/language/", {"language": "zh-hans", "next": "/catalog/"})
    assert response.status_code == 302 and response["Location"] == "/catalog/"
    user.refresh_from_db()
    assert user.language == "zh-hans"
    # A fresh session (another browser) still gets the user's language.
    client.logout()
    client.force_login(user)
    page = client.get("/catalog/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<html lang="zh-hans">' in page
    assert "产品目录" in page


@pytest.mark.django_db
def test_an_unknown_language_is_ignored(client, make_user):
    user = make_user("li")
    client.force_login(user)
    client.post("/i18n/language/", {"language": "xx", "next": "/"})
    user.refresh_from_db()
    assert user.language == ""


@pytest.mark.django_db
def test_the_browser_language_applies_before_sign_in(client):
    page = client.get("/accounts/login/", HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9").content.decode()
    assert '<html lang="zh-hans">' in page
    assert "登录" in page
