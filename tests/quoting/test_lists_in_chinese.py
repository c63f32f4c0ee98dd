"""Lists of names read with the enumeration comma in Chinese: "A01、A02", never "A01, A02"; and
", " in English (issue 27). One helper, quoting.engine.messages.listing, whose separator is
translated when the text is rendered, so an engine message kept in a snapshot lists in the
language of whoever reads it."""

from django.utils import translation
from django.utils.translation import gettext

from quoting.engine.messages import Message, listing
from quoting.errors import MissingPrices


def test_a_list_is_joined_with_the_enumeration_comma_in_chinese_and_a_comma_in_english():
    racks = listing(["A01", "A02", "B03"])

    with translation.override("zh-hans"):
        assert racks.render(gettext) == "A01、A02、B03"
    with translation.override("en"):
        assert racks.render(gettext) == "A01, A02, B03"
    assert str(racks) == "A01, A02, B03"  # the API's English


def test_a_kept_list_reads_in_the_readers_language():
    kept = Message.from_json(listing(["A01", "A02"]).as_json())

    with translation.override("zh-hans"):
        assert kept.render(gettext) == "A01、A02"


def test_the_missing_prices_error_lists_part_numbers_with_the_enumeration_comma_in_chinese():
    with translation.override("zh-hans"):
        text = str(MissingPrices(["MQM9700-NS2F", "MFS1S00-H030"], "CNY"))

    assert "MFS1S00-H030、MQM9700-NS2F" in text
    assert ", " not in text


def test_an_empty_list_is_empty():
    with translation.override("zh-hans"):
        assert listing([]).render(gettext) == ""
