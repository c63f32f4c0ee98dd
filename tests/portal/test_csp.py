"""Issue 13 finding 8 (CSP): staff pages send a Content-Security-Policy with a per-response
nonce and neither 'unsafe-inline' nor 'unsafe-eval'; no page carries an inline script without
the nonce or an inline event handler; the share page keeps its own stricter policy."""

from __future__ import annotations

import base64
import hashlib
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from proposals.share.guard import SHARE_HEADERS
from proposals.share.services import share_link_create
from quoting.quotes.services.quotes import quote_create
from tests.proposals.conftest import quote_sent

ROOT = Path(__file__).resolve().parents[2]


class _Page(HTMLParser):
    """The <script>/<style> elements of a page and every attribute that would run script."""

    def __init__(self):
        super().__init__()
        self.scripts: list[dict] = []
        self.styles: list[str] = []
        self.handlers: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "script":
            self.scripts.append(attributes)
        self._in_style = tag == "style"
        if tag == "style":
            self.styles.append("")
        self.handlers += [
            f"<{tag} {name}>"
            for name in attributes
            if name.startswith("on") or name.startswith("hx-on")
        ]
        self.handlers += [
            f"<{tag} {name}>"
            for name, value in attrs
            if name in {"href", "src", "action"}
            and value
            and value.strip().lower().startswith("javascript:")
        ]

    def handle_endtag(self, tag):
        self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.styles[-1] += data


def _policy(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    return {part.split()[0]: part.split()[1:] for part in header.split(";") if part.strip()}


def assert_strict_page(response, *, nonce_required: bool = True) -> str | None:
    """The page's CSP is strict, and every script on it is allowed by src or the nonce (pages
    that never ask for the nonce, like Django's admin, get a policy without one: stricter)."""
    assert response.status_code == 200
    policy = _policy(response)
    header = response["Content-Security-Policy"]
    assert "'unsafe-inline'" not in header and "'unsafe-eval'" not in header
    nonces = [s for s in policy["script-src"] if s.startswith("'nonce-")]
    assert len(nonces) == (1 if nonce_required else len(nonces)) <= 1
    nonce = nonces[0][len("'nonce-") : -1] if nonces else None
    for directive, value in [
        ("default-src", ["'self'"]),
        ("object-src", ["'none'"]),
        ("base-uri", ["'none'"]),
        ("frame-ancestors", ["'none'"]),
        ("form-action", ["'self'"]),
    ]:
        assert policy[directive] == value
    page = _Page()
    page.feed(response.content.decode())
    for script in page.scripts:
        if script.get("type") == "application/json":  # data, never run (json_script)
            continue
        assert script.get("src") or script.get("nonce") == nonce, script
    assert all(s.get("nonce", nonce) == nonce for s in page.scripts)
    assert page.handlers == []
    allowed_styles = [s for s in policy["style-src"] if s.startswith("'sha256-")]
    for style in page.styles:
        digest = base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()
        assert (
            f"'sha256-{digest}'" in allowed_styles
            or f"'nonce-{nonce}'" in policy["style-src"]
            and f'nonce="{nonce}"' in response.content.decode()
        ), style
    return nonce


@pytest.mark.parametrize(
    "url",
    [
        "/",
        "/designs/new/",
        "/tco/",
        "/catalog/",
        "/customers/",
        "/projects/",
        "/quotes/",
        "/api/docs/",
    ],
)
def test_staff_pages_send_a_strict_policy_with_a_nonce(client, world, seeded, url):
    client.force_login(world.sales)
    assert_strict_page(client.get(url))


def test_the_quote_builder_page_is_strict_too(client, world, seeded):
    quote = quote_create(project=world.project, user=world.sales)
    client.force_login(world.sales)
    assert_strict_page(client.get(f"/quotes/{quote.pk}/"))


def test_admin_and_login_pages_are_strict(client, django_user_model, db):
    assert_strict_page(client.get("/accounts/login/"))
    admin = django_user_model.objects.create_superuser("root", "root@example.com", "pw")
    client.force_login(admin)
    for url in (
        "/admin/",
        "/admin/catalog/product/",
        "/admin/catalog/product/import-csv/",
        "/admin/axes/accessattempt/",
    ):
        assert_strict_page(client.get(url), nonce_required=False)


def test_each_response_gets_a_fresh_nonce(client, world, db):
    client.force_login(world.sales)
    assert assert_strict_page(client.get("/")) != assert_strict_page(client.get("/"))


def test_the_design_drawing_style_is_allowed_by_its_hash_in_full_page_and_fragment(
    client, world, seeded
):
    client.force_login(world.sales)
    page = client.get("/designs/new/")
    assert "<svg" in page.content.decode()
    assert_strict_page(page)  # its inline <style> matches a hash of the policy
    fragment = client.get(
        "/designs/new/?gpu_count=1024&gpus_per_server=8&nic_generation=NDR"
        "&family=infiniband&planes=1&oversubscription=1"
        "&server_to_leaf=same-row&leaf_to_spine=same-row"
        "&spine_to_core=across-hall&subnet_manager=auto&spares_percent=0",
        HTTP_HX_REQUEST="true",
    )
    styles = re.findall(r"<style>(.*?)</style>", fragment.content.decode())
    assert styles, "the fragment inlines the drawing"
    digest = base64.b64encode(hashlib.sha256(styles[0].encode()).digest()).decode()
    assert f"'sha256-{digest}'" in page["Content-Security-Policy"]  # the page's own policy


def test_the_share_page_keeps_its_own_policy_alone(
    client, world, django_capture_on_commit_callbacks
):
    quote = quote_sent(world)
    with django_capture_on_commit_callbacks(execute=True):
        _link, token = share_link_create(quote=quote, user=world.sales, recipient_name="Dr Li")
    response = client.get(f"/p/{token}")
    assert response.status_code == 200
    assert response["Content-Security-Policy"] == SHARE_HEADERS["Content-Security-Policy"]
    assert "nonce" not in response["Content-Security-Policy"]
    # Scripts only from our static files (issue 15: the reading time, the signature box; #27:
    # the bill of materials' folds opened on a wide screen): nothing inline, no handler
    # attributes.
    page = _Page()
    page.feed(response.content.decode())
    assert sorted(s.get("src") for s in page.scripts) == [
        "/static/proposal/engage.js",
        "/static/proposal/folds.js",
        "/static/proposal/signature.js",
    ]
    assert page.handlers == []
    assert "script-src 'self'" in response["Content-Security-Policy"]


def test_no_template_has_an_inline_handler_or_an_unnonced_inline_script():
    offenders = []
    for path in (ROOT / "templates").rglob("*.html"):
        text = path.read_text(encoding="utf-8")
        if "proposals/pdf" in str(path):
            continue
        if re.search(r"\son[a-z]+\s*=|\shx-on[:-]|javascript:", text):
            offenders.append(f"{path}: inline handler")
        for tag in re.findall(r"<script\b[^>]*>", text):
            if "src=" not in tag and "nonce=" not in tag:
                offenders.append(f"{path}: {tag}")
    assert offenders == []
