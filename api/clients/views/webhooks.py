"""The caller's webhooks: register, list, change, delete, rotate the secret, read the log."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.clients.presenters import delivery_entry, webhook_entry
from api.clients.serializers import (
    DeliveriesOutSerializer,
    DeliveriesQuerySerializer,
    WebhookInSerializer,
    WebhookPatchInSerializer,
    WebhookSecretSerializer,
    WebhookSerializer,
)
from api.idempotency import idempotent
from api.paging import (
    Keyset,
    cursor_of,
    cursor_parameter,
    deprecated_parameter,
    limit_parameter,
    paging_deprecated,
)
from api.schema import BODY, COMMON, IDEMPOTENCY_KEY, error
from clients.scopes import WEBHOOK_SCOPES
from clients.selectors import (
    DELIVERIES_PAGE_DEFAULT,
    DELIVERIES_PAGE_MAX,
    deliveries_of,
    webhooks_of,
)
from clients.services.webhooks import (
    webhook_create,
    webhook_delete,
    webhook_of,
    webhook_rotate_secret,
    webhook_update,
)

NEWEST_DELIVERIES = Keyset("deliveries", ("-id",), (int,))
NO_HOOK = {404: error("No such webhook of yours (not_found).")}
BAD_HOOK = error(
    "unsafe_url (not http(s), or the host resolves to a private, loopback or other internal "
    "address), invalid_kinds, too_many_webhooks, invalid_request."
)


class WebhooksView(APIView):
    oauth_scopes = WEBHOOK_SCOPES

    @extend_schema(
        operation_id="webhooks_list",
        summary="My webhooks (without their secrets)",
        tags=["webhooks"],
        responses={200: WebhookSerializer(many=True), **COMMON},
    )
    def get(self, request: Request) -> Response:
        return Response([webhook_entry(hook) for hook in webhooks_of(user=request.user)])

    @extend_schema(
        operation_id="webhooks_create",
        summary="Register a webhook; the answer shows its secret, once",
        description="Every event of the chosen kinds (of one game, or of all your games) is "
        "POSTed to the URL as JSON, the same as a feed entry, with headers X-Canasta-Event-Id, "
        "X-Canasta-Event-Kind, X-Canasta-Webhook-Id, X-Canasta-Timestamp and "
        'X-Canasta-Signature: "sha256=" + hex HMAC-SHA256(secret, "<timestamp>.<body>"). Any '
        "2xx answer is a delivery; anything else (redirects included) is retried with backoff, "
        "and the later events wait for it: a hook gets its events one at a time, in order. "
        "After a day of failures (CANASTA_WEBHOOK_DISABLE_AFTER_SECONDS) the hook is turned off "
        "and you get an email. The host must resolve to public addresses only.",
        tags=["webhooks"],
        request=WebhookInSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={
            201: WebhookSecretSerializer,
            400: BAD_HOOK,
            404: error("No such game, or one you may not see (not_found)."),
            409: error("request_in_progress (Idempotency-Key)."),
            422: error("idempotency_key_reused."),
            **BODY,
            **COMMON,
        },
    )
    @idempotent
    def post(self, request: Request) -> Response:
        serializer = WebhookInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        hook, secret = webhook_create(
            owner=request.user, url=data["url"], kinds=data.get("kinds"), game_id=data["game"]
        )
        response = Response(
            {**webhook_entry(hook), "secret": secret}, status=status.HTTP_201_CREATED
        )
        response["Cache-Control"] = "no-store"
        return response


class WebhookView(APIView):
    oauth_scopes = WEBHOOK_SCOPES

    @extend_schema(
        operation_id="webhooks_retrieve",
        summary="One of my webhooks",
        tags=["webhooks"],
        responses={200: WebhookSerializer, **NO_HOOK, **COMMON},
    )
    def get(self, request: Request, webhook_id: int) -> Response:
        return Response(webhook_entry(webhook_of(owner=request.user, webhook_id=webhook_id)))

    @extend_schema(
        operation_id="webhooks_update",
        summary="Change a webhook's URL or kinds, or turn it off and on",
        tags=["webhooks"],
        request=WebhookPatchInSerializer,
        responses={200: WebhookSerializer, 400: BAD_HOOK, **NO_HOOK, **BODY, **COMMON},
    )
    def patch(self, request: Request, webhook_id: int) -> Response:
        # partial: a field left out is left as it is (a form body once turned the hook off).
        serializer = WebhookPatchInSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        hook = webhook_update(
            owner=request.user, webhook_id=webhook_id, **serializer.validated_data
        )
        return Response(webhook_entry(hook))

    @extend_schema(
        operation_id="webhooks_delete",
        summary="Delete a webhook (deliveries still queued for it are dropped)",
        tags=["webhooks"],
        responses={204: None, **NO_HOOK, **COMMON},
    )
    def delete(self, request: Request, webhook_id: int) -> Response:
        webhook_delete(owner=request.user, webhook_id=webhook_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookRotateView(APIView):
    oauth_scopes = WEBHOOK_SCOPES

    @extend_schema(
        operation_id="webhooks_rotate_secret",
        summary="A new secret for the webhook, shown once; the old one stops at once",
        tags=["webhooks"],
        request=None,
        responses={200: WebhookSecretSerializer, **NO_HOOK, **COMMON},
    )
    def post(self, request: Request, webhook_id: int) -> Response:
        hook, secret = webhook_rotate_secret(owner=request.user, webhook_id=webhook_id)
        response = Response({**webhook_entry(hook), "secret": secret})
        response["Cache-Control"] = "no-store"
        return response


class WebhookDeliveriesView(APIView):
    oauth_scopes = WEBHOOK_SCOPES

    @extend_schema(
        operation_id="webhooks_deliveries",
        summary="The webhook's delivery log, newest first",
        description="One entry per attempt: time, event id, attempt number, the receiver's "
        "status code, and the error if it failed.",
        tags=["webhooks"],
        parameters=[
            cursor_parameter(),
            limit_parameter(DELIVERIES_PAGE_DEFAULT, DELIVERIES_PAGE_MAX),
            deprecated_parameter(
                "before",
                {"type": "integer", "minimum": 1},
                "only attempts older than this delivery id; use cursor.",
            ),
        ],
        responses={
            200: DeliveriesOutSerializer,
            400: error("Bad limit or before (invalid_request); invalid_cursor."),
            **NO_HOOK,
            **COMMON,
        },
    )
    def get(self, request: Request, webhook_id: int) -> Response:
        query = DeliveriesQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        cursor = cursor_of(request)
        hook = webhook_of(owner=request.user, webhook_id=webhook_id)
        limit = query.validated_data["limit"]
        before = (
            NEWEST_DELIVERIES.decode(cursor)[0] if cursor else query.validated_data.get("before")
        )
        rows = deliveries_of(webhook=hook, limit=limit + 1, before=before)
        page = [delivery_entry(row) for row in rows[:limit]]
        next_cursor = NEWEST_DELIVERIES.encode_row(rows[limit - 1]) if len(rows) > limit else None
        body = {"results": page, "next_cursor": next_cursor}
        if cursor:
            return Response(body)
        # The old form: `next_before` was given whenever the page was full.
        next_before = rows[limit - 1].pk if len(rows) >= limit else None
        return paging_deprecated(Response({**body, "deliveries": page, "next_before": next_before}))
