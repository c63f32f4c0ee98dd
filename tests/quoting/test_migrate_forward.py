"""quoting became sub-apps (customers, designs, quotes) by moving code, not tables: a database
made by the migrations before the split needs nothing to run, keeps every row, and the models
in their new modules read those rows."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.apps import apps
from django.db import connection
from django.db.migrations.autodetector import MigrationAutodetector
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.state import ProjectState

from quoting.customers.models import Customer, Project, Team
from quoting.designs.models import FxRate, SavedDesign
from quoting.quotes.models import Quote

pytestmark = pytest.mark.django_db

# The sub-apps' models and the module each lives in now; all keep the `quoting` label.
MOVED = {
    "Team": "quoting.customers.models",
    "Customer": "quoting.customers.models",
    "Project": "quoting.customers.models",
    "SavedDesign": "quoting.designs.models",
    "TcoScenario": "quoting.designs.models",
    "FxRate": "quoting.designs.models",
    "Quote": "quoting.quotes.models.quotes",
    "QuoteRevision": "quoting.quotes.models.quotes",
    "QuoteEvent": "quoting.quotes.models.audit",
    "Notification": "quoting.quotes.models.notifications",
    "InstallPack": "quoting.quotes.models.install",
}


def test_a_database_made_before_the_split_has_nothing_to_migrate():
    executor = MigrationExecutor(connection)
    assert executor.migration_plan(executor.loader.graph.leaf_nodes()) == []
    # and the models ask for no migration (what `makemigrations --check` says in CI)
    changes = MigrationAutodetector(
        executor.loader.project_state(), ProjectState.from_apps(apps)
    ).changes(graph=executor.loader.graph)
    assert changes == {}


def test_every_quoting_model_keeps_its_label_its_table_and_its_columns():
    with connection.cursor() as cursor:
        tables = set(connection.introspection.table_names(cursor))
        for model in apps.get_app_config("quoting").get_models():
            assert model._meta.app_label == "quoting"
            assert model._meta.db_table == f"quoting_{model._meta.model_name}"
            assert model._meta.db_table in tables
            described = connection.introspection.get_table_description(cursor, model._meta.db_table)
            columns = {column.name for column in described}
            assert {field.column for field in model._meta.concrete_fields} <= columns
    for name, module in MOVED.items():
        assert apps.get_model("quoting", name).__module__ == module


def test_rows_written_by_the_models_before_the_split_are_read_by_the_models_after_it(
    django_user_model,
):
    # The models as the migrations know them: the state of the last migration, which is the
    # database a server running the code before the split made and wrote.
    executor = MigrationExecutor(connection)
    before = executor.loader.project_state(executor.loader.graph.leaf_nodes()).apps
    owner = django_user_model.objects.create(username="before-split")
    team = before.get_model("quoting", "Team").objects.create(name="North")
    customer = before.get_model("quoting", "Customer").objects.create(
        company="Old Co", team_id=team.pk, owner_id=owner.pk
    )
    project = before.get_model("quoting", "Project").objects.create(
        customer_id=customer.pk, name="Cluster A", owner_id=owner.pk, requirements={"gpu_count": 64}
    )
    before.get_model("quoting", "FxRate").objects.create(
        source="USD", target="CNY", rate=Decimal("7.123456"), as_of=dt.date(2026, 11, 1)
    )

    assert Team.objects.get(pk=team.pk).name == "North"
    assert Customer.objects.get(pk=customer.pk).company == "Old Co"
    assert Project.objects.get(pk=project.pk).requirements == {"gpu_count": 64}
    assert FxRate.objects.get().rate == Decimal("7.123456")
    assert not SavedDesign.objects.exists() and not Quote.objects.exists()
