"""The inbound webhook: Postmark's inbound JSON ("Inbound webhook" in Postmark's docs), read
by django-anymail, authenticated with HTTP basic auth: CANASTA_INBOUND_SECRET is the
"user:password" pair anymail checks (its WEBHOOK_SECRET). Turn on "Include raw email content"
in Postmark so the exact message (Message-ID, Auto-Submitted, ...) arrives; without it anymail
rebuilds the message from Postmark's parsed fields.

Without a configured secret the endpoint refuses everything (403): an open endpoint would let
anyone who learnt a reply address play without passing the MTA. A wrong or missing password is
a 400 and one log line (anymail's own handling logged a traceback each time); after
INBOUND_AUTH_FAILURES of them from one client address within INBOUND_AUTH_WINDOW_SECONDS, that
address gets 429 until the window ends, right password or not, so a password cannot be
guessed at request speed. Processed, ignored and refused mail alike get 200, so Postmark does
not retry.
"""

from __future__ import annotations

import logging
from typing import Any

from anymail.exceptions import AnymailWebhookValidationFailure
from anymail.webhooks.postmark import PostmarkInboundWebhookView
from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, HttpResponseForbidden
from rest_framework.throttling import BaseThrottle

logger = logging.getLogger(__name__)

# Failed credentials per client address before it is refused, and for how long (settings
# CANASTA_INBOUND_AUTH_FAILURES and CANASTA_INBOUND_AUTH_WINDOW_SECONDS override them).
INBOUND_AUTH_FAILURES = 10
INBOUND_AUTH_WINDOW_SECONDS = 600


def _client_address(request: HttpRequest) -> str:
    # DRF's reading of the address: REMOTE_ADDR, or X-Forwarded-For behind NUM_PROXIES proxies,
    # as the API's own per-address limits read it.
    # get_ident reads only request.META, which a Django request has; the stub wants DRF's.
    return str(BaseThrottle().get_ident(request))  # type: ignore[arg-type]


def _failures_key(address: str) -> str:
    return f"mailplay:inbound-auth-failures:{address}"


def _window() -> int:
    return int(
        getattr(settings, "CANASTA_INBOUND_AUTH_WINDOW_SECONDS", INBOUND_AUTH_WINDOW_SECONDS)
    )


def _auth_blocked(address: str) -> bool:
    limit = int(getattr(settings, "CANASTA_INBOUND_AUTH_FAILURES", INBOUND_AUTH_FAILURES))
    try:
        return int(cache.get(_failures_key(address)) or 0) >= limit
    except Exception:  # the cache is down: fail open, the password still guards the hook
        logger.warning("inbound webhook: the cache is unavailable; failures are not counted")
        return False


def _auth_failed(address: str) -> None:
    """Count one failure. add then incr: atomic in Redis and in the memory cache, so
    concurrent guesses are all counted; the window starts at the first failure."""
    key = _failures_key(address)
    try:
        cache.add(key, 0, timeout=_window())
        cache.incr(key)
    except ValueError:
        cache.set(key, 1, timeout=_window())  # expired between add and incr
    except Exception:
        logger.warning("inbound webhook: the cache is unavailable; failures are not counted")


def _logged(response: HttpResponse) -> HttpResponse:
    # Our line above says it all: Django's request logger would add a second line per 4xx
    # (it skips responses marked this way, as its own handlers mark theirs).
    response._has_been_logged = True  # type: ignore[attr-defined]
    return response


class InboundWebhookView(PostmarkInboundWebhookView):
    # We refuse outright when no secret is set, so anymail's "insecure" warning is moot.
    warn_if_no_basic_auth = False

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # Read per request (Django makes a view instance per request), so a changed
        # setting applies at once; anymail compares it in constant time.
        secret = settings.CANASTA_INBOUND_SECRET
        self.basic_auth = [secret] if secret else []

    def parse_events(self, request: HttpRequest) -> list[Any]:
        # anymail reads the body with json.loads and expects Postmark's object: anything else
        # (not JSON, not UTF-8, a list, nesting deep enough for a RecursionError) was a 500.
        # As a validation failure it is a 400, like a wrong password (tests/fuzz).
        try:
            return super().parse_events(request)
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
            raise AnymailWebhookValidationFailure(
                "The inbound webhook's body is not a Postmark inbound message."
            ) from None

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not settings.CANASTA_INBOUND_SECRET or not self.basic_auth:
            return HttpResponseForbidden("The inbound webhook is off: set CANASTA_INBOUND_SECRET.")
        address = _client_address(request)
        if _auth_blocked(address):
            logger.warning("inbound webhook: %s is refused after repeated bad credentials", address)
            response = HttpResponse("Too many failed attempts; retry later.", status=429)
            response["Retry-After"] = str(_window())
            return _logged(response)
        try:
            self.run_validators(request)
        except AnymailWebhookValidationFailure:
            _auth_failed(address)
            logger.warning("inbound webhook: missing or wrong credentials from %s", address)
            return _logged(HttpResponseBadRequest("Missing or wrong credentials."))
        try:
            return super().post(request, *args, **kwargs)
        except AnymailWebhookValidationFailure as exc:
            # A body that is not Postmark's message: one line, not Django's traceback of a
            # SuspiciousOperation.
            logger.warning("inbound webhook: refused from %s: %s", address, exc)
            return _logged(HttpResponseBadRequest("The body is not a Postmark inbound message."))
