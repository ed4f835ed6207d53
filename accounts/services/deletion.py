"""Account deletion (docs/accounts.md, "Deleting an account").

Decisions:
- Finished games stay intact for the other players: the account's row is kept as a tombstone
  (seats and the move log point to it) and shown everywhere as "deleted player".
- Games in play are resigned through the ordinary resign service (the others are told, as for
  any resignation; partners lose with the resigning side); open tables are left, and an open
  table nobody is left at is called off (games.services.lobby.game_leave).
- Invitations the account sent and that still wait are withdrawn (their seats free).
- Credentials first, in one transaction that locks the user row: the account is closed
  (inactive, no usable password) and its account and personal tokens, sessions, reply
  addresses, webhooks, OAuth tokens and apps are deleted. Only then are its games resigned and its tables left:
  a request already past authentication that takes a seat meanwhile either commits before
  (and the seat is resigned or left below) or waits on the row lock and is refused
  (games.services.common.require_open_account). Nothing it does after that can act for it.
- Removed after the games: events addressed to it alone, outbox rows (its mail), received
  mails of play by email, absences, preferences. Kept: the tombstone row (no name, no
  address, no password, inactive).
- The username is freed: the tombstone is renamed "~deleted-<id>", a name nobody can sign up
  with, so the old name can be taken again by a new account.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from accounts.models import UserSession
from clients.models import ApiToken, Event, Webhook
from clients.services.oauth import oauth_forget
from games.models import GameStatus, Invitation, InvitationStatus, Seat, SeatStatus
from games.players import deleted_username
from games.services.errors import ErrorKind, refused
from games.services.lobby import game_leave
from games.services.moves import game_resign
from mailplay.models import InboundMessage, MailPlayer, ReplyToken
from notifications.models import Absence, NotificationPreference, Outbox


def _games_closed(user: Any) -> dict[str, int]:
    resigned = left = 0
    for seat in Seat.objects.filter(user=user).select_related("game"):
        status = seat.game.status
        if status == GameStatus.ACTIVE and seat.status == SeatStatus.JOINED:
            game_resign(game_id=seat.game_id, user=user)
            resigned += 1
        elif status == GameStatus.OPEN:
            game_leave(game_id=seat.game_id, user=user)
            left += 1
    return {"resigned": resigned, "left": left}


def _invitations_withdrawn(user: Any) -> int:
    count = 0
    pending = Invitation.objects.filter(inviter=user, status=InvitationStatus.PENDING)
    for invitation in pending.select_related("game"):
        if invitation.game.status == GameStatus.OPEN and invitation.seat_id is not None:
            Seat.objects.filter(pk=invitation.seat_id, user__isnull=True).delete()
        count += 1
    pending.update(status=InvitationStatus.WITHDRAWN, answered_at=timezone.now())
    return count


def _sessions_end(user: Any) -> None:
    # Along the sessions' account index: what this account has, however many sessions exist.
    UserSession.objects.filter(user_id=user.pk).delete()


@transaction.atomic
def _credentials_revoked(user: Any) -> None:
    """Close the account and delete every way to act for it, in one transaction under the
    user row's lock (the lock seat-taking services take too)."""
    get_user_model().objects.select_for_update().filter(pk=user.pk).update(is_active=False)
    user.is_active = False
    user.set_unusable_password()
    user.save(update_fields=["is_active", "password"])
    ApiToken.objects.filter(owner=user).delete()
    _sessions_end(user)
    ReplyToken.objects.filter(user=user).delete()
    Webhook.objects.filter(owner=user).delete()
    # What it gave OAuth apps, and the apps it registered.
    oauth_forget(user=user)


def _personal_data_removed(user: Any) -> None:
    # Events addressed to this account alone (shared game events stay with the games).
    Event.objects.filter(recipient=user).delete()
    Outbox.objects.filter(recipient=user).delete()
    InboundMessage.objects.filter(user=user).delete()
    MailPlayer.objects.filter(user=user).delete()
    Absence.objects.filter(user=user).delete()
    NotificationPreference.objects.filter(user=user).delete()


def account_delete(*, user: Any, password: str) -> dict[str, int]:
    """Delete `user`'s account after checking `password`; returns what was closed."""
    if not password or not user.check_password(password):
        raise refused(ErrorKind.FORBIDDEN, "wrong_password")
    _credentials_revoked(user)
    # Each game is closed by its own service in its own transaction (as a player would); the
    # account itself goes in one transaction after them.
    closed = _games_closed(user)
    with transaction.atomic():
        closed["invitations_withdrawn"] = _invitations_withdrawn(user)
        _personal_data_removed(user)
        user.username = deleted_username(user.pk)
        user.email = ""
        user.first_name = ""
        user.last_name = ""
        user.is_staff = False
        user.is_superuser = False
        user.save()
    return closed
