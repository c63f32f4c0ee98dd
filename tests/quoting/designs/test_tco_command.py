"""python manage.py tco --input FILE (or -): the API's JSON from a file or a pipe."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

BODY = {
    "gpu": "H100",
    "nodes": 32,
    "gpus_per_node": 8,
    "workload": {"params_billion": 7, "tokens_per_node_per_step": 131072, "overlap": 0.5},
    "fabrics": [
        {"name": "8x400G IB", "transport": "infiniband", "nics_per_node": 8, "nic_gbps": 400},
        {"name": "2x100G RoCE", "transport": "roce", "nics_per_node": 2, "nic_gbps": 100},
    ],
}


def test_the_command_prints_the_same_json_as_the_api(
    h100_catalog, capsys, tmp_path, client, make_user
):
    path = tmp_path / "body.json"
    path.write_text(json.dumps(BODY), encoding="utf-8")
    call_command("tco", "--input", str(path))
    out = capsys.readouterr().out
    client.force_login(make_user("crm"))
    api = client.post("/api/v1/tco/", BODY, content_type="application/json")

    assert json.loads(out) == api.json()
    assert out.startswith('{\n  "currency"')  # indented for people and diffs


def test_the_command_reads_the_body_from_stdin(h100_catalog, capsys):
    call_command("tco", "--input", "-", stdin=io.StringIO(json.dumps(BODY)))
    options = json.loads(capsys.readouterr().out)["options"]

    assert [o["name"] for o in options] == ["8x400G IB", "2x100G RoCE"]


def test_bad_fields_are_listed_in_a_command_error_not_a_traceback(h100_catalog, tmp_path):
    path = tmp_path / "bad.json"
    workload = BODY["workload"] | {"overlap": 3}
    path.write_text(json.dumps(BODY | {"nodes": -1, "workload": workload}), encoding="utf-8")

    with pytest.raises(CommandError) as error:
        call_command("tco", "--input", str(path))
    assert "  nodes: " in str(error.value) and "  workload.overlap: " in str(error.value)


def test_a_gpu_missing_from_the_catalog_is_named(h100_catalog, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(BODY | {"gpu": "B300"}), encoding="utf-8")

    with pytest.raises(CommandError, match="gpu: 'B300' is not a GPU in the catalog"):
        call_command("tco", "--input", str(path))


@pytest.mark.parametrize("text", ["{not json", '{"nodes": NaN}', "[1, 2", "[" * 1_000])
def test_a_file_that_is_not_json_is_a_command_error(tmp_path, text):
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")

    with pytest.raises(CommandError, match="not valid JSON"):
        call_command("tco", "--input", str(path))


def test_a_missing_file_is_a_command_error(tmp_path):
    with pytest.raises(CommandError, match="Cannot read"):
        call_command("tco", "--input", str(tmp_path / "nope.json"))


def test_the_command_takes_an_oversubscribed_option(h100_catalog, capsys):
    fabrics = [BODY["fabrics"][0] | {"oversubscription": 3, "servers_per_leaf": 16}]
    call_command("tco", "--input", "-", stdin=io.StringIO(json.dumps(BODY | {"fabrics": fabrics})))
    assumptions = json.loads(capsys.readouterr().out)["assumptions"]

    ratio = next(a for a in assumptions if a["key"] == "fabric.8x400G IB.oversubscription")
    assert ratio["value"] == 3.0


@pytest.mark.parametrize("ratio", [0, 17])
def test_the_command_names_a_ratio_outside_1_to_16(h100_catalog, ratio):
    fabrics = [BODY["fabrics"][0] | {"oversubscription": ratio}]
    with pytest.raises(CommandError, match=r"fabrics\[0\]\.oversubscription: "):
        call_command("tco", "--input", "-",
                     stdin=io.StringIO(json.dumps(BODY | {"fabrics": fabrics})))  # fmt: skip


# --- the reader's language (#27 item 4) ----------------------------------------------------------

# A GPU-hour valued below what one costs: the comparison warns that every NPV is negative.
CHEAP_HOURS = BODY | {"costs": {"gpu_hour_value": 0.01}}


def _run(capsys, tmp_path, body, *language) -> dict:
    path = tmp_path / "body.json"
    path.write_text(json.dumps(body), encoding="utf-8")
    call_command("tco", "--input", str(path), *language)
    return json.loads(capsys.readouterr().out)


def test_language_zh_hans_words_the_warnings_assumptions_and_labels_in_chinese(
    h100_catalog, capsys, tmp_path
):
    english = _run(capsys, tmp_path, CHEAP_HOURS)
    chinese = _run(capsys, tmp_path, CHEAP_HOURS, "--language", "zh-hans")

    assert english["warnings"][0].startswith("The value of an effective GPU-hour (0.01 ")
    assert chinese["warnings"][0].startswith("每有效 GPU 小时的价值（0.01 ")
    labels = {a["key"]: a["label"] for a in chinese["assumptions"]}
    assert labels["gpu.peak_tflops"] == "单 GPU 稠密 BF16 峰值算力 H100"
    bars = {b["key"]: b["label"] for t in chinese["sensitivity"] for b in t["bars"]}
    assert bars["costs.discount_rate"] == "折现率"
    # Keys, figures, names and the kept messages are the English run's.
    assert chinese["options"] == english["options"]
    assert [a["value"] for a in chinese["assumptions"]] == [
        a["value"] for a in english["assumptions"]
    ]
    assert chinese["warning_messages"] == english["warning_messages"]


def test_language_en_is_the_default_and_another_language_is_refused(h100_catalog, capsys, tmp_path):
    assert _run(capsys, tmp_path, CHEAP_HOURS, "--language", "en") == _run(
        capsys, tmp_path, CHEAP_HOURS
    )
    with pytest.raises(CommandError, match="invalid choice: 'fr'"):
        call_command("tco", "--input", "-", "--language", "fr")


def test_bad_fields_are_listed_in_the_language_asked(h100_catalog, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(BODY | {"gpu": "B300"}), encoding="utf-8")

    with pytest.raises(CommandError) as error:
        call_command("tco", "--input", str(path), "--language", "zh-hans")
    assert str(error.value).startswith(f"{path} 中有字段有误：\n  gpu: ")
    assert "is not a GPU in the catalog" not in str(error.value)
