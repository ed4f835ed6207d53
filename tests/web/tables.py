"""Tables laid out by hand for the game page tests (Table JSON, docs/formats.md).

The cast's 4-player game seats alice 0, carol 1, bob 2, dave 3 (tests/game_fixtures.py):
alice and bob are side 0, carol and dave side 1.
"""

from __future__ import annotations

from typing import Any

from games import engine
from games.models import Game, GameState

# alice's view of this table shows her hand, both sides' melds, the pile and the threes; it
# must never show carol's nines of clubs, dave's sixes or the kings of diamonds in the stock:
# every copy of those cards is hidden.
SHOWN_TABLE: dict[str, Any] = {
    "variant": "classic",
    "players": 4,
    "dealer": 3,
    "turn": 0,
    "phase": "draw",
    "scores": [1200, 1600],
    "hands": [
        ["KH", "KS", "7D", "7C", "5S", "JK", "2C", "4H"],
        ["9C", "9C", "QD"],
        ["8H", "8S"],
        ["6D", "6D", "6H"],
    ],
    "stock": ["KD", "KD", "TD"],
    "discard": ["4S", "8C", "JS"],
    "melds": [
        {
            "A": ["AH", "AS", "AD", "AC", "AH", "AS", "AD"],
            "Q": ["QH", "QS", "QC", "QH", "QS", "2D", "JK"],
            "T": ["TH", "TS", "TC"],
        },
        {},
    ],
    "red_threes": [["3H"], ["3D", "3D"]],
    "melded": [True, False, True, False],
}
HIDDEN_NAMES = ("9 of clubs", "6 of diamonds", "6 of hearts", "King of diamonds", "8 of hearts")


def set_table(game: Game, table: dict[str, Any]) -> Game:
    """Replace the game's current hand by ``table`` (checked by the engine first)."""
    parsed = engine.from_json(table)
    GameState.objects.filter(game=game).update(table=parsed.to_json())
    Game.objects.filter(pk=game.pk).update(turn_seat=parsed.turn, version=game.version + 1)
    return Game.objects.get(pk=game.pk)


def going_out_table(
    seat: int, *, hand_number: int = 1, scores: list[int] | None = None
) -> dict[str, Any]:
    """A classic 4-player table where ``seat`` holds one card, the 5 of spades, in phase
    `play`, and its side has a canasta: discarding that card goes out and ends the hand.
    ``hand_number`` and ``scores`` continue the game's current hand."""
    hands = [["4C", "4D", "KC"], ["6C", "6D", "KC"], ["8C", "8D", "KD"], ["TC", "TD", "KD"]]
    hands[seat] = ["5S"]
    melds: list[dict[str, list[str]]] = [{}, {}]
    melds[seat % 2] = {"A": ["AH", "AS", "AD", "AC", "AH", "AS", "AD"]}
    melded = [False] * 4
    melded[seat] = True
    return {
        "variant": "classic",
        "players": 4,
        "dealer": (seat + 3) % 4,
        "turn": seat,
        "phase": "play",
        "scores": list(scores or [0, 0]),
        "hand_number": hand_number,
        "hands": hands,
        "stock": ["QH", "QS", "JH", "JS", "9H", "9S"],
        "discard": ["7H", "7S"],
        "melds": melds,
        "red_threes": [[], []],
        "melded": melded,
    }
