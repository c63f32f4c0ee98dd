"""Real headless Chromium (Debian's package) driven by Playwright; no browser downloads."""

from __future__ import annotations

import os
import shutil

import pytest
from pytest_django.fixtures import validate_django_db

from tests.conftest import service_missing

CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def browser():
    if not os.path.exists(CHROMIUM):
        service_missing(f"Chromium not found at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in the test thread, which trips Django's
    # async-safety guard for the test's own ORM calls; the guard is moot here (one thread).
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            yield BeaconsOff(browser)
            browser.close()
    finally:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


# The page's reading-time script does nothing without sendBeacon (static/proposal/engage.js).
NO_BEACONS = "Object.defineProperty(Navigator.prototype, 'sendBeacon', {value: undefined});"


class BeaconsOff:
    """The launched browser, whose contexts send no reading-time beacons (issue 15) unless
    made with `real_beacons=True`.

    A share page sends a beacon as it closes, on its own time: it would reach the live server
    while the test thread resets the database for the next test, and in-memory SQLite has one
    connection, shared with the server's thread (Playwright's routes do not hold back a
    beacon sent as its page closes). Tests of the reading time ask for real ones."""

    def __init__(self, browser) -> None:
        self._browser = browser

    def __getattr__(self, name):
        return getattr(self._browser, name)

    @property
    def person_agent(self) -> str:
        return (
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
            f"Chrome/{self._browser.version} Safari/537.36"
        )

    def new_context(self, *, real_beacons: bool = False, **options):
        # A person's Chrome of the same version: headless Chromium names itself HeadlessChrome,
        # which share links count as an automated browser (proposals.share.scanners), not a reader.
        options.setdefault("user_agent", self.person_agent)
        context = self._browser.new_context(**options)
        if not real_beacons:
            context.add_init_script(NO_BEACONS)
        return context

    def new_page(self, *, real_beacons: bool = False, **options):
        """As Browser.new_page: a page in a context of its own, closed with it."""
        context = self.new_context(real_beacons=real_beacons, **options)
        page = context.new_page()
        page.on("close", lambda _page: context.close())
        return page


def csp_watch(page, *, page_errors: bool = False) -> list[str]:
    """The list the page's Content-Security-Policy reports go into from now on (and, with
    `page_errors`, its uncaught script errors): a test asserts it stays empty."""
    found: list[str] = []
    page.on(
        "console",
        lambda message: (
            found.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    if page_errors:
        page.on("pageerror", lambda error: found.append(str(error)))
    return found


def console_errors(page) -> list[str]:
    """The list the page's console errors and uncaught script errors go into from now on."""
    found: list[str] = []
    page.on(
        "console",
        lambda message: found.append(message.text) if message.type == "error" else None,
    )
    page.on("pageerror", lambda error: found.append(str(error)))
    return found


def sign_in_as(page, base_url: str, username: str, password: str = "pw"):
    """Signs `username` in through the login form; returns the page, on the home page."""
    page.goto(f"{base_url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base_url}/")
    return page


def accept_as_li_wei(page, *, submit: str = "#accept button[type=submit]") -> None:
    """On a share page: opens the accept form, fills it in as Li Wei, CTO, ticks the agreement
    and sends it with the `submit` button."""
    page.click("#accept summary")
    page.fill("#id_name", "Li Wei")
    page.fill("#id_title", "CTO")
    page.check("#id_agreed")
    page.click(submit)


def design_tco_loaded(page) -> None:
    """Waits for the design page's TCO panel, which the results load by a request of its own
    once they are swapped in. A test must not end with it on its way: the live server would
    read the database while the teardown flushes it (in-memory SQLite has one connection,
    shared with the server's thread: "database table is locked", and the next test finds the
    last one's rows)."""
    page.wait_for_selector("#design-tco table, #design-tco .error-box", timeout=30_000)


@pytest.fixture(scope="session")
def _shared_world_server():
    """The live server of the modules whose tests share one committed world (`shared_world`):
    pytest-django's own server, started apart from `live_server`, which makes every test that
    takes it a TransactionTestCase, its tables flushed after it (1-2 s on the loaded machine)."""
    from pytest_django.live_server_helper import LiveServer

    server = LiveServer("localhost")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def shared_world(django_db_setup, django_db_blocker, _shared_world_server):
    """For a module whose tests read one expensive world through the browser (a quote sent with
    its PDFs rendered: 10-30 s to build on the loaded machine), built once by a module fixture on
    this one instead of once per test. Yields the live server's URL.

    The database is open for the whole module, in autocommit as under `live_server`: what the
    world's fixture and the tests write is committed and seen by the server's thread. After the
    module's last test every table is flushed, as TransactionTestCase flushes after each test.

    A test that changes what the others read (answers the offer, edits a quote) keeps a world of
    its own. Tests on a shared world are marked `django_db(transaction=True)`, so that the test
    database is made and they run among the committing tests, but pytest-django leaves them
    alone (`_django_db_marker` below); they take neither `live_server`, `sign_in`, `db`,
    `make_user` nor `seeded` (checked at collection: a rolled-back test transaction would hide
    their rows from the server, `live_server` would flush the world after the first test).
    `tests.conftest.user_make` and `catalog_seed` are what module fixtures build with."""
    from django.db import connections

    server = _shared_world_server
    with django_db_blocker.unblock():
        server._live_server_modified_settings.enable()
        try:
            yield server.url
        finally:
            server._live_server_modified_settings.disable()
            _flush_as_after_a_transactional_test()
            # As TransactionTestCase after a test: the next test starts on a fresh connection
            # (and none is left open on the test database when the session drops it).
            connections.close_all()


def _flush_as_after_a_transactional_test() -> None:
    """What TransactionTestCase._fixture_teardown does: every table emptied (a DELETE each,
    tests/postgresql_delete_flush), post_migrate run again (content types, permissions, roles)."""
    from django.core.management import call_command

    call_command(
        "flush",
        verbosity=0,
        interactive=False,
        database="default",
        reset_sequences=False,
        allow_cascade=False,
        inhibit_post_migrate=False,
    )


@pytest.fixture(autouse=True)
def _django_db_marker(request):
    """pytest-django's own fixture of this name (pytest_django/plugin.py), which sets a test
    with the `django_db` mark in a TestCase (rolled back) or TransactionTestCase (flushed after
    it), except for a test on a shared world: that mark only has pytest-django make the test
    database and run the test among the committing ones (`make test`'s order), and the world's
    module flushes once after its last test (`shared_world`)."""
    if "shared_world" in request.fixturenames:
        return
    if request.node.get_closest_marker("django_db"):
        request.getfixturevalue("_django_db_helper")


_NOT_WITH_A_SHARED_WORLD = ("live_server", "transactional_db", "db", "sign_in", "make_user")


def pytest_collection_modifyitems(items):
    shared = {item.path for item in items if "shared_world" in getattr(item, "fixturenames", ())}
    for item in items:
        names = getattr(item, "fixturenames", ())
        if item.path in shared and "shared_world" not in names:
            # Its flush after it would empty the module's world under the tests after it.
            raise pytest.UsageError(
                f"{item.nodeid} is in a module of tests on a shared world, without it: "
                "a test with a world of its own belongs in another module"
            )
        if "shared_world" not in names:
            continue
        marker = item.get_closest_marker("django_db")
        clash = [name for name in _NOT_WITH_A_SHARED_WORLD if name in names]
        if clash or not marker or not validate_django_db(marker)[0]:
            raise pytest.UsageError(
                f"{item.nodeid} takes shared_world with {clash or 'no django_db(transaction=True)'}"
                ": a shared world's tests are marked as committing and take none of "
                f"{_NOT_WITH_A_SHARED_WORLD} (see tests/browser/conftest.py shared_world)"
            )


@pytest.fixture
def page(browser):
    """A tab that fails its test on any Content-Security-Policy violation: every page must
    work under the portal's policy (no inline script, no eval, no stray inline style)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(10_000)
    violations = csp_watch(page)
    yield page
    context.close()
    assert violations == [], violations


@pytest.fixture
def sign_in(live_server, page):
    def sign_in(username: str, password: str = "pw"):
        return sign_in_as(page, live_server.url, username, password)

    return sign_in


SERIOUS_AXE_IMPACTS = ("serious", "critical")


def axe_serious_violations(page, *, context=None) -> list[str]:
    """axe-core's serious and critical violations on the page as it stands, one line each:
    `rule-id (impact): target, target … — help`. Moderate and minor findings are left out."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page, context=context)
    found = []
    for violation in results.response["violations"]:
        if violation.get("impact") not in SERIOUS_AXE_IMPACTS:
            continue
        targets = ", ".join(" ".join(map(str, node["target"])) for node in violation["nodes"])
        found.append(f"{violation['id']} ({violation['impact']}): {targets} — {violation['help']}")
    return found


def assert_no_serious_axe_violations(page, *, context=None) -> None:
    """Fails the test listing every axe-core violation of impact serious or critical (rule id,
    the elements it hit and what to fix). `context` narrows the check to part of the page
    (an axe context: a selector or {"include": [...], "exclude": [...]})."""
    found = axe_serious_violations(page, context=context)
    assert not found, "axe-core (serious/critical):\n" + "\n".join(found)


@pytest.fixture
def assert_accessible():
    """`assert_accessible(page)`: the fixture form of `assert_no_serious_axe_violations`."""
    return assert_no_serious_axe_violations
