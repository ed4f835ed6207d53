"""Scoring a hand and deciding the match (docs/rules.md: scoring, the match; docs/variants.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .melds import canasta_bonus, cards_value
from .rules import RuleSet
from .table import Table


@dataclass(frozen=True)
class SideScore:
    melded: int
    canastas: int
    red_threes: int
    going_out: int
    in_hand: int

    @property
    def total(self) -> int:
        return self.melded + self.canastas + self.red_threes + self.going_out - self.in_hand

    def to_json(self) -> dict[str, int]:
        return {
            "melded": self.melded,
            "canastas": self.canastas,
            "red_threes": self.red_threes,
            "going_out": self.going_out,
            "in_hand": self.in_hand,
            "total": self.total,
        }


@dataclass(frozen=True)
class HandResult:
    scores: list[int]
    totals: list[int]
    detail: list[SideScore]
    went_out: int | None
    concealed: bool
    reason: str
    match_over: bool
    winner: int | None

    def to_json(self) -> dict[str, Any]:
        return {
            "scores": list(self.scores),
            "totals": list(self.totals),
            "detail": [d.to_json() for d in self.detail],
            "went_out": self.went_out,
            "concealed": self.concealed,
            "reason": self.reason,
            "match_over": self.match_over,
            "winner": self.winner,
        }


def red_three_score(rules: RuleSet, count: int, side_melded: bool) -> int:
    """docs/rules.md#threes (800 for four, negative without a meld); tiles ±400 for four."""
    if count == 0:
        return 0
    amount = rules.red_three_all_four if count == 4 else rules.red_three_each * count
    return amount if side_melded else -amount


def score_hand(table: Table) -> HandResult:
    """Score a finished hand (phase over)."""
    if not table.over or table.ended is None:
        raise ValueError("the hand is not over")
    rules = table.rules
    went_out = table.ended.get("went_out")
    concealed = bool(table.ended.get("concealed"))
    detail: list[SideScore] = []
    for side in range(table.sides):
        melds = table.melds[side]
        bonus = 0
        if went_out is not None and table.side_of(went_out) == side:
            bonus = rules.going_out_bonus + (rules.concealed_extra if concealed else 0)
        detail.append(
            SideScore(
                melded=sum(cards_value(rules, cards) for cards in melds.values()),
                canastas=sum(canasta_bonus(rules, key, cards) for key, cards in melds.items()),
                red_threes=red_three_score(rules, len(table.red_threes[side]), bool(melds)),
                going_out=bonus,
                in_hand=sum(
                    cards_value(rules, table.hands[seat])
                    for seat in range(table.players)
                    if table.side_of(seat) == side
                ),
            )
        )
    scores = [d.total for d in detail]
    totals = [a + b for a, b in zip(table.scores, scores, strict=True)]
    over, winner = match_decision(rules, table.settings, totals, table.hand)
    return HandResult(
        scores=scores,
        totals=totals,
        detail=detail,
        went_out=went_out,
        concealed=concealed,
        reason=str(table.ended.get("reason")),
        match_over=over,
        winner=winner,
    )


def match_decision(
    rules: RuleSet, settings: dict[str, Any], totals: Sequence[int], hand_number: int
) -> tuple[bool, int | None]:
    """Is the match over after this hand, and which side won? (docs/rules.md#the-match)."""
    best = max(totals)
    leaders = [side for side, total in enumerate(totals) if total == best]
    if rules.match_rule == "tiles":
        length = settings.get("match", "to_10000")
        if length == "one_round":
            finished = hand_number >= 1
        elif length == "three_rounds":
            finished = hand_number >= 3
        else:
            finished = best >= 10000
    elif rules.match_rule == "above":
        finished = best > settings.get("target", 5000)
    else:
        finished = best >= settings.get("target", 5000)
    # docs/rules.md#the-match, docs/variants.md#tiles: a tie for the lead adds another hand.
    if not finished or len(leaders) > 1:
        return False, None
    return True, leaders[0]
