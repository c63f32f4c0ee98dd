"""The number filters quotes and proposals print with: grouped in both languages, units scaled,
RMB amounts in words."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.template import Context, Template
from django.utils import translation

from quoting.templatetags.quoting_numbers import gbps, grouped, ratio, rmb_in_words, watts


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_numbers_are_grouped_by_thousands_in_both_languages(language):
    with translation.override(language):
        assert grouped(409600) == "409,600"
        assert grouped(Decimal("239616000.00")) == "239,616,000.00"
        assert grouped("239616000.5", 2) == "239,616,000.50"
        assert grouped(131072) == "131,072"
        assert grouped(0.6667) == "0.6667"
        assert grouped(989.0) == "989"  # a float's bare ".0" says nothing
        assert grouped(-1234567) == "-1,234,567"


def test_bandwidth_and_power_are_scaled_to_a_readable_unit():
    assert gbps(409600) == "409.6 Tb/s"
    assert gbps(51200) == "51.2 Tb/s"
    assert gbps(800) == "800 Gb/s"
    assert gbps(25600.0) == "25.6 Tb/s"
    assert gbps(2_000_000) == "2 Pb/s"
    assert watts(83914) == "83.9 kW"
    assert watts(950) == "950 W"
    assert watts(20000) == "20 kW"
    assert watts(2_500_000) == "2.5 MW"
    assert watts(1_234_567_000) == "1,234.6 MW"  # no unit beyond: grouped instead


def test_oversubscription_prints_as_a_plain_ratio():
    assert ratio(1.0) == "1:1"
    assert ratio("1.5") == "1.5:1"
    assert ratio(2) == "2:1"


@pytest.mark.parametrize("value", [None, "", "n/a", "NaN", True, [1]])
def test_what_is_not_a_number_prints_unchanged_and_never_fails(value):
    assert grouped(value) == value
    assert gbps(value) == value
    assert watts(value) == value
    assert ratio(value) == value
    assert rmb_in_words(value) == ""


@pytest.mark.parametrize(
    ("amount", "words"),
    [
        (Decimal("239616000.50"), "贰亿叁仟玖佰陆拾壹万陆仟元伍角"),
        (Decimal("5259761.28"), "伍佰贰拾伍万玖仟柒佰陆拾壹元贰角捌分"),
        (Decimal("1.01"), "壹元零壹分"),
        (Decimal("0.05"), "伍分"),
        (Decimal("239616000.00"), "贰亿叁仟玖佰陆拾壹万陆仟元整"),
        (Decimal("10"), "壹拾元整"),
        (Decimal("100100"), "壹拾万零壹佰元整"),
        ("1000000000000.00", "壹万亿元整"),
        (Decimal("1234.565"), "壹仟贰佰叁拾肆元伍角柒分"),  # rounded half up to the fen first
    ],
)
def test_rmb_amounts_read_in_words_with_jiao_fen_and_zheng(amount, words):
    assert rmb_in_words(amount) == words


def test_an_amount_beyond_sixteen_digits_has_no_words_rather_than_an_error():
    assert rmb_in_words(Decimal("12345678901234567.00")) == ""


def test_the_filters_load_in_a_template():
    template = Template(
        "{% load quoting_numbers %}{{ bw|gbps }} | {{ p|watts }} | {{ r|ratio }} | "
        "{{ t|grouped:2 }} | {{ t|rmb_in_words }}"
    )
    with translation.override("zh-hans"):
        text = template.render(
            Context({"bw": 409600, "p": 83914, "r": 1.0, "t": Decimal("239616000.00")})
        )
    assert text == "409.6 Tb/s | 83.9 kW | 1:1 | 239,616,000.00 | 贰亿叁仟玖佰陆拾壹万陆仟元整"
