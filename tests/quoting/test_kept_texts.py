"""Status texts the services keep in English read in the reader's language (#27 item 4):
each known text whole, with its figures, a reason inside another translated too; anything
else (an exception's own words) as kept."""

from __future__ import annotations

import pytest
from django.utils import translation

from quoting.kept_texts import KEPT_TEXTS, kept_text


@pytest.mark.parametrize(
    ("kept", "chinese"),
    [
        (
            "The renderer stopped 3 times on this document; it may be too large to render.",
            "渲染程序在此文档上已中断 3 次；文档可能过大，无法渲染。",
        ),
        (
            "Rendering took too long; the quote may be too large for one document. (2 attempt(s).)",
            "渲染耗时过长；报价单可能过大，无法生成为一份文档。（已尝试 2 次。）",
        ),
        (
            "The accepted PDF could not be made: The revision's content is not what was sent; "
            "this PDF was not kept.",
            "无法生成已接受的 PDF：该修订版的内容与发送时不一致；此 PDF 未予保留。",
        ),
        (
            "The maker stopped 4 times on this signed copy.",
            "生成程序在此签署副本上已中断 4 次。",
        ),
        (
            "The design or site is not buildable: rack_power_kw: must be at least 1.",
            "该设计或场地无法构建：rack_power_kw: must be at least 1.",  # the engine's words
        ),
        (
            "The pack could not be built (an internal error; the team can see the details).",
            "无法生成安装包（内部错误；技术团队可查看详情）。",
        ),
    ],
)
def test_a_kept_text_reads_in_chinese_and_as_kept_in_english(kept, chinese):
    with translation.override("zh-hans"):
        assert kept_text(kept) == chinese
    with translation.override("en"):
        assert kept_text(kept) == kept


def test_every_kept_text_has_its_chinese():
    with translation.override("zh-hans"):
        untranslated = [t for t in KEPT_TEXTS if translation.gettext(t) == t]
    assert untranslated == []


def test_a_text_it_does_not_know_reads_as_kept():
    with translation.override("zh-hans"):
        assert kept_text("boom: cairo ran out of memory") == "boom: cairo ran out of memory"
        assert kept_text("") == ""
