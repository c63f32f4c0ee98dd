"""Chinese text uses Chinese punctuation (#27 item 4): no translation puts an ASCII comma,
colon, semicolon, exclamation or question mark straight after a Chinese character, where a
Chinese reader expects the full-width ，：；！？ (the enumeration comma 、 for lists is the
listing helper's, tests/quoting/test_lists_in_chinese.py)."""

from __future__ import annotations

import gettext
import re
from pathlib import Path

from django.conf import settings

CATALOG = Path(settings.BASE_DIR) / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.mo"
# A Chinese character followed by ASCII punctuation; a digit after it is a figure or a ratio
# (下行/r, 1:1) and stays as written.
HALF_WIDTH_AFTER_CHINESE = re.compile(r"[\u4e00-\u9fff][,:;!?](?!\d)")
# A cable label's own syntax, printed on the label as it is written (排.机柜-U位:端口).
LABEL_SYNTAX = re.compile(r"U位:端口")
# The fabric drawing splits these at ": " into a box's two lines: the colon is never shown.
SPLIT_NOT_SHOWN = {"{count} server: {names}", "{count} servers: {names}"}


def half_width_punctuation(text: str) -> list[str]:
    return [
        match.group() for match in HALF_WIDTH_AFTER_CHINESE.finditer(LABEL_SYNTAX.sub("", text))
    ]


def test_the_rule_finds_ascii_punctuation_after_chinese_and_leaves_figures_alone():
    assert half_width_punctuation("共 2 台服务器: node-01") == ["器:"]
    assert half_width_punctuation("每台 Leaf, 共 2 台; 好!") == ["台;", "好!"]
    assert half_width_punctuation("{count} 台服务器：{names}") == []
    assert half_width_punctuation("收敛比 3:1，NDR, HDR") == []
    assert half_width_punctuation("每一端的标签（排.机柜-U位:端口 > 对端）") == []


def test_no_chinese_translation_puts_ascii_punctuation_after_a_chinese_character():
    with CATALOG.open("rb") as compiled:
        catalog = gettext.GNUTranslations(compiled)._catalog
    found = {
        str(msgid): text
        for msgid, text in catalog.items()
        if msgid and msgid not in SPLIT_NOT_SHOWN and half_width_punctuation(text)
    }
    assert not found, "\n".join(f"{msgid!r}: {text!r}" for msgid, text in found.items())
