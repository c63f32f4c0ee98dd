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
