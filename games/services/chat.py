"""Table talk (docs/table-talk.md): a chat per table, read and written by the players seated
at it.

The rule on hidden information: a line is the player's own speech, stored as written (only
normalised: line breaks become spaces, control characters go) and never rewritten; the service
itself never writes a line (no automatic content: no "X drew a card", no hints), so nothing the
service knows to be hidden can reach the chat through it. What a player chooses to say is table
talk in front of everyone, as at a real table: there is no private channel to a partner.
Spectators do not read the chat: it is the players' table (their names, their words).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from django.db import IntegrityError, transaction
from django.db.models import Expression
from django.utils import timezone

from games.models import ChatMessage, ChatMute, ChatReport, Game, Seat, SeatStatus
from games.readmodel import iso
from games.selectors import game_with_seats
from games.services.common import require_player
from games.services.errors import ErrorKind, GameError, not_found, refused

MAX_LENGTH = 500  # characters of one line
RATE_LIMIT = 10  # lines per player per game ...
RATE_WINDOW = timedelta(minutes=1)  # ... in this window
MAX_REASON = 500
SOURCES = ("web", "api", "email")

_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class ChatLine:
    """One line as a reader gets it (plain text: every page and email escapes it)."""

    id: int
    seat: int
    name: str
    text: str
    created_at: datetime
    mine: bool

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "seat": self.seat,
            "name": self.name,
            "text": self.text,
            # One time format across the API: UTC with Z (games.readmodel.iso).
            "created_at": iso(self.created_at),
            "mine": self.mine,
        }


def chat_text_clean(text: Any) -> str:
    """The text as stored: NFC, CR/LF and tabs as single spaces, NUL and other control or
    format characters (bidi overrides included) removed, trimmed."""
    if not isinstance(text, str):
        return ""
    text = unicodedata.normalize("NFC", text)
    text = "".join(
        " " if ch in "\r\n\t\v\f\u2028\u2029\x85" else ch
        for ch in text
        if ch in "\r\n\t\v\f\u2028\u2029\x85" or unicodedata.category(ch) not in ("Cc", "Cf")
    )
    return _SPACES.sub(" ", text).strip()


def _invalid(reason: str, details: dict[str, Any] | None = None, **params: Any) -> GameError:
    return refused(ErrorKind.INVALID, reason, details, **params)


def _text_check(text: str) -> None:
    if not text:
        raise _invalid("chat_empty")
    if len(text) > MAX_LENGTH:
        counts = {"limit": MAX_LENGTH, "length": len(text)}
        raise _invalid("chat_too_long", counts, **counts)


def _rate_check(game: Game, user: Any, now: datetime) -> None:
    recent = ChatMessage.objects.filter(
        game=game, user=user, created_at__gt=now - RATE_WINDOW
    ).count()
    if recent >= RATE_LIMIT:
        raise refused(
            ErrorKind.CONFLICT,
            "chat_rate_limited",
            {"limit": RATE_LIMIT, "window_seconds": int(RATE_WINDOW.total_seconds())},
            limit=RATE_LIMIT,
        )


def chat_post(*, game_id: UUID | str, user: Any, text: Any, source: str = "web") -> ChatLine:
    """Store one line said by ``user`` at the table (a seated player's own words)."""
    game = game_with_seats(game_id=game_id)
    seat = require_player(game, user)
    cleaned = chat_text_clean(text)
    _text_check(cleaned)
    now = timezone.now()
    with transaction.atomic():
        # The seat's row lock makes two lines sent at once by one player count one after the
        # other (the rate limit holds under concurrency).
        Seat.objects.select_for_update().filter(pk=seat.pk).first()
        _rate_check(game, user, now)
        message = ChatMessage.objects.create(
            game=game,
            user=user,
            seat=seat.seated_number,
            text=cleaned,
            after_seq=game.last_seq,
            source=source if source in SOURCES else "web",
            created_at=now,
        )
    assert seat.number is not None
    return ChatLine(message.pk, seat.number, seat.display_name, cleaned, now, True)


def _names(game: Game) -> dict[int, str]:
    return {s.number: s.display_name for s in game.seats.all() if s.number is not None}


def chat_lines(
    *,
    game_id: UUID | str,
    user: Any,
    after_seq: int | Expression | None = None,
    after_id: int | None = None,
    limit: int = 50,
    game: Game | None = None,
) -> list[ChatLine]:
    """The latest ``limit`` lines of the table, oldest first, without the lines of players
    ``user`` muted. ``after_seq``: only lines said after that move (the turn email's "since
    your last turn"; a number or a query expression). ``after_id``: the first ``limit`` lines
    after the line with that id (a client catching up: it asks again from the last id it got
    until it gets none). One query when ``game`` comes with its seats."""
    if game is None:
        game = game_with_seats(game_id=game_id)
    require_player(game, user)
    names = _names(game)
    muted = ChatMute.objects.filter(user=user).values_list("muted_id", flat=True)
    rows = ChatMessage.objects.filter(game=game).exclude(user_id__in=muted)
    if after_seq is not None:
        rows = rows.filter(after_seq__gte=after_seq)
    size = max(1, min(limit, 200))
    if after_id is not None:
        shown = list(rows.filter(id__gt=after_id).order_by("id")[:size])
    else:
        shown = list(reversed(rows.order_by("-created_at", "-id")[:size]))
    return [
        ChatLine(m.pk, m.seat, names.get(m.seat, "?"), m.text, m.created_at, m.user_id == user.pk)
        for m in shown
    ]


def chat_mark(*, game: Game) -> int:
    """The id of the table's latest line (0 before the first): pages add it to their ETag, so
    a poll sees new lines although the game itself did not change."""
    return (
        ChatMessage.objects.filter(game=game).order_by("-id").values_list("id", flat=True).first()
        or 0
    )


def _table_user(game: Game, seat_number: Any) -> Any:
    for seat in game.seats.all():
        if seat.number == seat_number and seat.status == SeatStatus.JOINED and seat.user_id:
            return seat.user
    raise _invalid("chat_no_such_player")


def chat_mute(*, game_id: UUID | str, user: Any, seat: Any, muted: bool = True) -> bool:
    """Mute (or unmute) the player in ``seat`` of this table for ``user``, at every table.
    Returns the new setting."""
    game = game_with_seats(game_id=game_id)
    own = require_player(game, user)
    try:
        seat_number = int(seat)
    except (TypeError, ValueError):
        raise _invalid("chat_no_such_player") from None
    if seat_number == own.number:
        raise _invalid("chat_mute_self")
    other = _table_user(game, seat_number)
    if muted:
        ChatMute.objects.get_or_create(user=user, muted=other)
    else:
        ChatMute.objects.filter(user=user, muted=other).delete()
    return muted


def chat_muted_seats(*, game: Game, user: Any) -> set[int]:
    """The seats of this table whose player ``user`` muted."""
    muted = set(ChatMute.objects.filter(user=user).values_list("muted_id", flat=True))
    return {s.number for s in game.seats.all() if s.number is not None and s.user_id in muted}


def chat_report(*, game_id: UUID | str, user: Any, message_id: Any, reason: Any = "") -> None:
    """Report a line of this table to the operators (once per line and player)."""
    game = game_with_seats(game_id=game_id)
    require_player(game, user)
    try:
        message = ChatMessage.objects.get(pk=int(message_id), game=game)
    except (TypeError, ValueError, ChatMessage.DoesNotExist):
        raise not_found() from None
    if message.user_id == user.pk:
        raise _invalid("chat_report_self")
    cleaned = chat_text_clean(reason)[:MAX_REASON]
    try:
        with transaction.atomic():
            ChatReport.objects.create(message=message, reporter=user, reason=cleaned)
    except IntegrityError:
        pass  # reported already: once is enough


__all__ = [
    "MAX_LENGTH",
    "RATE_LIMIT",
    "ChatLine",
    "chat_lines",
    "chat_mark",
    "chat_mute",
    "chat_muted_seats",
    "chat_post",
    "chat_report",
    "chat_text_clean",
]
