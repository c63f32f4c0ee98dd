"""The TCO page: inputs on the left, fabric options compared side by side on the right."""

import re

import pytest

from quoting.designs.forms.tco import TcoForms

URL = "/tco/"


@pytest.fixture
def defaults(h100_catalog):
    """The page's default inputs as a browser would post them."""
    return {k: str(v) for k, v in TcoForms.initial_data().items()}


def htmx_post(client, data):
    return client.post(URL, data, HTTP_HX_REQUEST="true").content.decode()


def error_beside(body: str, html_name: str) -> str:
    match = re.search(rf'<div id="err-{re.escape(html_name)}"[^>]*>(.*?)</div>', body, re.S)
    assert match, f"no error slot for {html_name}"
    return match.group(1)


def test_the_page_needs_a_sign_in(client, h100_catalog):
    response = client.get(URL)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_a_first_visit_compares_the_four_default_options(sales_client, h100_catalog):
    body = sales_client.get(URL).content.decode()

    for name in (
        "8×400G InfiniBand",
        "8×400G RoCE (tuned)",
        "8×400G RoCE (untuned)",
        "2×100G RoCE",
    ):
        assert name in body
    assert body.count("<svg") == 3 and "Cost per effective GPU-hour" in body
    assert "the model size cancels" in body and "What moves the cost" in body
    assert "Shenzhen industrial" in body  # assumptions are printed with their source
    assert 'value="32"' in body and 'value="131072"' in body  # 32 nodes, the 7B preset
    assert 'id="tco-presets"' in body  # the preset select fills the workload from these


def test_the_default_starved_fabric_shows_the_seed_claims_loss(sales_client, h100_catalog):
    """The seed's claim on the page's own defaults: 2 x 100G RoCE loses 30-40 % vs 8 x 400G IB."""
    body = sales_client.get(URL).content.decode()
    row = re.search(r"Compute lost vs the best option</th>(.*?)</tr>", body, re.S).group(1)
    losses = [float(x) for x in re.findall(r"([\d.]+) %", row)]

    assert losses[0] == 0.0 and 30 <= losses[3] <= 40


def test_an_htmx_change_returns_only_the_results_partial(sales_client, defaults):
    body = htmx_post(sales_client, defaults | {"nodes": "64"})

    assert "<html" not in body and "<form" not in body
    assert body.count("<svg") == 3 and 'hx-swap-oob="true"' in body


def test_a_post_without_htmx_renders_the_whole_page(sales_client, defaults):
    body = sales_client.post(URL, defaults).content.decode()
    assert "<html" in body and "<form" in body and "<svg" in body


def test_a_bad_field_shows_its_error_inline(sales_client, defaults):
    body = htmx_post(sales_client, defaults | {"nodes": "0", "fabrics-1-nic_gbps": "fast"})

    assert "greater than or equal to 1" in error_beside(body, "nodes")
    assert "Enter a number" in error_beside(body, "fabrics-1-nic_gbps")
    assert "No comparison yet" in body and "<svg" not in body


def test_the_error_summary_links_to_each_field_at_fault(sales_client, defaults):
    body = htmx_post(sales_client, defaults | {"nodes": "0", "fabrics-1-nic_gbps": "fast"})
    summary = body.split("data-error-summary")[1].split("</ul>")[0]
    assert '<a href="#id_nodes" data-focus-field>' in summary
    assert '<a href="#id_fabrics-1-nic_gbps" data-focus-field>Option 2 · ' in summary


def test_an_engine_error_lands_beside_the_row_it_names(sales_client, defaults):
    """Row 2 is left out, so the engine's fabrics[1] is the page's third row."""
    data = defaults | {"fabrics-1-name": "", "fabrics-2-name": defaults["fabrics-0-name"]}
    body = htmx_post(sales_client, data)

    assert "used by another option" in error_beside(body, "fabrics-2-name")
    assert error_beside(body, "fabrics-1-name") == ""


def test_usd_without_a_tariff_takes_the_cny_default_converted_and_says_so(sales_client, defaults):
    """The page offers CNY and USD; USD used to ask for its tariff (issue 26)."""
    body = htmx_post(sales_client, defaults | {"currency": "USD", "gpu_hour_value": "2.5"})
    assert error_beside(body, "tariff_per_kwh") == ""
    assert "Electricity tariff: the CNY default converted at 7.2 CNY/USD" in body
    assert "Exchange rate the CNY defaults are converted at" in body
    assert "Value of one effective GPU-hour: the CNY default" not in body  # 2.5 USD as stated


def test_a_named_option_needs_its_bandwidth(sales_client, defaults):
    body = htmx_post(sales_client, defaults | {"fabrics-3-nic_gbps": ""})
    assert "Required for a named option" in error_beside(body, "fabrics-3-nic_gbps")


def test_an_option_name_is_escaped_in_the_page_and_in_the_charts(sales_client, defaults):
    name = "<script>alert(1)</script>"
    for body in (
        sales_client.post(URL, defaults | {"fabrics-0-name": name}).content.decode(),
        htmx_post(sales_client, defaults | {"fabrics-0-name": name}),
    ):
        assert name not in body
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body
        assert 'data-name="&lt;script&gt;alert(1)&lt;/script&gt;"' in body  # inside the SVG


def test_the_nav_links_to_the_tco_page(sales_client, h100_catalog):
    body = sales_client.get("/").content.decode()
    assert f'href="{URL}"' in body


def test_the_page_renders_in_chinese(sales_client, h100_catalog):
    sales_client.post("/i18n/language/", {"language": "zh-hans", "next": "/"})
    body = sales_client.get(URL).content.decode()
    assert '<html lang="zh-hans">' in body and body.count("<svg") == 3


@pytest.mark.parametrize("ratio", ["0", "17"])
def test_an_oversubscription_outside_1_to_16_is_an_inline_error(sales_client, defaults, ratio):
    body = htmx_post(sales_client, defaults | {"fabrics-0-oversubscription": ratio})
    assert error_beside(body, "fabrics-0-oversubscription") != ""


def test_the_page_compares_an_oversubscribed_row_and_prints_its_assumptions(sales_client, defaults):
    data = defaults | {
        "nodes": "128", "tokens_per_node_per_step": "16384", "overlap": "0",
        "fabrics-1-transport": "infiniband", "fabrics-1-oversubscription": "2",
        "fabrics-1-servers_per_leaf": "32", "fabrics-1-network_opex_per_year": "150000",
    }  # fmt: skip
    body = htmx_post(sales_client, data)

    assert "leaf-to-spine oversubscription" in body and "1/r of the leaf" in body
    assert "nccl-tests busbw share of line rate" in body
    assert "licences and subscriptions per year" in body
    # Shares as percentages and money a year with its currency, not raw fractions (issue 27).
    assert '<td class="num">85 %</td>' in body and '<td class="num">8 % a year</td>' in body
    assert '<td class="num">150,000 CNY a year</td>' in body
    assert '<td class="num">0.85' not in body


def test_the_busbw_to_expect_is_for_a_nccl_algo_ring_run_in_english_and_chinese(
    sales_client, defaults
):
    """Issue 26: NCCL's default algorithms report above the network rate on two nodes, so the
    page says the predicted busbw is for NCCL_ALGO=Ring and prints the run (NCCL's
    documentation, environment variables: NCCL_ALGO), in both languages."""
    command = "NCCL_ALGO=Ring all_reduce_perf -b 8 -e 8G -f 2 -g 8"
    body = htmx_post(sales_client, defaults | {"nodes": "2"})
    assert "4 GiB AllReduce with NCCL_ALGO=Ring (GB/s)" in body
    assert f"<code>{command}</code>" in body

    sales_client.post("/i18n/language/", {"language": "zh-hans", "next": "/"})
    body = htmx_post(sales_client, defaults | {"nodes": "2"})
    assert "4 GiB AllReduce，NCCL_ALGO=Ring（GB/s）" in body
    assert f"<code>{command}</code>" in body and "请与使用 NCCL_ALGO=Ring 的验收测试" in body


def test_a_dearer_option_that_gains_nothing_reads_never_pays_back(sales_client, defaults):
    """Issue 26: a premium whose net yearly gain is 0 or less is not a number of years."""
    data = defaults | {
        "tokens_per_node_per_step": "1000000", "overlap": "0.9",  # nothing exposed: no gain
        "fabrics-0-network_capex": "2000000", "fabrics-1-network_capex": "1000000",
    }  # fmt: skip
    body = htmx_post(sales_client, data)
    assert "never pays back" in _payback_row(body)


def _payback_row(body: str) -> str:
    return re.search(r'<tr class="tco-payback">.*?</th>(.*?)</tr>', body, re.S).group(1)


def _payback_heading(body: str) -> str:
    return re.search(r'<tr class="tco-payback"><th scope="row">(.*?)</th>', body, re.S).group(1)


def test_payback_is_measured_against_the_cheapest_priced_option_and_says_so(sales_client, defaults):
    """Issue 27: an option without a network capex is not priced; it is never the baseline of a
    payback (it would be the cheapest build, its network costing nothing). The two untuned and
    starved options are left unpriced: the tuned RoCE, priced lower, is the baseline."""
    data = defaults | {
        "fabrics-0-network_capex": "2000000", "fabrics-1-network_capex": "1000000",
        "fabrics-2-network_capex": "", "fabrics-3-network_capex": "",
    }  # fmt: skip
    body = htmx_post(sales_client, data)
    cells = re.findall(r'<td class="num">(.*?)</td>', _payback_row(body))
    assert cells[1] == "baseline"
    assert re.fullmatch(r"\d+\.\d", cells[0]) or cells[0] == "never pays back"
    assert cells[2:] == ["—", "—"]  # not priced: no payback
    assert "against 8×400G RoCE (tuned)" in _payback_heading(body)
    assert "Baseline: 8×400G RoCE (tuned)." in body

    sales_client.post("/i18n/language/", {"language": "zh-hans", "next": "/"})
    chinese = htmx_post(sales_client, data)
    assert re.findall(r'<td class="num">(.*?)</td>', _payback_row(chinese))[1] == "基准"
    assert "对比" in _payback_heading(chinese)


def test_with_no_network_priced_there_is_no_payback_and_the_page_says_why(sales_client, defaults):
    data = defaults | {f"fabrics-{n}-network_capex": "" for n in range(4)}
    body = htmx_post(sales_client, data)
    assert re.findall(r'<td class="num">(.*?)</td>', _payback_row(body)) == ["—"] * 4
    assert "against" not in _payback_heading(body)
    assert "network capex is given, so there is no payback" in body


def test_a_gpu_hour_valued_below_its_cost_is_explained_above_the_npv(sales_client, defaults):
    """With the servers' cost in, an effective GPU-hour costs more than 12 CNY (the default
    before issue 26), so every NPV is negative: the page says why and what to set."""
    defaults = defaults | {"server_capex": "96000000", "gpu_hour_value": "12"}  # 3 M CNY each
    body = htmx_post(sales_client, defaults)
    warning = body.split('id="tco-warnings"', 1)[1].split("</ul>", 1)[0]
    assert "(12.00 CNY) is below what one costs here" in warning
    assert "NPV is negative" in warning and "set the value to what the compute earns" in warning
    assert 'id="tco-warnings"' not in htmx_post(sales_client, defaults | {"gpu_hour_value": "200"})
    sales_client.post("/i18n/language/", {"language": "zh-hans", "next": "/"})
    chinese = htmx_post(sales_client, defaults)
    assert "所有方案的净现值均为负" in chinese.split('id="tco-warnings"', 1)[1]


def test_a_named_server_powers_the_energy_cost_with_its_catalog_figure(sales_client, defaults):
    """The page can name the catalog server, as a design's TCO does: its figure, not 8 kW."""
    from catalog.models import Category, Product

    Product.objects.create(
        part_number="DGX-B200", name="NVIDIA DGX B200 system", category=Category.SERVER,
        gpu_model="B200", gpu_count=8, gpu_peak_tflops=2250, power_typical_w=11000,
        power_max_w=14300,
    )  # fmt: skip
    page = sales_client.get(URL).content.decode()
    assert '<option value="DGX-B200">DGX-B200 · NVIDIA DGX B200 system</option>' in page
    assumed = htmx_post(sales_client, defaults)
    named = htmx_post(sales_client, defaults | {"server": "DGX-B200"})
    assert "DGX-B200 typical, from the catalog" in named
    assert "DGX-B200" not in assumed.split("Server power", 1)[1].split("</tr>", 1)[0]
    unknown = htmx_post(sales_client, defaults | {"server": "NOT-A-SERVER"})
    assert "Select a valid choice" in error_beside(unknown, "server")


def test_the_page_query_keeps_the_server_a_design_priced():
    from quoting.designs.forms.tco import tco_page_query

    body = {
        "gpu": "B200",
        "nodes": 4,
        "gpus_per_node": 8,
        "server": "DGX-B200",
        "workload": {},
        "costs": {},
        "fabrics": [],
    }
    assert "server=DGX-B200" in tco_page_query(body)
