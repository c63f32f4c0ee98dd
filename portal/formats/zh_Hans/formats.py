"""Simplified Chinese formats as quotes print them: Django's, with amounts grouped by thousands
(1,234,567.00), the convention of Chinese invoices and price lists."""

from django.conf.locale.zh_Hans.formats import *  # noqa: F403

THOUSAND_SEPARATOR = ","
NUMBER_GROUPING = 3
