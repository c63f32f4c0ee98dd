"""A sent quote to make proposals of, and helpers to read the PDFs."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader

from quoting.quotes.services.quotes import (
    quote_add_free_text,
    quote_add_product,
    quote_create,
    quote_send,
)
from tests.quoting.factories import ProductFactory, price_set


def quote_sent(world, *, descriptions=("Site survey and cabling plan",), company=None, lines=0):
    """A quote with one catalog line and free-text lines, sent (its revision frozen)."""
    customer = world.customer
    if company is not None:
        customer.company = company
        customer.save()
    price_set(ProductFactory(part_number="SW-1", name="QM9790 switch"), "CNY", "100000.00")
    quote = quote_create(project=world.project, user=world.sales)
    quote_add_product(
        quote=quote, sku="SW-1", quantity=2, user=world.sales, expected_version=quote.version
    )
    for n, text in enumerate([*descriptions, *(f"Line {i}" for i in range(lines))]):
        quote_add_free_text(
            quote=quote,
            description=text,
            quantity=1 + n % 3,
            unit_price="1234.50",
            user=world.sales,
            expected_version=quote.version,
        )
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    quote.refresh_from_db()
    return quote


@pytest.fixture
def sent_quote(world):
    return quote_sent(world)


def sent_pdf(revision, language: str = "en"):
    """The sent PDF the send requested for `revision` in `language`, rendered now, as the
    worker would: the send queues its renders on commit, which a test's transaction never
    reaches. Render only the languages a test reads (Chinese costs the most)."""
    from proposals.documents.selectors import document_for
    from proposals.documents.services import proposal_render
    from proposals.models import DocumentStatus, ProposalDocument

    requested = document_for(revision=revision, language=language)
    assert requested is not None, f"the send requested no {language} PDF of {revision}"
    if requested.status != DocumentStatus.READY:
        proposal_render(document_id=requested.pk)
    document = ProposalDocument.objects.get(pk=requested.pk)
    assert document.status == DocumentStatus.READY, document.error
    return document


def pdf_reader(data: bytes) -> PdfReader:
    return PdfReader(io.BytesIO(data))


def pdf_text(data: bytes) -> str:
    return "\n".join(page.extract_text() or "" for page in pdf_reader(data).pages)


def quote_rich(world, *, language="en", costs=None):
    """A quote from a real design of the shipped catalog, with a TCO scenario and a support tier:
    every part of the proposal has something to show. Needs the `seeded` fixture. `costs` (the
    TCO request's) make its figures as wide as a real cluster's."""
    quote = _quote_rich_draft(world, language=language, costs=costs)
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    quote.refresh_from_db()
    return quote


LONG_QUOTE_LINES = 200


def quote_long(world, *, language="en"):
    """quote_rich grown to 200 lines, as a large cluster's offer is: the design's BOM, an
    alternative fabric from a second design, per-rack cabling kits with long descriptions,
    services and optional items; sent. Needs the `seeded` fixture."""
    from quoting.designs.services.saved import design_save
    from quoting.quotes.models import Section
    from quoting.quotes.services.quotes import quote_add_alternative

    quote = _quote_rich_draft(world, language=language)
    rail = design_save(
        project=world.project,
        name="128 GPUs, RoCE",
        user=world.sales,
        requirements={
            "server_count": 16,
            "gpus_per_server": 8,
            "nic_generation": "NDR",
            "switch_part_number": "MQM9700-NS2F",
            "label": world.customer.company,
        },
    )
    quote_add_alternative(
        quote=quote,
        design=rail,
        label="Managed switches",
        user=world.sales,
        expected_version=quote.version,
    )
    lines = quote.current_revision.lines.count()
    # About a half network kits, a third services, the rest optional items: 200 in all.
    kinds = ["network", "network", "network", "services", "services", "optional"]
    for n in range(LONG_QUOTE_LINES - lines):
        kind = kinds[n % len(kinds)]
        rack = f"{n // 3 + 1:02d}"
        description = {
            "network": f"Rack {rack} cabling kit: LinkX 400G OSFP twin-port DAC and AOC cables, "
            "labelled both ends, bundled per server, with Velcro ties and a patch-panel map",
            "services": f"Rack {rack} on-site installation, cabling and link verification by a "
            "certified engineer, including a cable test report",
            "optional": f"Rack {rack} spare optics (two 400G transceivers, kept on site)",
        }[kind]
        quote_add_free_text(
            quote=quote,
            description=description,
            quantity=1 + n % 4,
            unit_price=f"{1200 + 37 * n}.50",
            section={"network": Section.NETWORK, "services": Section.SERVICES}.get(
                kind, Section.OPTIONAL
            ),
            user=world.sales,
            expected_version=quote.version,
        )
    quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    quote.refresh_from_db()
    return quote


def _quote_rich_draft(world, *, language="en", costs=None):
    from quoting.designs.models import TcoScenario
    from quoting.designs.services.saved import design_save
    from quoting.designs.services.tco import tco_compute
    from quoting.engine.tco.presets import WORKLOAD_PRESETS
    from quoting.quotes.services.quotes import quote_create_from_design

    world.customer.language = language
    world.customer.save()
    design = design_save(
        project=world.project,
        name="128 GPUs",
        user=world.sales,
        requirements={
            "server_count": 16,
            "gpus_per_server": 8,
            "nic_generation": "NDR",
            "switch_part_number": "MQM9790-NS2F",
            "subnet_manager": "on-switch",
            "label": world.customer.company,
        },
    )
    request = {
        "gpu": "H100",
        "nodes": 16,
        "gpus_per_node": 8,
        "workload": WORKLOAD_PRESETS["llm_pretrain_7b"].workload,
        "fabrics": [
            {"name": "8x400G IB", "transport": "infiniband", "nics_per_node": 8, "nic_gbps": 400},
            {"name": "2x100G RoCE", "transport": "roce", "nics_per_node": 2, "nic_gbps": 100},
        ],
        **({"costs": costs} if costs else {}),
    }
    scenario = TcoScenario.objects.create(
        project=world.project,
        name="IB vs RoCE",
        request=request,
        result=tco_compute(data=request).as_dict(),
        created_by=world.sales,
    )
    quote = quote_create_from_design(
        project=world.project, design=design, user=world.sales, tco=scenario
    )
    quote_add_product(
        quote=quote, sku="SUP-PREM-1Y", quantity=1, user=world.sales, expected_version=quote.version
    )
    return quote


@pytest.fixture
def loopback():
    """An HTTP listener on 127.0.0.1 that counts every request it gets (a redirect at /redirect).

    Yields (base URL, list of paths hit)."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from tests.service_helpers import serve_in_background

    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the http.server name
            hits.append(self.path)
            if self.path.startswith("/redirect"):
                self.send_response(302)
                self.send_header("Location", "file:///etc/passwd")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/css")
            self.end_headers()
            self.wfile.write(b"body { color: red }")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    serve_in_background(server)
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", hits
    finally:
        server.shutdown()
        server.server_close()


def quote_with_lines(world, count: int, *, send: bool = False):
    """A quote with `count` free-text lines, written in bulk (rendering is what is measured)."""
    from decimal import Decimal

    from quoting.quotes.models import LineKind, QuoteLine, Section

    quote = quote_create(project=world.project, user=world.sales)
    QuoteLine.objects.bulk_create(
        QuoteLine(
            revision=quote.current_revision,
            position=n,
            section=Section.NETWORK,
            kind=LineKind.FREE_TEXT,
            sku=f"SKU-{n:04d}",
            description=f"Line {n}: NVIDIA cable or optic, long enough to wrap in the PDF table",
            quantity=1 + n % 7,
            unit_price=Decimal("1234.56"),
        )
        for n in range(1, count + 1)
    )
    if send:
        quote_send(quote=quote, user=world.sales, expected_version=quote.version)
    quote.refresh_from_db()
    return quote
