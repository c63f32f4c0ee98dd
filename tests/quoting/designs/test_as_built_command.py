"""manage.py fabric_as_built: the pack's cable schedule against ibnetdiscover's output, as JSON
for scripts, exiting 1 when the check finds problems."""

import json

import pytest
from django.core.management import CommandError, call_command

from quoting.engine.install.as_built import plan_from_pack
from tests.quoting.quotes.as_built_world import ibnetdiscover_text, links_of, swap_far_ends


@pytest.fixture
def pack(seeded, tmp_path):
    call_command("fabric_design", "--gpus", "64", "--pack", str(tmp_path / "pack"))
    return tmp_path / "pack"


def check(pack, text, capsys, *extra):
    discovered = pack.parent / "ibnetdiscover.txt"
    discovered.write_text(text)
    capsys.readouterr()
    code = 0
    try:
        call_command(
            "fabric_as_built", "--pack", str(pack), "--discovered", str(discovered), *extra
        )
    except SystemExit as exit:
        code = exit.code
    return code, capsys.readouterr().out


def test_a_fabric_cabled_as_planned_passes(pack, capsys):
    plan = plan_from_pack(pack)
    code, out = check(pack, ibnetdiscover_text(links_of(plan)), capsys, "--json")
    assert code == 0 and json.loads(out)["summary"]["ok"] == len(plan) > 0


def test_a_swap_prints_only_json_naming_both_cables_and_exits_1(pack, capsys):
    plan = plan_from_pack(pack)
    code, out = check(
        pack, ibnetdiscover_text(swap_far_ends(links_of(plan), 0, 1)), capsys, "--json"
    )
    result = json.loads(out)
    assert code == 1 and result["summary"]["passed"] is False
    assert {item["cable_id"] for item in result["miswired"]} == {plan[0].cable_id, plan[1].cable_id}


def test_a_line_that_is_not_ibnetdiscover_output_is_an_error_naming_it(pack, capsys):
    with pytest.raises(CommandError, match="line 2"):
        check(pack, 'Switch 2 "S-1" # "x"\n[1] junk\n', capsys)
