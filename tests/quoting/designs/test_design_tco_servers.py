"""The design page's TCO names the servers it prices and powers (issue 26): "Assumes H100
servers" was printed for a DGX B200 or a GB200 NVL72 design too. It names the design's catalog
server, or the cheapest server with its GPUs when the design chose none, in the reader's
language."""

import pytest

B200 = (
    "gpu_count=64&gpus_per_server=8&server_part_number=DGX-B200&nic_generation=NDR"
    "&family=infiniband&planes=1&oversubscription=1&subnet_manager=auto&spares_percent=0"
    "&rail_optimized=on&rack_power_kw=40"  # a 14.3 kW DGX B200 is not on the 12 kW IDC rack
)
GB200 = (
    "server_count=2&gpus_per_server=72&server_part_number=DGX-GB200-NVL72&nic_generation=NDR"
    "&family=infiniband&planes=1&oversubscription=1&subnet_manager=auto&spares_percent=0"
    "&rail_optimized=on"
)
H100_DEFAULT = (
    "gpu_count=256&gpus_per_server=8&nic_generation=NDR&family=infiniband&planes=1"
    "&oversubscription=1&subnet_manager=auto&spares_percent=0&rail_optimized=on"
)


def _servers_sentence(client, query: str, language: str) -> str:
    response = client.get(f"/designs/tco/?{query}&currency=CNY", HTTP_ACCEPT_LANGUAGE=language)
    body = response.content.decode()
    assert not response.context.get("error"), response.context.get("error")
    start = body.index('id="design-tco-servers">')
    return body[start : body.index("</p>", start)]


@pytest.mark.parametrize(
    ("query", "language", "expected"),
    [
        (B200, "en", "Assumes 8 × NVIDIA DGX B200 system, 8 x B200 (DGX-B200) at list price"),
        (B200, "zh-hans", "假设 8 台 NVIDIA DGX B200 系统，8 × B200（DGX-B200）按目录价计"),
        (
            GB200,
            "en",
            "Assumes 2 × NVIDIA DGX GB200 NVL72 rack system, 72 x B200, 36 x Grace, "
            "liquid-cooled (DGX-GB200-NVL72) at list price",
        ),
        (
            GB200,
            "zh-hans",
            "假设 2 台 NVIDIA DGX GB200 NVL72 机柜级系统，72 × B200，36 × Grace，液冷"
            "（DGX-GB200-NVL72）按目录价计",
        ),
        # No server chosen: the cheapest priced server with the design's GPUs (H100 by default).
        (H100_DEFAULT, "en", "Assumes 32 × 8-GPU HGX H100 SXM server, 8 x ConnectX-7 slots"),
    ],
)
def test_the_tco_names_the_server_model_it_uses(sales_client, seeded, query, language, expected):
    sentence = _servers_sentence(sales_client, query, language)
    assert expected in sentence
    assert "H100" not in sentence or query == H100_DEFAULT


def test_a_saved_gb200_designs_panel_names_its_racks(client, project):
    from quoting.designs.services.saved import design_save

    owner = project.owner
    saved = design_save(
        project=project,
        name="NVL72",
        user=owner,
        requirements={
            "server_count": 2,
            "gpus_per_server": 72,
            "server_part_number": "DGX-GB200-NVL72",
            "nic_generation": "NDR",
        },
    )
    client.force_login(owner)
    body = client.get(f"/designs/tco/?design={saved.pk}&currency=USD").content.decode()
    assert "Assumes 2 × NVIDIA DGX GB200 NVL72 rack system" in body and "H100" not in body
