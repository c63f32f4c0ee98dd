"""The admin lists of the quoting models open, and quotes are read-only there."""

from __future__ import annotations

import pytest
from django.urls import reverse

from quoting.quotes.models import Quote
from quoting.quotes.services.demo import demo_data_ensure

MODELS = (
    "team",
    "customer",
    "project",
    "saveddesign",
    "tcoscenario",
    "fxrate",
    "quote",
    "quoterevision",
    "approval",
)


@pytest.fixture
def admin_client_with_demo(admin_client, seeded):
    demo_data_ensure()
    return admin_client


@pytest.mark.parametrize("model", MODELS)
def test_every_quoting_admin_list_opens(admin_client_with_demo, model):
    response = admin_client_with_demo.get(reverse(f"admin:quoting_{model}_changelist"))
    assert response.status_code == 200


def test_a_quote_opens_read_only_in_the_admin_with_its_revisions_and_trail(admin_client_with_demo):
    quote = Quote.objects.get()
    response = admin_client_with_demo.get(reverse("admin:quoting_quote_change", args=[quote.pk]))
    assert response.status_code == 200
    assert quote.number in response.text and "lines_from_design" in response.text
    assert admin_client_with_demo.get(reverse("admin:quoting_quote_add")).status_code == 403
