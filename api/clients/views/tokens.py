"""API tokens: list (personal and account tokens), create a personal one (the key is shown
once), revoke one of either kind.

Creating and revoking need the account itself (session or account token): a personal token
may list tokens (with `read`) but not mint or revoke any.
"""

from __future__ import annotations

from datetime import datetime

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.clients.presenters import token_entry
from api.clients.serializers import (
    ApiTokenCreatedSerializer,
    ApiTokenInSerializer,
    ApiTokensOutSerializer,
)
from api.paging import (
    Keyset,
    cursor_of,
    cursor_parameter,
    keyset_page,
    limit_parameter,
    paging_deprecated,
)
from api.schema import BODY, COMMON, error
from clients.permissions import AppsReadOnly, NotWithPersonalToken, TokenScopes
from clients.scopes import ACCOUNT_SCOPES
from clients.selectors import tokens_of
from clients.services.tokens import token_create, token_revoke

TOKENS_PAGE_DEFAULT = 100
TOKENS_PAGE_MAX = 100
NEWEST_TOKENS = Keyset("tokens", ("-created_at", "-id"), (datetime, int))


class TokensQuerySerializer(serializers.Serializer):
    limit = serializers.IntegerField(
        required=False, min_value=1, max_value=TOKENS_PAGE_MAX, default=TOKENS_PAGE_DEFAULT
    )


PERMISSIONS = [IsAuthenticated, TokenScopes, NotWithPersonalToken]
BY_TOKEN = {403: error("Tokens are managed with a session or the account token.")}


class TokensView(APIView):
    permission_classes = [*PERMISSIONS, AppsReadOnly]
    oauth_scopes = ACCOUNT_SCOPES

    @extend_schema(
        operation_id="tokens_list",
        summary="My API tokens that are not revoked, personal and account (never their keys)",
        tags=["tokens"],
        parameters=[cursor_parameter(), limit_parameter(TOKENS_PAGE_DEFAULT, TOKENS_PAGE_MAX)],
        responses={
            200: ApiTokensOutSerializer,
            400: error("Bad limit (invalid_request); invalid_cursor."),
            **COMMON,
        },
    )
    def get(self, request: Request) -> Response:
        query = TokensQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        cursor = cursor_of(request)
        tokens = tokens_of(user=request.user)
        page = keyset_page(tokens, NEWEST_TOKENS, cursor, query.validated_data["limit"])
        results = [token_entry(t) for t in page.rows]
        body = {"results": results, "next_cursor": page.next_cursor}
        if cursor:
            return Response(body)
        return paging_deprecated(Response({**body, "tokens": results}))

    @extend_schema(
        operation_id="tokens_create",
        summary="Create a personal API token; the answer shows its key, once",
        description="Scopes: `read` (GET requests) and `play` (every other method: create, "
        "join, move, resign, webhooks). Use it as `Authorization: Bearer <key>`.",
        tags=["tokens"],
        request=ApiTokenInSerializer,
        responses={
            201: ApiTokenCreatedSerializer,
            400: error("invalid_scopes, too_many_tokens, invalid_request."),
            **BY_TOKEN,
            **BODY,
            **COMMON,
        },
    )
    def post(self, request: Request) -> Response:
        serializer = ApiTokenInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        token, key = token_create(owner=request.user, name=data["name"], scopes=data.get("scopes"))
        # Not @idempotent: a stored replay would keep the key in clear. Never cached either.
        response = Response({**token_entry(token), "key": key}, status=status.HTTP_201_CREATED)
        response["Cache-Control"] = "no-store"
        return response


class TokenView(APIView):
    permission_classes = PERMISSIONS
    oauth_scopes = ACCOUNT_SCOPES

    @extend_schema(
        operation_id="tokens_revoke",
        summary="Revoke a token, personal or account: it stops working at once",
        tags=["tokens"],
        responses={
            204: None,
            404: error("No such token of yours (not_found)."),
            **BY_TOKEN,
            **COMMON,
        },
    )
    def delete(self, request: Request, token_id: int) -> Response:
        token_revoke(owner=request.user, token_id=token_id)
        return Response(status=status.HTTP_204_NO_CONTENT)
