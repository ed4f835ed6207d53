"""Score sheets: what each side scored in a finished hand, line by line, with the final melds
and every hand revealed (issue 18, "The end of a hand").

A sheet is rebuilt from the log: the hand's seed (public once the hand is over) deals the
table again and the hand's moves are replayed on it (as games.services.replay does), then the
engine's own scoring (games.engine.scoring) gives the figures. The web page, the history and
the hand-over and match-over emails all read their sheet here, so they cannot disagree.

Hidden information: only hands that are over (their Hand row is finished and scored) have a
sheet. A hand in play has none, whatever asks: its cards stay hidden.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from games import engine
from games.engine import HandResult, Table
from games.engine.melds import canasta_bonus, canasta_kind
from games.events import is_action
from games.models import Game, Hand, Move
from games.movelog import game_moves

# The canasta kinds in the order a sheet lists them (games.engine.melds.canasta_kind).
CANASTA_KINDS = ("natural", "mixed", "joker", "twos_clean", "twos_dirty")


@dataclass(frozen=True)
class CanastaLine:
    """The canastas of one kind a side made: how many, the bonus each, the points."""

    kind: str
    count: int
    each: int

    @property
    def points(self) -> int:
        return self.count * self.each

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "count": self.count, "each": self.each, "points": self.points}


@dataclass(frozen=True)
class SideSheet:
    """One side's lines of a hand; the figures are the engine's SideScore."""

    side: int
    seats: list[int]
    melded: int
    canastas: list[CanastaLine]
    red_threes: list[str]
    red_three_points: int
    went_out: bool
    concealed: bool
    going_out: int
    in_hand: int
    total: int
    match_total: int
    # The final melds (key -> cards) and each member's cards left in hand (seat -> cards).
    melds: dict[str, list[str]] = field(default_factory=dict)
    hands: dict[int, list[str]] = field(default_factory=dict)

    @property
    def canasta_points(self) -> int:
        return sum(line.points for line in self.canastas)

    @property
    def cards_left(self) -> int:
        return sum(len(cards) for cards in self.hands.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "side": self.side,
            "seats": list(self.seats),
            "melded": self.melded,
            "canastas": [line.to_json() for line in self.canastas],
            "canasta_points": self.canasta_points,
            "red_threes": list(self.red_threes),
            "red_three_points": self.red_three_points,
            "went_out": self.went_out,
            "concealed": self.concealed,
            "going_out": self.going_out,
            "in_hand": self.in_hand,
            "cards_left": self.cards_left,
            "total": self.total,
            "match_total": self.match_total,
            "melds": {key: list(cards) for key, cards in self.melds.items()},
            # JSON object keys are strings: the seat number as text.
            "hands": {str(seat): list(cards) for seat, cards in self.hands.items()},
        }


@dataclass(frozen=True)
class HandSheet:
    """The score sheet of one finished hand."""

    number: int
    variant: str
    reason: str
    went_out: int | None
    concealed: bool
    sides: list[SideSheet]
    match_over: bool
    winner: int | None
    seed: str
    commitment: str

    @property
    def scores(self) -> list[int]:
        return [s.total for s in self.sides]

    @property
    def totals(self) -> list[int]:
        return [s.match_total for s in self.sides]

    def to_json(self) -> dict[str, Any]:
        return {
            "hand": self.number,
            "variant": self.variant,
            "reason": self.reason,
            "went_out": self.went_out,
            "concealed": self.concealed,
            "sides": [s.to_json() for s in self.sides],
            "scores": self.scores,
            "totals": self.totals,
            "match_over": self.match_over,
            "winner": self.winner,
            "seed": self.seed,
            "commitment": self.commitment,
        }


def _canasta_lines(table: Table, side: int) -> list[CanastaLine]:
    rules = table.rules
    counts: dict[str, int] = {}
    bonus: dict[str, int] = {}
    for key, cards in table.melds[side].items():
        kind = canasta_kind(key, cards)
        if kind is None:
            continue
        counts[kind] = counts.get(kind, 0) + 1
        bonus[kind] = canasta_bonus(rules, key, cards)
    return [CanastaLine(k, counts[k], bonus[k]) for k in CANASTA_KINDS if k in counts]


def sheet_from_table(
    table: Table, result: HandResult, *, seed: str = "", commitment: str = ""
) -> HandSheet:
    """The sheet of a finished hand's table and the engine's score of it."""
    sides = []
    for side, detail in enumerate(result.detail):
        seats = [seat for seat in range(table.players) if table.side_of(seat) == side]
        lines = _canasta_lines(table, side)
        melds = table.melds[side]
        sides.append(
            SideSheet(
                side=side,
                seats=seats,
                melded=detail.melded,
                canastas=lines,
                red_threes=list(table.red_threes[side]),
                red_three_points=detail.red_threes,
                went_out=result.went_out is not None and table.side_of(result.went_out) == side,
                concealed=result.concealed,
                going_out=detail.going_out,
                in_hand=detail.in_hand,
                total=detail.total,
                match_total=result.totals[side],
                melds={key: list(cards) for key, cards in melds.items()},
                hands={seat: list(table.hands[seat]) for seat in seats},
            )
        )
    return HandSheet(
        number=table.hand,
        variant=table.variant,
        reason=result.reason,
        went_out=result.went_out,
        concealed=result.concealed,
        sides=sides,
        match_over=result.match_over,
        winner=result.winner,
        seed=seed,
        commitment=commitment,
    )


def _totals_before(hand: Hand, previous: Hand | None, sides: int) -> list[int]:
    if previous is None:
        return [0] * sides
    return list((previous.result or {}).get("totals") or [0] * sides)


def _final_table(game: Game, hand: Hand, totals: Sequence[int], moves: Iterable[Move]) -> Table:
    table = engine.deal(
        game.variant,
        game.players,
        hand.seed,
        hand_number=hand.number,
        scores=list(totals),
        options=game.options,
    )
    for move in moves:
        if is_action(move.action, "resign"):
            break
        table = engine.apply(table, move.seat, move.action).table
        if table.over:
            break
    return table


def _sheet(game: Game, hand: Hand, previous: Hand | None, moves: Iterable[Move]) -> HandSheet:
    if hand.final_table is not None:
        # Kept when the hand ended (games.services.hands.hand_finish); the replay below
        # reproduces it (game_verify checks), for hands finished before it was kept.
        table = engine.from_json(hand.final_table)
    else:
        table = _final_table(game, hand, _totals_before(hand, previous, game.sides), moves)
    if not table.over:
        raise ValueError(f"hand {hand.number} does not replay to its end")
    return sheet_from_table(
        table, engine.score_hand(table), seed=hand.seed, commitment=hand.commitment
    )


def _finished(hand: Hand | None) -> bool:
    # A hand cut short (resignation, abort) is finished but was never scored: no sheet.
    return hand is not None and hand.finished_at is not None and bool(hand.result)


def scoresheet_hand(*, game: Game, number: int) -> HandSheet | None:
    """The sheet of hand ``number`` once it is over and scored; None otherwise.

    Memoised on ``game`` (a finished hand never changes): the hand-over email of each player
    and the page of one request replay the hand once.
    """
    memo: dict[int, HandSheet | None] = game.__dict__.setdefault("_scoresheets", {})
    if number in memo:
        return memo[number]
    hands = {h.number: h for h in Hand.objects.filter(game=game, number__in=[number - 1, number])}
    hand = hands.get(number)
    sheet = None
    if _finished(hand):
        assert hand is not None
        moves = game_moves(game, hand=number)
        sheet = _sheet(game, hand, hands.get(number - 1), moves)
    memo[number] = sheet
    return sheet


def scoresheet_match(*, game: Game) -> list[HandSheet]:
    """The sheets of every finished, scored hand of the match, in order."""
    hands = list(Hand.objects.filter(game=game).order_by("number"))
    by_hand: dict[int, list[Move]] = {}
    if any(h.final_table is None for h in hands if _finished(h)):
        for move in game_moves(game):
            by_hand.setdefault(move.hand, []).append(move)
    memo: dict[int, HandSheet | None] = game.__dict__.setdefault("_scoresheets", {})
    sheets = []
    previous: Hand | None = None
    for hand in hands:
        if _finished(hand):
            if hand.number not in memo:
                memo[hand.number] = _sheet(game, hand, previous, by_hand.get(hand.number, []))
            sheet = memo[hand.number]
            if sheet is not None:
                sheets.append(sheet)
        previous = hand
    return sheets


def last_scored_hand(*, game: Game) -> int | None:
    """The number of the latest hand that was played out and scored, if any (one query)."""
    return (
        Hand.objects.filter(game=game, finished_at__isnull=False, result__isnull=False)
        .order_by("-number")
        .values_list("number", flat=True)
        .first()
    )
