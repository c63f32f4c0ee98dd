"""The customer's share page: a sent revision is frozen, so its document is rendered once per
language and kept in the shared cache (Redis in production). A view then costs the token lookup,
the recorded open and a small part around the kept body (the answer forms or the status).

The kept body is the proposal's own content template (the one the PDF prints), made for screens
once, when it is rendered: each cell of a table with a header carries its column's name (the
cards of a phone read them), and the drawing is a link to its full-size page. The body does not
hold the link's token (one body serves every link of the revision): it holds a random marker,
replaced by the link's own path on the way out.
"""

from __future__ import annotations

import dataclasses
import hashlib
import secrets
from functools import cache
from html import escape, unescape
from html.parser import HTMLParser
from pathlib import Path

from django.core.cache import cache as shared_cache
from django.template.defaultfilters import floatformat
from django.template.loader import get_template, render_to_string
from django.templatetags.static import static
from django.utils import translation
from django.utils.translation import gettext as _

from proposals.documents.selectors import proposal_content, seller_printed
from quoting.designs.services.snapshots import SNAPSHOT_VERSION
from quoting.errors import InvalidValue
from quoting.quotes.models import QuoteRevision
from quoting.quotes.selectors import OfferChoice, offer_choice, offer_options
from quoting.templatetags.quoting_numbers import rmb_in_words

CONTENT_TEMPLATE = "proposals/_content.html"
CHOICE_TEMPLATE = "proposals/_shared_choice.html"
BODY_SECONDS = 7 * 24 * 3600  # kept a week after its last render; rendered again after that


@dataclasses.dataclass(frozen=True)
class SharedBody:
    html: str  # holds `marker` where the link's own path goes
    marker: str
    has_drawing: bool
    # The customer's choice block as quoted (alternatives, optional items, totals; #15 item 2),
    # rendered with the body; empty when the revision offers no choice.
    choice: str = ""

    @property
    def open_marker(self) -> str:
        """Where the page's open id goes (the page's own, not the body's)."""
        return f"{self.marker}.open"

    @property
    def foot_marker(self) -> str:
        """Where the accept form's foot goes: its buttons, and the signing code's field on a link
        that asks for one (the only part of the page that depends on the link's recipient)."""
        return f"{self.marker}.foot"

    def for_link(self, base: str, open_key: str = "", foot: str = "") -> str:
        html = self.html.replace(self.open_marker, open_key).replace(self.foot_marker, foot)
        return html.replace(self.marker, base)


@cache
def _template_digest() -> str:
    """Part of the key: a deployment that changes the content template renders anew."""
    source = b"".join(
        Path(get_template(name).origin.name).read_bytes()
        for name in (CONTENT_TEMPLATE, CHOICE_TEMPLATE)
    )
    return hashlib.sha256(source + Path(__file__).read_bytes()).hexdigest()[:12]


def _keys(revision: QuoteRevision, language: str) -> tuple[str, str]:
    """(body, PDF ready) keys. A sent revision never changes; the quote's validity, the
    customer's and project's names, the seller's profile and the owner's contact are printed in
    it and may be edited: part of the key (the share lookup reads the seller's part with the
    link; otherwise one small query)."""
    quote = revision.quote
    seller = getattr(quote, "seller_stamp", None)
    if seller is None:
        seller = seller_printed(owner_id=quote.owner_id)
    # The VAT zone decides whether the accept form asks for fapiao details.
    printed = (
        f"{quote.valid_until}|{quote.customer.company}|{quote.project.name}|{seller}|"
        f"{quote.customer.vat_zone}"
    )
    digest = hashlib.sha256(printed.encode()).hexdigest()[:12]
    body = (
        f"proposals:shared-body:{revision.pk}:{language}:{SNAPSHOT_VERSION}:"
        f"{_template_digest()}:{digest}"
    )
    # The sent PDF is the one rendered from the fingerprint stored at the send: a ready flag
    # from before (a draft's preview, an older release) is not this one's.
    fingerprint = (revision.content_sha256 or "none")[-16:]
    return body, f"proposals:shared-pdf-ready:{revision.pk}:{language}:{fingerprint}"


# While its PDF is being made, the page (saying so) is kept this long: views in between ask
# the database nothing, and the download button appears at most this late.
WAITING_PAGE_SECONDS = 30


def _page_key(body_key: str, state: str, pdf_ready: bool) -> str:
    return f"{body_key}:page:{state}:{'pdf' if pdf_ready else 'waiting'}"


@dataclasses.dataclass(frozen=True)
class SharedCached:
    body: SharedBody | None
    pdf_ready: bool  # known ready (else: ask the database)
    page: SharedBody | None  # the whole page of this state and PDF, nothing posted


def shared_cached(*, revision: QuoteRevision, language: str, state: str) -> SharedCached:
    """What is kept for this revision, language and state: one cache round trip."""
    body_key, ready_key = _keys(revision, language)
    ready_page, waiting_page = (_page_key(body_key, state, ready) for ready in (True, False))
    found = shared_cache.get_many([body_key, ready_key, ready_page, waiting_page])
    body, pdf_ready = found.get(body_key), bool(found.get(ready_key))
    page = found.get(ready_page if pdf_ready else waiting_page)
    return SharedCached(
        body=SharedBody(**body) if isinstance(body, dict) else None,
        pdf_ready=pdf_ready,
        page=SharedBody(**page) if isinstance(page, dict) else None,
    )


def shared_page_remember(
    *, revision: QuoteRevision, language: str, state: str, pdf_ready: bool, page: SharedBody
) -> None:
    """The plain page (no answer posted) is the same for every view of this state and PDF:
    kept whole, a view renders nothing."""
    body_key, _ = _keys(revision, language)
    shared_cache.set(
        _page_key(body_key, state, pdf_ready),
        dataclasses.asdict(page),
        BODY_SECONDS if pdf_ready else WAITING_PAGE_SECONDS,
    )


def shared_pdf_ready_remember(*, revision: QuoteRevision, language: str) -> None:
    """A ready PDF of a frozen revision stays ready: later views need not ask the database."""
    shared_cache.set(_keys(revision, language)[1], True, BODY_SECONDS)


def shared_body_render(*, revision: QuoteRevision, language: str) -> SharedBody:
    """Render the body of `revision` in `language` and keep it (without a cache, Redis down,
    it is simply rendered again on the next view)."""
    marker = "share-" + secrets.token_hex(16)  # unknowable to whoever wrote the quote's text
    with translation.override(language):
        content = proposal_content(revision=revision, language=language)
        has_drawing = bool(content.drawing_uri)
        if has_drawing:  # served on its own URL: the page stays small, the drawing full size
            content = dataclasses.replace(
                content, drawing_uri=f"{marker}/drawing.svg?lang={language}"
            )
        html = render_to_string(
            CONTENT_TEMPLATE,
            {"c": content, "language": language, "logo_src": static("proposal/logo.svg")},
        )
        html = screen_ready(
            str(html),
            drawing_href=f"{marker}/drawing?lang={language}",
            drawing_caption=_("Open the drawing full size"),
        )
        choice = shared_choice_render(revision=revision, language=language, base=marker)
    body = SharedBody(html=html, marker=marker, has_drawing=has_drawing, choice=choice)
    shared_cache.set(_keys(revision, language)[0], dataclasses.asdict(body), BODY_SECONDS)
    return body


# --- the customer's choice of alternative and optional items (#15 item 2) ------------------------


def choice_figures(choice: OfferChoice, *, currency: str, language: str) -> dict[str, str]:
    """The choice's totals as the page prints them (grouped, in the active language): the page
    and the price endpoint's JSON alike, so the script shows these and computes nothing."""
    totals = choice.totals

    def money(amount) -> str:
        return f"{floatformat(amount, '2g')} {currency}"

    return {
        "subtotal": money(totals.subtotal),
        "discount": "−" + money(totals.discount),
        "net": money(totals.net),
        "tax": money(totals.tax),
        # Goods and services are taxed at different rates: each rate's tax on its net.
        "tax_rates": " · ".join(
            _("%(percent)s %% on %(net)s: %(tax)s")
            % {
                "percent": floatformat(row.vat_percent, "-2"),
                "net": money(row.net),
                "tax": money(row.tax),
            }
            for row in totals.tax_breakdown
        ),
        "total": money(totals.total),
        "in_words": (
            rmb_in_words(totals.total) if language.startswith("zh") and currency == "CNY" else ""
        ),
    }


def shared_choice_render(
    *,
    revision: QuoteRevision,
    language: str,
    base: str,
    alternative: str = "",
    optional_keys=(),
    error: str = "",
) -> str:
    """The choice block of the share page: each alternative and optional item, with the totals
    of what is picked (as quoted by default). Picks the revision does not offer show as quoted
    (the accept refuses them with its own message). Empty when the revision offers no choice."""
    options = offer_options(revision=revision)
    if not options:
        return ""
    try:
        choice = offer_choice(
            revision=revision,
            alternative=alternative,
            optional_keys=optional_keys,
            lines=options.lines,
        )
    except InvalidValue:
        choice = offer_choice(revision=revision, lines=options.lines)
    with translation.override(language):
        return render_to_string(
            CHOICE_TEMPLATE,
            {
                "options": options,
                "choice": choice,
                "picked_optional": set(choice.optional_keys),
                # What the reader can tick in the configuration shown, counted on the fold.
                "offered": options.offered_with(choice.alternative),
                "figures": choice_figures(
                    choice, currency=revision.quote.currency, language=language
                ),
                "revision": revision,
                "quote": revision.quote,
                "base": base,
                "language": language,
                "error": error,
            },
        )


class _ScreenReady(HTMLParser):
    """Copies HTML through unchanged, except: every cell under a table header gets
    data-label="<its column's header>", and the drawing's image
    is wrapped in a link to its full-size page."""

    def __init__(self, *, drawing_href: str, drawing_caption: str) -> None:
        super().__init__(convert_charrefs=False)
        self.out: list[str] = []
        self.tables: list[dict] = []
        self.header: list[str] | None = None  # text of the <th> being read in a <thead>
        self.in_drawing = False
        self.drawing_href, self.drawing_caption = drawing_href, drawing_caption

    def _with(self, raw: str, extra: str) -> str:
        return raw[:-2] + extra + "/>" if raw.endswith("/>") else raw[:-1] + extra + ">"

    def handle_starttag(self, tag, attrs):
        raw = self.get_starttag_text()
        table = self.tables[-1] if self.tables else None
        classes = (dict(attrs).get("class") or "").split()
        if tag == "table":
            self.tables.append({"heads": [], "in_head": False, "column": 0})
        elif table is not None and tag == "thead":
            table["in_head"] = True
        elif table is not None and tag == "th" and table["in_head"]:
            self.header = []
            table["heads"].append("")
        elif table is not None and tag == "tr" and not table["in_head"]:
            table["column"] = 0
        elif table is not None and tag in ("td", "th") and table["heads"]:
            column = table["column"]
            table["column"] += 1
            if column < len(table["heads"]):
                raw = self._with(raw, f' data-label="{escape(table["heads"][column])}"')
        elif tag == "figure" and "drawing" in classes:
            self.in_drawing = True
        elif tag == "img" and self.in_drawing:
            raw = f'<a class="drawing-link" href="{escape(self.drawing_href)}">{raw}</a>'
        self.out.append(raw)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        table = self.tables[-1] if self.tables else None
        if tag == "th" and self.header is not None and table is not None:
            table["heads"][-1] = " ".join(unescape("".join(self.header)).split())
            self.header = None
        elif tag == "thead" and table is not None:
            table["in_head"] = False
        elif tag == "table" and self.tables:
            self.tables.pop()
        elif tag == "figure" and self.in_drawing:
            self.in_drawing = False
            self.out.append(
                f'<figcaption><a href="{escape(self.drawing_href)}">'
                f"{escape(self.drawing_caption)}</a></figcaption>"
            )
        self.out.append(f"</{tag}>")

    def handle_data(self, data):
        if self.header is not None:
            self.header.append(data)
        self.out.append(data)

    def handle_entityref(self, name):
        self.handle_data(f"&{name};")

    def handle_charref(self, name):
        self.handle_data(f"&#{name};")

    def handle_comment(self, data):
        self.out.append(f"<!--{data}-->")

    def handle_decl(self, decl):
        self.out.append(f"<!{decl}>")


def screen_ready(html: str, *, drawing_href: str, drawing_caption: str) -> str:
    parser = _ScreenReady(drawing_href=drawing_href, drawing_caption=drawing_caption)
    parser.feed(html)
    parser.close()
    return "".join(parser.out)
