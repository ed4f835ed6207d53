"""Settings, read from the environment. See docs/deployment.md, "Configuration"."""

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use 1/0, true/false, yes/no).")


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


DEBUG = env_bool("DEBUG", default=True)

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    SECRET_KEY = "django-insecure-dev-only-never-use-this-key-in-production"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    # OAuth 2 for third-party apps (docs/clients.md, "OAuth 2"): its models and endpoints.
    "oauth2_provider",
    "games",
    "api",
    "notifications",
    "clients",
    "mailplay",
    "accounts",
    "web",
    # Last: its ready() makes the connections between the apps (canasta_site/wiring.py).
    "canasta_site.apps.SiteConfig",
]

MIDDLEWARE = [
    # A URL over 4094 characters: 414, in the error shape under /api/ (before any other work).
    "api.middleware.url_length_middleware",
    # NUL or a lone surrogate in the path, query, headers or a JSON or form body: 400 (on
    # PostgreSQL it was a 500 once it reached a query).
    "api.middleware.unstorable_middleware",
    # RateLimit / RateLimit-Policy on every response of a limited request (api/throttles.py).
    "api.middleware.rate_limit_headers_middleware",
    # A sign-in refused by the password limiter (api/signin.py) is a 429 at every door.
    "api.signin.signin_limit_middleware",
    "django.middleware.security.SecurityMiddleware",
    # Serves the collected static files (STATIC_ROOT) from gunicorn when DEBUG is off, with
    # far-future caching for the hashed names (docs/deployment.md); runserver serves them
    # itself in development.
    "canasta_site.middleware.StaticFilesMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The language of the answer (docs/i18n.md): after the session (a visitor's switcher
    # choice), before CommonMiddleware (Django's documented order).
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # A signed-in user's language and time zone preferences win over the browser's (needs
    # request.user, so after AuthenticationMiddleware).
    "web.middleware.UserLocaleMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "canasta_site.urls"
WSGI_APPLICATION = "canasta_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "django.template.context_processors.tz",
            ],
        },
    },
]

# Database: DATABASE_URL (postgres://user:pass@host:5432/name), else a SQLite file here.
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # IMMEDIATE takes the write lock at BEGIN, so two writers queue on `timeout` instead of
    # failing with "database is locked" when a read transaction tries to upgrade; WAL lets
    # readers run beside the one writer.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
elif env_bool("CANASTA_DB_POOL", default=False):
    # The ASGI web process (canasta_site/asgi.py turns this on) runs each request in a thread of
    # its own, so per-thread persistent connections would be opened anew every time: it borrows
    # from a psycopg pool instead (Django allows no CONN_MAX_AGE with it; with
    # conn_health_checks each connection is checked as it is handed out). docs/event-streams.md
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 2,
        "max_size": int(os.environ.get("CANASTA_DB_POOL_SIZE", "20")),
        "timeout": 10,
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Cache: Redis when REDIS_URL is set (redis://host:6379/0), else per-process memory.
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "canasta",
            # Short timeouts: the cache holds only rate-limit counters, and when Redis is down
            # or unreachable requests go on without them (api/throttles.py) instead of waiting.
            "OPTIONS": {
                "socket_connect_timeout": float(os.environ.get("REDIS_CONNECT_TIMEOUT", "0.5")),
                "socket_timeout": float(os.environ.get("REDIS_TIMEOUT", "0.5")),
            },
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# Background work (docs/background-work.md): Celery worker and beat. The broker is
# CELERY_BROKER_URL, else REDIS_URL, else kombu's filesystem transport: queue files under
# CANASTA_VAR_DIR/celery that every process on this machine shares, with no server to run.
CANASTA_VAR_DIR = Path(os.environ.get("CANASTA_VAR_DIR") or BASE_DIR / "var")
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL") or REDIS_URL or "filesystem://"
if CELERY_BROKER_URL.startswith("filesystem://"):
    _broker_dir = CANASTA_VAR_DIR / "celery" / "broker"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        # One folder in and out: producers and the worker share the queue files.
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        "control_folder": str(_broker_dir / "control"),
        # Where a worker claims a message by renaming it (one filesystem with the queue).
        "processed_folder": str(_broker_dir / "claimed"),
        "polling_interval": 0.5,
    }
    # kombu's filesystem transport with whole message files (canasta_site/broker.py).
    CELERY_BROKER_TRANSPORT = "canasta_site.broker:Transport"
    # Broadcast (remote control) would leave a queue of files per worker that ever ran.
    CELERY_WORKER_ENABLE_REMOTE_CONTROL = False
else:
    CELERY_BROKER_TRANSPORT_OPTIONS = {"socket_connect_timeout": 3}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A move never waits long for a broker that is down: the outbox row is committed and the sweep
# sends it later.
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}
# A task is acknowledged after it ran, one at a time: a killed worker's task is delivered
# again, which the outbox's claim makes harmless.
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A delivery under way when the broker connection drops is left to finish (its row records
# the outcome); cancelling it could cut it off between sending and recording.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
# Every task has a soft limit (SoftTimeLimitExceeded is raised in it: a delivery under way is
# recorded as a failed attempt) and a hard one (the worker process is killed and replaced), so
# no stuck task holds a worker for good. Tasks with tighter limits name their own.
CELERY_TASK_SOFT_TIME_LIMIT = float(os.environ.get("CELERY_TASK_SOFT_TIME_LIMIT", "120"))
CELERY_TASK_TIME_LIMIT = float(os.environ.get("CELERY_TASK_TIME_LIMIT", "150"))
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_TIMEZONE = "UTC"

# Periodic work, in seconds (canasta_site/celery.py builds the beat schedule from these).
CANASTA_SWEEP_SECONDS = float(os.environ.get("CANASTA_SWEEP_SECONDS", "60"))
CANASTA_DIGEST_SECONDS = float(os.environ.get("CANASTA_DIGEST_SECONDS", "600"))
# A digest reader due with nothing waiting is looked at again this much later that day.
CANASTA_DIGEST_RECHECK_MINUTES = float(os.environ.get("CANASTA_DIGEST_RECHECK_MINUTES", "60"))
# For games.tasks.sweep_deadlines, scheduled as soon as that task exists.
CANASTA_DEADLINE_SWEEP_SECONDS = float(os.environ.get("CANASTA_DEADLINE_SWEEP_SECONDS", "60"))
# Outbox delivery: a claimed row that is not finished after the visibility timeout (its worker
# died) is claimed again, so keep it well above EMAIL_TIMEOUT. Retry n waits
# BACKOFF * 2**(n-1) seconds; after MAX_ATTEMPTS claims the row is marked failed.
CANASTA_OUTBOX_VISIBILITY_SECONDS = float(
    os.environ.get("CANASTA_OUTBOX_VISIBILITY_SECONDS", "300")
)
CANASTA_OUTBOX_BACKOFF_SECONDS = float(os.environ.get("CANASTA_OUTBOX_BACKOFF_SECONDS", "60"))
CANASTA_OUTBOX_MAX_ATTEMPTS = int(os.environ.get("CANASTA_OUTBOX_MAX_ATTEMPTS", "6"))
# Rows a worker claims at a time when it drains the due outbox (there is no cap per sweep).
CANASTA_OUTBOX_SWEEP_BATCH = int(os.environ.get("CANASTA_OUTBOX_SWEEP_BATCH", "100"))
# The worker processes the outbox sweep fans a backlog out to when the workers cannot be asked
# (the embedded broker has no remote control): the concurrency scripts/serve starts.
CANASTA_WORKER_PROCESSES = int(
    os.environ.get("CANASTA_WORKER_PROCESSES") or os.environ.get("CELERY_CONCURRENCY") or "2"
)
CANASTA_MAX_ABSENCE_DAYS_PER_YEAR = int(os.environ.get("CANASTA_MAX_ABSENCE_DAYS_PER_YEAR", "30"))
# Links in emails point here. Unset, it is the address scripts/serve and the Procfile's web
# process listen on: the same PORT (8000 when unset), so a service started on another port
# does not mail links to 8000.
CANASTA_SITE_URL = os.environ.get(
    "CANASTA_SITE_URL", f"http://127.0.0.1:{os.environ.get('PORT') or '8000'}"
).rstrip("/")

# Email: files under var/mail by default; SMTP with EMAIL_BACKEND=...smtp.EmailBackend and the
# EMAIL_HOST* variables.
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.filebased.EmailBackend")
EMAIL_FILE_PATH = os.environ.get("EMAIL_FILE_PATH") or str(CANASTA_VAR_DIR / "mail")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", default=False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", default=False)
EMAIL_TIMEOUT = int(os.environ.get("EMAIL_TIMEOUT", "30"))
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Canasta <canasta@localhost>")
# The domain of our Message-IDs (threading, notifications/headers.py); unset: the domain of
# DEFAULT_FROM_EMAIL (the one its DKIM signature is for).
CANASTA_MESSAGE_ID_DOMAIN = os.environ.get("CANASTA_MESSAGE_ID_DOMAIN", "")
# Presence on the game page (notifications/services/presence.py): a look is written at most
# every WRITE seconds per player and game, and a page seen within PRESENCE seconds counts as
# open (it polls every few seconds, every 30 in a hidden tab).
CANASTA_PRESENCE_WRITE_SECONDS = int(os.environ.get("CANASTA_PRESENCE_WRITE_SECONDS", "30"))
CANASTA_PRESENCE_SECONDS = int(os.environ.get("CANASTA_PRESENCE_SECONDS", "120"))

# Web Push (docs/notifications.md#web-push): the VAPID key pair that signs our pushes, as
# base64url (the private key's 32 bytes; the public key's uncompressed point, 65 bytes), and
# the contact the push services may write to. Without both keys there is no push channel.
VAPID_PRIVATE_KEY = os.environ.get("VAPID_PRIVATE_KEY", "")
VAPID_PUBLIC_KEY = os.environ.get("VAPID_PUBLIC_KEY", "")
VAPID_SUBJECT = os.environ.get("VAPID_SUBJECT", "mailto:operators@example.org")
# Subscriptions are accepted only for the push services' hosts (the server posts to the
# endpoint a browser gives: an allowlist keeps that from reaching anything else). A host
# matches itself and its subdomains; https only, unless CANASTA_PUSH_ALLOW_HTTP (tests).
CANASTA_PUSH_HOSTS = env_list(
    "CANASTA_PUSH_HOSTS",
    [
        "fcm.googleapis.com",
        "push.services.mozilla.com",
        "push.apple.com",
        "notify.windows.com",
    ],
)
CANASTA_PUSH_ALLOW_HTTP = env_bool("CANASTA_PUSH_ALLOW_HTTP", False)
# How long a "your turn" email waits for the player to look first, for players who did not
# choose (NotificationPreference.turn_email_delay_minutes); 0: at once.
CANASTA_TURN_EMAIL_DELAY_MINUTES = int(os.environ.get("CANASTA_TURN_EMAIL_DELAY_MINUTES", "3"))
# While a bot plays a player's seat, their hand-over emails wait (checked again every this
# many minutes) and come as one summary when the match ends or they are back.
CANASTA_AWAY_HAND_OVER_RECHECK_MINUTES = int(
    os.environ.get("CANASTA_AWAY_HAND_OVER_RECHECK_MINUTES", "10")
)

# Accounts (docs/accounts.md): how long a password reset link, an address confirmation link
# and an invitation by email stay valid, and how many invitations by email a player may send
# a day (they go to addresses nobody confirmed).
PASSWORD_RESET_TIMEOUT = int(os.environ.get("PASSWORD_RESET_TIMEOUT", str(24 * 3600)))
CANASTA_EMAIL_CONFIRM_HOURS = int(os.environ.get("CANASTA_EMAIL_CONFIRM_HOURS", "72"))
# Invitation mails one player's actions send to others, per UTC day: to one person, in all
# (notifications/services/sender_caps.py).
CANASTA_SENDER_MAILS_PER_RECIPIENT = int(os.environ.get("CANASTA_SENDER_MAILS_PER_RECIPIENT", "3"))
CANASTA_SENDER_MAILS_PER_DAY = int(os.environ.get("CANASTA_SENDER_MAILS_PER_DAY", "20"))
# Failed sign-ins before the wait starts (api/signin.py): per account, per client address.
CANASTA_SIGNIN_ACCOUNT_FAILURES = int(os.environ.get("CANASTA_SIGNIN_ACCOUNT_FAILURES", "10"))
CANASTA_SIGNIN_ADDRESS_FAILURES = int(os.environ.get("CANASTA_SIGNIN_ADDRESS_FAILURES", "30"))
# Every password door (API token, /login/, /api-auth/login/, /admin/login/) goes through it.
AUTHENTICATION_BACKENDS = ["api.signin.LimitedModelBackend"]
CANASTA_INVITATION_DAYS = int(os.environ.get("CANASTA_INVITATION_DAYS", "14"))
CANASTA_EMAIL_INVITATIONS_PER_DAY = int(os.environ.get("CANASTA_EMAIL_INVITATIONS_PER_DAY", "20"))

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    # Not a check: its password_changed() revokes the user's account tokens on every password
    # change (web, API, admin, manage.py changepassword): clients/passwords.py.
    {"NAME": "clients.passwords.RevokeAccountTokens"},
]

LANGUAGE_CODE = "en"
# What the service speaks (notifications.models.Language holds the same codes). Catalogues
# live in each app's locale/ directory, compiled .mo files committed (docs/i18n.md).
LANGUAGES = [("en", "English"), ("de", "Deutsch"), ("is", "Íslenska")]
# The visitor's choice from the language switcher lives in this cookie (Django's set_language).
LANGUAGE_COOKIE_NAME = "canasta_language"
LANGUAGE_COOKIE_SAMESITE = "Lax"
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
# Formats Django's locales lack (Icelandic dates with times): canasta_site/formats/.
FORMAT_MODULE_PATH = ["canasta_site.formats"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# The web pages (web/): sign-in and where it leads.
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

STATIC_URL = "static/"
# `manage.py collectstatic` (the Procfile's release step) copies every app's static files here.
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or BASE_DIR / "var" / "static")
# WhiteNoise reads STATIC_ROOT once at start-up in production. Before any collectstatic
# (development, tests, benchmarks) there is no such folder: it then looks on each request
# instead of warning at every start (runserver serves the files itself when DEBUG is on).
WHITENOISE_AUTOREFRESH = DEBUG or not STATIC_ROOT.is_dir()
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Production: hashed, compressed copies (whitenoise), so a page never gets a stale
    # stylesheet from a cache. They need collectstatic's manifest, so development (DEBUG on,
    # which the test suite also starts from) keeps the plain storage.
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Every API key, personal or account (Bearer or Token), stored hashed (clients/).
        "clients.authentication.ApiTokenAuthentication",
        # OAuth 2 access tokens (cnso_...) of third-party apps, limited to their scopes.
        "clients.authentication.OAuthTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        # A personal token needs scope `read` for GET and `play` for everything else; an
        # OAuth token the scope its view names (clients/scopes.py).
        "clients.permissions.TokenScopes",
    ],
    # One error shape for every failure (api/errors.py).
    "EXCEPTION_HANDLER": "api.errors.exception_handler",
    # JSON only (docs/api.md): a form or multipart body is 415, and so the schema
    # offers generated clients JSON alone. The parser refuses strings that are not Unicode.
    "DEFAULT_PARSER_CLASSES": ["api.parsers.JSONParser"],
    "DEFAULT_RENDERER_CLASSES": [
        "api.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
    # Counted atomically in the shared cache, let through when it is down (api/throttles.py).
    # No overall per-user limit: read + play per user already bound a user.
    "DEFAULT_THROTTLE_CLASSES": [
        # Requests without credentials, per client address.
        "api.throttles.AnonRateThrottle",
        # Per user and scope (read: safe methods, play: the rest).
        "api.clients.throttles.ScopeRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.environ.get("THROTTLE_ANON_RATE", "120/min"),
        # Sign-up and token requests (api/throttles.py), per client address.
        "auth": os.environ.get("THROTTLE_AUTH_RATE", "30/min"),
        "read": os.environ.get("THROTTLE_READ_RATE", "600/min"),
        "play": os.environ.get("THROTTLE_PLAY_RATE", "120/min"),
        # Password reset requests and confirmations, per client address (docs/accounts.md).
        "password_reset": os.environ.get("THROTTLE_PASSWORD_RESET_RATE", "10/hour"),
    },
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    # Behind N trusted proxies (a load balancer: 1), the client address for the per-address
    # limits is read from X-Forwarded-For, N hops from the right. 0 (the default) reads
    # REMOTE_ADDR only: DRF's own default (None) would take X-Forwarded-For as the client
    # sends it, so anyone could dodge a limit by making one up.
    "NUM_PROXIES": int(os.environ.get("NUM_PROXIES") or 0),
}

# OAuth 2 for third-party apps (django-oauth-toolkit; docs/clients.md, "OAuth 2"): the
# authorization code grant only, PKCE with S256 required of every client, refresh tokens
# rotated with replay detection, tokens stored hashed (RFC 9700, the OAuth security BCP).
OAUTH2_PROVIDER = {
    # The scopes and their words for players (clients/scopes.py, translated on the consent page).
    "SCOPES_BACKEND_CLASS": "clients.scopes.CanastaScopes",
    "DEFAULT_SCOPES": ["read"],
    # A key that says what it is, so the API tells OAuth tokens from API keys without a lookup.
    "ACCESS_TOKEN_GENERATOR": "clients.scopes.access_token_generate",
    "REFRESH_TOKEN_GENERATOR": "clients.scopes.refresh_token_generate",
    "PKCE_REQUIRED": True,
    "AUTHORIZATION_CODE_EXPIRE_SECONDS": 60,
    "ACCESS_TOKEN_EXPIRE_SECONDS": int(os.environ.get("CANASTA_OAUTH_ACCESS_SECONDS", "3600")),
    # An unused refresh token lapses 30 days after its access token expired.
    "REFRESH_TOKEN_EXPIRE_SECONDS": int(
        os.environ.get("CANASTA_OAUTH_REFRESH_SECONDS", str(30 * 24 * 3600))
    ),
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    # Consent is asked every time an app asks (the page names what it may do).
    "REQUEST_APPROVAL_PROMPT": "force",
    # https, and http for native apps' loopback addresses only (RFC 8252): the registration
    # form refuses any other http address (clients/services/oauth.py).
    "ALLOWED_REDIRECT_URI_SCHEMES": ["https", "http"],
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
    "COMPLIANT_BCP_RFC9700_REFRESH_TOKEN": True,
    "COMPLIANT_BCP_RFC9700_REDIRECT_URI_MATCHING": True,
    "COMPLIANT_BCP_RFC9700_PKCE_REQUIRED": True,
    # Checked by our own registration form (loopback only), see ALLOWED_REDIRECT_URI_SCHEMES.
    "COMPLIANT_BCP_RFC9700_REDIRECT_URI_SCHEME": False,
}
# The toolkit's W008 ("http redirect URIs allowed"): http is kept for RFC 8252 loopback
# callbacks of native apps, and only those are accepted at registration (see above).
SILENCED_SYSTEM_CHECKS = ["oauth2_provider.W008"]
# Apps one user may register.
CANASTA_OAUTH_APPS_PER_USER = int(os.environ.get("CANASTA_OAUTH_APPS_PER_USER", "20"))

SPECTACULAR_SETTINGS = {
    "TITLE": "Canasta by correspondence",
    "DESCRIPTION": "Play Canasta one move at a time.",
    "VERSION": "1.0.0",
    # OpenAPI 3.1: null is a type (`oneOf: [{$ref}, {type: null}]`), which strict validators
    # read as meant; 3.0's `nullable` beside a bare `allOf` is not nullable to them (issue 29).
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # OpenAPI links (create a game -> read it -> legal actions -> play): clients and the
    # stateful fuzzer (tests/fuzz/) follow them. The first hook is drf-spectacular's default.
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "api.schema.add_links",
        "api.schema.pin_discriminators",
        # Every status an operation can answer and the headers it sends, from its view class;
        # no `nullable` left in a 3.1 schema (issue 29, docs/api.md#contract-and-guarantees).
        "api.schema.complete_responses",
        "api.schema.null_as_type",
    ],
    "ENUM_NAME_OVERRIDES": {
        "GameStatusEnum": "games.models.GameStatus",
        "SeatStatusEnum": "games.models.SeatStatus",
        "SeatKindEnum": "games.models.SeatKind",
        "TimeoutPolicyEnum": "games.models.TimeoutPolicy",
        "BotLevelEnum": "games.bots.BOT_LEVELS",
        "HealthStatusEnum": ["ok", "degraded", "unavailable"],
        "HealthComponentStateEnum": ["ok", "unavailable"],
        "EventKindEnum": "clients.models.EventKind",
        "TokenScopeEnum": "clients.models.TokenScope",
        "TokenKindEnum": "clients.models.TokenKind",
    },
    "TAGS": [
        {"name": "auth", "description": "Accounts and tokens: `Authorization: Token <key>`."},
        {"name": "variants", "description": "The rule sets and their table options."},
        {"name": "lobby", "description": "Create, find, join and leave tables."},
        {"name": "play", "description": "The game as your seat sees it; your moves."},
        {"name": "chat", "description": "Table talk: the players' chat, mute and report."},
        {"name": "log", "description": "The move log and the hands' seeds and commitments."},
        {
            "name": "me",
            "description": "Your preferences (email, language, time zone) and absences.",
        },
        {"name": "events", "description": "Your event feed: long-poll or server-sent events."},
        {"name": "webhooks", "description": "Signed HTTP callbacks for your events."},
        {"name": "tokens", "description": "Personal API tokens with scopes (read, play)."},
        {"name": "health", "description": "For monitors."},
    ],
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}

# Time controls and timeouts (games/services/clock.py, timeouts.py, bots.py).
# The shortest turn a table may have: a day-long default floor would make tests wait, so tests
# and demos lower it (CANASTA_MIN_TURN_SECONDS=5).
CANASTA_MIN_TURN_SECONDS = int(os.environ.get("CANASTA_MIN_TURN_SECONDS", "60"))
CANASTA_MAX_TURN_SECONDS = int(os.environ.get("CANASTA_MAX_TURN_SECONDS", str(14 * 24 * 3600)))
# A reminder at this fraction of the turn's time (lichess warns at 80%).
CANASTA_REMINDER_FRACTION = float(os.environ.get("CANASTA_REMINDER_FRACTION", "0.8"))
# After this many timeouts in a row a bot stands in for the seat until its player reclaims it.
CANASTA_TIMEOUTS_BEFORE_BOT = int(os.environ.get("CANASTA_TIMEOUTS_BEFORE_BOT", "3"))
# The bot sweep re-queues bot turns older than this (a lost task, a restarted broker).
CANASTA_BOT_STALE_SECONDS = float(os.environ.get("CANASTA_BOT_STALE_SECONDS", "30"))

# Play by email (mailplay/, docs/play-by-email.md). Reply addresses are
# <CANASTA_MAIL_LOCAL_PART>+<token>@<CANASTA_MAIL_DOMAIN>; mail to them comes back through
# `manage.py receive_email` (an MTA pipe or a Maildir) or the inbound webhook.
CANASTA_MAIL_DOMAIN = os.environ.get("CANASTA_MAIL_DOMAIN", "canasta.localhost")
CANASTA_MAIL_LOCAL_PART = os.environ.get("CANASTA_MAIL_LOCAL_PART", "play")
# The From of a reply must be the player's account address; 0 accepts any sender that holds
# the token (answers still go to the account's address only).
CANASTA_MAIL_REQUIRE_FROM_MATCH = env_bool("CANASTA_MAIL_REQUIRE_FROM_MATCH", default=True)
CANASTA_MAIL_MAX_BYTES = int(os.environ.get("CANASTA_MAIL_MAX_BYTES", str(256 * 1024)))
# Draw for email players when drawing is the only legal start of their turn.
CANASTA_MAIL_AUTO_DRAW = env_bool("CANASTA_MAIL_AUTO_DRAW", default=True)
# The inbound webhook (Postmark's format, via django-anymail) takes HTTP basic auth
# "user:password" (anymail's WEBHOOK_SECRET); unset, the webhook refuses every request.
CANASTA_INBOUND_SECRET = os.environ.get("CANASTA_INBOUND_SECRET", "")

# Clients built by others (clients/; docs/clients.md).
# Webhooks to private, loopback, link-local or otherwise internal addresses are refused unless
# this is on (development with a local receiver; never in production).
CANASTA_WEBHOOKS_ALLOW_PRIVATE = env_bool("CANASTA_WEBHOOKS_ALLOW_PRIVATE", default=False)
# The whole of one delivery (connect, send, answer), not each read.
CANASTA_WEBHOOK_TIMEOUT_SECONDS = float(os.environ.get("CANASTA_WEBHOOK_TIMEOUT_SECONDS", "5"))
# A hook is turned off (and its owner mailed) once its deliveries have failed without a
# success for CANASTA_WEBHOOK_DISABLE_AFTER_SECONDS and at least this many times in a row.
CANASTA_WEBHOOK_MAX_FAILURES = int(os.environ.get("CANASTA_WEBHOOK_MAX_FAILURES", "10"))
CANASTA_WEBHOOK_DISABLE_AFTER_SECONDS = float(
    os.environ.get("CANASTA_WEBHOOK_DISABLE_AFTER_SECONDS", str(24 * 3600))
)
# Retries of a failing hook back off from CANASTA_OUTBOX_BACKOFF_SECONDS up to this.
CANASTA_WEBHOOK_MAX_BACKOFF_SECONDS = float(
    os.environ.get("CANASTA_WEBHOOK_MAX_BACKOFF_SECONDS", "3600")
)
CANASTA_WEBHOOKS_PER_USER = int(os.environ.get("CANASTA_WEBHOOKS_PER_USER", "10"))
CANASTA_API_TOKENS_PER_USER = int(os.environ.get("CANASTA_API_TOKENS_PER_USER", "20"))
# Live account tokens per user (one per sign-in with a password); beyond it the oldest go.
CANASTA_ACCOUNT_TOKENS_PER_USER = int(os.environ.get("CANASTA_ACCOUNT_TOKENS_PER_USER", "10"))
# The event feed's long poll: default and longest wait, and how often a waiting request looks.
CANASTA_EVENTS_WAIT_SECONDS = float(os.environ.get("CANASTA_EVENTS_WAIT_SECONDS", "25"))
CANASTA_EVENTS_MAX_WAIT_SECONDS = float(os.environ.get("CANASTA_EVENTS_MAX_WAIT_SECONDS", "60"))
CANASTA_EVENTS_POLL_SECONDS = float(os.environ.get("CANASTA_EVENTS_POLL_SECONDS", "0.5"))
# A server-sent-events stream ends after this long (the client reconnects with Last-Event-ID),
# so a worker thread is never held forever.
CANASTA_EVENTS_STREAM_SECONDS = float(os.environ.get("CANASTA_EVENTS_STREAM_SECONDS", "300"))
# Streams and waiting long polls one user may have open at once, across all web processes (429
# beyond); an open one checks its credentials again this often and ends when they do.
CANASTA_EVENTS_OPEN_PER_USER = int(os.environ.get("CANASTA_EVENTS_OPEN_PER_USER", "4"))
CANASTA_EVENTS_AUTH_CHECK_SECONDS = float(os.environ.get("CANASTA_EVENTS_AUTH_CHECK_SECONDS", "2"))
# Feed events and webhook delivery attempts older than this are deleted, once a day by beat.
CANASTA_EVENTS_RETENTION_DAYS = int(os.environ.get("CANASTA_EVENTS_RETENTION_DAYS", "30"))
CANASTA_EVENTS_PRUNE_SECONDS = float(os.environ.get("CANASTA_EVENTS_PRUNE_SECONDS", "86400"))
# Outbox rows that are done (sent, skipped, failed) are deleted after this, on the same beat.
CANASTA_OUTBOX_RETENTION_DAYS = int(os.environ.get("CANASTA_OUTBOX_RETENTION_DAYS", "30"))
# Every prune (docs/operations.md, "Retention") deletes in chunks of this many rows, each its
# own transaction, and starts no chunk after PRUNE_SECONDS (under the soft time limit): a run
# that did not finish queues its continuation, which starts where it stopped.
CANASTA_PRUNE_CHUNK = int(os.environ.get("CANASTA_PRUNE_CHUNK", "5000"))
CANASTA_PRUNE_SECONDS = float(os.environ.get("CANASTA_PRUNE_SECONDS", "90"))
# Idempotency-Key records are kept this long (Stripe keeps them 24 hours); pruned hourly.
CANASTA_IDEMPOTENCY_RETENTION_HOURS = float(
    os.environ.get("CANASTA_IDEMPOTENCY_RETENTION_HOURS", "24")
)
CANASTA_RETENTION_SWEEP_SECONDS = float(os.environ.get("CANASTA_RETENTION_SWEEP_SECONDS", "3600"))
# A finished game keeps its reply addresses, inbound mail, presence rows, invitations and bot
# memory this long after its end (a late reply is still answered), then is retired (hourly).
CANASTA_FINISHED_GAME_GRACE_DAYS = int(os.environ.get("CANASTA_FINISHED_GAME_GRACE_DAYS", "30"))
# A finished game's move log is packed into one row this long after its end (hourly): after
# the feed's and the outbox's retention, whose rows read its moves (games.services.archive).
CANASTA_MOVE_ARCHIVE_DAYS = int(os.environ.get("CANASTA_MOVE_ARCHIVE_DAYS", "31"))
# Hours after a move is logged that its row is packed into a chunk of the game's older moves
# (games.services.coldmoves; the hourly archive-moves task).
CANASTA_MOVE_PACK_HOURS = int(os.environ.get("CANASTA_MOVE_PACK_HOURS", "24"))
# Inbound mail that reached no game, and revoked API tokens, are deleted after this (daily).
CANASTA_INBOUND_RETENTION_DAYS = int(os.environ.get("CANASTA_INBOUND_RETENTION_DAYS", "30"))
CANASTA_REVOKED_TOKEN_RETENTION_DAYS = int(
    os.environ.get("CANASTA_REVOKED_TOKEN_RETENTION_DAYS", "30")
)

# --- Production hardening (docs/deployment.md; `manage.py check --deploy` passes with no
# warning when DEBUG is off). Behind a TLS-terminating proxy set SECURE_PROXY_SSL_HEADER_NAME.
if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=True)
    # The health check answers over plain HTTP too: load balancers and monitors probe it there,
    # and a redirect (an empty 301, which `curl -f` takes for success) would check nothing.
    SECURE_REDIRECT_EXEMPT = [r"^api/v1/health/$"]
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", str(365 * 24 * 3600)))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SECURE_REFERRER_POLICY = "same-origin"
    X_FRAME_OPTIONS = "DENY"
    if os.environ.get("SECURE_PROXY_SSL_HEADER_NAME"):
        SECURE_PROXY_SSL_HEADER = (os.environ["SECURE_PROXY_SSL_HEADER_NAME"], "https")
SESSION_COOKIE_HTTPONLY = True
# Database sessions with the signed-in account's id beside them (accounts.models.UserSession),
# so an account's sessions are found by an index, not by decoding every session.
SESSION_ENGINE = "accounts.sessions"
# Bodies larger than any legitimate request are refused before parsing (a move is < 2 KB).
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("DATA_UPLOAD_MAX_MEMORY_SIZE", str(256 * 1024)))
DATA_UPLOAD_MAX_NUMBER_FIELDS = 200
