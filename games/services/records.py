"""Records of finished matches: the archive, the replay step by step, and the export that a
player can re-verify outside the service (docs/record-format.md, games/engine/verify.py).

Everything here reads; every table is rebuilt by the engine from the hand seeds and the move
log (the same replay games.services.replay.game_verify checks the snapshot with). A match in
play has secrets (the seeds of the current hand, the other hands), so only finished matches
are replayed or exported: the replay shows every hand, the export every seed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.db.models import QuerySet
from django.utils.translation import gettext as _

from games import engine
from games.access import may_view, seat_of
from games.engine import Table
from games.engine.verify import FORMAT, FORMAT_VERSION
from games.events import is_action
from games.models import Game, GameStatus, Hand, Move, Seat, SeatKind, SeatStatus
from games.movelog import game_moves, moves_per_hand
from games.players import player_name
from games.readmodel import iso
from games.selectors import game_with_seats
from games.services.errors import ErrorKind, not_found, refused


@dataclass
class Frame:
    """One step of a hand's replay: its deal (``move`` None) or the table after a move."""

    hand: int
    step: int  # 0 for the deal, then 1, 2, ... for the hand's moves
    table: Table
    move: Move | None = None
    # engine HandResult.to_json() when this move ended the hand.
    result: dict[str, Any] | None = None


def finished_match(*, game_id: UUID | str, user: Any) -> Game:
    """A finished match the user may look back on: one of its players, or anyone signed in
    for a public table. 404 for a match they may not see, 409 for one not over yet."""
    game = game_with_seats(game_id=game_id)
    if not may_view(game, seat_of(game, user)):
        raise not_found()
    if game.status != GameStatus.FINISHED:
        raise refused(ErrorKind.CONFLICT, "record_not_ready", {"status": game.status})
    return game


def archive_of(*, user: Any) -> QuerySet[Game]:
    """The finished matches the user played in, newest first."""
    mine = Seat.objects.filter(user=user, status=SeatStatus.JOINED).values("game_id")
    return Game.objects.filter(pk__in=mine, status=GameStatus.FINISHED).order_by(
        "-finished_at", "pk"
    )


def archive_public() -> QuerySet[Game]:
    """Finished public matches, newest first: anyone signed in may replay them."""
    return Game.objects.filter(status=GameStatus.FINISHED, is_public=True).order_by(
        "-finished_at", "pk"
    )


def _totals_before(hands: dict[int, Hand], number: int, sides: int) -> list[int]:
    before = hands.get(number - 1)
    if before is None or not before.result:
        return [0] * sides
    return [int(total) for total in before.result["totals"]]


def hand_frames(
    game: Game, hand: Hand, hands: dict[int, Hand], moves: list[Move]
) -> Iterator[Frame]:
    """The deal of ``hand`` and the table after each of its ``moves``, as the engine replays
    them. A resignation or a lost clock repeats the table (the engine plays no such move)."""
    table = engine.deal(
        game.variant,
        game.players,
        hand.seed,
        hand_number=hand.number,
        scores=_totals_before(hands, hand.number, game.sides),
        options=game.options,
    )
    yield Frame(hand=hand.number, step=0, table=table)
    for step, move in enumerate(moves, start=1):
        result = None
        # A resignation or a timeout (verify.MATCH_ENDING) ends the match, not a turn.
        if not (is_action(move.action, "resign") or is_action(move.action, "timeout")):
            table = engine.apply(table, move.seat, move.action).table
            if table.over:
                result = engine.score_hand(table).to_json()
        yield Frame(hand=hand.number, step=step, table=table, move=move, result=result)


def _hands_and_moves(game: Game) -> tuple[dict[int, Hand], dict[int, list[Move]]]:
    hands = {h.number: h for h in Hand.objects.filter(game=game).order_by("number")}
    moves: dict[int, list[Move]] = {number: [] for number in hands}
    for move in game_moves(game):
        moves.setdefault(move.hand, []).append(move)
    return hands, moves


def match_frames(game: Game) -> list[Frame]:
    """Every step of every hand of a finished match, in order."""
    hands, moves = _hands_and_moves(game)
    return [
        frame
        for number, hand in hands.items()
        for frame in hand_frames(game, hand, hands, moves[number])
    ]


def hand_steps(game: Game) -> dict[int, int]:
    """Per hand: how many moves it has (its replay has one step more, the deal)."""
    numbers = Hand.objects.filter(game=game).order_by("number").values_list("number", flat=True)
    found = moves_per_hand(game)
    return {number: found.get(number, 0) for number in numbers}


def replay_frame(game: Game, number: int, step: int) -> Frame:
    """Step ``step`` of hand ``number`` (0: the deal); 404 when there is no such step."""
    hands = {h.number: h for h in Hand.objects.filter(game=game, number__in=[number - 1, number])}
    hand = hands.get(number)
    if hand is None:
        raise not_found()
    moves = game_moves(game, hand=number, after=0)
    if not 0 <= step <= len(moves):
        raise not_found()
    *_, last = hand_frames(game, hand, hands, moves[:step])
    return last


def _seating(game: Game) -> dict[str, Any]:
    method = game.options.get("seating", "draw")
    if method != "draw":
        return {"method": method}
    seats = sorted(
        (s for s in game.seats.all() if s.status == SeatStatus.JOINED),
        key=lambda s: (s.joined_at, s.pk),
    )
    return {
        "method": "draw",
        "seed": game.seating_seed,
        "drawn": [s.drew for s in seats],
        "seats": [s.number for s in seats],
    }


def seat_name(seat: Seat) -> str:
    """How a seat is named in a record: the username, or the bot and its level."""
    if seat.user is not None:
        # A deleted account keeps its row under "~deleted-<id>": named as everywhere else.
        return player_name(seat.user)
    if seat.kind == SeatKind.HUMAN:
        # An account deleted after the match: the seat and its moves stay in the record.
        return _("deleted player")
    return f"bot ({seat.bot_level or 'basic'})"


def _iso(value: Any) -> str | None:
    # The API's one time format: UTC with Z.
    return iso(value)


def record_export(*, game: Game) -> dict[str, Any]:
    """The whole record of a finished match as one JSON document (docs/record-format.md)."""
    hands, moves = _hands_and_moves(game)
    hand_rows = []
    for number, hand in hands.items():
        frames = list(hand_frames(game, hand, hands, moves[number]))
        hand_rows.append(
            {
                "number": number,
                "dealer": hand.dealer,
                "seed": hand.seed,
                "commitment": hand.commitment,
                "end_reason": hand.end_reason,
                "result": hand.result,
                "deal": frames[0].table.to_json(),
                "end": frames[-1].table.to_json(),
            }
        )
    seats = sorted(
        (s for s in game.seats.all() if s.number is not None), key=lambda s: s.seated_number
    )
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": {
            "id": str(game.pk),
            "variant": game.variant,
            "players": game.players,
            "sides": game.sides,
            "options": game.options,
            "rated": game.rated,
            "public": game.is_public,
            "created_at": _iso(game.created_at),
            "started_at": _iso(game.started_at),
            "finished_at": _iso(game.finished_at),
        },
        "seats": [
            {
                "seat": s.number,
                "side": s.seated_number % game.sides,
                "name": seat_name(s),
                "kind": s.kind,
            }
            for s in seats
        ],
        "seating": _seating(game),
        "hands": hand_rows,
        "moves": [
            {
                "seq": m.seq,
                "hand": m.hand,
                "seat": m.seat,
                "actor": m.actor,
                "action": m.action,
                "at": _iso(m.created_at),
            }
            for number in hands
            for m in moves[number]
        ],
        "final": {
            "totals": _final_totals(hands, game.sides),
            "winner_side": game.winner_side,
            "end_reason": game.end_reason,
        },
    }


def _final_totals(hands: dict[int, Hand], sides: int) -> list[int]:
    played = [h for h in hands.values() if h.result]
    return [int(t) for t in played[-1].result["totals"]] if played else [0] * sides  # type: ignore[index]
