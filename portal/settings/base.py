"""Settings read from the environment.

With nothing set the portal runs embedded: SQLite in ./var/, background jobs in-process, a local
memory cache. Set DATABASE_URL and REDIS_URL to run on PostgreSQL with real Celery workers.
`.env.example` documents every variable.
"""

from __future__ import annotations

import os
import warnings
from datetime import timedelta
from pathlib import Path

import dj_database_url
from celery.schedules import crontab
from csp.constants import NONCE, NONE, SELF
from django.utils.translation import gettext_lazy as _

# pyHanko imports cryptography's DSA key type to recognise such keys (we sign with RSA or EC):
# cryptography deprecates DSA, and the warning would open every command's output.
warnings.filterwarnings("ignore", message="DSA is deprecated", module="pyhanko")

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(os.environ.get("FABRICQUOTE_VAR_DIR", BASE_DIR / "var"))


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", True)
# The development key is only ever used with DEBUG on; production.py refuses to start without one.
SECRET_KEY = os.environ.get("SECRET_KEY") or "dev-only-insecure-key-change-me"  # noqa: S105
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")
# Proxies in front of the portal that append to X-Forwarded-For (1 behind one TLS proxy): the
# client address sign-in throttling and the share-link limiter count is taken from there
# (portal.clients). production.py refuses to start without it (see there).
TRUSTED_PROXY_COUNT = int(os.environ.get("TRUSTED_PROXY_COUNT", "").strip() or 0)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "axes",
    "csp",
    "portal",
    "catalog",
    "quoting",
    "proposals",
    "integrations",
]

MIDDLEWARE = [
    # First: X-Request-ID on every answer and log record; problem details for /api/ errors.
    "portal.api.middleware.RequestIdMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "portal.middleware.DatabaseUnavailableMiddleware",  # the database down: 503, not 500
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "portal.middleware.UserLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "integrations.middleware.ApiBodyLimitMiddleware",
    "portal.middleware.CSPMiddleware",  # django-csp's, the constant header built once
    # Last, as django-axes asks: it turns a locked-out sign-in into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "portal.urls"
WSGI_APPLICATION = "portal.wsgi.application"
AUTH_USER_MODEL = "portal.User"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "portal.context_processors.header",  # work-queue and inbox badges
            ],
        },
    },
]

if not os.environ.get("DATABASE_URL"):
    VAR_DIR.mkdir(parents=True, exist_ok=True)  # the embedded SQLite lives here
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
# A statement may run this long (seconds, 0: no limit): a request waiting on a lock or a runaway
# query is stopped by PostgreSQL and answers 503, well before gunicorn's 30 s timeout kills its
# worker. Celery workers take DB_WORKER_STATEMENT_TIMEOUT instead (portal/celery.py): a task may
# run up to its hard time limit. manage.py sets no limit unless DB_STATEMENT_TIMEOUT is set
# (migrations, imports).
DB_STATEMENT_TIMEOUT = int(os.environ.get("DB_STATEMENT_TIMEOUT") or 20)
DB_WORKER_STATEMENT_TIMEOUT = int(os.environ.get("DB_WORKER_STATEMENT_TIMEOUT") or 180)


def statement_timeout_option(seconds: int) -> str:
    """libpq's `options` for a statement timeout; later `-c` settings win over earlier ones."""
    return f"-c statement_timeout={seconds * 1000}"


if DATABASES["default"]["ENGINE"].endswith("postgresql"):
    _options = DATABASES["default"].setdefault("OPTIONS", {})
    # A database out of reach answers 503 within seconds (portal.middleware), not a hang; libpq
    # waits at least 2 s, and that long again for each address a host name resolves to.
    _options.setdefault("connect_timeout", int(os.environ.get("DB_CONNECT_TIMEOUT") or 2))
    _options["options"] = " ".join(
        filter(None, [_options.get("options"), statement_timeout_option(DB_STATEMENT_TIMEOUT)])
    )
    # A server that vanished (host down, network cut) is noticed by TCP rather than waited on
    # until gunicorn's timeout: data it does not acknowledge within DB_TCP_USER_TIMEOUT seconds,
    # or an idle or waiting connection whose keepalive probes go unanswered (after 5 s, then
    # every 2 s, twice), drops the connection and the request answers 503. A process that hangs
    # while its host still acknowledges is not noticed here; /healthz tells the balancer within
    # 2 s (portal/health.py).
    _options.setdefault("keepalives", 1)
    _options.setdefault("keepalives_idle", int(os.environ.get("DB_KEEPALIVES_IDLE") or 5))
    _options.setdefault("keepalives_interval", 2)
    _options.setdefault("keepalives_count", 2)
    _options.setdefault(
        "tcp_user_timeout", int(float(os.environ.get("DB_TCP_USER_TIMEOUT") or 5) * 1000)
    )
    # QuerySet.iterator() fetches in one go instead of through a server-side cursor (DECLARE,
    # FETCH, FETCH, CLOSE: four round trips). Its only users are the forms' model choice lists
    # (a few dozen customers or owners in a filter's dropdown), where a cursor was most of the
    # time of rendering the list page's filters; nothing here streams a large table.
    DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = True
    # Parameters bound by the server let psycopg prepare a statement once a connection has run
    # it DB_PREPARE_THRESHOLD times (5): PostgreSQL then plans it once per connection, not on
    # every request. Planning was most of a page's time in the database (1.2 ms of the share
    # page's 1.3 ms lookup; bench/bench_web.py). DB_PREPARE_THRESHOLD=off binds on the client
    # and prepares nothing, as Django's default, for a transaction-mode PgBouncer. A statement
    # binds at most 65,535 parameters this way: write large batches in parts (batch_size).
    _prepare_after = (os.environ.get("DB_PREPARE_THRESHOLD") or "5").strip().lower()
    if _prepare_after not in ("off", "none"):
        DATABASES["default"]["OPTIONS"].update(
            server_side_binding=True, prepare_threshold=int(_prepare_after)
        )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "")
# After Redis (as the cache or as the broker) failed a call, the process skips it for this many
# seconds (portal/cache.py, portal/queueing.py): an outage costs one request its timeout, not
# every request. The fault tests shorten it to drill a fresh outage without waiting 5 s.
SERVICE_PAUSE_SECONDS = float(os.environ.get("SERVICE_PAUSE_SECONDS") or 5)
if REDIS_URL:
    # Acts as an empty cache while Redis is down (rate limits open), never as an error.
    CACHES = {
        "default": {
            "BACKEND": "portal.cache.ForgivingRedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
    # Sessions read from Redis (a query less per signed-in page), written through to the
    # database, which still answers while Redis is down. Only with a cache all workers share:
    # with a per-process one a sign-out would not reach the other workers.
    SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- Sign-in throttling and Content-Security-Policy (issues 13, 23) -----------------------------
# Three rules (portal/signin.py), none of which lets failures from elsewhere keep a user's right
# password out: django-axes locks one username from one client after AXES_FAILURE_LIMIT failures
# for AXES_COOLOFF_TIME (429 there, even with the right password; staff see and clear it in the
# admin, "Access attempts"); past a soft limit per username or per client, each further failure
# makes the client that failed wait before its next try at that username (2 s, doubling, up to
# SIGNIN_MAX_WAIT_SECONDS); past SIGNIN_CLIENT_BUDGET failures from one client, its failures are
# answered 429 until the window (AXES_COOLOFF_TIME) ends. A client is its address as
# portal.clients.client_network says: behind TRUSTED_PROXY_COUNT proxies, an IPv6 client per /64.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses a locked-out attempt before checking
    "portal.signin.SigninThrottleBackend",  # then a client told to wait, before checking
    "portal.backends.RolesModelBackend",  # ModelBackend, reading the roles with the user
]
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = timedelta(minutes=15)
# The pair only: counted per username alone, anyone could lock any known user out; per address
# alone, one guesser would lock out everyone behind the same address.
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
# A success wipes only its own pair's failures (the parameters above), never other usernames'.
AXES_RESET_ON_SUCCESS = True
# An attempt refused while locked out (or told to wait) tried no password: it is not counted and
# does not push the cool-off further (django-axes' default would do both).
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_LOCKOUT_CALLABLE = "portal.signin.lockout_response"
AXES_VERBOSE = False  # log failures and lockouts, not a banner at every start
# Behind TRUSTED_PROXY_COUNT reverse proxies the client is the address the outermost one saw; an
# IPv6 client is recorded as its /64's first address.
AXES_CLIENT_IP_CALLABLE = "portal.clients.client_network"
SIGNIN_USERNAME_SOFT_LIMIT = 5  # failures for one username, from anywhere, before waits
SIGNIN_CLIENT_SOFT_LIMIT = 20  # failures from one client, any usernames (an office's NAT)
SIGNIN_MAX_WAIT_SECONDS = 300
SIGNIN_CLIENT_BUDGET = 100  # failures from one client per window, then its failures get 429

# Staff pages: scripts and styles from our own static files, or inline only with the per-request
# nonce; no eval (htmx runs with allowEval off). The share page (/p/<token>) sets its own,
# stricter policy in proposals/share/guard.py, which this middleware leaves as it is.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF, NONCE],
        "img-src": [SELF, "data:"],
        "object-src": [NONE],
        "base-uri": [NONE],
        "frame-ancestors": [NONE],
        "form-action": [SELF],
    },
}
# --- end sign-in throttling and CSP ------------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("zh-hans", _("Simplified Chinese"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
FORMAT_MODULE_PATH = ["portal.formats"]
TIME_ZONE = os.environ.get("TIME_ZONE", "Asia/Shanghai")
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", VAR_DIR / "staticfiles"))
MEDIA_URL = "/media/"
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", VAR_DIR / "media"))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# Uploads: a catalog CSV of a few thousand rows is well under this.
DATA_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "integrations.auth.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "integrations.auth.TokenScopePermission",
    ],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    # JSON bodies only (DRF's parser with a nesting limit): anything else is 415. Forms are for
    # the pages, which are plain Django views; an API upload would add its parser on its view.
    "DEFAULT_PARSER_CLASSES": ["portal.api.parsers.DepthLimitedJSONParser"],
    "DEFAULT_PAGINATION_CLASS": "portal.api.pagination.PortalPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "COERCE_DECIMAL_TO_STRING": True,
    "DEFAULT_THROTTLE_CLASSES": ["integrations.auth.TokenRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {"api_token": os.environ.get("API_RATE", "3000/hour")},
    "EXCEPTION_HANDLER": "portal.api.exceptions.api_exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "FabricQuote API",
    "DESCRIPTION": "Fabric design, TCO, quotes and proposals for NVIDIA networking.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI served from our own static files: no CDN (closed networks, strict CSP).
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # Every status is an enum with a stable name, so generated clients get enum types.
    "ENUM_NAME_OVERRIDES": {
        "QuoteStatusEnum": "quoting.quotes.models.QuoteStatus",
        "LineKindEnum": "quoting.quotes.models.LineKind",
        "LineSectionEnum": "quoting.quotes.models.Section",
        "QuoteEventVerbEnum": "quoting.quotes.models.QuoteEventVerb",
        "ApprovalDecisionEnum": "quoting.quotes.models.ApprovalDecision",
        "InstallPackStatusEnum": "quoting.designs.models.InstallPackStatus",
        "DocumentStatusEnum": "proposals.models.DocumentStatus",
        "SignatureKindEnum": "proposals.models.SignatureKind",
        "TokenScopeEnum": "integrations.models.TokenScope",
        "DeliveryStatusEnum": "integrations.models.DeliveryStatus",
        "WebhookEventEnum": "integrations.models.WebhookEvent",
        "VatZoneEnum": "quoting.customers.models.VatZone",
        "UserRoleEnum": "portal.models.ROLE_GROUPS",
        # The site's languages: a customer's, and an installation pack's. Named as the
        # customer's was first published, so that generated clients keep the type they have.
        "CustomerLanguageEnum": LANGUAGES,
    },
    # drf-spectacular's enum hook first; each app of the API appends its own.
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "portal.api.schema_downloads.declare_downloads_binary",
        "portal.api.schema_tags.tag_operations_by_resource",
        "portal.api.idempotency.document_idempotency_key",
        "portal.api.schema.document_problems_and_headers",
        "integrations.catalogue.add_event_catalogue",
    ],
}
SPECTACULAR_SETTINGS["DESCRIPTION"] += (
    "\n\nAuthentication: `Authorization: Bearer <token>` (read tokens may only GET), or the "
    "browser session with CSRF; without valid credentials 401 with `WWW-Authenticate`."
    "\n\nErrors: every 4xx and 5xx under /api/ is an RFC 9457 problem "
    "(`application/problem+json`): `type`, `title`, `status`, `detail`, a machine-readable "
    '`code` ("invalid", "not_found", "throttled"...), `request_id`, and for field errors '
    '`errors` mapping each field (nested ones by dotted path, "lines[0].sku") to its messages '
    '(`{"errors": {"company": ["This field is required."]}}`). Unknown query parameters are '
    "a 400. Every answer has `X-Request-ID` (yours echoed when sane); callers with a token or "
    "a session get `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`, and 429 "
    "with `Retry-After` past the budget. Every list takes `updated_since`; every detail GET "
    "has an `ETag` (`If-None-Match` gives 304). Quote writes need `If-Match` with the quote's "
    "ETag (428 without, 412 when stale). Every POST, PUT, PATCH and DELETE accepts an "
    "`Idempotency-Key` (a retry gets the first answer). Bodies are JSON only (else 415); "
    "bodies over the upload limit get 413."
)

# Celery: with REDIS_URL, real workers share the broker; without it, tasks run in-process at
# once (the embedded default), which keeps `make run` a single process.
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = REDIS_URL or "cache+memory://"
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SOFT_TIME_LIMIT = 120
CELERY_TASK_TIME_LIMIT = 180
# Above the hard time limit, so a slow task is never delivered twice while still running.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
# A broker outage costs a request about a second, not Celery's patient defaults (19 s seen): the
# rows are committed first and the sweepers (beat) send what could not be queued. A publish is
# one attempt: connecting and each answer wait 1 s, and it is not retried (a retry doubled the
# cost of a Redis that accepts and never answers; redis-py itself reconnects a connection that a
# restarted Redis dropped). The result store is not asked at all (portal.queueing).
CELERY_BROKER_TRANSPORT_OPTIONS.update(socket_connect_timeout=1, socket_timeout=1)
CELERY_BROKER_CONNECTION_TIMEOUT = 1
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 0}
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = 2
CELERY_REDIS_SOCKET_TIMEOUT = 2
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {
    "retry_policy": {
        "max_retries": 1,
        "interval_start": 0,
        "interval_step": 0.5,
        "interval_max": 0.5,
    },
}
# Our tasks keep their outcome in rows (documents, deliveries): no result store on the way in.
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_EXPIRES = 3600
CELERY_TIMEZONE = TIME_ZONE
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"}
    },
    # Share-link tokens never reach a log line, whatever logger wrote it (django.server and
    # gunicorn's loggers, which have handlers of their own, get the filter in ProposalsConfig).
    # Each record of a request carries its X-Request-ID (portal.api.request_ids).
    "filters": {
        "share_tokens": {"()": "proposals.share.logs.RedactShareTokens"},
        "request_id": {"()": "portal.api.request_ids.RequestIdFilter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["share_tokens", "request_id"],
        }
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        # WeasyPrint and fontTools narrate every render at INFO; keep their warnings only.
        "weasyprint": {"level": "WARNING"},
        "fontTools": {"level": "WARNING"},
    },
}

# Webhooks (integrations/targets.py) go only to https URLs whose every address is public, to the
# address that was checked, without following redirects. WEBHOOKS_ALLOW_HTTP also accepts plain
# http (development only). WEBHOOKS_ALLOW_LOOPBACK also accepts 127.0.0.0/8 and ::1, for a
# receiver on your own machine and the test suite's (development only: production refuses it).
WEBHOOKS_ALLOW_HTTP = env_bool("WEBHOOKS_ALLOW_HTTP", False)
WEBHOOKS_ALLOW_LOOPBACK = env_bool("WEBHOOKS_ALLOW_LOOPBACK", False)
# Events (the feed) and webhook deliveries are kept this long, then purged daily.
WEBHOOKS_RETENTION_DAYS = int(os.environ.get("WEBHOOKS_RETENTION_DAYS") or 30)
WEBHOOKS_TIMEOUT_SECONDS = 5  # connecting, and each read of the answer
WEBHOOKS_RESPONSE_EXCERPT_BYTES = 1024  # what is kept of the answer

# E-mail (notifications to staff). With no EMAIL_HOST the messages are printed to the console
# (development, embedded); with one, they go out by SMTP.
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND") or (
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend"
)
EMAIL_PORT = int(os.environ.get("EMAIL_PORT") or 587)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
EMAIL_TIMEOUT = int(os.environ.get("EMAIL_TIMEOUT") or 10)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "FabricQuote <noreply@localhost>")
# Where the links in e-mails point (no request to build them from in a worker).
PORTAL_URL = os.environ.get("PORTAL_URL", "http://127.0.0.1:8000").rstrip("/")

# The signed copy's digital signature (PAdES, proposals/documents/signing.py): the seller's
# certificate with its key, either one PKCS#12 file (PROPOSALS_SIGNING_PKCS12) or PEM files
# (PROPOSALS_SIGNING_KEY, PROPOSALS_SIGNING_CERT, the issuers in PROPOSALS_SIGNING_CHAIN), the
# passphrase from the environment only. Unset, development signs with the self-signed
# certificate `make run` creates (manage.py signing_certificate_dev); production.py has no such
# default and its deploy check refuses a missing or self-signed certificate. With
# PROPOSALS_TSA_URL (an RFC 3161 timestamp authority) copies are PAdES B-LT, else B-B.
DEVELOPMENT_SIGNING_PKCS12 = VAR_DIR / "signing" / "development.p12"
PROPOSALS_SIGNING_PKCS12 = os.environ.get("PROPOSALS_SIGNING_PKCS12", "")
PROPOSALS_SIGNING_KEY = os.environ.get("PROPOSALS_SIGNING_KEY", "")
PROPOSALS_SIGNING_CERT = os.environ.get("PROPOSALS_SIGNING_CERT", "")
PROPOSALS_SIGNING_CHAIN = os.environ.get("PROPOSALS_SIGNING_CHAIN", "")
PROPOSALS_SIGNING_PASSPHRASE = os.environ.get("PROPOSALS_SIGNING_PASSPHRASE", "")
if not (PROPOSALS_SIGNING_PKCS12 or PROPOSALS_SIGNING_KEY):
    PROPOSALS_SIGNING_PKCS12 = str(DEVELOPMENT_SIGNING_PKCS12)
PROPOSALS_TSA_URL = os.environ.get("PROPOSALS_TSA_URL", "")
# PEM file of the timestamp authority's root certificate (required with PROPOSALS_TSA_URL).
PROPOSALS_TSA_ROOTS = os.environ.get("PROPOSALS_TSA_ROOTS", "")

# The customer's signer proves they read the share link's recipient e-mail with a one-time code
# before an acceptance is recorded (proposals/conf.py has its other PROPOSALS_SIGNER_CODE_*
# limits). Off, links with an address accept as links without one: unverified.
PROPOSALS_SIGNER_CODE = env_bool("PROPOSALS_SIGNER_CODE", True)

# Demo sign-in created by `make run` (manage.py setup_demo); never in production.
DEMO_PASSWORD = os.environ.get("DEMO_PASSWORD", "fabric-demo-2026")

# Quoting rules (discount approval thresholds, VAT, FX fallback, numbering, validity) have
# documented defaults in quoting/conf.py QUOTING_DEFAULTS; a setting of the same name here
# replaces one.

# Periodic jobs run by `celery -A portal beat` (one beat process per deployment).
# Quotes expire shortly after midnight local time (CELERY_TIMEZONE): the task is idempotent.
CELERY_BEAT_SCHEDULE = {
    "quotes-expire-overdue": {
        "task": "quoting.quotes_expire_overdue",
        "schedule": crontab(hour=0, minute=10),
    },
    # Renewal reminders go out in the morning, when the sales engineers read them.
    "renewals-remind": {"task": "quoting.renewals_remind", "schedule": crontab(hour=7, minute=30)},
    # Share-link reminders to customers (PROPOSALS_REMINDER_*), in their morning too.
    "share-link-reminders": {
        "task": "proposals.share_link_reminders",
        "schedule": crontab(hour=8, minute=0),
    },
    "proposals-requeue-stuck": {"task": "proposals.requeue_stuck", "schedule": 300.0},
    "snapshots-refresh": {"task": "quoting.snapshots_refresh", "schedule": crontab(minute=25)},
    "notification-emails-requeue": {
        "task": "quoting.notification_emails_requeue",
        "schedule": 300.0,
    },
    # Every minute: deliveries whose retry is due (waits over 5 min are not left in the broker).
    "webhook-deliveries-requeue": {
        "task": "integrations.webhook_deliveries_requeue",
        "schedule": 60.0,
    },
    "webhooks-purge": {
        "task": "integrations.webhooks_purge",
        "schedule": crontab(hour=3, minute=40),
    },
}
