"""Invitations by email address (docs/accounts.md, "Invitations").

An invitation keeps a seat: a human Seat without a user, status invited, linked to an
Invitation row whose token is the mail's link. Whoever opens the link signed in (after
signing up or in) takes the seat; the table's players can withdraw it; it expires after
CANASTA_INVITATION_DAYS. Invitations by username keep a seat for that account (Seat.user),
as game_create always did, and now also mail it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from games.access import may_view, seat_of
from games.models import Game, GameStatus, Invitation, InvitationStatus, Seat, SeatStatus
from games.readmodel import iso
from games.services.common import game_lock
from games.services.errors import ErrorKind, GameError, not_found, refused
from games.services.lobby import (
    email_invitations_write,
    emails_checked,
    game_join,
)
from games.services.notify import notify_invitation, table_label


def _require_open_player(game: Game, user: Any) -> Seat:
    seat = seat_of(game, user)
    if not may_view(game, seat):
        raise not_found()
    if seat is None or seat.status != SeatStatus.JOINED:
        raise refused(ErrorKind.FORBIDDEN, "invite_not_seated")
    if game.status != GameStatus.OPEN:
        raise refused(ErrorKind.CONFLICT, "seats_closed")
    return seat


@transaction.atomic
def invitation_add(
    *, game_id: UUID | str, inviter: Any, email: str = "", username: str = ""
) -> Seat:
    """Invite one more player to an open table, by address or by username; returns the seat
    kept for them."""
    game = game_lock(game_id=game_id, with_state=False)
    _require_open_player(game, inviter)
    if game.players - game.seats.count() <= 0:
        raise refused(ErrorKind.CONFLICT, "game_full")
    now = timezone.now()
    if email:
        (invitation,) = email_invitations_write(
            game=game, inviter=inviter, emails=emails_checked([email]), now=now
        )
        seat = invitation.seat
    else:
        user_model = get_user_model()
        invitee = user_model.objects.filter(
            **{user_model.USERNAME_FIELD: username}, is_active=True
        ).first()
        if invitee is None:
            raise refused(
                ErrorKind.INVALID, "unknown_user", {"usernames": [username]}, names=username
            )
        if seat_of(game, invitee) is not None:
            raise refused(ErrorKind.CONFLICT, "already_invited")
        seat = Seat.objects.create(game=game, user=invitee, status=SeatStatus.INVITED)
        notify_invitation(game=game, inviter=inviter, user=invitee)
    game.version += 1
    game.save(update_fields=["version"])
    assert seat is not None
    return seat


def invitation_by_token(*, token: str) -> Invitation:
    invitation = (
        Invitation.objects.select_related("game", "inviter", "seat")
        .filter(token=token or "-")
        .first()
    )
    if invitation is None:
        raise refused(ErrorKind.NOT_FOUND, "invitation_unknown")
    return invitation


def invitation_state(invitation: Invitation, now: datetime | None = None) -> str:
    """pending, accepted, withdrawn, declined, expired, or closed (the table started or was
    called off without this seat)."""
    if invitation.status != InvitationStatus.PENDING:
        return str(invitation.status)
    if invitation.game.status != GameStatus.OPEN or invitation.seat_id is None:
        return "closed"
    if invitation.expires_at <= (now or timezone.now()):
        return "expired"
    return "pending"


# The reason (games/services/reasons.py) of each state an invitation can no longer be used in.
STATE_REASONS = {
    "accepted": "invitation_used",
    "withdrawn": "invitation_withdrawn",
    "declined": "invitation_declined",
    "expired": "invitation_expired",
    "closed": "invitation_closed",
}


def invitation_refusal(state: str) -> GameError:
    return refused(ErrorKind.CONFLICT, STATE_REASONS[state], {"state": state})


def _release_seat(invitation: Invitation) -> None:
    if invitation.seat_id is not None and invitation.game.status == GameStatus.OPEN:
        Seat.objects.filter(pk=invitation.seat_id, user__isnull=True).delete()
        Game.objects.filter(pk=invitation.game_id).update(version=invitation.game.version + 1)


def _invitation_locked(pk: int) -> Invitation:
    """The invitation row, locked until the end of the caller's transaction (taken after the
    game's lock, in every path): accept, withdraw, decline and expiry of one invitation are
    decided one at a time, each on the row as the one before left it."""
    return (
        Invitation.objects.select_for_update(of=("self",)).select_related("game", "seat").get(pk=pk)
    )


def _seat_take(game: Game, invitation: Invitation, user: Any) -> None:
    if seat_of(game, user) is not None:
        raise refused(ErrorKind.CONFLICT, "already_seated")
    Seat.objects.filter(pk=invitation.seat_id or 0).update(user=user)  # pending: it keeps one
    Invitation.objects.filter(pk=invitation.pk).update(
        status=InvitationStatus.ACCEPTED, accepted_by=user, answered_at=timezone.now()
    )
    game_join(game_id=game.pk, user=user)


def invitation_accept(*, token: str, user: Any) -> Invitation:
    """Take the seat an invitation keeps; the game starts when it was the last one.

    One transaction: the state is read under the invitation's lock and the seat taken before
    it is released, so a withdrawal or a decline at the same moment comes wholly before or
    wholly after (an expired invitation frees its seat, and that is committed)."""
    invitation = invitation_by_token(token=token)
    with transaction.atomic():
        game = game_lock(game_id=invitation.game_id, with_state=False)
        invitation = _invitation_locked(invitation.pk)
        state = invitation_state(invitation)
        if state == "expired":
            _release_seat(invitation)
        elif state == "pending":  # a pending invitation still keeps its seat
            _seat_take(game, invitation, user)
    if state != "pending":
        raise invitation_refusal(state)
    invitation.refresh_from_db()
    return invitation


@transaction.atomic
def invitation_decline(*, token: str) -> Invitation:
    invitation = invitation_by_token(token=token)
    game_lock(game_id=invitation.game_id, with_state=False)
    invitation = _invitation_locked(invitation.pk)
    state = invitation_state(invitation)
    if state != "pending":
        raise invitation_refusal(state)
    _release_seat(invitation)
    invitation.status = InvitationStatus.DECLINED
    invitation.answered_at = timezone.now()
    invitation.save(update_fields=["status", "answered_at"])
    return invitation


@transaction.atomic
def invitation_withdraw(*, invitation_id: int, user: Any) -> Invitation:
    """The inviter (or the table's creator) takes an invitation back; its seat is free."""
    invitation = Invitation.objects.select_related("game").filter(pk=invitation_id).first()
    if invitation is None or user.pk not in (invitation.inviter_id, invitation.game.created_by_id):
        raise refused(ErrorKind.NOT_FOUND, "no_such_invitation")
    game_lock(game_id=invitation.game_id, with_state=False)
    # Read again under the lock: an accept that committed meanwhile has taken the seat.
    invitation = _invitation_locked(invitation.pk)
    if invitation.status != InvitationStatus.PENDING:
        raise invitation_refusal(str(invitation.status))
    _release_seat(invitation)
    invitation.status = InvitationStatus.WITHDRAWN
    invitation.answered_at = timezone.now()
    invitation.save(update_fields=["status", "answered_at"])
    return invitation


def invitation_table(invitation: Invitation) -> str:
    """The table an invitation is for, in one line (variant, players, clock)."""
    return table_label(invitation.game)


def invitations_of_game(*, game: Game) -> list[Invitation]:
    return list(game.invitations.select_related("inviter").order_by("created_at", "id"))


# A lobby lists at most this many invitations (the oldest first would hide new ones).
INVITATIONS_SHOWN = 20


def invitations_for_address(*, address: str, now: datetime | None = None) -> list[Invitation]:
    """The pending invitations mailed to ``address`` (lowercased), for tables still open:
    the invitee's lobby offers them (only for an address its account has confirmed)."""
    if not address:
        return []
    now = now or timezone.now()
    rows = (
        Invitation.objects.filter(
            email=address,
            status=InvitationStatus.PENDING,
            expires_at__gt=now,
            game__status=GameStatus.OPEN,
        )
        .select_related("game", "inviter")
        .order_by("-created_at", "-id")
    )
    return list(rows[:INVITATIONS_SHOWN])


def invitation_entry(invitation: Invitation, now: datetime | None = None) -> dict[str, Any]:
    """An invitation as the API and the pages list it (to the table's players; never the
    token)."""
    return {
        "id": invitation.pk,
        "game": str(invitation.game_id),
        "email": invitation.email,
        "state": invitation_state(invitation, now),
        "created_at": iso(invitation.created_at),
        "expires_at": iso(invitation.expires_at),
    }
