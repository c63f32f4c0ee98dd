"""Settings come from the environment; with nothing set the portal runs embedded."""

import json
import os
import subprocess
import sys
from pathlib import Path

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


def test_production_settings_pass_the_deploy_checklist(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in SERVICE_VARS}
    env.update(
        DJANGO_SETTINGS_MODULE="portal.settings.production",
        SECRET_KEY="k3y-" + "abcdefghij" * 6,
        ALLOWED_HOSTS="quotes.example.com",
        FABRICQUOTE_VAR_DIR=str(tmp_path),
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
