"""The data the fault tests' live server works on, written by a subprocess into its own database
(`run_django("from tests.portal.fault_world import seed; seed()", env)`); prints it as JSON."""

from __future__ import annotations

import json


def seed() -> None:
    from django.contrib.auth.models import Group

    from integrations.models import WebhookEndpoint
    from integrations.services import api_token_issue
    from integrations.webhooks import webhook_secret_new
    from portal.models import User
    from proposals.share.services import share_link_create
    from quoting.quotes.services.quotes import quote_add_free_text, quote_create
    from tests.proposals.conftest import quote_sent
    from tests.quoting.factories import world_make

    def make_user(username, *, role="sales", **extra):
        user = User.objects.create_user(username=username, password="pw", **extra)  # noqa: S106
        if role:
            user.groups.add(Group.objects.get_or_create(name=role)[0])
        return user

    world = world_make(make_user)
    shared = quote_sent(world)
    _, share_token = share_link_create(quote=shared, user=world.sales, recipient_name="Dr Li")
    draft = quote_create(project=world.project, user=world.sales)
    quote_add_free_text(
        quote=draft,
        description="Cabling plan",
        quantity=1,
        unit_price="1000.00",
        user=world.sales,
        expected_version=draft.version,
    )
    _, api_token = api_token_issue(user=world.sales, scope="write", name="CRM")
    # Sending the draft announces quote.sent: a delivery row to keep while the broker is down.
    # Loopback only; the test never lets it be sent.
    WebhookEndpoint.objects.create(
        url="http://127.0.0.1:9/hook",
        secret=webhook_secret_new(),
        events=["quote.sent"],
        created_by=world.sales,
    )
    print(
        json.dumps(
            {
                "share_token": share_token,
                "api_token": api_token,
                "shared_quote": shared.pk,
                "draft_quote": draft.pk,
            }
        )
    )
