"""A kept list of part numbers in an audit event reads as a list in the reader's language."""

from django.utils import translation

from quoting.quotes.display import event_detail_rows
from quoting.quotes.models.audit import QuoteEventVerb


def test_unpriced_spares_kit_parts_are_listed_with_the_enumeration_comma_in_chinese():
    details = {"spares_kit_unpriced": "MTEF-PSF-AC-C, MTEF-PSR-AC-K"}

    with translation.override("en"):
        english = dict(event_detail_rows(QuoteEventVerb.ALTERNATIVE_KIT_ADDED, details))
    with translation.override("zh-hans"):
        chinese = dict(event_detail_rows(QuoteEventVerb.ALTERNATIVE_KIT_ADDED, details))

    assert english == {"Spares kit parts without a price": "MTEF-PSF-AC-C, MTEF-PSR-AC-K"}
    assert list(chinese.values()) == ["MTEF-PSF-AC-C、MTEF-PSR-AC-K"]
