"""Web Push in the browser (docs/notifications.md#web-push): the web app manifest, the service
worker (served from the site's root so that its scope is the whole site), and a device's
opt-in and opt-out from Settings (JSON, the session and the CSRF header)."""

from __future__ import annotations

import json
from pathlib import Path

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.templatetags.static import static
from django.utils.translation import gettext as _
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET, require_POST

from api.errors import error_body
from games.messages import error_message
from games.services.errors import GameError
from notifications.services.push import push_subscribe, push_unsubscribe
from web.views.common import STATUS_BY_KIND, signed_in_user

WORKER = Path(__file__).resolve().parents[1] / "static" / "web" / "sw.js"


@require_GET
@cache_control(max_age=0, no_cache=True)
def service_worker_view(request: HttpRequest) -> HttpResponse:
    return HttpResponse(WORKER.read_bytes(), content_type="text/javascript; charset=utf-8")


@require_GET
@cache_control(max_age=86400)
def manifest_view(request: HttpRequest) -> HttpResponse:
    manifest = {
        "name": _("Canasta by correspondence"),
        "short_name": "Canasta",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": "#f6f4ee",
        "theme_color": "#1f5c45",
        "icons": [{"src": static("web/favicon.svg"), "sizes": "any", "type": "image/svg+xml"}],
    }
    return HttpResponse(json.dumps(manifest), content_type="application/manifest+json")


def _body(request: HttpRequest) -> dict[str, object]:
    try:
        data = json.loads(request.body or b"{}")
    except (ValueError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


@login_required
@require_POST
def push_subscribe_view(request: HttpRequest) -> HttpResponse:
    """This device's subscription (PushSubscription.toJSON() of the browser)."""
    try:
        push_subscribe(user=signed_in_user(request), subscription=_body(request))
    except GameError as error:
        body = error_body(error.code, error_message(error))
        return JsonResponse(body, status=STATUS_BY_KIND[error.kind])
    return JsonResponse({"subscribed": True}, status=201)


@login_required
@require_POST
def push_unsubscribe_view(request: HttpRequest) -> HttpResponse:
    endpoint = _body(request).get("endpoint")
    removed = push_unsubscribe(user=signed_in_user(request), endpoint=str(endpoint or ""))
    return JsonResponse({"removed": removed})


def push_public_key() -> str:
    """The key browsers subscribe with ("" when push is not set up: no opt-in offered)."""
    if not (settings.VAPID_PRIVATE_KEY and settings.VAPID_PUBLIC_KEY):
        return ""
    return str(settings.VAPID_PUBLIC_KEY)
