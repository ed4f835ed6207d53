"""Replaying a game from its seeds and move log, to check the snapshot (docs/record-format.md:
the snapshot is a cache; replaying the log must reproduce it exactly)."""

from __future__ import annotations

from dataclasses import dataclass, field
from uuid import UUID

from games import engine
from games.engine import Table
from games.events import is_action
from games.models import EndReason, Game, GameState, GameStatus, Hand, Move, SeatStatus
from games.movelog import game_moves, move_hand


@dataclass
class Verification:
    game_id: UUID
    problems: list[str] = field(default_factory=list)
    moves: int = 0
    hands: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems


class _Replay:
    def __init__(self, game: Game, hands: dict[int, Hand], report: Verification) -> None:
        self.game = game
        self.hands = hands
        self.report = report
        self.totals = [0] * game.sides
        self.over = False
        self.winner: int | None = None
        self.reason = ""
        self.table: Table | None = None

    def problem(self, text: str) -> None:
        self.report.problems.append(text)

    def deal(self, number: int) -> None:
        hand = self.hands.get(number)
        if hand is None:
            self.problem(f"hand {number} was never dealt")
            self.table = None
            return
        self.table = engine.deal(
            self.game.variant,
            self.game.players,
            hand.seed,
            hand_number=number,
            scores=self.totals,
            options=self.game.options,
        )

    def resign(self, move: Move) -> None:
        hand = self.hands.get(move.hand)
        if hand is None or hand.end_reason != EndReason.RESIGNED or hand.finished_at is None:
            self.problem(f"move {move.seq}: resignation did not close hand {move.hand}")
        self.over = True
        self.reason = EndReason.RESIGNED
        self.winner = move.events[-1].get("winner") if move.events else None

    def play(self, move: Move) -> None:
        table = self.table
        if table is None:
            return
        if move.hand != table.hand:
            self.problem(f"move {move.seq} is filed under hand {move.hand}, played in {table.hand}")
        try:
            outcome = engine.apply(table, move.seat, move.action)
        except engine.EngineError as error:
            self.problem(f"move {move.seq} is refused on replay: {error.code}: {error.message}")
            self.table = None
            return
        if move.events[: len(outcome.events)] != outcome.events:
            self.problem(f"move {move.seq}: stored events differ from the replayed ones")
        self.table = outcome.table
        if self.table.over:
            self.close_hand(move)

    def close_hand(self, move: Move) -> None:
        assert self.table is not None
        result = engine.score_hand(self.table)
        hand = self.hands[self.table.hand]
        if hand.finished_at is None or hand.result != result.to_json():
            self.problem(f"hand {hand.number}: stored result differs from the replayed score")
        if hand.final_table is not None and hand.final_table != self.table.to_json():
            self.problem(f"hand {hand.number}: stored final table differs from the replayed one")
        self.totals = list(result.totals)
        if result.match_over:
            self.over, self.winner, self.reason = True, result.winner, EndReason.MATCH_OVER
        else:
            self.deal(self.table.hand + 1)


def _check_seating(game: Game, report: Verification) -> None:
    seats = sorted(
        (s for s in game.seats.all() if s.status == SeatStatus.JOINED),
        key=lambda s: (s.joined_at, s.pk),
    )
    if sorted(s.number for s in seats if s.number is not None) != list(range(game.players)):
        report.problems.append("seat numbers are not 0..n-1")
        return
    if game.options.get("seating") != "draw":
        return
    drawn = engine.draw_cards(game.seating_seed, game.players)
    numbers = engine.seats_by_draw(drawn, game.sides)
    for seat, card, number in zip(seats, drawn, numbers, strict=True):
        if seat.drew != card or seat.number != number:
            report.problems.append(f"seat {seat.number}: the seating draw does not match its seed")


def game_verify(*, game: Game) -> Verification:
    """Replay ``game`` from its hand seeds and move log; list every difference found."""
    report = Verification(game_id=game.pk)
    hands = {hand.number: hand for hand in Hand.objects.filter(game=game)}
    report.hands = len(hands)
    for hand in hands.values():
        if engine.commitment(hand.seed) != hand.commitment:
            report.problems.append(f"hand {hand.number}: the seed does not match its commitment")
    if game.status == GameStatus.OPEN or not hands:
        return report
    _check_seating(game, report)
    replay = _Replay(game, hands, report)
    replay.deal(1)
    moves = game_moves(game)
    report.moves = len(moves)
    for expected_seq, move in enumerate(moves, start=1):
        if move.seq != expected_seq:
            report.problems.append(f"the log has move {move.seq} where {expected_seq} belongs")
            break
        if replay.over:
            report.problems.append(f"move {move.seq} comes after the end of the match")
            break
        if is_action(move.action, "resign"):
            replay.resign(move)
        else:
            replay.play(move)
    if game.last_seq != len(moves):
        report.problems.append(f"last_seq is {game.last_seq} but the log has {len(moves)} moves")
    _compare_end(game, replay, report)
    _compare_snapshot(game, replay, report)
    return report


def _compare_end(game: Game, replay: _Replay, report: Verification) -> None:
    if game.status == GameStatus.ABORTED:
        if report.moves:
            report.problems.append("an aborted game has moves")
        return
    if replay.over != (game.status == GameStatus.FINISHED):
        report.problems.append(f"status is {game.status} but the replay says over={replay.over}")
    elif replay.over and (game.winner_side, game.end_reason) != (replay.winner, replay.reason):
        report.problems.append(
            f"stored result {game.end_reason}/{game.winner_side} differs from the replayed "
            f"{replay.reason}/{replay.winner}"
        )


def _compare_snapshot(game: Game, replay: _Replay, report: Verification) -> None:
    # Read afresh: a caller's cached game.state may predate what is stored.
    state = GameState.objects.filter(game=game).first()
    if state is None:
        report.problems.append("a started game has no snapshot")
        return
    if replay.table is not None and state.table != replay.table.to_json():
        report.problems.append("the snapshot's table differs from the replayed table")
    if state.totals != replay.totals:
        report.problems.append(
            f"snapshot totals {state.totals} differ from replayed {replay.totals}"
        )
    latest = replay.hands.get(replay.table.hand) if replay.table is not None else None
    if latest is not None and state.hand_commitment != latest.commitment:
        report.problems.append("the snapshot's commitment is not the current hand's")
    dealt = max(replay.hands)
    if replay.table is not None and dealt != replay.table.hand:
        report.problems.append(f"hand {dealt} was dealt but the replay is in {replay.table.hand}")


def table_after(*, game: Game, seq: int) -> Table | None:
    """The table right after move `seq` of the log (0: the first deal), as it stood then: when
    that move ended a hand, the next hand's deal. None if the log cannot rebuild it.

    The snapshot when `seq` is the game's last move (one query); otherwise the hand is replayed
    from its seed, which the engine reproduces exactly (game_verify checks that). Read paths
    that show a past moment to one seat (clients/payloads.py) pass the result through
    engine.player_view, never as it is.
    """
    current = (
        GameState.objects.filter(game_id=game.pk, game__last_seq=seq)
        .values_list("table", flat=True)
        .first()
    )
    if current is not None:
        return engine.from_json(current)
    number = _hand_of(game, seq)
    if number is None:
        return None
    hands = {
        h.number: h
        for h in Hand.objects.filter(game=game, number__in=[number - 1, number, number + 1])
    }
    table = _deal(game, hands, number)
    moves = game_moves(game, hand=number, upto=seq)
    for move in moves if seq else ():
        # A resignation ends the match without changing the table (as game_verify replays).
        if table is not None and not is_action(move.action, "resign"):
            table = engine.apply(table, move.seat, move.action).table
    if table is not None and table.over and number + 1 in hands:
        return _deal(game, hands, number + 1)
    return table


def _hand_of(game: Game, seq: int) -> int | None:
    if seq == 0:
        return 1
    return move_hand(game, seq)


def _deal(game: Game, hands: dict[int, Hand], number: int) -> Table | None:
    hand = hands.get(number)
    if hand is None:
        return None
    before = hands.get(number - 1)
    totals = list((before.result or {}).get("totals") or [0] * game.sides) if before else None
    return engine.deal(
        game.variant,
        game.players,
        hand.seed,
        hand_number=number,
        scores=totals or [0] * game.sides,
        options=game.options,
    )
