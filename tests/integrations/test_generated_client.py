"""A CRM integration built as a new integrator builds it: a typed client generated from the
published schema by openapi-python-client, nobody's code but the generator's, runs the whole
flow against a live server — customer, contact, project, design, quote, approval, send, share
link, the customer's acceptance on the link, the acceptance, the signed copy and the
installation pack — while the CRM hears every step through webhooks it verifies with the
Standard Webhooks library, and reads the same events back from the event feed.

The generated client parses every documented answer into its models: a schema that says
`totals` where the body has `accepted_totals` fails here with the KeyError a CRM team would
get, and a download not declared binary comes back as text instead of a file.
"""

from __future__ import annotations

import hashlib
import importlib
import pkgutil
import subprocess
import sys
import typing
from pathlib import Path

import httpx
import jsonschema
import pytest
import standardwebhooks
from django.conf import settings
from django.core import mail
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer

from integrations.models import WebhookEvent
from integrations.services import api_token_issue
from tests.api_schema import _document, _json_schema
from tests.integrations.test_webhooks import Receiver
from tests.proposals.signer_codes import code_in
from tests.quoting.factories import TeamFactory

PACKAGE = "fq_crm_client"
CONFIG = f"package_name_override: {PACKAGE}\nproject_name_override: {PACKAGE}\npost_hooks: []\n"

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """The client package generated from the schema the portal serves at /api/schema/."""
    out = tmp_path_factory.mktemp("crm")
    schema = SchemaGenerator().get_schema(request=None, public=True)
    (out / "schema.json").write_bytes(OpenApiJsonRenderer().render(schema))
    (out / "config.yaml").write_text(CONFIG)
    generator = Path(sys.executable).with_name("openapi-python-client")
    run = subprocess.run(
        [
            str(generator),
            "generate",
            "--path",
            str(out / "schema.json"),
            "--output-path",
            str(out / PACKAGE),
            "--meta",
            "none",
            "--config",
            str(out / "config.yaml"),
            "--overwrite",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    # Every operation and model generated: the generator skips what it cannot type, and says so.
    assert "Warning" not in run.stdout + run.stderr, run.stdout + run.stderr
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(out))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
            del sys.modules[name]


class Crm:
    """Calls operations by their operationId, through the generated modules only."""

    def __init__(self, package, *, base_url: str, token: str) -> None:
        self.package = package
        self.client = package.AuthenticatedClient(base_url=base_url, token=token, timeout=120)
        api = importlib.import_module(f"{PACKAGE}.api")
        self.operations = {
            info.name.rsplit(".", 1)[-1]: info.name
            for info in pkgutil.walk_packages(api.__path__, f"{PACKAGE}.api.")
            if not info.ispkg
        }

    def _body(self, module, body: dict):
        hint = typing.get_type_hints(module.sync_detailed)["body"]
        for candidate in typing.get_args(hint) or (hint,):
            if hasattr(candidate, "from_dict"):
                return candidate.from_dict(body)
        raise AssertionError(f"{module.__name__}: no JSON body model in {hint}")

    def __call__(self, operation: str, expect: int, body: dict | None = None, **kwargs):
        module = importlib.import_module(self.operations[operation])
        if body is not None:
            kwargs["body"] = self._body(module, body)
        response = module.sync_detailed(client=self.client, **kwargs)
        assert response.status_code == expect, (operation, response.status_code, response.content)
        return response


def _etag(response) -> str:
    return response.headers["etag"]


def _accept_on_the_link(base_url: str, token: str) -> None:
    """The customer: opens the link in a browser-like client and signs by typing their name
    (the link's token is the credential: its pages take no CSRF cookie), with the one-time code
    the link's address receives (the live server's mail lands in this process's outbox)."""
    signed = {
        "revision": "1",
        "name": "Li Wei",
        "title": "CTO",
        "agreed": "on",
        "signature_kind": "typed",
        "signature_text": "Li Wei",
    }
    with httpx.Client(base_url=base_url, follow_redirects=False, timeout=120) as browser:
        page = browser.get(f"/p/{token}?lang=en")
        assert page.status_code == 200
        asked = browser.post(f"/p/{token}/accept?lang=en", data={**signed, "send_code": "1"})
        assert asked.status_code == 200, asked.text[:2000]
        code = code_in(mail.outbox[-1])
        answer = browser.post(f"/p/{token}/accept?lang=en", data={**signed, "signer_code": code})
        assert answer.status_code == 302, answer.text[:2000]


@pytest.fixture
def hook():
    made = Receiver([])
    yield made
    made.close()


def _event_schema():
    """The catalogue's published oneOf (components.WebhookEvent) as JSON Schema."""
    document = _document()
    return _json_schema(
        {"$ref": "#/components/schemas/WebhookEvent"}, document["components"]["schemas"]
    )


def test_a_generated_client_runs_the_whole_crm_flow(
    generated, live_server, seeded, make_user, hook
):
    sales, manager = make_user("wang", role="sales"), make_user("zhao", role="sales-manager")
    team = TeamFactory(name="Shenzhen")
    team.members.add(sales)
    crm = Crm(
        generated,
        base_url=live_server.url,
        token=api_token_issue(user=sales, scope="write", name="CRM")[1],
    )
    approver = Crm(
        generated,
        base_url=live_server.url,
        token=api_token_issue(user=manager, scope="write", name="CRM manager")[1],
    )

    # The CRM listens to every event of the catalogue, at a loopback receiver.
    endpoint = crm(
        "v1_webhook_endpoints_create",
        201,
        {"url": hook.url, "events": sorted(WebhookEvent.values)},
    ).parsed

    customer = crm("v1_customers_create", 201, {"company": "Pengcheng Lab", "team": team.pk}).parsed
    contact = crm(
        "v1_contacts_create", 201, {"customer": customer.id, "name": "Li Wei", "title": "CTO"}
    ).parsed
    project = crm(
        "v1_projects_create", 201, {"customer": customer.id, "name": "Training cluster"}
    ).parsed
    design = crm(
        "v1_projects_designs_create",
        201,
        {
            "name": "128 GPUs NDR",
            "gpu_count": 128,
            "nic_generation": "NDR",
            "switch_part_number": "MQM9790-NS2F",
            "subnet_manager": "on-switch",
        },
        id=project.id,
    ).parsed
    created = crm("v1_quotes_create", 201, {"design": design.id})
    quote = created.parsed
    assert quote.status == "draft" and contact.id

    # A discount beyond a sales engineer's rule needs a manager's approval before the send.
    terms = crm(
        "v1_quotes_partial_update",
        200,
        {"discount_percent": "15"},
        id=quote.id,
        if_match=_etag(created),
    )
    refused = crm("v1_quotes_send_create", 409, id=quote.id, if_match=_etag(terms))
    asked = crm("v1_quotes_request_approval_create", 200, {}, id=quote.id, if_match=_etag(terms))
    assert refused.status_code == 409
    approved = approver("v1_quotes_approve_create", 200, {}, id=quote.id, if_match=_etag(asked))
    sent = crm("v1_quotes_send_create", 200, id=quote.id, if_match=_etag(approved))
    assert sent.parsed.status == "sent"

    link = crm(
        "v1_quotes_share_links_create",
        201,
        {"recipient_name": "Li Wei", "recipient_email": "li@example.com", "days": 14},
        id=quote.id,
    ).parsed
    _accept_on_the_link(live_server.url, link.token)

    acceptance = crm("v1_quotes_acceptance_retrieve", 200, id=quote.id).parsed
    assert (acceptance.signer, acceptance.title, acceptance.revision_number) == ("Li Wei", "CTO", 1)
    accepted = crm("v1_quotes_retrieve", 200, id=quote.id).parsed
    assert accepted.status == "accepted"
    assert acceptance.accepted_totals.total == acceptance.as_sent_totals.total

    # The signed copy (made by the worker on the acceptance's commit), as a file, as announced.
    assert acceptance.signed_status == "ready", acceptance.signed_status
    signed = crm("v1_quotes_acceptance_signed_pdf_retrieve", 200, id=quote.id)
    assert signed.content.startswith(b"%PDF-")
    assert hashlib.sha256(signed.content).hexdigest() == acceptance.signed_sha256

    crm("v1_quotes_revisions_install_pack_create", 202, {}, id=quote.id, number=1)
    pack = crm("v1_quotes_revisions_install_pack_retrieve", 200, id=quote.id, number=1)
    assert pack.content.startswith(b"PK")
    assert settings.CELERY_TASK_ALWAYS_EAGER  # the worker's jobs ran in the live server

    # Every webhook verifies with the Standard Webhooks library and matches its published
    # schema; the event feed, read through the same client, holds the same events in order.
    verifier, schema = standardwebhooks.Webhook(endpoint.secret), _event_schema()
    delivered = []
    for headers, body in hook.requests:
        event = verifier.verify(body, headers)
        jsonschema.validate(event, schema)
        delivered.append((event["id"], event["type"]))
    expected = {
        "quote.created",
        "approval.requested",
        "approval.decided",
        "quote.sent",
        "proposal.ready",
        "share_link.created",
        "quote.accepted",
        "quote.signed_copy_ready",
    }
    assert expected <= {kind for _, kind in delivered}, delivered
    feed = crm("v1_events_list", 200).parsed  # in the order stored; webhooks may cross
    assert sorted((e.id, e.type_) for e in feed.results) == sorted(delivered)  # type_: generated
