"""Sign-up and tokens. The browsable API also accepts a session (login at /api-auth/login/)."""

from __future__ import annotations

from django.contrib.auth import authenticate, get_user_model
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.authtoken.models import Token
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.errors import ApiError
from api.schema import BODY, THROTTLED, error
from api.serializers.auth import RegisterInSerializer, TokenInSerializer, TokenOutSerializer
from api.throttles import AuthRateThrottle


class RegisterView(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes = [AuthRateThrottle]

    @extend_schema(
        operation_id="auth_register",
        summary="Create an account and get its token",
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
        user = get_user_model().objects.create_user(
            username=data["username"], password=data["password"], email=data.get("email", "")
        )
        token = Token.objects.create(user=user)
        return Response(
            {"username": user.get_username(), "token": token.key}, status=status.HTTP_201_CREATED
        )


class TokenView(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes = [AuthRateThrottle]

    @extend_schema(
        operation_id="auth_token",
        summary="Exchange a username and password for the account's token",
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
        user = authenticate(
            request._request,
            username=serializer.validated_data["username"],
            password=serializer.validated_data["password"],
        )
        if user is None:
            raise ApiError(
                status.HTTP_400_BAD_REQUEST,
                "invalid_credentials",
                "Unknown username or wrong password.",
            )
        token, _ = Token.objects.get_or_create(user=user)
        return Response({"username": user.get_username(), "token": token.key})
