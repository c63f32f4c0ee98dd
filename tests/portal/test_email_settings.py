"""E-mail: the console in development, SMTP from the environment in production, and none at all
in production without a mail server (rather than e-mails printed into the server's log)."""

import json

from tests.portal.test_settings import run_settings

PROBE = (
    "import json, django; from django.conf import settings; django.setup(); "
    "print(json.dumps({k: getattr(settings, k) for k in ('EMAIL_BACKEND', 'EMAIL_HOST', "
    "'EMAIL_PORT', 'EMAIL_HOST_USER', 'EMAIL_HOST_PASSWORD', 'EMAIL_USE_TLS', "
    "'DEFAULT_FROM_EMAIL', 'PORTAL_URL')}))"
)
PRODUCTION = {
    "SECRET_KEY": "x" * 60,
    "ALLOWED_HOSTS": "quotes.example.com",
    "TRUSTED_PROXY_COUNT": "1",
}


def _probe(env, module):
    result = run_settings(env, module=module, code=PROBE)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_development_prints_emails_to_the_console(tmp_path):
    probe = _probe({"FABRICQUOTE_VAR_DIR": str(tmp_path)}, "portal.settings.base")
    assert probe["EMAIL_BACKEND"] == "django.core.mail.backends.console.EmailBackend"
    assert probe["PORTAL_URL"] == "http://127.0.0.1:8000"


def test_production_sends_by_smtp_as_the_environment_says(tmp_path):
    probe = _probe(
        {
            **PRODUCTION,
            "FABRICQUOTE_VAR_DIR": str(tmp_path),
            "EMAIL_HOST": "smtp.example.com",
            "EMAIL_PORT": "465",
            "EMAIL_HOST_USER": "quotes",
            "EMAIL_HOST_PASSWORD": "secret",
            "EMAIL_USE_TLS": "false",
            "DEFAULT_FROM_EMAIL": "Quotes <q@example.com>",
        },
        "portal.settings.production",
    )
    assert probe == {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": "smtp.example.com",
        "EMAIL_PORT": 465,
        "EMAIL_HOST_USER": "quotes",
        "EMAIL_HOST_PASSWORD": "secret",
        "EMAIL_USE_TLS": False,
        "DEFAULT_FROM_EMAIL": "Quotes <q@example.com>",
        "PORTAL_URL": "https://quotes.example.com",
    }


def test_production_without_a_mail_server_sends_no_email(tmp_path):
    probe = _probe(
        {**PRODUCTION, "FABRICQUOTE_VAR_DIR": str(tmp_path)}, "portal.settings.production"
    )
    assert probe["EMAIL_BACKEND"] == "django.core.mail.backends.dummy.EmailBackend"
