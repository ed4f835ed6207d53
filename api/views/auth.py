"""Sign-up, account tokens and the password. The browsable API also accepts a session (login
at /api-auth/login/).

Account tokens are API keys stored hashed (clients.ApiToken, kind "account"): each sign-in
with a password gets a new one, shown once; a password change revokes them all and answers
with a fresh one; POST /auth/token/revoke/ revokes them all (clients/services/tokens.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib.auth import authenticate, get_user_model, update_session_auth_hash
from django.contrib.auth.models import update_last_login
from django.db import transaction
from django.utils.translation import get_language_from_request
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.services.addresses import address_set
from api.deprecation import TOKEN_NAMES_DEPRECATED, TOKEN_NAMES_SUNSET, deprecation_headers
from api.errors import ApiError
from api.schema import BODY, COMMON, THROTTLED, error
from api.serializers.auth import (
    AccountTokensRevokedSerializer,
    PasswordChangeInSerializer,
    RegisterInSerializer,
    TokenInSerializer,
    TokenOutSerializer,
)
from api.signin import DEVICE_OFFERED_ATTRIBUTE, device_given
from api.throttles import AuthRateThrottle, PasswordRateThrottle
from api.users import request_user
from clients.models import ApiToken
from clients.permissions import NotWithAppToken, NotWithPersonalToken, TokenScopes
from clients.services.tokens import account_token_create, account_tokens_revoke
from notifications.services.preferences import preference_update

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# Managing the account needs the account itself: a session or an account token.
BY_PERSONAL_TOKEN = {403: error("Not with a personal token: use a session or an account token.")}


def _token_response(
    user: User, token: ApiToken, key: str, *, status_code: int = 200, device: str | None = None
) -> Response:
    # `id` and `key`, as /tokens/ names them; `token_id` and `token` are the deprecated names
    # of the same two (docs/api-changelog.md).
    body = {"username": user.get_username(), "id": token.pk, "key": key, "token_id": token.pk,
            "token": key}  # fmt: skip
    if device:
        body["device"] = device
    response = Response(body, status=status_code)
    # The key exists in clear only in this answer: no cache may keep it.
    response["Cache-Control"] = "no-store"
    deprecation_headers(response, since=TOKEN_NAMES_DEPRECATED, sunset=TOKEN_NAMES_SUNSET)
    return response


class RegisterView(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes = [AuthRateThrottle]

    @extend_schema(
        operation_id="auth_register",
        summary="Create an account and get an account token",
        tags=["auth"],
        request=RegisterInSerializer,
        responses={
            201: TokenOutSerializer,
            400: error("Invalid username or password (invalid_request, details.fields)."),
            **BODY,
            **THROTTLED,
        },
        auth=[],
    )
    def post(self, request: Request) -> Response:
        serializer = RegisterInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        with transaction.atomic():
            user = get_user_model().objects.create_user(
                username=data["username"], password=data["password"], email=data.get("email", "")
            )
            # The language asked for, else the one the request reads in (Accept-Language).
            preference_update(
                user=user,
                language=data.get("language") or get_language_from_request(request._request),
                time_zone=data.get("time_zone"),
            )
            # The address gets a confirmation link and nothing else until it is opened.
            address_set(user=user, address=user.email, reason="signup")
            token, key = account_token_create(owner=user)
        return _token_response(user, token, key, status_code=status.HTTP_201_CREATED)


class TokenView(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes = [AuthRateThrottle]

    @extend_schema(
        operation_id="auth_token",
        summary="Exchange a username and password for a new account token",
        description="Every call gives a new key (keys are stored hashed, so an old one cannot "
        "be shown again). A user keeps the newest CANASTA_ACCOUNT_TOKENS_PER_USER (default "
        "10) account tokens; older ones are revoked. A password change revokes them all.",
        tags=["auth"],
        request=TokenInSerializer,
        responses={
            200: TokenOutSerializer,
            400: error(
                "Missing fields (invalid_request) or wrong credentials (invalid_credentials)."
            ),
            **BODY,
            **THROTTLED,
        },
        auth=[],
    )
    def post(self, request: Request) -> Response:
        serializer = TokenInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        # A program's device key, as a browser's cookie would carry it (api.signin).
        offered = serializer.validated_data.get("device")
        setattr(request._request, DEVICE_OFFERED_ATTRIBUTE, offered)
        user = authenticate(
            request._request,
            username=serializer.validated_data["username"],
            password=serializer.validated_data["password"],
        )
        if user is None:
            raise ApiError(status.HTTP_400_BAD_REQUEST, "wrong_credentials")
        # A sign-in, as on the pages: it records the time, which spends any password reset
        # link mailed before (the link's hash covers last_login; docs/accounts.md).
        update_last_login(type(user), user)
        token, key = account_token_create(owner=user)
        return _token_response(user, token, key, device=device_given(request._request))


class AccountTokensRevokeView(APIView):
    permission_classes = [IsAuthenticated, TokenScopes, NotWithPersonalToken, NotWithAppToken]

    @extend_schema(
        operation_id="auth_token_revoke",
        summary="Revoke every account token of mine (sign out every program)",
        description="Every account token stops working at once, the one of this request "
        "too. Personal tokens are not touched (revoke them with DELETE /tokens/{id}/).",
        tags=["auth"],
        request=None,
        responses={200: AccountTokensRevokedSerializer, **BY_PERSONAL_TOKEN, **COMMON},
    )
    def post(self, request: Request) -> Response:
        return Response({"revoked": account_tokens_revoke(owner=request.user)})


class PasswordView(APIView):
    permission_classes = [IsAuthenticated, TokenScopes, NotWithPersonalToken, NotWithAppToken]
    throttle_classes = [PasswordRateThrottle]

    @extend_schema(
        operation_id="auth_password_change",
        summary="Change my password; every account token is revoked, a new one is returned",
        description="Other sessions are signed out and every account token stops working "
        "(the one of this request too): use the token in the answer. Personal tokens keep "
        "working.",
        tags=["auth"],
        request=PasswordChangeInSerializer,
        responses={
            200: TokenOutSerializer,
            400: error(
                "A new password the rules refuse (invalid_request, details.fields) or a wrong "
                "old password (invalid_credentials)."
            ),
            **BY_PERSONAL_TOKEN,
            **BODY,
            **COMMON,
        },
    )
    def post(self, request: Request) -> Response:
        user = request_user(request)
        serializer = PasswordChangeInSerializer(data=request.data, context={"user": user})
        serializer.is_valid(raise_exception=True)
        if not user.check_password(serializer.validated_data["old_password"]):
            raise ApiError(status.HTTP_400_BAD_REQUEST, "old_password_wrong")
        with transaction.atomic():
            user.set_password(serializer.validated_data["new_password"])
            # Saving a new password revokes every account token (clients/passwords.py).
            user.save(update_fields=["password"])
            token, key = account_token_create(owner=user)
        if request._request.session.session_key is not None:
            # The session making the change stays signed in; every other one is signed out.
            update_session_auth_hash(request._request, user)
        return _token_response(user, token, key)
