"""Every page a Chinese-speaking user or customer reads is in Chinese.

The main pages (a draft's editing forms and the customer and project forms too), the sign-in
page, the share page (with its accept form, the decline confirmation and the as-built sign-off),
the manager's approval page and work queue, the inbox, the revision diff, the company profile
and the 403 page; what a share link shows instead of the offer (its 404, its 429s, the PDF's
wait page); the proposal PDF, the signed copy with its
certificate page, the as-built report and the Excel workbooks; and the e-mails a customer gets
(the link, a reminder, a signing code) are rendered in zh-hans; their visible text
(tags, scripts and styles stripped; titles, placeholders and labels for screen readers kept) may
hold English only where it is a product or brand name, a unit, a part number or the user's own
data. Those are listed here one by one: anything else English is a string someone forgot to
translate, and the failure names it with its page.
"""

from __future__ import annotations

import base64
import html
import re
from collections import Counter

import pytest
from django.utils import translation

# Names that stay as they are in Chinese text: NVIDIA's product and brand names, protocols and
# standards, and units, grouped so a reviewer can see what is let through. Words only: a phrase
# of them would still be flagged word by word if it is not made of these.
ALLOWED_WORDS = {
    # brands and product families
    "NVIDIA",
    "Excel",  # Microsoft's, as Chinese buyers name it; and its file type
    "xlsx",
    "Mellanox",
    "InfiniBand",
    "ConnectX",
    "Quantum",
    "Spectrum",
    "BlueField",
    "LinkX",
    "UFM",
    "HGX",
    "DGX",
    "SuperPOD",
    "BasePOD",  # NVIDIA's DGX BasePOD reference architecture
    "Hopper",
    "Blackwell",
    "Grace",
    "NVMe",  # the storage interface, named so in Chinese too
    "Cumulus",
    "Onyx",
    "MLNX-OS",
    "NVLink",
    "SHARP",
    "SHARPv3",
    "SuperNIC",
    "Enterprise",  # UFM Enterprise
    "FabricQuote",  # the portal's own name
    "English",  # the language switch names each language in itself
    # protocols, standards and technologies
    "RoCE",
    "RoCEv2",
    "RDMA",
    "MLAG",  # multi-chassis link aggregation, named so in Chinese switch manuals too
    "Ethernet",
    "EDR",
    "HDR",
    "NDR",
    "XDR",
    "GbE",
    "PCIe",
    "OSFP",
    "QSFP",
    "QSFP-DD",
    "QSFP112",
    "QSFP56",
    "SFP",
    "DAC",
    "ACC",
    "AOC",
    "MPO",
    "MMF",
    "SMF",
    "LC",
    "APC",
    "SR",
    "DR",
    "FR",
    "LR",
    "PAM4",
    "BGP",
    "EVPN",
    "VXLAN",
    "ECN",
    "PFC",
    "DCQCN",
    "SM",
    "GPU",
    "GPUs",
    "CPU",
    "NIC",
    "NICs",
    "HCA",
    "DPU",
    "TOR",
    "ToR",
    "LLM",
    "AI",
    "HPC",
    "API",
    "CSV",
    "PDF",
    "PAdES",  # ETSI's PDF signatures, named so on the signed copy's certificate
    "SVG",
    "PNG",  # the logo and chop uploads' file types
    "JPEG",
    "ZIP",
    "URL",
    "VAT",
    "TCO",
    "BOM",
    "SKU",
    "ID",
    "IP",
    "GUID",  # InfiniBand's node and port GUIDs, which the as-built check matches by
    "MTBF",
    "PUE",
    "NCCL",
    "MFU",
    "FP8",
    "FP16",
    "BF16",
    "TFLOPS",
    "PFLOPS",
    "KPI",
    "SLA",
    "RMA",
    "IB",
    "OEM",
    "OPEX",
    "CAPEX",
    "ROI",
    "FEC",
    "BER",
    "SerDes",
    "HTTPS",
    "UTC",
    # topology layers: Chinese network engineers write Leaf, Spine and Core as they are (the
    # established translations do: "服务器到 Leaf", "Leaf–Spine 组网")
    "Leaf",
    "Spine",
    "Core",
    "Leaf-Spine",
    "Pod",
    # AI training and collective-communication terms used as they are in Chinese
    "token",
    "tokens",
    "nccl-tests",
    "busbw",
    "AllReduce",
    "all-to-all",
    "GPUDirect",
    "QP",
    "ECMP",
    "E-ECMP",
    "MoE",
    "DDP",
    "FSDP",
    "ZeRO",
    "Megatron-Core",
    "Llama",
    "Mixtral",
    "SXM",
    "Dx",
    "OpenSM",
    "ibnetdiscover",  # InfiniBand's discovery command, typed as it is named
    "LACC",
    "TFLOP",
    "NPV",
    "TCP",
    "Simple",  # NCCL's protocol of that name
    "Ring",  # NCCL's algorithm of that name (NCCL_ALGO=Ring)
    "NVLS",  # NCCL's NVLink SHARP algorithm
    # sources cited by the TCO assumptions
    "Tolly",
    "Meta",
    "SIGCOMM",
    "GitHub",
    # units and currencies
    "Gb",
    "Gbps",
    "Tb",
    "Tbps",
    "GB",
    "TB",
    "MB",
    "KB",
    "kW",
    "kWh",
    "MW",
    "W",
    "U",
    "RU",
    "kg",
    "m",
    "km",
    "mm",
    "ms",
    "µs",
    "ns",
    "s",
    "h",
    "x",
    "B",
    "GiB",
    "CNY",
    "USD",
    "EUR",
    "RMB",
    # the customer form's country: an ISO 3166 code, CN the one it names
    "ISO",
    "CN",
    # the seed catalog's model codes that carry no digit
    "HDR-SR",
    "SN",
    "MTEF-PSF-AC-K",  # the QM9700/QM9790's power supply, airflow forward (P2C)...
    "MTEF-PSR-AC-K",  # ...and reverse (C2P)
    # a hall's rows are lettered (their racks A01, A02 ...): "A 排" names row A; a cable's
    # ends are its A and Z ends ("A 端", "Z 端"), as on the cable schedule
    "A",
    "Z",
}

# Part numbers, model codes and figures with letters: anything holding a digit (MQM9790-NS2F,
# H100, 400G, 2x100G, R1, 800GbE) is a code, not prose; so is the NCCL test's command line
# (NCCL_ALGO=Ring all_reduce_perf -b 8 ...), named token by token: a raw identifier anywhere
# else (a JSON key such as swapped_with) is still English to translate. A time zone's IANA
# key (the signer's, as the certificate prints it: "UTC+08:00 (Asia/Shanghai)") is a code too.
CODE = re.compile(
    r"\S*\d\S*|\bNCCL_[A-Z_]+(?:=\w+)?|\ball_reduce_perf\b|(?<!\S)-[a-z](?!\S)"
    r"|\b(?:Africa|America|Asia|Atlantic|Australia|Europe|Indian|Pacific)/[A-Z][A-Za-z_]+\b"
)
WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*[A-Za-z]|[A-Za-z]")

# The test's own data (user input, shown as typed): companies, people and the like.
USER_DATA = (
    "wang",
    "li",
    "zhao",
    "sales-user",
    "Shenzhen",
    "Beijing",  # users and teams
)

VISIBLE_ATTRIBUTES = ("title", "placeholder", "aria-label", "alt")


def visible_text(markup: str) -> str:
    """The text a reader sees or hears: tags, scripts, styles and comments removed, the
    attributes that are read out kept."""
    markup = re.sub(r"<(script|style|template)\b.*?</\1>", " ", markup, flags=re.S | re.I)
    markup = re.sub(r"<!--.*?-->", " ", markup, flags=re.S)
    attributes = [
        value
        for name in VISIBLE_ATTRIBUTES
        for value in re.findall(rf'\s{name}="([^"]*)"', markup, flags=re.I)
    ]
    text = re.sub(r"</?(span|b|strong|em|small|sup|sub)\b[^>]*>", "", markup)  # inside a word
    text = re.sub(r"<[^>]+>", " ", text)
    return html.unescape(" ".join([text, *attributes]))


def english_words(text: str, *, user_data=()) -> Counter:
    """English words in `text` that are neither allowed names nor codes nor user data."""
    for value in sorted({*USER_DATA, *user_data}, key=len, reverse=True):
        if value:
            text = re.sub(rf"(?<![\w-]){re.escape(value)}(?![\w-])", " ", text)
    text = re.sub(r"https?://\S+|\S+@\S+", " ", text)  # addresses are data
    text = re.sub(r"-\n(?=\S)", "-", text)  # a part number the PDF broke after its hyphen
    text = CODE.sub(" ", text)
    found = Counter()
    for word in WORD.findall(text):
        if word in ALLOWED_WORDS or word.strip("'’-") in ALLOWED_WORDS:
            continue
        if all(part in ALLOWED_WORDS for part in re.split(r"[-'’]", word) if part):
            continue
        found[word] += 1
    return found


def report(pages: dict[str, Counter]) -> str:
    lines = []
    for page, words in pages.items():
        if words:
            listed = ", ".join(f"{w}×{n}" if n > 1 else w for w, n in words.most_common())
            lines.append(f"{page}: {sum(words.values())} English words: {listed}")
    return "\n".join(lines)


# --- the world the pages show --------------------------------------------------------------------


@pytest.fixture(params=["zh-hans", "en"], ids=["made-in-chinese", "made-in-english"])
def chinese_world(request, make_user, seeded):
    """A Chinese-speaking sales engineer and manager, a Chinese customer with an accepted quote
    from a real design (with its TCO, a support line and the company's default payment
    schedule) and a share link to it. The quote is made in Chinese, and again in English (an
    English-speaking sales engineer, the customer's language English then): what it keeps must
    be keys and numbers, never the writer's words (#27 item 4), so both read in Chinese."""
    from portal.models import CompanyProfile
    from proposals.share.services import share_link_create
    from tests.proposals.conftest import quote_rich
    from tests.quoting.factories import world_make

    made_in = request.param
    world = world_make(make_user)
    CompanyProfile.objects.create(
        legal_name_en="Shenzhen Fabric Networks Ltd.",
        legal_name_zh="深圳织网科技有限公司",
        payment_schedule=[
            {"label": "On order", "percent": "30.00"},
            {"label": "On delivery", "percent": "60.00"},
            {"label": "On acceptance", "percent": "10.00"},
        ],
    )
    for user in (world.sales, world.manager):
        user.language = made_in
        user.save()
    world.customer.company = "鹏城实验室"
    world.customer.industry = "科研"
    world.customer.region = "广东深圳"
    world.customer.save()
    world.project.name = "智算中心一期"
    world.project.save()
    with translation.override(made_in):
        quote = quote_rich(world, language=made_in)
        link, token = share_link_create(quote=quote, user=world.sales, recipient_name="李伟")
    world.customer.language = "zh-hans"
    world.customer.save()
    for user in (world.sales, world.manager):
        user.language = "zh-hans"
        user.save()
    world.token = token
    world.link = link
    world.quote = quote
    world.made_in = made_in
    return world


def _get(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


DESIGN_QUERY = (
    "gpu_count=256&gpus_per_server=8&nic_generation=NDR&family=infiniband&planes=1"
    "&oversubscription=1&switch_part_number=MQM9790-NS2F&server_to_leaf=same-row"
    "&leaf_to_spine=same-row&spine_to_core=across-hall&subnet_manager=on-switch"
    "&spares_percent=2&rail_optimized=on&currency=CNY&rack_power_kw=40"
)
# Inputs the engine refuses, so its messages and the distance help are shown.
DESIGN_ERRORS = (
    "gpu_count=64&gpus_per_server=8&nic_generation=NDR&family=infiniband&planes=1"
    "&oversubscription=1&growth_gpus=16&server_to_leaf=far&leaf_to_spine=same-row"
    "&spine_to_core=across-hall&subnet_manager=auto&spares_percent=0"
)


def pages_in_chinese(client, world, *, proposal: bytes) -> dict[str, str]:
    """Page name -> visible text of the main pages, the share page and the `proposal` PDF (the
    sent one, in Chinese), rendered in Chinese."""
    from proposals.documents.selectors import proposal_content
    from tests.proposals.conftest import pdf_text

    quote, project, customer = world.quote, world.project, world.customer
    design = project.designs.first()
    client.force_login(world.sales)
    pages = {
        "home": _get(client, "/"),
        "design page": _get(client, f"/designs/new/?{DESIGN_QUERY}"),
        "design page (errors)": _get(client, f"/designs/new/?{DESIGN_ERRORS}"),
        "saved design": _get(client, f"/designs/new/?project={project.pk}&design={design.pk}"),
        "design TCO panel": _get(client, f"/designs/tco/?{DESIGN_QUERY}&preset=llm_pretrain_7b"),
        "quote page (accepted)": _get(client, f"/quotes/{quote.pk}/"),
        "quote list": _get(client, "/quotes/"),
        "proposal page": _get(client, f"/quotes/{quote.pk}/proposal/"),
        "quote TCO panel": _get(client, f"/quotes/{quote.pk}/tco/"),
        "proposal panel": _get(client, f"/quotes/{quote.pk}/proposal-panel/"),
        "acceptance panel": _get(client, f"/quotes/{quote.pk}/acceptance/"),
        "renewals panel": _get(client, f"/quotes/{quote.pk}/renewals/"),
        "TCO page": _get(client, "/tco/"),
        "customer list": _get(client, "/customers/"),
        "customer page": _get(client, f"/customers/{customer.pk}/"),
        "project list": _get(client, "/projects/"),
        "project page": _get(client, f"/projects/{project.pk}/"),
        "catalog": _get(client, "/catalog/"),
        "catalog product": _get(client, "/catalog/MQM9790-NS2F/"),
        "new customer form": _get(client, "/customers/new/"),
        "customer edit form": _get(client, f"/customers/{customer.pk}/edit/"),
        "new project form": _get(client, f"/customers/{customer.pk}/projects/new/"),
    }
    # A draft with its editing forms (lines, alternatives, payment milestones, TCO options).
    draft = draft_from_the_design(world)
    pages["quote page (draft)"] = _get(client, f"/quotes/{draft.pk}/")
    pages["quote TCO panel (draft)"] = _get(client, f"/quotes/{draft.pk}/tco/")
    client.logout()
    signin = client.get("/accounts/login/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert signin.status_code == 200
    pages["sign-in page"] = signin.content.decode()
    pages["share page"] = _get(client, f"/p/{world.token}")
    # The share page's drawing is served on its own URL: read the one the page itself shows.
    drawing_src = re.search(r'<img src="([^"]*/drawing\.svg[^"]*)"', pages["share page"])
    assert drawing_src, "the share page should show the fabric drawing"
    share_drawing = _get(client, html.unescape(drawing_src.group(1)))
    pages["share page drawing page"] = _get(client, f"/p/{world.token}/drawing")
    texts = {name: visible_text(body) for name, body in pages.items()}
    texts["share page drawing"] = visible_text(share_drawing)
    texts["proposal PDF"] = pdf_text(proposal)
    # The PDF and the share page show the drawing and the charts as images: read their texts.
    content = proposal_content(revision=quote.current_revision, language="zh-hans")
    images = [content.drawing_uri, *content.tco_charts]
    assert all(images) and len(images) >= 3, "the proposal should have a drawing and charts"
    texts["proposal drawing and charts"] = " ".join(
        visible_text(base64.b64decode(uri.split(",", 1)[1]).decode()) for uri in images
    )
    return texts


def draft_from_the_design(world):
    """A draft of the accepted quote's design and TCO, made in the writer's language."""
    from quoting.quotes.services.quotes import quote_create_from_design

    with translation.override(world.made_in):
        return quote_create_from_design(
            project=world.project,
            design=world.project.designs.first(),
            user=world.sales,
            tco=world.project.tco_scenarios.first(),
        )


def share_pages_before_the_answer(client, world) -> dict[str, str]:
    """The customer's share page with its accept form open to them, and the page asking to
    confirm a decline (nothing is recorded by it)."""
    revision = world.quote.current_revision.number
    pages = {"share page (accept form)": _get(client, f"/p/{world.token}")}
    confirm = client.post(f"/p/{world.token}/decline", {"revision": revision, "reason": "预算"})
    assert confirm.status_code == 200 and 'name="confirmed"' in confirm.content.decode()
    pages["share page (decline confirmation)"] = confirm.content.decode()
    assert 'name="agreed"' in pages["share page (accept form)"], "the accept form is there"
    return {name: visible_text(body) for name, body in pages.items()}


def share_pages_refused_or_waiting(client, world, settings) -> dict[str, str]:
    """What a share link shows instead of the offer: the PDF's wait page while it renders, the
    one 404 of an unknown, expired or revoked token (no link to take the language from: the
    browser's), and the 429 pages of too many misses and of too many accept attempts."""
    revision = world.quote.current_revision.number
    waiting = client.get(f"/p/{world.token}/pdf")
    assert waiting.status_code == 202, "the PDF should still be rendering"
    settings.PROPOSALS_LINK_MISSES_ALLOWED = 1
    settings.PROPOSALS_LINK_ACCEPTS_ALLOWED = 0
    misses = [client.get(f"/p/no-such-link-{n}", HTTP_ACCEPT_LANGUAGE="zh-hans") for n in range(2)]
    assert [miss.status_code for miss in misses] == [404, 429]
    accepting = client.post(f"/p/{world.token}/accept", {"revision": revision, "name": "李伟"})
    assert accepting.status_code == 429
    pages = {
        "share PDF wait page": waiting,
        "share link 404": misses[0],
        "share link 429 (misses)": misses[1],
        "share link 429 (accept attempts)": accepting,
    }
    return {name: visible_text(response.content.decode()) for name, response in pages.items()}


def user_data_of(world) -> tuple[str, ...]:
    from proposals.management.commands.signing_certificate_dev import COMMON_NAME

    # The signing certificate's name (the development one's here) and the as-built upload's
    # file name are printed as they are.
    return (
        world.quote.number,
        world.sales.username,
        world.manager.username,
        "qian",
        COMMON_NAME,
        "fabric.txt",
    )


def mails_in_chinese(world, capture) -> dict[str, str]:
    """The e-mails of an e-mailed link to the offer, its signing code and both reminders, as
    they reach Django's outbox (the tasks run on commit, eagerly): subject, text and HTML."""
    from django.core import mail

    from proposals.acceptance.services import signer_code_send
    from proposals.share.mail import share_link_reminder
    from proposals.share.services import share_link_create

    with translation.override(world.made_in), capture(execute=True):
        link, _ = share_link_create(
            quote=world.quote,
            user=world.sales,
            recipient_name="李伟",
            recipient_email="li.wei@pcl.example.cn",
            send_email=True,
            message="请查收报价。",
            language="zh-hans",
        )
    with translation.override(world.made_in), capture(execute=True):
        signer_code_send(link=link, revision_number=world.quote.current_revision.number)
    link.refresh_from_db()
    with translation.override(world.made_in):  # the daily task's, in the link's language
        for kind in ("expiry", "unanswered"):
            share_link_reminder(link, kind=kind).send()
    names = ("link e-mail", "signing-code e-mail", "expiry reminder", "unanswered reminder")
    assert len(mail.outbox) == len(names), [m.subject for m in mail.outbox]
    assert all(re.search("[\u4e00-\u9fff]", m.subject) for m in mail.outbox), "in Chinese"
    return {
        name: " ".join(
            [message.subject, message.body, *(visible_text(a[0]) for a in message.alternatives)]
        )
        for name, message in zip(names, mail.outbox, strict=True)
    }


def quote_revised_for_approval(world):
    """A second quote, sent as R1, revised to R2 with a line more and a discount past the sales
    engineer's rule, and put to the manager: the approval page and the revision diff."""
    from quoting.quotes.services.quotes import (
        quote_add_free_text,
        quote_create,
        quote_request_approval,
        quote_revise,
        quote_send,
        quote_set_discount,
    )
    from tests.quoting.factories import quote_reload

    sales = world.sales
    with translation.override(world.made_in):
        quote = quote_create(project=world.project, user=sales)
        for description in ("现场勘察", "布线方案"):
            quote_add_free_text(
                quote=quote,
                description=description,
                quantity=2,
                unit_price="5000.00",
                user=sales,
                expected_version=quote_reload(quote).version,
            )
            if quote_reload(quote).current_revision.number == 1:
                quote_send(quote=quote, user=sales, expected_version=quote_reload(quote).version)
                quote_revise(quote=quote, user=sales, expected_version=quote_reload(quote).version)
        quote_set_discount(
            quote=quote,
            discount_percent=15,
            user=sales,
            expected_version=quote_reload(quote).version,
        )
        quote_request_approval(
            quote=quote, user=sales, expected_version=quote_reload(quote).version, note="大客户折扣"
        )
    return quote_reload(quote)


def workbook_text(data: bytes) -> str:
    """Every sheet's title and every cell's text of an Excel workbook."""
    import io

    from openpyxl import load_workbook

    book = load_workbook(io.BytesIO(data), read_only=True)
    cells = [sheet.title for sheet in book.worksheets]
    for sheet in book.worksheets:
        for row in sheet.iter_rows(values_only=True):
            cells += [value for value in row if isinstance(value, str)]
    return "\n".join(cells)


def documents_and_pages_after_the_acceptance(client, world, document) -> dict[str, str]:
    """The accepted quote's signed copy (countersigned by the manager, so its certificate and
    signature block show both sides), its as-built report and pages, the workbooks, the
    approval page and diff of a second quote, the work queue, the inbox, the company profile
    and the 403 page: page name -> visible text, in Chinese."""
    from portal.models import COMPANY_ADMIN
    from proposals.acceptance.as_built import as_built_sign_off_ask
    from proposals.acceptance.services import acceptance_countersign, signed_copy_make
    from proposals.documents.as_built import as_built_report_pdf
    from proposals.models import Acceptance, DocumentStatus
    from quoting.quotes.services.as_built import as_built_check_run, as_built_plan
    from tests.conftest import user_make
    from tests.proposals.conftest import pdf_reader, pdf_text
    from tests.quoting.quotes.as_built_world import ibnetdiscover_text, links_of

    quote, manager = world.quote, world.manager
    manager.first_name, manager.last_name, manager.job_title = "明", "赵", "销售经理"
    manager.save()
    with translation.override(world.made_in):
        acceptance_countersign(quote=quote, user=manager)
        acceptance = Acceptance.objects.get(revision__quote=quote)
        assert signed_copy_make(acceptance_id=acceptance.pk) == DocumentStatus.READY
        quote.refresh_from_db()
        revision = quote.booked_revision
        planned = links_of(as_built_plan(revision))
        check = as_built_check_run(  # a cable missing: the report has a fault to name
            revision=revision,
            user=world.sales,
            filename="fabric.txt",
            content=ibnetdiscover_text(planned[1:]).encode(),
        )
        as_built_sign_off_ask(check=check, user=world.sales)  # the customer is asked to sign
    revised = quote_revised_for_approval(world)
    admin = user_make("qian", role=COMPANY_ADMIN, language="zh-hans")

    texts = {}
    acceptance.refresh_from_db()
    signed = bytes(acceptance.signed_pdf)
    original_pages = len(pdf_reader(bytes(document.pdf)).pages)
    certificate = pdf_reader(signed).pages[original_pages:]
    assert certificate, "the signed copy should end with its certificate page"
    texts["signed copy certificate page"] = "\n".join(p.extract_text() or "" for p in certificate)
    texts["signed copy PDF"] = pdf_text(signed)
    texts["as-built report PDF"] = pdf_text(as_built_report_pdf(check=check, language="zh-hans"))

    client.force_login(world.sales)
    as_built = f"/quotes/{quote.pk}/revisions/{revision.number}/as-built/"
    pages = {
        "acceptance panel (countersigned)": _get(client, f"/quotes/{quote.pk}/acceptance/"),
        "as-built page": _get(client, as_built),
        "as-built result": _get(client, f"{as_built}{check.pk}/"),
        "revision diff": _get(client, f"/quotes/{revised.pk}/diff/?a=1&b=2"),
        "inbox": _get(client, "/inbox/"),
        "notification settings": _get(client, "/account/notifications/"),
    }
    denied = client.get("/settings/company/")
    assert denied.status_code == 403
    pages["403 page"] = denied.content.decode()
    workbook = client.get(f"/quotes/{quote.pk}/xlsx/?lang=zh-hans")
    assert workbook.status_code == 200
    texts["Excel workbook"] = workbook_text(workbook.content)
    client.force_login(manager)
    pages["approval page"] = _get(client, f"/quotes/{revised.pk}/")
    pages["work queues (manager's home)"] = _get(client, "/")
    pages["manager's inbox"] = _get(client, "/inbox/")
    internal = client.get(f"/quotes/{quote.pk}/xlsx/?lang=zh-hans&variant=internal")
    assert internal.status_code == 200
    texts["Excel workbook (internal)"] = workbook_text(internal.content)
    client.force_login(admin)
    pages["company profile"] = _get(client, "/settings/company/")
    client.logout()
    shared_workbook = client.get(f"/p/{world.token}/xlsx")
    assert shared_workbook.status_code == 200
    texts["share page workbook"] = workbook_text(shared_workbook.content)
    pages["share page (as-built sign-off)"] = _get(client, f"/p/{world.token}")

    assert 'id="decide-form"' in pages["approval page"], "the manager should be asked to decide"
    assert "布线方案" in pages["revision diff"], "the diff should show the line R2 added"
    assert revised.number in pages["work queues (manager's home)"], "the queue should hold it"
    assert 'id="id_legal_name_zh"' in pages["company profile"]
    assert 'id="as-built"' in pages["share page (as-built sign-off)"], "the sign-off is asked"
    return {**texts, **{name: visible_text(body) for name, body in pages.items()}}


def test_every_page_document_workbook_and_email_reads_in_chinese(
    client, chinese_world, django_capture_on_commit_callbacks, settings
):
    from proposals.acceptance.services import share_accept
    from tests.proposals.conftest import sent_pdf

    world = chinese_world
    mails = mails_in_chinese(world, django_capture_on_commit_callbacks)
    refused_or_waiting = share_pages_refused_or_waiting(client, world, settings)
    # The Chinese PDF the send requested, rendered: the acceptance binds it, the signed copy
    # copies it.
    document = sent_pdf(world.quote.current_revision, "zh-hans")
    before_the_answer = share_pages_before_the_answer(client, world)
    share_accept(
        link=world.link,
        revision_number=world.quote.current_revision.number,
        name="李伟",
        title="总工程师",
        agreed=True,
    )
    texts = {**mails, **refused_or_waiting}
    texts |= pages_in_chinese(client, world, proposal=bytes(document.pdf))
    texts |= before_the_answer | documents_and_pages_after_the_acceptance(client, world, document)
    for page in ("proposal PDF", "share page", "quote page (accepted)"):
        assert "下单时" in texts[page], page  # the company's default schedule, kept by key
    found = {
        page: english_words(text, user_data=user_data_of(world)) for page, text in texts.items()
    }
    assert not any(found.values()), "Untranslated English in the Chinese UI:\n" + report(found)


def test_english_prose_is_caught_and_names_codes_and_user_data_are_not():
    text = visible_text(
        '<p title="Open the drawing">NVIDIA Quantum-2 MQM9790-NS2F 交换机 400 Gb/s, 2×100G, '
        "鹏城实验室 wang <script>var hidden = 1</script>Bill of materials</p>"
    )

    found = english_words(text)

    assert set(found) == {"Open", "the", "drawing", "Bill", "of", "materials"}
