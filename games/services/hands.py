"""Dealing and finishing hands: the verifiable shuffle's seed and commitment (docs/fair-shuffle.md).

Each hand gets a fresh seed from the OS CSPRNG; its commitment is public from the deal on and
the seed is revealed (in /hands/ and the move log) only once the hand is over.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from games import engine
from games.engine import HandResult, Table
from games.models import Game, Hand


def hand_deal(*, game: Game, number: int, scores: list[int], now: datetime) -> tuple[Hand, Table]:
    """Deal hand ``number`` from a fresh seed and record it; returns the row and the table."""
    seed = engine.new_seed()
    table = engine.deal(
        game.variant,
        game.players,
        seed,
        hand_number=number,
        scores=scores,
        options=game.options,
    )
    hand = Hand.objects.create(
        game=game,
        number=number,
        seed=seed,
        commitment=engine.commitment(seed),
        dealer=table.dealer,
        started_at=now,
    )
    return hand, table


def deal_event(hand: Hand) -> dict[str, Any]:
    """The public record of a deal: no cards, only what lets players check the shuffle later."""
    return {
        "type": "deal",
        "hand": hand.number,
        "dealer": hand.dealer,
        "commitment": hand.commitment,
    }


def hand_finish(
    *,
    game: Game,
    number: int,
    now: datetime,
    result: HandResult | None = None,
    end_reason: str = "",
    table: Table | None = None,
) -> dict[str, Any]:
    """Close hand ``number`` and reveal its seed; returns the public `hand_result` event.

    ``result`` is the engine's score of a hand played out; a hand cut short (resignation,
    abort) has none and names its ``end_reason`` instead. ``table``: the hand's table as it
    ended, kept for its score sheet (games/scoresheet.py).
    """
    hand = Hand.objects.get(game=game, number=number)
    hand.finished_at = now
    hand.result = result.to_json() if result is not None else None
    hand.end_reason = result.reason if result is not None else end_reason
    hand.final_table = table.to_json() if table is not None and result is not None else None
    hand.save(update_fields=["finished_at", "result", "end_reason", "final_table"])
    return {
        "type": "hand_result",
        "hand": hand.number,
        "reason": hand.end_reason,
        "seed": hand.seed,
        "commitment": hand.commitment,
        "result": hand.result,
    }
