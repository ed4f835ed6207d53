"""The event feed, written in the move's own transaction.

games/services/notify.py calls these next to the emails it writes. Each event is written once
for everyone who may see it: a `move` event for each accepted batch, `hand_over`,
`match_over` and `timeout` for every person at the table, `your_turn` for the one person the
turn passes to. The rows keep public facts only; a reader's data (their seat's view of the
moves, of the table) is built when they read it (clients/payloads.py). The readers' webhooks
are then woken up (clients/services/webhooks.py), after commit.

Ordering: the feed's cursor is the event id. Ids come from one sequence, so two transactions
writing events for the same user could commit in the opposite order of their ids, and a
reader who had already moved past the later id would never see the earlier one. Each writer
therefore locks the recipients' user rows (in id order, so two writers cannot deadlock) before
inserting and keeps the lock until commit: for any one user, ids then grow in commit order and
`after=<last id seen>` never skips an event. The lock is FOR NO KEY UPDATE, which does not
block inserts of rows that reference the user; SQLite's single writer orders everything.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Exists, OuterRef, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from clients.models import Event, EventKind, Webhook
from clients.payloads import reader_ids, seats_of
from clients.services.webhooks import webhooks_wake
from games.engine import Table
from games.events import game_events
from games.models import Game, GameStatus, Move
from games.movelog import game_moves
from games.readmodel import iso
from games.services.compiled import (
    SENTINEL_ID,
    compiled_bulk_insert,
    compiled_rows,
    sentinel_ints,
)

ACTIVE = GameStatus.ACTIVE

# The longest batch games.services.moves accepts: a game's first event (or its first since
# this feature existed) never reaches further back than that.
MAX_BATCH_MOVES = 50


@dataclass(frozen=True)
class Draft:
    """An event to write: `recipient_id` None for everyone at the table (`readers`)."""

    recipient_id: int | None
    kind: str
    facts: dict[str, Any]
    first_seq: int | None = None
    readers: Sequence[int] = field(default=())


def _last_announced(game_id: Any) -> QuerySet[Event]:
    # The (game, id) index, newest first: the last `move` event is at or near the top.
    return Event.objects.filter(game_id=game_id, kind=EventKind.MOVE).order_by("-id")


def _batch_moves(game: Game, move_seq: int) -> list[Move]:
    """The moves up to `move_seq` that no `move` event announced yet: the batch just logged
    (read through games.movelog: an older move no event announced, the forced draw that
    opened a game nobody played for a day, may be packed already)."""
    announced = _last_announced(game.pk).values_list("seq", flat=True).first() or 0
    floor = max(announced, move_seq - MAX_BATCH_MOVES)
    return game_moves(game, after=floor, upto=move_seq)


def _unannounced(game: Game, logged: Sequence[Move], announced: int, move_seq: int) -> list[Move]:
    """What _batch_moves would read, given the batch's moves as the caller logged them (in seq
    order, ending at `move_seq`) and the last announced seq: the log is read only for older
    moves no event announced yet (the forced draw that opened the game, say)."""
    floor = max(announced, move_seq - MAX_BATCH_MOVES)
    first = logged[0].seq if logged else move_seq + 1
    older: list[Move] = []
    if floor + 1 < first:
        older = game_moves(game, after=floor, upto=first - 1)
    return older + [move for move in logged if floor < move.seq <= move_seq]


def _lock_recipients(
    user_ids: Sequence[int], *, announced_in: Game | None = None
) -> tuple[set[int], int | None]:
    """Lock the recipients' rows until commit; returns those with an active webhook (the
    same query, so a move without webhooks costs no more) and, with ``announced_in``, the
    seq of that game's last `move` event (0: none), read by the same statement.

    Its SQL is compiled once per database and number of recipients (games.services.compiled:
    building it cost more than running it)."""
    ids = sorted(set(user_ids))
    if not ids:
        return set(), None
    user_model = get_user_model()
    stand_ins = sentinel_ints(len(ids))
    values: dict[str, tuple[Any, Any, Any]] = {
        f"user{index}": (stand_in, pk, user_model._meta.pk)
        for index, (stand_in, pk) in enumerate(zip(stand_ins, ids, strict=True))
    }
    if announced_in is not None:
        values["game"] = (SENTINEL_ID, announced_in.pk, Game._meta.pk)
    rows = compiled_rows(
        shape=f"recipients:{len(ids)}:{announced_in is not None}",
        model=user_model,
        build=lambda: _recipients_locked(stand_ins, announced=announced_in is not None),
        values=values,
    )
    last = rows[0][2] if rows and announced_in is not None else None
    return {row[0] for row in rows if row[1]}, last


def _recipients_locked(user_ids: list[int], *, announced: bool) -> QuerySet[Any]:
    """_lock_recipients' statement, with sentinels for its parameters."""
    queryset = (
        get_user_model()
        .objects.select_for_update(no_key=True)
        .filter(pk__in=user_ids)
        .order_by("pk")
        .annotate(hooked=Exists(Webhook.objects.filter(owner=OuterRef("pk"), active=True)))
    )
    if not announced:
        return queryset.values_list("pk", "hooked")
    # Uncorrelated: the database evaluates it once, on the (game, kind, seq) index.
    announced_seq = Coalesce(Subquery(_last_announced(SENTINEL_ID).values("seq")[:1]), Value(0))
    return queryset.annotate(announced=announced_seq).values_list("pk", "hooked", "announced")


class Locks:
    """The recipients one transaction has locked so far (and which of them have webhooks).

    A move writes its `move` events and then `your_turn` for a subset of the same people: the
    second write reuses the first one's lock instead of taking it again. Create one per
    transaction (games.services.moves.batch_commit does); never keep it past the commit.
    """

    def __init__(self) -> None:
        self.locked: set[int] = set()
        self.hooked: set[int] = set()

    def take(self, user_ids: Sequence[int]) -> set[int]:
        missing = sorted(set(user_ids) - self.locked)
        if missing:
            self.add(missing, _lock_recipients(missing)[0])
        return self.hooked & set(user_ids)

    def add(self, user_ids: Iterable[int], hooked: set[int]) -> None:
        self.locked.update(user_ids)
        self.hooked.update(hooked)


def _when(moment: datetime | None) -> str | None:
    # The API's one time format: UTC with Z (games.readmodel.iso).
    return iso(moment)


def _deadline(game: Game) -> dict[str, Any]:
    # A game without a time limit stores nothing (the reader gets "deadline": null).
    return {"deadline": _when(game.deadline)} if game.deadline is not None else {}


def _readers(draft: Draft) -> set[int]:
    return {draft.recipient_id} if draft.recipient_id is not None else set(draft.readers)


def events_write(
    *, game: Game, seq: int, drafts: Iterable[Draft], locks: Locks | None = None
) -> list[Event]:
    """Write events (in the caller's transaction) and wake their readers' webhooks.

    Everyone who may read an event is locked first (the feed's order, above). ``locks``: the
    transaction's Locks, when it wrote events already (its readers are not locked twice)."""
    drafts = list(drafts)
    if not drafts:
        return []
    now = timezone.now()
    with transaction.atomic(savepoint=False):
        readers = sorted(set().union(*(_readers(draft) for draft in drafts)))
        if locks is None:
            hooked, _ = _lock_recipients(readers)
        else:
            hooked = locks.take(readers)
        events = compiled_bulk_insert(
            [
                Event(
                    recipient_id=draft.recipient_id,
                    game=game,
                    kind=draft.kind,
                    seq=seq,
                    first_seq=draft.first_seq,
                    facts=draft.facts,
                    created_at=now,
                )
                for draft in drafts
            ]
        )
        if hooked:
            webhooks_wake(owner_ids=hooked & set(readers), now=now)
    return events


def _result_drafts(
    events: Iterable[dict[str, Any]], totals: list[int], readers: list[int]
) -> list[Draft]:
    drafts: list[Draft] = []
    for event in game_events(events):
        if event["type"] == "hand_result":
            facts: dict[str, Any] = {"hand_result": dict(event), "totals": list(totals)}
            drafts.append(Draft(None, EventKind.HAND_OVER, facts, readers=readers))
        elif event["type"] == "match_over":
            facts = {
                "totals": list(totals),
                "winner_side": event["winner"],
                "reason": event["reason"],
            }
            drafts.append(Draft(None, EventKind.MATCH_OVER, facts, readers=readers))
    return drafts


def events_for_moves(
    *,
    game: Game,
    events: Iterable[dict[str, Any]],
    totals: list[int],
    move_seq: int,
    logged: Sequence[Move] | None = None,
    locks: Locks | None = None,
) -> list[Event]:
    """A batch was logged (a turn, a resignation, a forfeit): one `move` event for everyone
    at the table, then `hand_over` / `match_over` if the batch ended the hand or the match.

    ``logged``: the batch's Move rows as the caller just wrote them (seq order), so they are
    not read back; ``locks``: the transaction's Locks (events_write), filled here."""
    locks = locks if locks is not None else Locks()
    drafts = drafts_for_moves(
        game=game, events=events, totals=totals, move_seq=move_seq, logged=logged, locks=locks
    )
    return events_write(game=game, seq=move_seq, drafts=drafts, locks=locks)


def drafts_for_moves(
    *,
    game: Game,
    events: Iterable[dict[str, Any]],
    totals: list[int],
    move_seq: int,
    logged: Sequence[Move] | None,
    locks: Locks,
) -> list[Draft]:
    """events_for_moves' events, not yet written: for a caller that writes them together with
    others in one statement (games.services.notify.notify_batch). With ``logged``, the
    readers are locked here (with ``locks``), as events_write requires."""
    readers = reader_ids(game)
    if not readers:
        return []
    if logged is None:
        moves = _batch_moves(game, move_seq)
    else:
        # One statement locks the readers and reads the last announced seq.
        hooked, announced = _lock_recipients(readers, announced_in=game)
        locks.add(readers, hooked)
        moves = _unannounced(game, logged, announced or 0, move_seq)
    drafts: list[Draft] = []
    if moves:
        facts: dict[str, Any] = {"version": game.version, "turn": game.turn_seat}
        if game.status != ACTIVE:
            # Stored only when it is news: most batches leave the game active.
            facts["status"] = game.status
        drafts.append(Draft(None, EventKind.MOVE, facts, first_seq=moves[0].seq, readers=readers))
    return drafts + _result_drafts(events, totals, readers)


def events_for_turn(
    *, game: Game, table: Table, move_seq: int, locks: Locks | None = None
) -> list[Event]:
    """`your_turn` for the person who must act now (not a bot, not a seat a bot plays).

    It stores the deadline and the version only: the reader's view and legal actions are built
    from the table at `move_seq` when read."""
    return events_write(
        game=game, seq=move_seq, drafts=drafts_for_turn(game=game, table=table), locks=locks
    )


def drafts_for_turn(*, game: Game, table: Table) -> list[Draft]:
    """events_for_turn's events, not yet written (see drafts_for_moves)."""
    if table.over or game.turn_seat is None:
        return []
    return [
        # The version the turn starts at: the reader's move names it (expected_version)
        # without reading the game first (a turn in two requests, docs/clients.md).
        Draft(seat.user_id, EventKind.YOUR_TURN, {**_deadline(game), "version": game.version})
        for seat in seats_of(game)
        if seat.number == game.turn_seat and not seat.away
    ]


def events_for_timeout(
    *, game: Game, table: Table, timed_out_seat: int, handed_to_bot: bool, move_seq: int
) -> list[Event]:
    """`timeout` for everyone at the table; each reader's view of the table after it is built
    when read."""
    readers = reader_ids(game)
    if not readers:
        return []
    facts = {
        "timed_out_seat": timed_out_seat,
        "policy": game.timeout_policy,
        "handed_to_bot": handed_to_bot,
        "deadline": _when(game.deadline),
    }
    draft = Draft(None, EventKind.TIMEOUT, facts, readers=readers)
    return events_write(game=game, seq=move_seq, drafts=[draft])
