"""Engine messages, roles, option names and drawings reach a Chinese reader in Chinese, while the
engine stays Django-free and the API keeps its English."""

import pytest
from django.utils import translation
from django.utils.translation import gettext

from quoting.designs.forms.contract import engine_error_text
from quoting.engine.errors import InvalidInput
from quoting.engine.fabric import FabricRequirements, design_fabric
from quoting.engine.messages import Message, message
from quoting.quotes.display import event_detail_rows
from quoting.quotes.models.audit import QuoteEventVerb
from quoting.templatetags.quoting_messages import bom_role, option_name
from tests.quoting.engine.conftest import load_catalog

GROWTH_BELOW = (
    "/designs/new/?gpu_count=64&gpus_per_server=8&nic_generation=NDR"
    "&family=infiniband&planes=1&oversubscription=1&growth_gpus=16"
    "&server_to_leaf=same-row&leaf_to_spine=same-row&spine_to_core=across-hall"
    "&subnet_manager=auto&spares_percent=0"
)


def _chinese(client, make_user):
    client.force_login(make_user("lin", language="zh-hans"))
    return client


def test_an_engine_error_shows_in_chinese_beside_its_field(client, make_user, seeded):
    body = _chinese(client, make_user).get(GROWTH_BELOW, HTTP_HX_REQUEST="true").content.decode()

    assert "扩容目标（16 块 GPU）小于当前规模（64 块 GPU）。" in body
    assert "growth target" not in body


def test_an_engine_error_keeps_its_english_text_for_the_api():
    error = InvalidInput(
        {
            "growth_gpus": [
                message(
                    "the growth target ({target} GPUs) is below the current size ({gpus} GPUs).",
                    target=16,
                    gpus=64,
                )
            ]
        }
    )

    assert error.errors == {
        "growth_gpus": ["the growth target (16 GPUs) is below the current size (64 GPUs)."]
    }
    assert isinstance(error.messages["growth_gpus"][0], Message)


def test_a_distance_class_is_typed_in_chinese_and_named_in_its_help(client, make_user, seeded):
    page = _chinese(client, make_user)
    query = GROWTH_BELOW.replace("growth_gpus=16", "growth_gpus=").replace(
        "server_to_leaf=same-row", "server_to_leaf=同机柜"
    )

    body = page.get(query).content.decode()

    assert "以米为单位，或以下之一：同机柜" in body  # the help text, in the request's language
    assert "请填写米数" not in body  # no error: 同机柜 is a distance class
    assert "<svg" in body  # 同机柜 was read as same-rack: the design was made


def test_a_bad_distance_is_refused_in_chinese(client, make_user, seeded):
    body = (
        _chinese(client, make_user)
        .get(GROWTH_BELOW.replace("server_to_leaf=same-row", "server_to_leaf=far"))
        .content.decode()
    )

    assert "请填写米数，或以下之一：同机柜、相邻机柜、同一列、跨机房。" in body


def test_bom_roles_and_option_names_read_in_chinese():
    with translation.override("zh-hans"):
        assert bom_role("server-leaf") == "服务器至叶交换机链路"
        assert bom_role("storage spine") == "存储网络：脊交换机"
        assert option_name("RoCE on Spectrum-4 untuned") == "基于 Spectrum-4 的 RoCE（未调优）"
        assert option_name("我的方案") == "我的方案"  # a typed name reads as typed
        assert engine_error_text(message("{sku} is not a catalog NIC.", sku="X-1")) == (
            "X-1 不是产品目录中的网卡。"
        )
    with translation.override("en"):
        assert bom_role("server-leaf") == "server to leaf links"
        assert option_name("RoCE on Spectrum-4 untuned") == "RoCE on Spectrum-4 untuned"


def test_audit_details_read_as_labels_not_field_names():
    # The audit trail's words (quoting/quotes/display.py), as the quote page and the admin
    # show them.
    with translation.override("zh-hans"):
        shown = dict(
            event_detail_rows(
                QuoteEventVerb.STATUS_CHANGED,
                {
                    "before": "draft",
                    "after": "sent",
                    "total": "10.00",
                    "unknown_key": 1,
                    "note": "",
                },
            )
        )

    assert shown["状态"] == "草稿 → 已发送", shown
    # A key without a label reads as words, not as a field name; empty details are left out.
    assert "unknown_key" not in shown and "备注" not in shown, shown


def test_a_kept_assumption_prints_microseconds_and_the_shardings_proper_name():
    from quoting.templatetags.quoting_messages import assumption_text

    kept = {  # as results kept before printed them: the code and "us"
        "label": "Gradient traffic factor (fsdp)",
        "unit": "us",
        "messages": {
            "label": {
                "template": "Gradient traffic factor ({sharding})",
                "params": [["sharding", "fsdp"]],
            },
            "unit": "us",
        },
    }
    with translation.override("zh-hans"):
        label, unit = assumption_text(kept, "label"), assumption_text(kept, "unit")
        plain_unit = assumption_text({"unit": "us"}, "unit")

    assert "FSDP" in label and "fsdp" not in label
    assert unit == plain_unit == "µs"


def test_a_part_filled_scalable_unit_says_it_is_built_whole_in_chinese():
    """Rule 5c's advice and its UFM-appliance warning have their Chinese entries."""
    from django.utils.translation import gettext

    from quoting.engine.fabric import FabricRequirements, design_fabric
    from tests.quoting.engine.conftest import load_catalog

    catalog = load_catalog()
    racks = dict(gpus_per_server=72, server_part_number="DGX-GB200-NVL72")
    advice = design_fabric(FabricRequirements(server_count=5, **racks), catalog).advice_messages
    warnings = design_fabric(
        FabricRequirements(server_count=9, subnet_manager="ufm-appliance", **racks), catalog
    ).warning_messages
    with translation.override("zh-hans"):
        texts = [m.render(gettext) for m in (*advice, *warnings)]
    assert any("本网络按 8 个机柜建设：18 台叶交换机、16 台脊交换机" in t for t in texts), texts
    assert any("尚未到位的 3 个机柜" in t for t in texts), texts
    assert any("本网络按所需的 9 个机柜建设" in t for t in texts), texts


def test_a_catalog_without_a_100gbe_switch_is_refused_in_chinese_and_in_english_for_the_api():
    from quoting.engine.fabric import FabricRequirements, design_fabric
    from tests.quoting.engine.conftest import load_catalog

    catalog = [
        p
        for p in load_catalog()
        if not (p.category == "switch" and p.protocol == "ethernet" and p.generation == "100GbE")
    ]
    requirements = FabricRequirements(
        server_count=4, server_part_number="DGX-H100", inband_management=True
    )
    try:
        design_fabric(requirements, catalog)
    except InvalidInput as error:
        refused = error
    else:
        raise AssertionError("a design needing a 100GbE switch was made without one")

    assert refused.errors == {"inband_management": ["the catalog has no 100GbE switch."]}
    [kept] = refused.messages["inband_management"]
    with translation.override("zh-hans"):
        assert engine_error_text(kept) == "产品目录中没有 100GbE 交换机。"


def test_the_hdr_fibre_gap_reads_in_chinese_naming_the_run_the_longest_cable_and_what_to_add():
    with pytest.raises(InvalidInput) as caught:
        design_fabric(
            FabricRequirements(gpu_count=256, nic_generation="HDR", leaf_to_spine=45),
            load_catalog(),
        )
    with translation.override("zh-hans"):
        text = caught.value.messages["leaf_to_spine"][0].render(gettext)

    assert text == (
        "45 m 的 HDR 交换机间链路超出目录中可用于这些链路的最长 HDR 线缆（MFS1S00-H030，30 m），"
        "需要光模块（MMA1T00-HS，100 m），但目录中没有与该模块接口配套的 HDR 多模光纤，"
        "因此无法为这些链路报价。目录管理员可以添加该光纤（长度至少 45 m）或更长的 HDR 线缆"
        "（至少 45 m）；否则请将链路长度规划在 30 m 以内。"
    )


def _field_errors_given_as_plain_text(root):
    """(file, line) of each InvalidInput.field(field, text) or InvalidInput({field: [text]}) in
    the engine whose text is a plain or formatted string rather than an engine Message;
    and how many files were read (a wrong root reads none and would find nothing)."""
    import ast

    plain = (ast.Constant, ast.JoinedStr, ast.BinOp)
    found, files = [], sorted(root.rglob("*.py"))
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = ast.unparse(node.func)
            texts = []
            if name.endswith("InvalidInput.field") and len(node.args) > 1:
                texts = [node.args[1]]
            elif name == "InvalidInput" and node.args and isinstance(node.args[0], ast.DictComp):
                value = node.args[0].value
                texts = value.elts if isinstance(value, ast.List) else []
            elif name == "InvalidInput" and node.args and isinstance(node.args[0], ast.Dict):
                for value in node.args[0].values:
                    texts += value.elts if isinstance(value, ast.List) else []
            if any(isinstance(text, plain) for text in texts):
                found.append(f"{path.name}:{node.lineno}")
    return found, len(files)


def test_every_engine_field_error_is_a_message_a_chinese_reader_gets_in_chinese():
    # A plain f-string reaches the design form and the API's Chinese readers in English: each
    # refusal is an engine Message, translated at the edge (quoting/engine/messages.py).
    import pathlib

    # The fabric, the TCO and the installation pack with its as-built file readers.
    root = pathlib.Path(__file__).resolve().parents[2] / "quoting" / "engine"
    found, files = _field_errors_given_as_plain_text(root)
    assert files > 20 and found == []


def test_a_fabric_beyond_three_tiers_is_refused_in_chinese_and_in_english_for_the_api():
    with pytest.raises(InvalidInput) as caught:
        design_fabric(FabricRequirements(gpu_count=800_000, nic_generation="NDR"), load_catalog())
    [field] = caught.value.messages
    [kept] = caught.value.messages[field]
    with translation.override("zh-hans"):
        text = engine_error_text(kept)

    assert caught.value.errors[field][0].startswith("beyond three tiers of 64-port switches")
    assert text.startswith("超出 64 端口交换机三层网络的容量"), text
    assert "beyond" not in text
