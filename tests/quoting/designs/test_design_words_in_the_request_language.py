"""A TCO comparison's warnings and an unsaved design's warnings and advice reach the API in the
request's language (#27 item 4): a comparison keeps its warnings as messages and words them when
read; one kept before as English text is matched back, or read as kept."""

from __future__ import annotations

import copy

import pytest
from django.utils import translation

from quoting.designs.models import SavedDesign
from quoting.designs.services.saved import design_save
from quoting.designs.services.tco import tco_warnings_worded
from quoting.engine.tco import VALUE_BELOW_COST
from tests.quoting.api_world import token_client
from tests.quoting.designs.test_tco_api import CLAIM_BODY

CHINESE_WARNING = "所有方案的净现值均为负"  # the Chinese of VALUE_BELOW_COST
ENGLISH_WARNING = "so every option's NPV is negative"
OLD_WARNING = VALUE_BELOW_COST.format(value="12.00", cost="31.27", currency="CNY")


@pytest.fixture
def api(client, make_user, seeded):
    client.force_login(make_user("crm"))
    return client


def _tco(api, language: str) -> dict:
    body = copy.deepcopy(CLAIM_BODY) | {"costs": {"gpu_hour_value": "0.01"}}
    response = api.post(
        "/api/v1/tco/", body, content_type="application/json", HTTP_ACCEPT_LANGUAGE=language
    )
    assert response.status_code == 200, response.content
    return response.json()


def test_the_tco_api_words_its_warnings_in_the_requests_language(api):
    chinese, english = _tco(api, "zh-hans"), _tco(api, "en")

    [warning] = chinese["warnings"]
    assert CHINESE_WARNING in warning and "NPV" not in warning and "（0.01 CNY）" in warning
    assert ENGLISH_WARNING in english["warnings"][0]
    # The messages a client may word itself: the English template and its figures.
    [kept] = chinese["warning_messages"]
    assert kept["template"] == VALUE_BELOW_COST and ["value", "0.01"] in kept["params"]


def test_a_comparison_kept_with_english_warnings_reads_in_the_readers_language():
    """Comparisons stored before they kept messages: the English is matched back, figures and
    all; a text it does not know reads as kept."""
    old = {"warnings": [OLD_WARNING, "Something else."]}
    with translation.override("zh-hans"):
        worded, unknown = tco_warnings_worded(old)
    assert CHINESE_WARNING in worded and "（12.00 CNY）" in worded and "31.27 CNY" in worded
    assert unknown == "Something else."
    with translation.override("en"):
        assert tco_warnings_worded(old)[0] == OLD_WARNING


def test_a_saved_designs_comparison_gives_its_warnings_in_the_requests_language(seeded, world):
    saved = design_save(
        project=world.project,
        name="128 GPUs",
        user=world.sales,
        requirements={"gpu_count": 128, "nic_generation": "NDR", "subnet_manager": "on-switch"},
    )
    assert saved.tco and saved.tco.get("result")
    # A comparison stored before its warnings were kept as messages: English text only.
    result = {k: v for k, v in saved.tco["result"].items() if k != "warning_messages"}
    SavedDesign.objects.filter(pk=saved.pk).update(
        tco=saved.tco | {"result": result | {"warnings": [OLD_WARNING]}}
    )
    api = token_client(world.sales, scope="read")
    path = f"/api/v1/projects/{world.project.pk}/designs/"

    (chinese,) = api.get(path, HTTP_ACCEPT_LANGUAGE="zh-hans").json()
    (english,) = api.get(path, HTTP_ACCEPT_LANGUAGE="en").json()

    assert CHINESE_WARNING in chinese["tco"]["result"]["warnings"][0]
    assert english["tco"]["result"]["warnings"] == [OLD_WARNING]
    assert chinese["tco"]["result"]["options"] == english["tco"]["result"]["options"]


# A rack-scale design the engine warns and advises on (rule 5c: a part-filled scalable unit).
RACKS = {
    "server_count": 9,
    "gpus_per_server": 72,
    "server_part_number": "DGX-GB200-NVL72",
    "subnet_manager": "ufm-appliance",
}


def test_an_unsaved_designs_warnings_and_advice_are_in_the_requests_language(api):
    def design(language):
        response = api.post(
            "/api/v1/designs/", RACKS, content_type="application/json",
            HTTP_ACCEPT_LANGUAGE=language,
        )  # fmt: skip
        assert response.status_code == 200, response.content
        return response.json()

    chinese, english = design("zh-hans"), design("en")

    words = chinese["warnings"] + chinese["advice"]
    assert words and len(words) == len(english["warnings"] + english["advice"])
    assert any("本网络按所需的 9 个机柜建设" in text for text in words), words
    assert not [t for t in words if "rack" in t or "scalable unit" in t], words
    assert chinese["bom"] == english["bom"]  # the rest is the same design


def test_a_replayed_design_is_the_same_design_worded_in_the_retrys_language(api):
    """An idempotent retry gets the design first computed (kept), its warnings and advice
    worded again in the retry's language, as its Content-Language says."""

    def design(language, **key):
        return api.post(
            "/api/v1/designs/", RACKS, content_type="application/json",
            HTTP_ACCEPT_LANGUAGE=language, **key,
        )  # fmt: skip

    first = design("zh-hans", HTTP_IDEMPOTENCY_KEY="rack-design")
    replay = design("en", HTTP_IDEMPOTENCY_KEY="rack-design")
    english = design("en").json()

    assert first.status_code == replay.status_code == 200
    assert replay["Idempotent-Replayed"] == "true"
    assert (first["Content-Language"], replay["Content-Language"]) == ("zh-hans", "en")
    chinese, replayed = first.json(), replay.json()
    assert (replayed["warnings"], replayed["advice"]) == (english["warnings"], english["advice"])
    assert any("本网络按所需的 9 个机柜建设" in t for t in chinese["warnings"] + chinese["advice"])
    worded = ("warnings", "advice")
    assert {k: v for k, v in replayed.items() if k not in worded} == {
        k: v for k, v in chinese.items() if k not in worded
    }  # the same design: its figures and the messages its words are made from


def test_a_design_answer_kept_without_its_messages_is_replayed_as_it_was(api):
    """An answer kept before designs carried their messages cannot be worded again: it is
    replayed as it was, and says the language it is in."""
    import json

    from integrations.models import IdempotencyRecord

    def design(language):
        return api.post(
            "/api/v1/designs/", RACKS, content_type="application/json",
            HTTP_ACCEPT_LANGUAGE=language, HTTP_IDEMPOTENCY_KEY="kept-before",
        )  # fmt: skip

    first = design("zh-hans").json()
    record = IdempotencyRecord.objects.get(key="kept-before")
    kept = {k: v for k, v in first.items() if k not in ("warning_messages", "advice_messages")}
    record.response_body = json.dumps(kept)
    record.save(update_fields=["response_body"])
    replay = design("en")
    assert replay["Idempotent-Replayed"] == "true"
    assert replay["Content-Language"] == "zh-hans" and replay.json() == kept
