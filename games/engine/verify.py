"""Re-verify an exported match record with the engine alone (docs/record-format.md).

    python -m games.engine.verify record.json

Checks, without the service or its database: every hand's seed against its published
commitment (docs/fair-shuffle.md), the seating draw, every move replayed by the rules engine
from the seeds, every hand's table at the deal and at its end, every hand's score, and the
final totals and winner. Prints one verdict; exit status 0 when the record holds, 1 when it
does not, 2 when the file cannot be read as a record.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .dealing import deal
from .errors import EngineError
from .play import apply
from .scoring import score_hand
from .seating import draw_cards, seats_by_draw
from .shuffle import commitment
from .table import Table
from .variants import get_rules

FORMAT = "canasta-record"
FORMAT_VERSION = 1
# Moves that end a match without the rules engine: the service logs them with these types.
MATCH_ENDING = {"resign": "resigned", "timeout": "forfeit"}


@dataclass
class Report:
    problems: list[str] = field(default_factory=list)
    hands: int = 0
    moves: int = 0
    totals: list[int] = field(default_factory=list)
    winner: int | None = None
    reason: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems


class RecordError(ValueError):
    """The document is not a match record at all (wrong format, missing fields)."""


class _Replay:
    def __init__(self, record: Mapping[str, Any], report: Report) -> None:
        game = record["game"]
        self.variant: str = game["variant"]
        self.players: int = int(game["players"])
        self.options: dict[str, Any] = dict(game.get("options") or {})
        self.sides = get_rules(self.variant).sides(self.players)
        self.hands = {int(h["number"]): h for h in record["hands"]}
        self.report = report
        self.totals = [0] * self.sides
        self.table: Table | None = None
        self.over = False

    def problem(self, text: str) -> None:
        self.report.problems.append(text)

    def deal(self, number: int) -> None:
        hand = self.hands.get(number)
        if hand is None:
            self.problem(f"hand {number} was dealt in play but is missing from the record")
            self.table = None
            return
        self.report.hands = max(self.report.hands, number)
        self.table = deal(
            self.variant,
            self.players,
            hand["seed"],
            hand_number=number,
            scores=self.totals,
            options=self.options,
        )
        if hand.get("deal") != self.table.to_json():
            self.problem(f"hand {number}: the recorded deal is not the one its seed deals")

    def end_match(self, kind: str, seat: int) -> None:
        """A resignation or a lost clock: that side loses, the best other side wins."""
        loser = seat % self.sides
        others = [s for s in range(self.sides) if s != loser]
        best = max(self.totals[s] for s in others)
        leaders = [s for s in others if self.totals[s] == best]
        self.over = True
        self.report.reason = MATCH_ENDING[kind]
        self.report.winner = leaders[0] if len(leaders) == 1 else None

    def play(self, seq: int, hand: int, seat: int, action: Mapping[str, Any]) -> None:
        if self.table is None:
            return
        if hand != self.table.hand:
            self.problem(
                f"move {seq} is filed under hand {hand} but was played in hand {self.table.hand}"
            )
        try:
            self.table = apply(self.table, seat, action).table
        except EngineError as error:
            self.problem(f"move {seq} is not legal on replay: {error.code}: {error.message}")
            self.table = None
            return
        if self.table.over:
            self.close_hand()

    def close_hand(self) -> None:
        assert self.table is not None
        result = score_hand(self.table)
        number = self.table.hand
        recorded = self.hands[number]
        if recorded.get("end") != self.table.to_json():
            self.problem(f"hand {number}: the recorded final table differs from the replayed one")
        if recorded.get("result") != result.to_json():
            self.problem(f"hand {number}: the recorded score differs from the replayed score")
        self.totals = list(result.totals)
        if result.match_over:
            self.over = True
            self.report.winner = result.winner
            self.report.reason = "match_over"
        else:
            self.deal(number + 1)


def _check_seeds(record: Mapping[str, Any], report: Report) -> None:
    for hand in record["hands"]:
        try:
            matches = commitment(hand["seed"]) == hand["commitment"]
        except ValueError:
            matches = False
        if not matches:
            report.problems.append(f"hand {hand['number']}: the seed does not match its commitment")


def _check_seating(record: Mapping[str, Any], sides: int, report: Report) -> None:
    seating = record.get("seating") or {}
    if seating.get("method") != "draw":
        return
    players = int(record["game"]["players"])
    drawn = draw_cards(seating["seed"], players)
    if list(seating.get("drawn") or []) != drawn:
        report.problems.append("the seating draw is not the one its seed deals")
    elif list(seating.get("seats") or []) != seats_by_draw(drawn, sides):
        report.problems.append("the seats do not follow the seating draw")


def _check_moves(moves: Sequence[Mapping[str, Any]], replay: _Replay, report: Report) -> None:
    for expected, move in enumerate(moves, start=1):
        seq = int(move["seq"])
        if seq != expected:
            report.problems.append(f"the log has move {seq} where move {expected} belongs")
            return
        if replay.over:
            report.problems.append(f"move {seq} comes after the end of the match")
            return
        kind = str(move["action"].get("type"))
        if kind in MATCH_ENDING:
            replay.end_match(kind, int(move["seat"]))
        else:
            replay.play(seq, int(move["hand"]), int(move["seat"]), move["action"])
    report.moves = len(moves)


def _check_final(record: Mapping[str, Any], replay: _Replay, report: Report) -> None:
    final = record["final"]
    report.totals = list(replay.totals)
    if not replay.over:
        report.problems.append("the moves end before the match is over")
    if list(final.get("totals") or []) != replay.totals:
        report.problems.append(
            f"the recorded final totals {final.get('totals')} differ from the replayed {replay.totals}"
        )
    if final.get("winner_side") != report.winner or final.get("end_reason") != report.reason:
        report.problems.append(
            f"the recorded result ({final.get('end_reason')}, winner {final.get('winner_side')}) "
            f"differs from the replayed ({report.reason}, winner {report.winner})"
        )
    extra = sorted(set(replay.hands) - set(range(1, report.hands + 1)))
    if extra:
        report.problems.append(f"the record has hands {extra} that were never reached")


def verify_record(record: Mapping[str, Any]) -> Report:
    """Replay ``record`` (a parsed export) and list every way it fails to hold."""
    try:
        if record.get("format") != FORMAT or record.get("format_version") != FORMAT_VERSION:
            raise RecordError(f"not a {FORMAT} version {FORMAT_VERSION} document")
        report = Report()
        replay = _Replay(record, report)
        _check_seeds(record, report)
        _check_seating(record, replay.sides, report)
        replay.deal(1)
        _check_moves(record["moves"], replay, report)
        _check_final(record, replay, report)
    except (KeyError, TypeError, AttributeError) as error:
        raise RecordError(f"the record is incomplete or malformed ({error!r})") from None
    except EngineError as error:
        raise RecordError(f"the record's table is not playable: {error.message}") from None
    return report


def verdict(record: Mapping[str, Any], report: Report) -> str:
    """What the command prints: one line when the record holds, the problems when not."""
    game = record.get("game", {})
    if report.ok:
        winner = "no winner" if report.winner is None else f"winner_side {report.winner}"
        return (
            f"VERIFIED: {game.get('variant')} match {game.get('id')}: {report.hands} hand(s), "
            f"{report.moves} move(s) replayed by the engine, every seed matches its commitment, "
            f"final totals {report.totals} ({report.reason}, {winner})."
        )
    lines = [f"NOT VERIFIED: match {game.get('id')}: {len(report.problems)} problem(s)"]
    lines += [f"  - {problem}" for problem in report.problems]
    return "\n".join(lines)


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m games.engine.verify",
        description="Re-verify an exported match record with the rules engine alone: seeds "
        "against commitments, every move, every hand's score, the final result.",
    )
    parser.add_argument("record", help="the record's JSON file (- reads standard input)")
    return parser.parse_args(argv)


def _load(name: str) -> dict[str, Any]:
    if name == "-":
        record = json.load(sys.stdin)
    else:
        with open(name, encoding="utf-8") as handle:
            record = json.load(handle)
    if not isinstance(record, dict):
        raise RecordError("the document is not a JSON object")
    return record


def main(argv: Sequence[str] | None = None) -> int:
    arguments = _arguments(argv)
    try:
        record = _load(arguments.record)
        report = verify_record(record)
    except (OSError, ValueError) as error:
        print(f"CANNOT VERIFY: {error}")
        return 2
    print(verdict(record, report))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
