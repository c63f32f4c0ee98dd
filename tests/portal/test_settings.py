"""Settings come from the environment; with nothing set the portal runs embedded."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.proposals.test_signing_checks import seller_pkcs12

ROOT = Path(__file__).resolve().parents[2]
PROBE = (
    "import json, django; from django.conf import settings; django.setup(); "
    "print(json.dumps({'engine': settings.DATABASES['default']['ENGINE'], "
    "'name': str(settings.DATABASES['default']['NAME']), "
    "'eager': settings.CELERY_TASK_ALWAYS_EAGER, 'broker': settings.CELERY_BROKER_URL, "
    "'cache': settings.CACHES['default']['BACKEND'], 'debug': settings.DEBUG}))"
)
SERVICE_VARS = (
    "DATABASE_URL",
    "REDIS_URL",
    "SECRET_KEY",
    "DEBUG",
    "ALLOWED_HOSTS",
    "DJANGO_ALLOW_ASYNC_UNSAFE",
    "TRUSTED_PROXY_COUNT",
    "DB_STATEMENT_TIMEOUT",
    "DB_WORKER_STATEMENT_TIMEOUT",
    "DB_CONNECT_TIMEOUT",
    "DB_TCP_USER_TIMEOUT",
)


def run_settings(env_extra: dict, module: str = "portal.settings.base", code: str = PROBE):
    env = {k: v for k, v in os.environ.items() if k not in SERVICE_VARS}
    env.update(DJANGO_SETTINGS_MODULE=module, **env_extra)
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )


def test_with_nothing_set_the_portal_runs_on_sqlite_in_var_with_in_process_jobs(tmp_path):
    result = run_settings({"FABRICQUOTE_VAR_DIR": str(tmp_path / "var")})
    assert result.returncode == 0, result.stderr
    probe = json.loads(result.stdout)
    assert probe["engine"] == "django.db.backends.sqlite3"
    assert probe["name"] == str(tmp_path / "var" / "db.sqlite3")
    assert (tmp_path / "var").is_dir()
    assert probe["eager"] is True
    assert probe["cache"].endswith("LocMemCache")


def test_database_and_redis_urls_switch_to_postgresql_and_real_workers():
    result = run_settings(
        {
            "DATABASE_URL": "postgres://u:p@db.example:5432/fq",
            "REDIS_URL": "redis://cache.example:6379/0",
        }
    )
    assert result.returncode == 0, result.stderr
    probe = json.loads(result.stdout)
    assert probe["engine"] == "django.db.backends.postgresql"
    assert probe["name"] == "fq"
    assert probe["eager"] is False
    assert probe["broker"] == "redis://cache.example:6379/0"
    assert probe["cache"].endswith("RedisCache")


def test_production_refuses_to_start_without_a_secret_key():
    result = run_settings(
        {"ALLOWED_HOSTS": "quotes.example.com"}, module="portal.settings.production"
    )
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_production_refuses_to_start_without_allowed_hosts():
    result = run_settings({"SECRET_KEY": "x" * 60}, module="portal.settings.production")
    assert result.returncode != 0
    assert "ALLOWED_HOSTS" in result.stderr


PRODUCTION = {"SECRET_KEY": "x" * 60, "ALLOWED_HOSTS": "quotes.example.com"}
PROXY_PROBE = (
    "import json, django; from django.conf import settings; django.setup(); "
    "print(json.dumps({'proxies': settings.TRUSTED_PROXY_COUNT, "
    "'header': settings.SECURE_PROXY_SSL_HEADER}))"
)


@pytest.mark.parametrize("unset", [None, "", "  "])
def test_production_behind_a_tls_proxy_refuses_to_start_without_trusted_proxy_count(
    tmp_path, unset
):
    env = {**PRODUCTION, "FABRICQUOTE_VAR_DIR": str(tmp_path)}
    if unset is not None:
        env["TRUSTED_PROXY_COUNT"] = unset
    result = run_settings(env, module="portal.settings.production", code=PROXY_PROBE)
    assert result.returncode != 0
    assert "ImproperlyConfigured: TRUSTED_PROXY_COUNT must be set in production" in result.stderr


@pytest.mark.parametrize("count", ["0", "1", "2"])
def test_production_takes_the_operators_word_for_the_proxy_count_even_zero(tmp_path, count):
    result = run_settings(
        {**PRODUCTION, "FABRICQUOTE_VAR_DIR": str(tmp_path), "TRUSTED_PROXY_COUNT": count},
        module="portal.settings.production",
        code=PROXY_PROBE,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "proxies": int(count),
        "header": ["HTTP_X_FORWARDED_PROTO", "https"],
    }


def test_production_refuses_a_negative_proxy_count(tmp_path):
    result = run_settings(
        {**PRODUCTION, "FABRICQUOTE_VAR_DIR": str(tmp_path), "TRUSTED_PROXY_COUNT": "-1"},
        module="portal.settings.production",
        code=PROXY_PROBE,
    )
    assert result.returncode != 0 and "TRUSTED_PROXY_COUNT must be 0 or more" in result.stderr


DATABASE_PROBE = (
    "import json, django; from django.conf import settings; django.setup(); "
    "print(json.dumps(settings.DATABASES['default'].get('OPTIONS', {})))"
)


def test_postgresql_connections_carry_a_statement_timeout_keepalives_and_a_tcp_timeout():
    url = {"DATABASE_URL": "postgres://u:p@db.example:5432/fq"}
    options = json.loads(run_settings(url, code=DATABASE_PROBE).stdout)
    assert options["options"] == "-c statement_timeout=20000"  # a web request: 20 s
    assert options["connect_timeout"] == 2
    assert (options["keepalives"], options["keepalives_idle"]) == (1, 5)
    assert (options["keepalives_interval"], options["keepalives_count"]) == (2, 2)
    assert options["tcp_user_timeout"] == 5000
    tuned = json.loads(
        run_settings(
            {
                **url,
                "DB_STATEMENT_TIMEOUT": "45",
                "DB_CONNECT_TIMEOUT": "4",
                "DB_TCP_USER_TIMEOUT": "2.5",
            },
            code=DATABASE_PROBE,
        ).stdout
    )
    assert tuned["options"] == "-c statement_timeout=45000"
    assert (tuned["connect_timeout"], tuned["tcp_user_timeout"]) == (4, 2500)
    # An `options` of the URL's own is kept; the timeout comes after it.
    own = json.loads(
        run_settings(
            {"DATABASE_URL": "postgres://u:p@db.example:5432/fq?options=-c%20search_path%3Dfq"},
            code=DATABASE_PROBE,
        ).stdout
    )
    assert own["options"] == "-c search_path=fq -c statement_timeout=20000"


def test_sqlite_gets_no_postgresql_options(tmp_path):
    options = json.loads(
        run_settings({"FABRICQUOTE_VAR_DIR": str(tmp_path)}, code=DATABASE_PROBE).stdout
    )
    assert "options" not in options and "keepalives" not in options


def test_celery_workers_and_manage_py_commands_may_run_longer_statements(tmp_path):
    url = {"DATABASE_URL": "postgres://u:p@db.example:5432/fq"}
    worker = run_settings(
        url,
        code=(
            "import json, django; django.setup(); from django.conf import settings; "
            "from portal.celery import worker_statement_timeout; worker_statement_timeout(); "
            "print(json.dumps(settings.DATABASES['default']['OPTIONS']['options']))"
        ),
    )
    assert json.loads(worker.stdout) == (
        "-c statement_timeout=20000 -c statement_timeout=180000"  # libpq: the last one wins
    )
    command = subprocess.run(
        [
            *(sys.executable, "manage.py", "shell", "-v", "0", "-c"),
            "import json; from django.conf import settings; "
            "print(json.dumps(settings.DATABASES['default']['OPTIONS']))",
        ],
        cwd=ROOT,
        env={
            **{k: v for k, v in os.environ.items() if k not in SERVICE_VARS},
            "DJANGO_SETTINGS_MODULE": "portal.settings.base",
            **url,
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert json.loads(command.stdout)["options"] == "-c statement_timeout=0", command.stderr


def test_production_settings_pass_the_deploy_checklist(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in SERVICE_VARS}
    env.update(
        DJANGO_SETTINGS_MODULE="portal.settings.production",
        SECRET_KEY="k3y-" + "abcdefghij" * 6,
        ALLOWED_HOSTS="quotes.example.com",
        TRUSTED_PROXY_COUNT="1",
        FABRICQUOTE_VAR_DIR=str(tmp_path),
        # Production signs signed copies with a seller's certificate an authority issued.
        PROPOSALS_SIGNING_PKCS12=seller_pkcs12(tmp_path, self_signed=False),
        PROPOSALS_SIGNING_PASSPHRASE="s3cret",
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
