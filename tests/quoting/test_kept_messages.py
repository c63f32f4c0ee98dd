"""A row's status text kept as its message reads in the reader's language from the message, its
figures whatever they are; a row kept before messages still reads through kept_texts (#27 item
4)."""

from __future__ import annotations

from django.utils import translation

from proposals.documents.services import RENDERER_STOPPED
from quoting.engine.messages import message
from quoting.kept_messages import as_is, kept_words
from quoting.kept_texts import kept_text

STOPPED = "The renderer stopped 1 000 times on this document; it may be too large to render."


def test_a_kept_message_reads_in_chinese_even_with_a_figure_no_pattern_recognises(no_kept_texts):
    kept = message(RENDERER_STOPPED, attempts="1 000")  # a figure with a space
    assert str(kept) == STOPPED
    with translation.override("zh-hans"):
        assert kept_words(STOPPED, kept.as_json()) == (
            "渲染程序在此文档上已中断 1 000 次；文档可能过大，无法渲染。"
        )


def test_the_same_english_without_its_message_is_not_recognised_by_kept_texts():
    with translation.override("zh-hans"):
        assert kept_words(STOPPED, None) == kept_text(STOPPED) == STOPPED


def test_a_row_kept_before_messages_still_reads_through_kept_texts():
    with translation.override("zh-hans"):
        assert kept_words("The e-mail could not be queued.", None) == "邮件未能加入发送队列。"


def test_words_kept_as_they_are_are_never_taken_for_a_known_text(no_kept_texts):
    said = "The e-mail could not be queued."  # a mail server's own words that happen to match
    with translation.override("zh-hans"):
        assert kept_words(said, as_is(said).as_json()) == said


def test_no_text_shows_nothing_whatever_the_message():
    assert kept_words("", message(RENDERER_STOPPED, attempts=3).as_json()) == ""
