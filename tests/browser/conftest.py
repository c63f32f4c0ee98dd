"""Real headless Chromium (Debian's package) driven by Playwright; no browser downloads."""

from __future__ import annotations

import os
import shutil

import pytest

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
