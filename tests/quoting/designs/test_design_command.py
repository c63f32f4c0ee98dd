import json

import pytest
from django.core.management import CommandError, call_command


def test_the_command_prints_the_same_json_as_the_api(seeded, capsys, client, make_user):
    call_command("fabric_design", "--gpus", "256", "--switch", "MQM9790-NS2F", "--json")
    printed = json.loads(capsys.readouterr().out)
    client.force_login(make_user("crm"))
    api = client.post(
        "/api/v1/designs/",
        {"gpu_count": 256, "switch_part_number": "MQM9790-NS2F"},
        content_type="application/json",
    )
    assert printed == api.json()


def test_the_command_summarises_and_writes_the_schedule_and_drawing(seeded, capsys, tmp_path):
    call_command(
        "fabric_design",
        "--gpus",
        "128",
        "--cable-schedule",
        str(tmp_path / "c.csv"),
        "--drawing",
        str(tmp_path / "d.svg"),
    )
    out = capsys.readouterr().out
    assert "128 GPUs on" in out and "leaves" in out
    assert len((tmp_path / "c.csv").read_text().splitlines()) > 128
    assert (tmp_path / "d.svg").read_text().startswith("<svg")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--gpus", "0"], "gpu_count"),
        (["--gpus", "64", "--growth-gpus", "8"], "growth_gpus"),
        (["--gpus", "64", "--switch", "NOPE"], "switch_part_number"),
        (["--gpus", "64", "--generation", "EDR"], "generation"),  # the spec's choices
        (["--gpus", "64", "--gpus-per-node", "73"], "gpus_per_server"),  # the spec's bound
    ],
)
def test_bad_options_are_a_clear_error_not_a_traceback(seeded, args, message):
    with pytest.raises(CommandError, match=message):
        call_command("fabric_design", *args)


def test_the_summary_reads_in_the_language_asked(seeded, capsys, tmp_path):
    from tests.portal.test_chinese_complete import english_words

    # UFM appliances (a slot per leaf kept for them), storage sized from a capacity, a pack
    args = ["--servers", "31", "--storage-capacity-tb", "1000", "--storage-server-tb", "300"]
    args += ["--subnet-manager", "ufm-appliance"]
    call_command("fabric_design", *args, "--pack", str(tmp_path / "zh"), "--language", "zh-hans")
    chinese = capsys.readouterr()
    call_command("fabric_design", *args, "--pack", str(tmp_path / "en"))
    english = capsys.readouterr()

    assert "块 GPU，采用" in chinese.out and "存储按 --storage-capacity-tb 规划：" in chinese.out
    assert "UFM：" in chinese.out and "安装包：" in chinese.err
    assert "GPUs on" in english.out and "Installation pack:" in english.err
    # Part numbers, the input that sized the storage and the pack's path are data; TB and GB
    # are units.
    data = ("--storage-capacity-tb", str(tmp_path / "zh"), "TB", "GB")
    words = english_words(chinese.out + chinese.err, user_data=data)
    assert not words, words
    # The pack follows the summary's language unless --pack-language says otherwise.
    assert (tmp_path / "zh" / "README.txt").read_text().startswith("FabricQuote 安装包")
    assert (tmp_path / "en" / "README.txt").read_text().startswith("FabricQuote installation")


def test_the_pack_language_alone_words_the_pack_not_the_summary_scripts_read(seeded, capsys):
    call_command("fabric_design", "--gpus", "64", "--pack-language", "zh-hans")
    out = capsys.readouterr().out
    assert "GPUs on" in out and "块 GPU，采用" not in out
