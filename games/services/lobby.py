"""The match before and around play: create a table, invite, join, leave, start, abort."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone

from games import engine
from games.access import may_view, seat_of
from games.bots import BOT_LEVELS
from games.models import (
    EndReason,
    Game,
    GameState,
    GameStatus,
    Invitation,
    Seat,
    SeatKind,
    SeatStatus,
    TimeoutPolicy,
)
from games.selectors import game_with_seats
from games.services.clock import clock_restart
from games.services.common import game_lock, game_mark_over, require_open_account
from games.services.enqueue import bot_turn_enqueue
from games.services.errors import ErrorKind, GameError, not_found, refused
from games.services.hands import hand_deal, hand_finish
from games.services.moves import auto_draw_first_turn
from games.services.notify import notify_invitation, notify_turn


def _invalid(reason: str, details: dict[str, Any] | None = None, **params: Any) -> GameError:
    return refused(ErrorKind.INVALID, reason, details, **params)


def _check_table(variant: str, players: int, options: dict[str, Any]) -> dict[str, Any]:
    """The options with every default filled in, checked by the engine's rule set."""
    try:
        rules = engine.get_rules(variant)
    except engine.EngineError:
        known = sorted(engine.VARIANTS)
        raise _invalid("unknown_variant", {"variants": known}) from None
    if players not in rules.player_counts:
        counts = list(rules.player_counts)
        raise _invalid("invalid_players", {"players": counts}, counts=counts)
    try:
        return rules.resolve_options(options)
    except engine.EngineError as error:
        # The engine's own refusal of the options: its reason and parameters.
        raise GameError(
            ErrorKind.INVALID,
            "invalid_options",
            error.message,
            reason=error.reason,
            params=error.params,
        ) from None


def _invitees(creator: Any, usernames: Sequence[str], free_seats: int) -> list[Any]:
    wanted = list(dict.fromkeys(usernames))
    if len(wanted) != len(usernames):
        raise _invalid("invited_twice")
    if creator.get_username() in wanted:
        raise _invalid("invited_self")
    if len(wanted) > free_seats:
        raise _invalid("invite_seats_left", count=free_seats)
    user_model = get_user_model()
    found = {
        user.get_username(): user
        for user in user_model.objects.filter(
            **{f"{user_model.USERNAME_FIELD}__in": wanted}, is_active=True
        )
    }
    missing = [name for name in wanted if name not in found]
    if missing:
        raise _invalid("unknown_user", {"usernames": missing}, names=", ".join(missing))
    return [found[name] for name in wanted]


def invitation_days() -> int:
    return int(getattr(settings, "CANASTA_INVITATION_DAYS", 14))


def email_invites_per_day() -> int:
    return int(getattr(settings, "CANASTA_EMAIL_INVITATIONS_PER_DAY", 20))


def email_normalized(address: str) -> str:
    address = (address or "").strip().lower()
    try:
        validate_email(address)
    except ValidationError:
        raise _invalid("invalid_email", address=address) from None
    return address


def _rate_check(inviter: Any, count: int, now: datetime) -> None:
    # Invitations mail addresses nobody confirmed: bounded per inviter and day, so the service
    # cannot be used to send mail at will.
    sent = Invitation.objects.filter(inviter=inviter, created_at__gt=now - timedelta(days=1))
    if sent.count() + count > email_invites_per_day():
        raise refused(ErrorKind.CONFLICT, "too_many_invitations")


def email_invitations_write(
    *, game: Game, inviter: Any, emails: list[str], now: datetime
) -> list[Invitation]:
    """Keep a seat for each address and mail it (inside the caller's transaction, with the
    game locked or new). The addresses are normalized and checked by the caller."""
    _rate_check(inviter, len(emails), now)
    expires_at = now + timedelta(days=invitation_days())
    written = []
    for address in emails:
        seat = Seat.objects.create(
            game=game, user=None, kind=SeatKind.HUMAN, status=SeatStatus.INVITED
        )
        invitation = Invitation.objects.create(
            game=game,
            seat=seat,
            inviter=inviter,
            email=address,
            token=secrets.token_urlsafe(24),
            created_at=now,
            expires_at=expires_at,
        )
        notify_invitation(
            game=game,
            inviter=inviter,
            address=address,
            invitation_id=invitation.pk,
            expires_at=expires_at,
        )
        written.append(invitation)
    return written


def emails_checked(emails: list[str] | tuple[str, ...]) -> list[str]:
    normalized = [email_normalized(e) for e in emails]
    if len(set(normalized)) != len(normalized):
        raise _invalid("address_invited_twice")
    return normalized


def _check_clock(turn_seconds: int | None, timeout_policy: str) -> None:
    # The floor is a setting so that tests and demos can use seconds (minutes in production).
    low, high = settings.CANASTA_MIN_TURN_SECONDS, settings.CANASTA_MAX_TURN_SECONDS
    if turn_seconds is not None and not low <= turn_seconds <= high:
        raise _invalid("turn_seconds_range", low=low, high=high)
    if timeout_policy not in TimeoutPolicy.values:
        raise _invalid("unknown_timeout_policy")


def _check_seats(
    creator: Any,
    players: int,
    invite: Sequence[str],
    invite_emails: Sequence[str],
    bots: Sequence[str],
) -> tuple[list[Any], list[str]]:
    """The invited accounts and addresses, checked against the seats there are."""
    invited = _invitees(creator, invite, players - 1)
    emails = emails_checked(tuple(invite_emails))
    if len(invited) + len(emails) > players - 1:
        free = players - 1
        raise _invalid("invite_seats_left", count=free)
    unknown = [level for level in bots if level not in BOT_LEVELS]
    if unknown:
        raise _invalid("unknown_bot_level", {"levels": list(BOT_LEVELS)})
    if len(invited) + len(emails) + len(bots) > players - 1:
        raise _invalid("too_many_bots")
    return invited, list(emails)


@transaction.atomic
def game_create(
    *,
    creator: Any,
    variant: str,
    players: int,
    options: dict[str, Any] | None = None,
    is_public: bool = True,
    turn_seconds: int | None = None,
    timeout_policy: str = TimeoutPolicy.AUTOPLAY,
    invite: Sequence[str] = (),
    bots: Sequence[str] = (),
    weekend_pause: bool = False,
    invite_emails: Sequence[str] = (),
    rated: bool = True,
) -> Game:
    """A new table with the creator seated; invited players get a seat kept for them and
    ``bots`` (levels) fill seats at once; the game starts when the last seat is taken.
    ``invite_emails``: addresses invited by mail (games.services.invitations)."""
    resolved = _check_table(variant, players, dict(options or {}))
    _check_clock(turn_seconds, timeout_policy)
    require_open_account(creator)
    invited, emails = _check_seats(creator, players, invite, invite_emails, bots)
    now = timezone.now()
    game = Game.objects.create(
        variant=variant,
        players=players,
        options=resolved,
        is_public=is_public,
        turn_seconds=turn_seconds,
        timeout_policy=timeout_policy,
        weekend_pause=weekend_pause,
        # A bot has no rating to win or lose against: a table with one is casual.
        rated=rated and not bots,
        created_by=creator,
    )
    seats = [Seat.objects.create(game=game, user=creator, status=SeatStatus.JOINED, joined_at=now)]
    Seat.objects.bulk_create(
        Seat(game=game, user=user, status=SeatStatus.INVITED) for user in invited
    )
    for user in invited:
        notify_invitation(game=game, inviter=creator, user=user)
    email_invitations_write(game=game, inviter=creator, emails=emails, now=now)
    for level in bots:
        seats.append(
            Seat.objects.create(
                game=game,
                kind=SeatKind.BOT,
                bot_level=level,
                status=SeatStatus.JOINED,
                joined_at=now,
            )
        )
    if len(seats) == players:
        game_start(game=game, seats=seats, now=now)
        game.save()
    return game


@transaction.atomic
def game_join(*, game_id: UUID | str, user: Any) -> Game:
    """Take an invited or open seat; the game starts when the last seat fills."""
    game = game_lock(game_id=game_id, with_state=False)
    seat = seat_of(game, user)
    if seat is not None and seat.status == SeatStatus.JOINED:
        raise refused(ErrorKind.CONFLICT, "already_joined")
    # A private game's id is its invitation link: holding it lets one take an open seat, but
    # a private game one could neither watch nor join stays a 404.
    seats = list(game.seats.all())
    free = game.players - len(seats)
    if game.status != GameStatus.OPEN:
        if not may_view(game, seat):
            raise not_found()
        raise refused(ErrorKind.CONFLICT, "seats_closed")
    if seat is None and free <= 0:
        if not may_view(game, seat):
            raise not_found()
        raise refused(ErrorKind.CONFLICT, "game_full")
    require_open_account(user)
    now = timezone.now()
    if seat is not None:
        seat.status = SeatStatus.JOINED
        seat.joined_at = now
        seat.save(update_fields=["status", "joined_at"])
    else:
        seat = Seat.objects.create(
            game=game, user=user, kind=SeatKind.HUMAN, status=SeatStatus.JOINED, joined_at=now
        )
        seats.append(seat)
    game.version += 1
    if len(seats) == game.players and all(s.status == SeatStatus.JOINED for s in seats):
        game_start(game=game, seats=seats, now=now)
    game.save()
    return _reloaded(game.pk)


@transaction.atomic
def game_leave(*, game_id: UUID | str, user: Any) -> Game:
    """Give up a seat (or decline an invitation) before the start."""
    game = game_lock(game_id=game_id, with_state=False)
    seat = seat_of(game, user)
    if seat is None:
        if not may_view(game, seat):
            raise not_found()
        raise refused(ErrorKind.FORBIDDEN, "not_seated")
    if game.status != GameStatus.OPEN:
        raise refused(ErrorKind.CONFLICT, "cannot_leave", {"status": game.status})
    seat.delete()
    game.version += 1
    now = timezone.now()
    if not game.seats.filter(status=SeatStatus.JOINED).exists():
        # Nobody is left to play: the table is closed rather than left open forever.
        game_mark_over(game=game, reason=EndReason.CANCELLED, winner_side=None, now=now)
    game.save()
    return _reloaded(game.pk)


def _seat_numbers(game: Game, players_in_order: list[Seat]) -> list[int]:
    """Seat number for each player, given in join order (docs/rules.md#players-sides-and-seats)."""
    method = game.options.get("seating", "draw")
    count = len(players_in_order)
    if method == "invitation":
        return list(range(count))
    if method == "random":
        numbers = list(range(count))
        secrets.SystemRandom().shuffle(numbers)
        return numbers
    game.seating_seed = engine.new_seed()
    drawn = engine.draw_cards(game.seating_seed, count)
    for seat, card in zip(players_in_order, drawn, strict=True):
        seat.drew = card
    return engine.seats_by_draw(drawn, game.sides)


def game_start(*, game: Game, seats: list[Seat], now: datetime) -> None:
    """Seat the players, deal hand 1 and start the clock (inside the caller's transaction)."""
    in_join_order = sorted(seats, key=lambda s: (s.joined_at or now, s.pk))
    if all(s.number is not None for s in seats):
        # Numbered at creation (a rematch keeps the seats of the match it replays).
        numbers = [s.seated_number for s in in_join_order]
    else:
        numbers = _seat_numbers(game, in_join_order)
    for seat, number in zip(in_join_order, numbers, strict=True):
        seat.number = number
        seat.save(update_fields=["number", "drew"])
    hand, table = hand_deal(game=game, number=1, scores=[0] * game.sides, now=now)
    state = GameState.objects.create(
        game=game, table=table.to_json(), totals=[0] * game.sides, hand_commitment=hand.commitment
    )
    game.status = GameStatus.ACTIVE
    game.started_at = now
    game.turn_seat = table.turn
    # Seats were just numbered (and one may be new): read them afresh for the clock and mail.
    getattr(game, "_prefetched_objects_cache", {}).pop("seats", None)
    # An email player who starts the game gets the forced draw too (docs/play-by-email.md#the-forced-draw).
    table, auto_drew = auto_draw_first_turn(game=game, state=state, table=table, now=now)
    clock_restart(game=game, now=now)
    notify_turn(game=game, table=table, move_seq=game.last_seq, auto_drew=auto_drew)
    if game.bot_turn:
        bot_turn_enqueue(game_id=game.pk, version=game.version + 1)


@transaction.atomic
def game_abort(*, game_id: UUID | str, user: Any) -> Game:
    """Call the game off: an open table by its creator, a started one before the first move."""
    game = game_lock(game_id=game_id, with_state=False)
    seat = seat_of(game, user)
    if not may_view(game, seat):
        raise not_found()
    if seat is None or seat.status != SeatStatus.JOINED:
        raise refused(ErrorKind.FORBIDDEN, "not_seated")
    now = timezone.now()
    if game.status == GameStatus.OPEN:
        if game.created_by_id != user.pk:
            raise refused(ErrorKind.FORBIDDEN, "only_creator_calls_off")
        game_mark_over(game=game, reason=EndReason.CANCELLED, winner_side=None, now=now)
    elif game.status == GameStatus.ACTIVE and game.last_seq == 0:
        hand_finish(game=game, number=1, now=now, end_reason=EndReason.ABORTED)
        game_mark_over(game=game, reason=EndReason.ABORTED, winner_side=None, now=now)
    else:
        raise refused(
            ErrorKind.CONFLICT, "cannot_abort", {"status": game.status, "moves": game.last_seq}
        )
    game.version += 1
    game.save()
    return _reloaded(game.pk)


def _reloaded(game_id: UUID) -> Game:
    return game_with_seats(game_id=game_id)
