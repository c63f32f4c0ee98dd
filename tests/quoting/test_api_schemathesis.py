"""schemathesis over the whole OpenAPI schema: positive and negative cases against the Django
WSGI app, as a write token of a sales user with a customer, project, design and quote.

Asserts no server error and no response outside its documented schema; prints the case count.
"""

from __future__ import annotations

import time

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from integrations.models import WebhookEndpoint
from integrations.services import api_token_issue
from portal.wsgi import application
from tests.quoting.api_world import quote_world_make

EXAMPLES_PER_MODE = 5
# Ours document every status they answer; the older compute endpoints only their main ones.
FULLY_DOCUMENTED = (
    "/api/v1/customers",
    "/api/v1/contacts",
    "/api/v1/projects",
    "/api/v1/quotes",
    "/api/v1/approvals",
    "/api/v1/webhook-endpoints",
)


def _path_ids(qw) -> dict[str, dict]:
    endpoint = WebhookEndpoint.objects.create(
        url="https://crm.example/hook",
        secret="whsec_AA==",
        events=["quote.sent"],
        created_by=qw.world.sales,
    )
    return {
        "/api/v1/customers/": {"id": qw.world.customer.pk},
        "/api/v1/contacts/": {"id": qw.contact.pk},
        "/api/v1/projects/": {"id": qw.world.project.pk},
        "/api/v1/quotes/": {
            "id": qw.quote.pk,
            "number": 1,
            "line_id": qw.quote.current_revision.lines.first().pk,
        },
        "/api/v1/webhook-endpoints/": {"id": endpoint.pk},
    }


def _cases_run(strategy, *, auth: dict, checks: list, failures: list) -> int:
    ran = 0

    @given(case=strategy)
    @settings(
        max_examples=EXAMPLES_PER_MODE,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    def run(case):
        nonlocal ran
        ran += 1
        try:
            case.call_and_validate(headers=auth, checks=checks)
        except (Exception, BaseExceptionGroup) as error:  # noqa: BLE001  (report all at once)
            kinds = [ln for ln in str(error).splitlines() if ln.startswith("- ")]
            failures.append(f"{case.method} {case.operation.path}: {kinds or str(error)[:300]}")

    run()
    return ran


@pytest.fixture
def connections_kept_open():
    """Call the WSGI app as Django's test client does: without closing the test's database
    connection at each request (it would close it mid-transaction once CONN_MAX_AGE passed)."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.usefixtures("connections_kept_open")
def test_the_api_matches_its_schema_and_never_answers_500(make_user, fake_dns):
    fake_dns({"*": ["93.184.215.14"]})  # generated webhook URLs resolve without asking DNS
    qw = quote_world_make(make_user)
    _token, raw = api_token_issue(user=qw.world.sales, scope="write", name="schemathesis")
    auth = {"Authorization": f"Bearer {raw}"}
    ids = _path_ids(qw)
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)
    ran, failures, started = 0, [], time.monotonic()
    for result in schema.get_all_operations():
        operation = result.ok()
        path = operation.path
        fixed = next((v for prefix, v in ids.items() if path.startswith(prefix)), {})
        fixed = {k: v for k, v in fixed.items() if f"{{{k}}}" in path}
        checks = [not_a_server_error, response_schema_conformance, content_type_conformance]
        if path.startswith(FULLY_DOCUMENTED):
            checks.append(status_code_conformance)
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            strategy = operation.as_strategy(generation_mode=mode, path_parameters=fixed or None)
            try:
                ran += _cases_run(strategy, auth=auth, checks=checks, failures=failures)
            except (Exception, BaseExceptionGroup) as error:  # noqa: BLE001  (cannot generate)
                failures.append(f"{operation.method.upper()} {path} ({mode}): {error}"[:600])
    print(
        f"\nschemathesis: {ran} cases in {time.monotonic() - started:.1f} s, "
        f"{len(failures)} failures"
    )
    assert ran > 100
    assert not failures, "\n".join(sorted(set(failures)))
