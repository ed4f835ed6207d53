"""Accounts (docs/accounts.md): password reset, the account and its address, data export,
account deletion, invitations by email and rematch."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.services.addresses import (
    address_confirm,
    address_set,
    address_state,
    confirmation_resend,
)
from accounts.services.deletion import account_delete
from accounts.services.export import account_export
from accounts.services.invitations import invitation_take
from accounts.services.reset import reset_confirm, reset_request_dispatch
from api.idempotency import idempotent
from api.schema import BODY, COMMON, GAME_COMMON, THROTTLED, error
from api.serializers.accounts import (
    AccountDeletedSerializer,
    AccountDeleteInSerializer,
    AccountPatchInSerializer,
    AccountSerializer,
    DetailSerializer,
    EmailConfirmInSerializer,
    InvitationInSerializer,
    InvitationSerializer,
    InvitationsOutSerializer,
    InvitationTokenInSerializer,
    RematchInSerializer,
    ResendOutSerializer,
    ResetConfirmInSerializer,
    ResetRequestInSerializer,
)
from api.serializers.games import GameDetailSerializer
from api.throttles import PasswordRateThrottle, PasswordResetRateThrottle
from api.views.auth import BY_PERSONAL_TOKEN
from api.views.common import game_response, seat_for
from clients.permissions import (
    AccountOnly,
    AppsReadOnly,
    NotWithAppToken,
    NotWithPersonalToken,
    TokenScopes,
)
from clients.scopes import ACCOUNT_SCOPES
from games import selectors
from games.models import Game, Invitation
from games.services import invitations
from games.services.rematch import rematch_of, rematch_offer


def reset_requested_message() -> str:
    # The same words whether or not an account has the address (no enumeration).
    return _(
        "If an account uses this address, we have sent it a link to choose a new password. "
        "Check your inbox (and spam folder) in a few minutes."
    )


class PasswordResetView(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes = [PasswordResetRateThrottle]

    @extend_schema(
        operation_id="auth_password_reset",
        summary="Ask for a password reset link by email",
        description="Always 202 with the same answer, whether or not an account has the "
        "address: the mail (if any) is written by a background task. The link leads to the "
        "web page /password/reset/{uid}/{token}/; its uid and token also work with "
        "POST /auth/password/reset/confirm/.",
        tags=["auth"],
        request=ResetRequestInSerializer,
        responses={
            202: DetailSerializer,
            400: error("Not an email address (invalid_request)."),
            **BODY,
            **THROTTLED,
        },
        auth=[],
    )
    def post(self, request: Request) -> Response:
        serializer = ResetRequestInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        reset_request_dispatch(email=serializer.validated_data["email"])
        return Response({"detail": reset_requested_message()}, status=status.HTTP_202_ACCEPTED)


class PasswordResetConfirmView(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes = [PasswordResetRateThrottle]

    @extend_schema(
        operation_id="auth_password_reset_confirm",
        summary="Set a new password with a reset link's uid and token",
        description="The link works once and for PASSWORD_RESET_TIMEOUT seconds. The new "
        "password revokes every account token (sign in again for a new one); a pending "
        "address is confirmed by it (the link reached it).",
        tags=["auth"],
        request=ResetConfirmInSerializer,
        responses={
            200: DetailSerializer,
            400: error("invalid_token (link invalid, used or expired), invalid_password."),
            **BODY,
            **THROTTLED,
        },
        auth=[],
    )
    def post(self, request: Request) -> Response:
        serializer = ResetConfirmInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        reset_confirm(uid=data["uid"], token=data["token"], new_password=data["new_password"])
        return Response({"detail": _("Your password is set. Sign in with it.")})


ACCOUNT_PERMISSIONS = [IsAuthenticated, TokenScopes, NotWithPersonalToken]
# /me/ and /me/export/ read the address, the token list and the webhook URLs: as the schema
# says (403 for personal tokens), no personal token reads them, whatever its scopes; an app
# reads /me/ with the `account` scope.
ACCOUNT_ONLY = [IsAuthenticated, AccountOnly]
# Deleting the account and the data export: the account holder alone, never an app.
HOLDER_ONLY = [IsAuthenticated, TokenScopes, NotWithPersonalToken, NotWithAppToken]


class MeView(APIView):
    permission_classes = [*ACCOUNT_ONLY, AppsReadOnly]
    oauth_scopes = ACCOUNT_SCOPES

    @extend_schema(
        operation_id="me_read",
        summary="My account: username, address and whether it is confirmed",
        tags=["me"],
        responses={200: AccountSerializer, **BY_PERSONAL_TOKEN, **COMMON},
    )
    def get(self, request: Request) -> Response:
        return Response(_account(request.user))

    @extend_schema(
        operation_id="me_update",
        summary="Change my email address (a confirmation link is mailed to it)",
        tags=["me"],
        request=AccountPatchInSerializer,
        responses={
            200: AccountSerializer,
            400: error("Not an email address (invalid_request)."),
            409: error(
                "email_unavailable: another account has confirmed this address; "
                "too_many_changes: ten changes a day at most."
            ),
            **BY_PERSONAL_TOKEN,
            **BODY,
            **COMMON,
        },
    )
    def patch(self, request: Request) -> Response:
        serializer = AccountPatchInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        if "email" in serializer.validated_data:
            address_set(user=request.user, address=serializer.validated_data["email"])
        return Response(_account(request.user))


def _account(user: Any) -> dict[str, Any]:
    return {"username": user.get_username(), **address_state(user=user)}


class EmailConfirmView(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes = [PasswordResetRateThrottle]

    @extend_schema(
        operation_id="me_email_confirm",
        summary="Confirm an address with the token of its confirmation link",
        description="The token is the last part of the link (/account/confirm/{token}/); it "
        "needs no sign-in.",
        tags=["me"],
        request=EmailConfirmInSerializer,
        responses={
            200: AccountSerializer,
            400: error("link_invalid, link_expired or link_outdated (the address changed)."),
            409: error("email_unavailable: another account confirmed this address first."),
            **BODY,
            **THROTTLED,
        },
        auth=[],
    )
    def post(self, request: Request) -> Response:
        serializer = EmailConfirmInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = address_confirm(token=serializer.validated_data["token"])
        return Response(_account(user))


class EmailResendView(APIView):
    permission_classes = ACCOUNT_PERMISSIONS
    oauth_scopes = ACCOUNT_SCOPES
    throttle_classes = [PasswordRateThrottle]

    @extend_schema(
        operation_id="me_email_resend",
        summary="Mail the confirmation link again",
        tags=["me"],
        request=None,
        responses={202: ResendOutSerializer, **BY_PERSONAL_TOKEN, **COMMON},
    )
    @idempotent
    def post(self, request: Request) -> Response:
        sent = confirmation_resend(user=request.user)
        return Response({"sent": sent}, status=status.HTTP_202_ACCEPTED)


class ExportView(APIView):
    permission_classes = [*ACCOUNT_ONLY, NotWithAppToken]

    @extend_schema(
        operation_id="me_export",
        summary="Download all my data as JSON",
        description="Account, preferences, absences, tokens (names, never keys), webhooks "
        "(never secrets), games with their seats and every move as I saw it (other players' "
        "hidden cards stay hidden), invitations. Format: docs/accounts.md.",
        tags=["me"],
        responses={
            200: OpenApiResponse(
                response=OpenApiTypes.OBJECT, description="The export document (JSON)."
            ),
            **BY_PERSONAL_TOKEN,
            **COMMON,
        },
    )
    def get(self, request: Request) -> Response:
        response = Response(account_export(user=request.user))
        name = f"canasta-{request.user.get_username()}.json"
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        response["Cache-Control"] = "no-store"
        return response


class AccountDeleteView(APIView):
    permission_classes = HOLDER_ONLY
    throttle_classes = [PasswordRateThrottle]

    @extend_schema(
        operation_id="me_delete",
        summary="Delete my account (with my password)",
        description="Games in play are resigned, open tables left, my invitations withdrawn; "
        "finished games stay for the other players, my seat shown as 'deleted player'. "
        "Tokens, webhooks, mail and preferences are removed; my username is freed.",
        tags=["me"],
        request=AccountDeleteInSerializer,
        responses={
            200: AccountDeletedSerializer,
            400: error("No password (invalid_request)."),
            403: error("wrong_password, or a personal token."),
            **BODY,
            **COMMON,
        },
    )
    def post(self, request: Request) -> Response:
        serializer = AccountDeleteInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        closed = account_delete(user=request.user, password=serializer.validated_data["password"])
        return Response(closed)


class GameInvitationsView(APIView):
    @extend_schema(
        operation_id="games_invitations",
        summary="The table's invitations by email",
        tags=["lobby"],
        responses={200: InvitationsOutSerializer, **GAME_COMMON},
    )
    def get(self, request: Request, game_id: UUID) -> Response:
        game, seat = selectors.game_visible_to(game_id=game_id, user=request.user)
        shown = invitations.invitations_of_game(game=game) if seat is not None else []
        return Response({"invitations": [invitations.invitation_entry(i) for i in shown]})

    @extend_schema(
        operation_id="games_invite",
        summary="Invite one more player to an open table, by email address or username",
        description="By address: a seat is kept and a mail with a link goes out; whoever "
        "opens it signed in (after signing up or in) takes the seat. By username: the seat "
        "is kept for that account, which gets a mail.",
        tags=["lobby"],
        request=InvitationInSerializer,
        responses={
            201: GameDetailSerializer,
            400: error("invalid_email, unknown_user, invalid_request."),
            403: error("not_seated: only the table's players invite."),
            409: error("game_not_open, game_full, already_invited, too_many_invitations."),
            **BODY,
            **GAME_COMMON,
        },
    )
    @idempotent
    def post(self, request: Request, game_id: UUID) -> Response:
        serializer = InvitationInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        invitations.invitation_add(
            game_id=game_id,
            inviter=request.user,
            email=serializer.validated_data.get("email", ""),
            username=serializer.validated_data.get("username", ""),
        )
        game = selectors.game_with_seats(game_id=game_id)
        return game_response(game, seat_for(game, request.user), code=status.HTTP_201_CREATED)


class InvitationView(APIView):
    @extend_schema(
        operation_id="invitations_withdraw",
        summary="Withdraw an invitation by email (its seat is free again)",
        tags=["lobby"],
        request=None,
        responses={
            200: InvitationSerializer,
            404: error("No such invitation of yours."),
            409: error("invitation_used, invitation_declined, invitation_withdrawn."),
            **COMMON,
        },
    )
    def delete(self, request: Request, invitation_id: int) -> Response:
        invitation = invitations.invitation_withdraw(invitation_id=invitation_id, user=request.user)
        return Response(invitations.invitation_entry(_fresh(invitation)))


def _fresh(invitation: Invitation) -> Invitation:
    return Invitation.objects.select_related("game").get(pk=invitation.pk)


class InvitationAcceptView(APIView):
    @extend_schema(
        operation_id="invitations_accept",
        summary="Take the seat of an invitation by email (the token of its link)",
        description="Signed in as any account; when the account's address is the invited "
        "one, it counts as confirmed (the link reached it).",
        tags=["lobby"],
        request=InvitationTokenInSerializer,
        responses={
            200: GameDetailSerializer,
            400: error("No token (invalid_request)."),
            404: error("invitation_unknown."),
            409: error(
                "invitation_expired, invitation_withdrawn, invitation_used, "
                "invitation_declined, invitation_closed, already_seated."
            ),
            **BODY,
            **COMMON,
        },
    )
    @idempotent
    def post(self, request: Request) -> Response:
        serializer = InvitationTokenInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        invitation = invitation_take(token=serializer.validated_data["token"], user=request.user)
        game = selectors.game_with_seats(game_id=invitation.game_id)
        return game_response(game, seat_for(game, request.user))


class InvitationDeclineView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="invitations_decline",
        summary="Decline an invitation by email (its seat is free again)",
        tags=["lobby"],
        request=InvitationTokenInSerializer,
        responses={
            200: InvitationSerializer,
            400: error("No token (invalid_request)."),
            404: error("invitation_unknown."),
            409: error("The invitation is no longer pending (invitation_*)."),
            **BODY,
            **THROTTLED,
        },
    )
    def post(self, request: Request) -> Response:
        serializer = InvitationTokenInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        invitation = invitations.invitation_decline(token=serializer.validated_data["token"])
        return Response(invitations.invitation_entry(_fresh(invitation)))


class RematchView(APIView):
    @extend_schema(
        operation_id="games_rematch",
        summary="Offer a rematch: the same table to the same players",
        description="Same variant, options, clock and visibility; the same seats, or partners "
        "swapped. You sit down at once, bots too; the other players get an invitation (a seat "
        "kept and a mail). A second call returns the rematch already offered (200).",
        tags=["lobby"],
        request=RematchInSerializer,
        responses={
            201: GameDetailSerializer,
            200: GameDetailSerializer,
            400: error("no_partners: a table without partnerships has none to swap."),
            403: error("not_seated."),
            409: error("game_not_finished."),
            **BODY,
            **GAME_COMMON,
        },
    )
    @idempotent
    def post(self, request: Request, game_id: UUID) -> Response:
        serializer = RematchInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        existing = _existing_rematch(game_id)
        created = rematch_offer(
            game_id=game_id,
            user=request.user,
            swap_partners=serializer.validated_data["swap_partners"],
        )
        game = selectors.game_with_seats(game_id=created.pk)
        code = status.HTTP_200_OK if existing == created.pk else status.HTTP_201_CREATED
        return game_response(game, seat_for(game, request.user), code=code)


def _existing_rematch(game_id: UUID) -> Any:
    game = Game.objects.filter(pk=game_id).first()
    found = rematch_of(game=game) if game is not None else None
    return found.pk if found is not None else None
