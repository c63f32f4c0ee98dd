"""A quote revision's installation pack: asked for, built by a worker, stored with its SHA-256,
and kept for good once the revision is sent."""

import hashlib
import io
import zipfile
from unittest import mock

import pytest

from quoting.designs.models import SavedDesign
from quoting.engine.install.pack import PACK_FILE_NAMES
from quoting.quotes.models import InstallPack, Quote
from quoting.quotes.services.install import INSTALL_PACKS_KEPT
from quoting.quotes.services.quotes import quote_send
from tests.api_errors import field_errors
from tests.quoting.api_world import quote_world_make, token_client


@pytest.fixture
def qw(seeded, make_user):
    return quote_world_make(make_user)


class Api:
    """The CRM's client; its writes run their after-commit work (the eager worker) at once."""

    def __init__(self, client, capture) -> None:
        self.client, self.capture = client, capture

    def post(self, *args, **kwargs):
        with self.capture(execute=True):
            return self.client.post(*args, **kwargs)

    def get(self, *args, **kwargs):
        return self.client.get(*args, **kwargs)


@pytest.fixture
def api(qw, django_capture_on_commit_callbacks):
    return Api(token_client(qw.world.sales), django_capture_on_commit_callbacks)


def url(qw, number=1) -> str:
    return f"/api/v1/quotes/{qw.quote.pk}/revisions/{number}/install-pack/"


def ask(api, qw, body) -> InstallPack:
    """POST, then the row as the worker left it (the test's transaction defers the commit, so
    the response itself still says pending; in service it says what the eager build did)."""
    response = api.post(url(qw), body, format="json")
    assert response.status_code == 202, response.content
    assert response.json()["status"] in ("pending", "ready", "failed")
    return InstallPack.objects.get(pk=response.json()["id"])


def test_a_revision_pack_is_built_by_the_worker_and_downloaded_as_stored(api, qw):
    pack = ask(api, qw, {"rack_power_kw": 30})
    assert pack.status == "ready" and pack.site["rack_power_kw"] == 30
    got = api.get(url(qw))
    assert got.status_code == 200
    assert got["Content-Type"] == "application/zip"
    assert hashlib.sha256(got.content).hexdigest() == pack.sha256
    archive = zipfile.ZipFile(io.BytesIO(got.content))
    assert [n for n in archive.namelist() if not n.startswith("ibnl/")] == list(PACK_FILE_NAMES)
    # In the customer's language (the seeded customer's is Chinese): the pack goes to their
    # installers.
    assert pack.language == qw.quote.customer.language == "zh-hans"
    assert f"版本：{qw.quote.current_revision}" in archive.read("README.txt").decode()


def test_a_sent_revision_keeps_its_pack_even_when_the_saved_design_changes(api, qw):
    quote = Quote.objects.get(pk=qw.quote.pk)
    quote_send(quote=quote, user=qw.world.sales, expected_version=quote.version)
    first = ask(api, qw, {})
    SavedDesign.objects.filter(pk=qw.design.pk).update(requirements={"gpu_count": 64})
    again = ask(api, qw, {})
    assert again.pk == first.pk and again.sha256 == first.sha256 != ""
    assert hashlib.sha256(api.get(url(qw)).content).hexdigest() == first.sha256
    assert InstallPack.objects.count() == 1


def test_a_revision_keeps_its_three_newest_packs(api, qw):
    """Issue 23, item 6: each request on a draft (or each site on a sent one) made a row of up
    to 10 MB, kept for good."""
    with mock.patch("quoting.quotes.services.install.enqueue_or_leave_to_sweeper"):
        asked = [ask(api, qw, {"rack_units": 42 + n}).pk for n in range(5)]
    kept = InstallPack.objects.filter(revision=qw.quote.current_revision)
    assert sorted(kept.values_list("pk", flat=True)) == asked[-INSTALL_PACKS_KEPT:]
    assert INSTALL_PACKS_KEPT == 3


def test_a_draft_revision_builds_again_from_the_design_as_it_is_now(api, qw):
    first = ask(api, qw, {})
    SavedDesign.objects.filter(pk=qw.design.pk).update(requirements={"gpu_count": 64})
    again = ask(api, qw, {})
    assert again.pk != first.pk and again.sha256 != first.sha256
    assert again.status == first.status == "ready"


def test_before_any_request_the_pack_is_404_and_bad_site_input_is_a_400(api, qw):
    assert api.get(url(qw)).status_code == 404
    assert api.get(url(qw, number=9)).status_code == 404
    for body, field in (
        ({"rack_units": 0}, "rack_units"),
        ({"rack_power_kw": -1}, "rack_power_kw"),
    ):
        response = api.post(url(qw), body, format="json")
        assert response.status_code == 400 and field in field_errors(response)
    assert not InstallPack.objects.exists()


def test_a_site_too_small_fails_the_build_with_its_reason_and_the_pack_is_not_served(api, qw):
    pack = ask(api, qw, {"rack_units": 4})
    assert pack.status == "failed" and "rack_units" in pack.error
    response = api.get(url(qw))
    assert response.status_code == 409 and "failed" in response.json()["detail"]


def test_a_failed_packs_reason_kept_as_its_message_reads_in_chinese_on_the_quote_page(
    client, api, qw, no_kept_texts
):
    """The row keeps the reason in English (the API gives it so) and as its message, which the
    quote page words in the reader's language, the engine's own detail after it as it is (#27
    item 4)."""
    pack = ask(api, qw, {"rack_units": 4})
    assert pack.error.startswith("The design or site is not buildable: ")
    detail = pack.error.removeprefix("The design or site is not buildable: ")
    assert pack.error_message == {
        "template": "The design or site is not buildable: {detail}",
        "params": [["detail", detail]],
    }
    assert pack.error in api.get(url(qw)).json()["detail"]  # the API's English, unchanged
    qw.world.sales.language = "zh-hans"
    qw.world.sales.save()
    client.force_login(qw.world.sales)
    page = client.get(f"/quotes/{qw.quote.pk}/").content.decode()
    assert "该设计或场地无法构建：" in page and "is not buildable" not in page


def test_a_pack_failed_before_messages_still_reads_in_chinese_through_kept_texts(client, api, qw):
    pack = ask(api, qw, {"rack_units": 4})
    InstallPack.objects.filter(pk=pack.pk).update(error_message=None)
    qw.world.sales.language = "zh-hans"
    qw.world.sales.save()
    client.force_login(qw.world.sales)
    page = client.get(f"/quotes/{qw.quote.pk}/").content.decode()
    assert "该设计或场地无法构建：" in page and "is not buildable" not in page


def test_a_revision_without_a_design_says_so(api, qw):
    qw.quote.current_revision.__class__.objects.filter(pk=qw.quote.current_revision.pk).update(
        design=None
    )
    response = api.post(url(qw), {}, format="json")
    assert response.status_code == 400 and "design" in field_errors(response)


def test_a_quote_you_may_not_see_has_no_pack_for_you(api, qw):
    assert api.post(url(qw), {}, format="json").status_code == 202
    other = token_client(qw.world.other_sales)  # a salesperson of another team
    assert other.get(url(qw)).status_code == 404
    assert other.post(url(qw), {}, format="json").status_code == 404


def test_the_quote_page_builds_the_pack_in_the_language_chosen_and_a_sent_revision_keeps_each(
    client, qw, django_capture_on_commit_callbacks
):
    client.force_login(qw.world.sales)
    page = f"/quotes/{qw.quote.pk}/"
    assert "Build the installation pack" in client.get(page).content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"{page}install-pack/", {"revision": "1"})
    assert response.status_code == 302 and response["Location"].endswith("?r=1")
    body = client.get(page).content.decode()
    zip_url = f"{page}revisions/1/install-pack.zip"
    assert zip_url in body
    download = client.get(zip_url)
    assert download.status_code == 200
    assert hashlib.sha256(download.content).hexdigest() == InstallPack.objects.get().sha256
    quote = Quote.objects.get(pk=qw.quote.pk)
    quote_send(quote=quote, user=qw.world.sales, expected_version=quote.version)
    body = client.get(page).content.decode()
    # Still offered: a sent revision keeps one pack per language, the customer's chosen first.
    assert zip_url in body and "Build the installation pack" in body
    assert '<option value="zh-hans" selected>' in body
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"{page}install-pack/", {"revision": "1", "language": "zh-hans"})
        client.post(f"{page}install-pack/", {"revision": "1", "language": "en"})
    packs = InstallPack.objects.order_by("pk")
    assert [p.language for p in packs] == ["zh-hans", "en"]  # the same language: the same pack
    assert packs[0].sha256 != packs[1].sha256
    english = zipfile.ZipFile(io.BytesIO(client.get(zip_url).content))  # the latest
    assert "Revision: Q-" in english.read("README.txt").decode()
    response = client.post(f"{page}install-pack/", {"revision": "1", "language": "fr"}, follow=True)
    assert "Choose English or Simplified Chinese for the pack." in response.content.decode()
    assert InstallPack.objects.count() == 2
    assert client.post(f"{page}install-pack/", {"revision": "x1"}).status_code == 404
    assert client.get(f"{page}revisions/7/install-pack.zip").status_code == 404


def test_a_revision_pack_is_laid_out_on_the_designs_site_unless_the_request_changes_it(api, qw):
    """The saved design's site (its snapshot keeps it) lays the pack out, so the pack buys what
    the design was measured for; a site field in the request changes only that field."""
    import csv

    SavedDesign.objects.filter(pk=qw.design.pk).update(
        requirements={"gpu_count": 256},
        result={"bom": [], "site": {"cable_route": "raised-floor", "cable_slack_m": 0.3}},
    )

    def parts(pack) -> set[str]:
        archive = zipfile.ZipFile(io.BytesIO(pack.archive))
        rows = csv.DictReader(io.StringIO(archive.read("cable-schedule.csv").decode()))
        return {row["part"] for row in rows}

    copper = {"MCP7Y00-N003", "MCA7J60-N004", "MCA7J60-N005"}
    on_design_site = ask(api, qw, {})
    assert on_design_site.status == "ready" and parts(on_design_site) & copper
    overhead = ask(api, qw, {"cable_route": "overhead"})
    assert overhead.status == "ready" and not parts(overhead) & copper


# --- the pack's language (issue 27, item 4) ------------------------------------------------------


@pytest.mark.parametrize("language", ["fr", "zh", "zh_Hans", "EN", ""])
def test_a_language_but_en_or_zh_hans_is_a_400_on_the_field(api, qw, language):
    response = api.post(url(qw), {"language": language}, format="json")

    assert response.status_code == 400 and "language" in field_errors(response)
    assert not InstallPack.objects.exists()


def test_a_sent_revision_keeps_one_pack_per_language_each_with_its_own_bytes(api, qw):
    quote = Quote.objects.get(pk=qw.quote.pk)
    quote_send(quote=quote, user=qw.world.sales, expected_version=quote.version)

    chinese = ask(api, qw, {})  # the customer's language
    english = ask(api, qw, {"language": "en"})
    again = ask(api, qw, {"language": "zh-hans"})

    assert (chinese.language, english.language) == ("zh-hans", "en")
    assert again.pk == chinese.pk and again.sha256 == chinese.sha256
    assert english.pk != chinese.pk and english.sha256 != chinese.sha256
    state = api.post(url(qw), {"language": "en"}, format="json").json()
    assert state["language"] == "en" and state["sha256"] == english.sha256
    # GET: the latest pack, or the latest in the language asked for.
    for asked, pack in (("", english), ("?language=zh-hans", chinese), ("?language=en", english)):
        got = api.get(url(qw) + asked)
        assert got["Digest"] == f"sha-256={pack.sha256}"
    assert api.get(url(qw) + "?language=de").status_code == 400


def test_a_pack_made_before_packs_had_a_language_is_english_and_keeps_its_bytes(api, qw):
    """A row from before the language column reads as English (the migration's default), and
    a sent revision hands out its very bytes, never a pack made again."""
    quote = Quote.objects.get(pk=qw.quote.pk)
    quote_send(quote=quote, user=qw.world.sales, expected_version=quote.version)
    archive = b"PK\x05\x06" + b"\x00" * 18  # an empty zip: the bytes as stored, whatever they are
    old = InstallPack.objects.create(
        revision=qw.quote.current_revision,
        requirements=qw.design.requirements,
        site={},
        status="ready",
        archive=archive,
        sha256=hashlib.sha256(archive).hexdigest(),
        size=len(archive),
    )

    again = ask(api, qw, {"language": "en"})

    assert old.language == "en" and again.pk == old.pk
    got = api.get(url(qw))
    assert got.content == archive and got["Digest"] == f"sha-256={old.sha256}"
