"""What the game domain tells the apps above it, and the few things it asks them.

games sits below notifications, clients and mail play (docs/architecture.md) and never imports
them. Each of those apps fills these registries from its AppConfig.ready():

- changes (``moves_logged``, ``turn_started``, ``turn_timed_out``, ``reminder_due``,
  ``invitation_sent``, ``games_retired``): sent in
  the transaction that made the change, so what a receiver writes (an outbox row, a feed
  event) commits or rolls back with it;
- questions (``absence_intervals``, ``absences_of``, ``auto_draw_wanted``,
  ``users_confirmed``): one answer each, and a default when no app answers (no absences, no
  forced draw, nobody confirmed);
- seat reads (``seat_read_register``): what the receivers read about each seated user, joined
  to the seat rows when a game is locked (games.services.common.game_lock), so that a move's
  notifications take no query per seat.

Registering the same receiver twice is harmless (ready() may run twice in tests).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

from games.engine import Table
from games.models import Game, Move, Seat

Change = TypeVar("Change")


class Hook(Generic[Change]):
    """Receivers of one kind of change, called in ``order`` (then in registration order)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._receivers: list[tuple[int, Callable[[Change], None]]] = []

    def connect(self, receiver: Callable[[Change], None], *, order: int = 0) -> None:
        if any(known == receiver for _, known in self._receivers):
            return
        self._receivers.append((order, receiver))
        self._receivers.sort(key=lambda entry: entry[0])  # stable: ties keep their order

    def receivers(self) -> list[tuple[int, Callable[[Change], None]]]:
        """(order, receiver), in the order they run."""
        return list(self._receivers)

    def send(self, change: Change) -> None:
        for _, receiver in self._receivers:
            receiver(change)


# The order receivers of one change run in: a lock order, not a preference. The event feed
# locks its readers' user rows (clients.services.events.Locks) before the outbox's rows
# reference them, so every transaction takes those locks in the same order and two moves
# cannot deadlock. canasta_site/wiring.py connects the receivers with these.
ORDER_FEED = 0
ORDER_OUTBOX = 10


@dataclass(frozen=True)
class MovesLogged:
    """Moves were written to the log: a batch, a resignation, a forfeit.

    ``logged``: the batch's Move rows as just written (a batch; receivers may write what they
    cause in one statement); None: read them back from the log. ``turn_table``: the table when
    the turn changed hands (someone must act now), else None. ``auto_drew``: the cards the
    service drew for the player to act (the forced draw of play by email)."""

    game: Game
    events: list[dict[str, Any]]
    totals: list[int]
    move_seq: int
    logged: Sequence[Move] | None = None
    turn_table: Table | None = None
    auto_drew: list[str] | None = None


@dataclass(frozen=True)
class TurnStarted:
    """A game's first turn (the game just started): the player to act is told."""

    game: Game
    table: Table
    move_seq: int
    auto_drew: list[str] | None = None


@dataclass(frozen=True)
class TurnTimedOut:
    """A seat's time ran out; its timeout move is logged (autoplay or forfeit)."""

    game: Game
    table: Table
    timed_out_seat: int
    handed_to_bot: bool
    move_seq: int


@dataclass(frozen=True)
class ReminderDue:
    """The player to act should be reminded of the deadline (once per turn)."""

    game: Game
    table: Table
    seat: Seat


@dataclass(frozen=True)
class InvitationSent:
    """A seat was kept for someone: an account (``user``), or an address without one
    (``address`` and ``invitation_id``: the link, a credential, is made when the mail is sent).
    ``label``: the table in one line, in the inviter's words."""

    game: Game
    inviter: Any
    label: str
    user: Any = None
    address: str = ""
    invitation_id: int | None = None
    expires_at: datetime | None = None


@dataclass(frozen=True)
class GamesRetired:
    """Games that ended more than CANASTA_FINISHED_GAME_GRACE_DAYS ago: each app deletes what
    it kept for them while they were played (reply addresses, inbound mail, presence), in the
    transaction that marks them retired (games.services.retention.games_retire). Set-based:
    one statement per table for the whole batch."""

    game_ids: list[Any]


moves_logged: Hook[MovesLogged] = Hook("moves_logged")
turn_started: Hook[TurnStarted] = Hook("turn_started")
turn_timed_out: Hook[TurnTimedOut] = Hook("turn_timed_out")
reminder_due: Hook[ReminderDue] = Hook("reminder_due")
invitation_sent: Hook[InvitationSent] = Hook("invitation_sent")
games_retired: Hook[GamesRetired] = Hook("games_retired")


# --- questions ----------------------------------------------------------------------------

# (user, after) -> the (start, end) intervals the user is away, ending after ``after``.
AbsenceIntervals = Callable[[Any, datetime], list[tuple[datetime, datetime]]]
# (user_ids, now) -> (user id, start, end) of their current and coming absences.
AbsencesOf = Callable[[list[Any], datetime], Iterable[tuple[Any, datetime, datetime]]]
# (user_id, pile_closed, user) -> whether the service draws for this player at turn start.
AutoDrawWanted = Callable[[Any, bool, Any], bool]
# (user_ids) -> the ids among them whose account has a confirmed email address.
UsersConfirmed = Callable[[list[Any]], set[Any]]


def _no_absences(user: Any, after: datetime) -> list[tuple[datetime, datetime]]:
    return []


def _nobody_absent(user_ids: list[Any], now: datetime) -> list[tuple[Any, datetime, datetime]]:
    return []


def _no_auto_draw(user_id: Any, pile_closed: bool, user: Any) -> bool:
    return False


def _nobody_confirmed(user_ids: list[Any]) -> set[Any]:
    return set()


@dataclass
class _Answers:
    absence_intervals: AbsenceIntervals = _no_absences
    absences_of: AbsencesOf = _nobody_absent
    auto_draw_wanted: AutoDrawWanted = _no_auto_draw
    users_confirmed: UsersConfirmed = _nobody_confirmed


_answers = _Answers()


def absence_intervals_answer(answer: AbsenceIntervals) -> None:
    _answers.absence_intervals = answer


def absences_of_answer(answer: AbsencesOf) -> None:
    _answers.absences_of = answer


def auto_draw_wanted_answer(answer: AutoDrawWanted) -> None:
    _answers.auto_draw_wanted = answer


def users_confirmed_answer(answer: UsersConfirmed) -> None:
    _answers.users_confirmed = answer


def absence_intervals(*, user: Any, after: datetime) -> list[tuple[datetime, datetime]]:
    """When ``user`` is away (the turn clock stops then), as registered by notifications."""
    return _answers.absence_intervals(user, after)


def absences_of(*, user_ids: list[Any], now: datetime) -> Iterable[tuple[Any, datetime, datetime]]:
    """The current and coming absences of these users, as shown to everyone at their tables
    (registered by notifications)."""
    return _answers.absences_of(user_ids, now)


def auto_draw_wanted(*, user_id: Any, pile_closed: bool, user: Any = None) -> bool:
    """Whether the service draws for this player at the start of their turn (mail play)."""
    return _answers.auto_draw_wanted(user_id, pile_closed, user)


def users_confirmed(*, user_ids: list[Any]) -> set[Any]:
    """The users among ``user_ids`` with a confirmed address (registered by notifications):
    only they play rated matches (games.services.ratings)."""
    return _answers.users_confirmed(user_ids) if user_ids else set()


# --- seat reads ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatRead:
    """What an app reads about each seated user when a game is locked: ``related`` relations
    of the seat (select_related paths from the seat, e.g. "user__mail_player") and
    ``annotations(now)``, annotations of the seat row judged at ``now``."""

    related: tuple[str, ...] = ()
    annotations: Callable[[datetime], dict[str, Any]] | None = None


_seat_reads: list[SeatRead] = []


def seat_read_register(read: SeatRead) -> None:
    if read not in _seat_reads:
        _seat_reads.append(read)


def seat_related() -> list[str]:
    return [path for read in _seat_reads for path in read.related]


def seat_annotations(*, now: datetime) -> dict[str, Any]:
    annotations: dict[str, Any] = {}
    for read in _seat_reads:
        if read.annotations is not None:
            annotations.update(read.annotations(now))
    return annotations
