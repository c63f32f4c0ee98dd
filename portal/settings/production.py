"""Production: everything from the environment, hardened; refuses to start half-configured."""

import os

from django.core.exceptions import ImproperlyConfigured

from portal.settings.base import *  # noqa: F403
from portal.settings.base import env_bool, env_list

DEBUG = False
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if len(SECRET_KEY) < 50:
    raise ImproperlyConfigured("SECRET_KEY must be set to 50+ random characters in production.")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS")
if not ALLOWED_HOSTS:
    raise ImproperlyConfigured("ALLOWED_HOSTS must name the portal's host names in production.")

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# Trusting a TLS proxy's header means there is a proxy, and behind it every request comes from the
# proxy's address: the sign-in throttle and the share-link limiter would count all clients as one
# (five failures for a username by anyone would lock that user out for everyone). So the number
# of proxies that append to X-Forwarded-For must be said (portal.clients). An explicit 0 is taken
# as the operator's word that gunicorn sees each client's own address: it terminates TLS itself,
# or the balancer keeps the client's address as the connection's source (docs/operations.md).
if SECURE_PROXY_SSL_HEADER and not os.environ.get("TRUSTED_PROXY_COUNT", "").strip():
    raise ImproperlyConfigured(
        "TRUSTED_PROXY_COUNT must be set in production: the number of proxies in front of the "
        "portal that append to X-Forwarded-For (1 behind one TLS proxy; 0 only when gunicorn "
        "sees each client's own address)."
    )
if TRUSTED_PROXY_COUNT < 0:  # noqa: F405
    raise ImproperlyConfigured("TRUSTED_PROXY_COUNT must be 0 or more.")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", str(60 * 60 * 24 * 365)))
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"

# gunicorn serves the static files itself, compressed and cache-busted (WhiteNoise right after
# SecurityMiddleware, as it asks; the request-id middleware stays first).
_after_security = MIDDLEWARE.index("django.middleware.security.SecurityMiddleware") + 1  # noqa: F405
MIDDLEWARE = [
    *MIDDLEWARE[:_after_security],  # noqa: F405
    "whitenoise.middleware.WhiteNoiseMiddleware",
    *MIDDLEWARE[_after_security:],  # noqa: F405
]
STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# A webhook to the loopback interface would let any user make the worker call the server's own
# services (integrations/targets.py): development only.
if WEBHOOKS_ALLOW_LOOPBACK:  # noqa: F405
    raise ImproperlyConfigured("WEBHOOKS_ALLOW_LOOPBACK is for development only; unset it.")

# The signed copy is signed with the seller's own certificate, never the development one: only
# what the environment names (proposals/checks.py refuses a missing or self-signed one).
PROPOSALS_SIGNING_PKCS12 = os.environ.get("PROPOSALS_SIGNING_PKCS12", "")

# E-mail: SMTP when EMAIL_HOST is set (see base); without it, none is sent (the inbox still
# tells everyone), rather than printed into the server's log.
if not EMAIL_HOST and not os.environ.get("EMAIL_BACKEND"):  # noqa: F405
    EMAIL_BACKEND = "django.core.mail.backends.dummy.EmailBackend"
PORTAL_URL = os.environ.get("PORTAL_URL", f"https://{ALLOWED_HOSTS[0].lstrip('*.')}").rstrip("/")
