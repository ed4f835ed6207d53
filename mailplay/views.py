"""The inbound webhook: Postmark's inbound JSON ("Inbound webhook" in Postmark's docs), read
by django-anymail, authenticated with HTTP basic auth: CANASTA_INBOUND_SECRET is the
"user:password" pair anymail checks (its WEBHOOK_SECRET). Turn on "Include raw email content"
in Postmark so the exact message (Message-ID, Auto-Submitted, ...) arrives; without it anymail
rebuilds the message from Postmark's parsed fields.

Without a configured secret the endpoint refuses everything (403): an open endpoint would let
anyone who learnt a reply address play without passing the MTA. A wrong or missing password is
anymail's 400. Processed, ignored and refused mail alike get 200, so Postmark does not retry.
"""

from __future__ import annotations

from typing import Any

from anymail.exceptions import AnymailWebhookValidationFailure
from anymail.webhooks.postmark import PostmarkInboundWebhookView
from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden


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
        return super().post(request, *args, **kwargs)
