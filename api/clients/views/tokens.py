"""API tokens: list (personal and account tokens), create a personal one (the key is shown
once), revoke one of either kind.

Creating and revoking need the account itself (session or account token): a personal token
may list tokens (with `read`) but not mint or revoke any.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
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
from api.schema import BODY, COMMON, error
from clients.permissions import AppsReadOnly, NotWithPersonalToken, TokenScopes
from clients.scopes import ACCOUNT_SCOPES
from clients.selectors import tokens_of
from clients.services.tokens import token_create, token_revoke

PERMISSIONS = [IsAuthenticated, TokenScopes, NotWithPersonalToken]
BY_TOKEN = {403: error("Tokens are managed with a session or the account token.")}


class TokensView(APIView):
    permission_classes = [*PERMISSIONS, AppsReadOnly]
    oauth_scopes = ACCOUNT_SCOPES

    @extend_schema(
        operation_id="tokens_list",
        summary="My API tokens that are not revoked, personal and account (never their keys)",
        tags=["tokens"],
        responses={200: ApiTokensOutSerializer, **COMMON},
    )
    def get(self, request: Request) -> Response:
        return Response({"tokens": [token_entry(t) for t in tokens_of(user=request.user)]})

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
