"""Whether a player has the game in front of them: no "your turn" email while they do (and no
hand-over email for a hand they watched end).

The game page records a look when it is loaded and each time its polling reads the game
(web/views/game.py, api/views/play.py: reads made with the browser session only; a token
client polling in the background is no person looking). One write per user and game per
CANASTA_PRESENCE_WRITE_SECONDS at most, gated in the shared cache, so a page polling every few
seconds costs a cache call, not a database write.

A "your turn" email is written with the move and waits for the player's delay
(NotificationPreference.turn_email_delay_minutes; the outbox row's next_attempt_at, which the
beat sweep reads: a database deadline, no Celery countdown). When it is due,
turn_email_drop_reason decides: dropped, with the reason recorded on the row, when the player
has looked at the game since the turn began, or within CANASTA_PRESENCE_SECONDS before it is
sent (their page is open and polling), or when the turn the email shows is over.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, IntegrityError, transaction
from django.utils import timezone

from games.models import Game
from notifications.models import GamePresence, Outbox, OutboxKind

logger = logging.getLogger(__name__)

# The reasons recorded on a dropped row (Outbox.last_error), also counted by operators.
SEEN_REASON = "the player looked at the game after the turn began"
SEEN_HAND_REASON = "the player saw the end of the hand on the game page"
PLAYED_REASON = "the turn was played before the email was due"
_SEEN: dict[str, str] = {
    OutboxKind.YOUR_TURN: SEEN_REASON,
    OutboxKind.REMINDER: SEEN_REASON,
    # The page shows the hand's score sheet: the email would tell them nothing new.
    OutboxKind.HAND_OVER: SEEN_HAND_REASON,
}


def _write_gate(user_id: Any, game_id: Any, now: datetime) -> bool:
    """True at most once per CANASTA_PRESENCE_WRITE_SECONDS of `now` for this user and game
    (shared cache); True whenever the cache is down (the write is then the throttle's fallback).

    The cache holds the moment of the last write, compared with `now`: its expiry is only a
    bound on the cache's memory, so the gate follows the site's clock (a test's frozen one too),
    not Redis's. Two requests that pass it at once both write: harmless, the same moment."""
    key = f"presence:{user_id}:{game_id}"
    spacing = settings.CANASTA_PRESENCE_WRITE_SECONDS
    stamp = now.timestamp()
    try:
        if cache.add(key, stamp, timeout=spacing):
            return True
        written = cache.get(key)
        if isinstance(written, int | float) and 0 <= stamp - written < spacing:
            return False
        cache.set(key, stamp, timeout=spacing)
        return True
    except Exception:
        return True


def presence_record(*, user: Any, game: Any, now: datetime | None = None) -> None:
    """Note that `user` has `game` in front of them now. Cheap, throttled, never raises: a
    failure costs at most an email the player did not need."""
    if not getattr(user, "is_authenticated", False):
        return
    game_id = getattr(game, "pk", game)
    now = now or timezone.now()
    if not _write_gate(user.pk, game_id, now):
        return
    try:
        updated = GamePresence.objects.filter(user_id=user.pk, game_id=game_id).update(
            last_seen_at=now
        )
        if not updated:
            with transaction.atomic():
                GamePresence.objects.create(user_id=user.pk, game_id=game_id, last_seen_at=now)
    except IntegrityError:
        pass  # another request of the same page created it a moment ago
    except DatabaseError:
        logger.warning("presence of user %s in game %s not recorded", user.pk, game_id)


def presence_last_seen(*, user_id: Any, game_id: Any) -> datetime | None:
    return (
        GamePresence.objects.filter(user_id=user_id, game_id=game_id)
        .values_list("last_seen_at", flat=True)
        .first()
    )


def _turn_over(row: Outbox) -> bool:
    """The game moved on since the email's move (the player acted, or the turn passed)."""
    if row.move_seq is None or row.game_id is None:
        return False
    if Outbox.game.is_cached(row):  # loaded with the claimed row
        last_seq = row.game.last_seq if row.game is not None else None
    else:
        last_seq = Game.objects.filter(pk=row.game_id).values_list("last_seq", flat=True).first()
    return last_seq is not None and last_seq > row.move_seq


def turn_email_drop_reason(row: Outbox, *, now: datetime | None = None) -> str | None:
    """Why a due turn email (your turn, reminder) or hand-over email is not worth sending now,
    or None.

    Seen "since the turn began" is since the row was written; for an email sent at once that
    would miss a page that is open but polled a moment before the move, so a look within
    CANASTA_PRESENCE_SECONDS before now counts too.
    """
    if row.kind not in _SEEN or row.game_id is None:
        return None
    if row.kind == OutboxKind.YOUR_TURN and _turn_over(row):
        return PLAYED_REASON
    # Read with the claimed row (notifications.services.outbox), else now.
    if hasattr(row, "seen_at"):
        seen = row.seen_at
    else:
        seen = presence_last_seen(user_id=row.recipient_id, game_id=row.game_id)
    if seen is None:
        return None
    now = now or timezone.now()
    since = min(row.created_at, now - timedelta(seconds=settings.CANASTA_PRESENCE_SECONDS))
    return _SEEN[row.kind] if seen >= since else None
