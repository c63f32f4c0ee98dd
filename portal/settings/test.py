"""Test settings: the base settings with fast hashing and no real e-mail."""

from portal.settings.base import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# Tasks run in-process unless a test starts a real worker (tests/service_helpers.py) and turns
# this off for its own duration.
CELERY_TASK_ALWAYS_EAGER = True

# Webhooks in tests go to a receiver on 127.0.0.1 speaking plain http (tests/integrations); every
# other address is refused as in production, and tests/conftest.py fails any test that opens a
# connection beyond the loopback interface.
WEBHOOKS_ALLOW_HTTP = True
WEBHOOKS_ALLOW_LOOPBACK = True

# Tests that commit are cleaned up by a flush of every table: with DELETE, ten times faster than
# PostgreSQL's TRUNCATE for the few rows a test leaves (tests/postgresql_delete_flush/base.py).
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":  # noqa: F405
    DATABASES["default"]["ENGINE"] = "tests.postgresql_delete_flush"  # noqa: F405
