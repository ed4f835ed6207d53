"""One limiter for every door that takes a password (docs/accounts.md, "Signing in").

Every sign-in with a password goes through django.contrib.auth.authenticate(): the API's
`POST /api/v1/auth/token/`, the pages' `/login/`, the browsable API's `/api-auth/login/` and
the admin's `/admin/login/`. So the limit lives in the authentication backend
(`LimitedModelBackend`, the only one in AUTHENTICATION_BACKENDS), and every door has it.

Failed sign-ins are counted per account (the username as typed, case-folded) and per client
address (DRF's get_ident: NUM_PROXIES decides which address), in the shared cache with the
same atomic counter as the API's rate limits (api.throttles.window_count): after
CANASTA_SIGNIN_ACCOUNT_FAILURES failures for one account, or CANASTA_SIGNIN_ADDRESS_FAILURES
from one address, the next attempt waits one minute, and every further failure doubles the
wait, up to an hour. While it waits, no password is checked (the right one is refused too),
and the door answers 429 with Retry-After (`signin_limit_middleware`). Failures are forgotten
a day after the first; a successful sign-in forgets the account's (not the address's).
Like the other limits, it fails open when the cache is unreachable.

Known devices (OWASP's "device cookies"): a per-account lock would let anyone who knows a
player's name keep them out for an hour at a time. So a successful sign-in leaves a signed
cookie naming the account (up to DEVICE_NAMES_KEPT names: a family's shared tablet), and a
sign-in that presents it is counted on that device's own key instead of the account's: the
player's browser is not locked by a stranger's guesses, and a stolen cookie still buys only
the account limit of guesses of its own. A program that keeps no cookies gets the same value
in the token answer's `device` and offers it in its next sign-in's body (api.views.auth).
"""

from __future__ import annotations

import math
import secrets
import time
from collections.abc import Callable
from typing import Any

from asgiref.sync import iscoroutinefunction
from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.core import signing
from django.core.cache import caches
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.utils.decorators import sync_and_async_middleware
from django.utils.translation import ngettext
from rest_framework.throttling import BaseThrottle

from api.errors import error_body
from api.throttles import cache_outage, window_count

FIRST_WAIT_SECONDS = 60
LONGEST_WAIT_SECONDS = 3600
MEMORY_SECONDS = 86400
WAIT_ATTRIBUTE = "signin_wait"
# Set by a page that showed the wait in its own form (web's sign-in page): the middleware then
# keeps that page and only marks it 429 with Retry-After.
WAIT_SHOWN_ATTRIBUTE = "signin_wait_shown"
DEVICE_COOKIE = "canasta_device"
DEVICE_SALT = "api.signin.device"
DEVICE_MAX_AGE_SECONDS = 365 * 86400
DEVICE_NAMES_KEPT = 5
DEVICE_ATTRIBUTE = "signin_device"
# Set by the API's token door to the `device` its body offered: a program that keeps no cookie
# presents its device key that way (docs/accounts.md, "Known devices").
DEVICE_OFFERED_ATTRIBUTE = "signin_device_offered"


def _limits() -> tuple[int, int]:
    return (
        int(getattr(settings, "CANASTA_SIGNIN_ACCOUNT_FAILURES", 10)),
        int(getattr(settings, "CANASTA_SIGNIN_ADDRESS_FAILURES", 30)),
    )


def _name(username: str) -> str:
    return (username or "").strip().casefold()


def device_names(request: HttpRequest) -> dict[str, str]:
    """The accounts this browser (or program) signed in to, each with the device's own key:
    {} without a valid cookie or offered value (none, forged, expired)."""
    raw = request.COOKIES.get(DEVICE_COOKIE) or getattr(request, DEVICE_OFFERED_ATTRIBUTE, None)
    if not raw:
        return {}
    try:
        value = signing.loads(raw, salt=DEVICE_SALT, max_age=DEVICE_MAX_AGE_SECONDS)
    except signing.BadSignature:
        return {}
    if not isinstance(value, dict):
        return {}
    return {str(name): str(key) for name, key in value.items()}


def _keys(request: HttpRequest, username: str) -> list[tuple[str, int]]:
    account, address = _limits()
    who = _name(username)
    device = device_names(request).get(who)
    # get_ident reads only the headers and META, which a Django request has as DRF's does.
    address_of = BaseThrottle().get_ident(request)  # type: ignore[arg-type]
    first = f"signin:device:{device}" if device else f"signin:account:{who}"
    return [(first, account), (f"signin:address:{address_of}", address)]


def wait_after(failures: int, limit: int) -> int:
    """Seconds to wait after the last of `failures` failed sign-ins (0 below the limit)."""
    if failures < limit:
        return 0
    return min(FIRST_WAIT_SECONDS * 2 ** min(failures - limit, 16), LONGEST_WAIT_SECONDS)


def signin_wait(request: HttpRequest, username: str, now: float | None = None) -> float:
    """How long sign-ins for `username` from this request's address must wait (0: none)."""
    if cache_outage.active():
        return 0.0
    now = time.time() if now is None else now
    cache = caches["default"]
    longest = 0.0
    keys = _keys(request, username)
    try:
        for key, limit in keys:
            failures = int(cache.get(f"{key}:n") or 0)
            if failures >= limit:
                last = float(cache.get(f"{key}:at") or 0.0)
                longest = max(longest, last + wait_after(failures, limit) - now)
    except Exception as error:  # an unreachable cache lets the sign-in through (logged)
        cache_outage.record_failure(error)
        return 0.0
    return max(0.0, longest)


def signin_failed(request: HttpRequest, username: str, now: float | None = None) -> None:
    now = time.time() if now is None else now
    for key, _limit in _keys(request, username):
        if window_count(f"{key}:n", MEMORY_SECONDS) is None:
            return
        try:
            caches["default"].set(f"{key}:at", now, timeout=MEMORY_SECONDS)
        except Exception as error:
            cache_outage.record_failure(error)
            return


def signin_succeeded(request: HttpRequest, username: str) -> None:
    account_key = _keys(request, username)[0][0]
    _remember_device(request, _name(username))
    try:
        caches["default"].delete_many([f"{account_key}:n", f"{account_key}:at"])
    except Exception as error:
        cache_outage.record_failure(error)


def _remember_device(request: HttpRequest, who: str) -> None:
    """The cookie's next value, set on the response by the middleware: this account first,
    the browser's others after it, the oldest dropped past DEVICE_NAMES_KEPT."""
    names = device_names(request)
    key = names.pop(who, None) or secrets.token_urlsafe(12)
    kept = [(who, key), *list(names.items())[: DEVICE_NAMES_KEPT - 1]]
    setattr(request, DEVICE_ATTRIBUTE, signing.dumps(dict(kept), salt=DEVICE_SALT))


def device_given(request: HttpRequest) -> str | None:
    """The device value a successful sign-in of this request made (the cookie's next value),
    for a door that hands it to a program in its answer; None when the sign-in failed."""
    return getattr(request, DEVICE_ATTRIBUTE, None)


def wait_message(seconds: float) -> str:
    minutes = max(1, math.ceil(seconds / 60))
    return ngettext(
        "Too many failed sign-ins. Please try again in %(minutes)s minute.",
        "Too many failed sign-ins. Please try again in %(minutes)s minutes.",
        minutes,
    ) % {"minutes": minutes}


class LimitedModelBackend(ModelBackend):
    """Django's ModelBackend behind the sign-in limit."""

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> Any:
        if request is None:  # not a door (a management command, a test helper)
            return super().authenticate(request, username, password, **kwargs)
        name = username if username is not None else kwargs.get("username") or ""
        wait = signin_wait(request, name)
        if wait > 0:
            setattr(request, WAIT_ATTRIBUTE, wait)
            # Stops authenticate() here: no password is checked while the door waits.
            raise PermissionDenied
        user = super().authenticate(request, username, password, **kwargs)
        if user is None:
            signin_failed(request, name)
        else:
            signin_succeeded(request, name)
        return user


def _with_device(request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
    cookie = device_given(request)
    if cookie:
        response.set_cookie(
            DEVICE_COOKIE,
            cookie,
            max_age=DEVICE_MAX_AGE_SECONDS,
            secure=settings.SESSION_COOKIE_SECURE,
            httponly=True,
            samesite="Lax",
        )
    return response


def _waiting(request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
    wait = getattr(request, WAIT_ATTRIBUTE, None)
    if not wait:
        return _with_device(request, response)
    seconds = math.ceil(wait)
    if getattr(request, WAIT_SHOWN_ATTRIBUTE, False):
        response.status_code = 429
        response["Retry-After"] = str(seconds)
        return response
    message = wait_message(seconds)
    refused: HttpResponse
    if request.path.startswith("/api/"):
        refused = JsonResponse(
            error_body("throttled", message, {"retry_after": seconds}), status=429
        )
    else:
        refused = HttpResponse(message, status=429, content_type="text/plain; charset=utf-8")
    refused["Retry-After"] = str(seconds)
    return refused


@sync_and_async_middleware
def signin_limit_middleware(get_response: Callable[[HttpRequest], Any]) -> Callable[..., Any]:
    """A door whose sign-in waited answers 429 with Retry-After, whatever it rendered."""
    if iscoroutinefunction(get_response):

        async def async_middleware(request: HttpRequest) -> HttpResponseBase:
            return _waiting(request, await get_response(request))

        return async_middleware

    def middleware(request: HttpRequest) -> HttpResponseBase:
        return _waiting(request, get_response(request))

    return middleware
