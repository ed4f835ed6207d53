"""A learned belief about the hidden hands, from what a person at the table knows.

Two questions, asked from one seat's view (a Table rebuilt from the view, where
only the seat's own hand and the public parts are read) and its memory:

- **danger**: if this seat discards ``card``, can the next player take the pile?
- **holding**: does opponent ``o`` hold at least one, at least two cards of rank ``r``?

Each is a logistic model over a few public features per (opponent, rank): the
hypergeometric chances from the unseen counts, the cards known in that hand
(taken with the pile), whether it showed it holds no pair of the rank and how
many cards it drew since, whether it discarded the rank, the pile's size and
state, hand sizes, and the heuristic's own estimate (basic.take_chance). The
weights are learned per variant from simulated hands labelled with the true
hidden cards (belief_training.py, `manage.py train_belief`) and stored in
data/belief.json; inference is plain Python, a few microseconds a card.

Cases the rules settle are not asked of the model: a blocking top card (wild
cards, threes) or a side that may not take the pile yet gives 0, a card the
next player's side has melded on an unfrozen pile (where the top card alone
takes it) gives 1.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from games.engine import Table, minimum

from .analysis import next_seat, p_at_least, unseen_rank_counts
from .basic import pile_closed_after, take_chance
from .memory import BotMemory

Card = str
DATA = Path(__file__).with_name("data") / "belief.json"

DANGER_FEATURES = (
    "bias",
    "formula",
    "p_pair",
    "p_one",
    "p_wild",
    "known_one",
    "known_pair",
    "known_wild",
    "no_pair_shown",
    "drawn_since",
    "discarded_rank",
    "frozen",
    "rank_in_their_melds",
    "their_side_melded",
    "pile_size",
    "hand_size",
    "short_hand",
    "copies",
    "stock_low",
    "took_pile",
    "turns",
    "frozen_pair",
    "open_one_wild",
    "their_need",
    "frozen_pair_need",
)
HOLDING_FEATURES = (
    "bias",
    "expected",
    "p_one",
    "p_pair",
    "known_one",
    "known_pair",
    "no_pair_shown",
    "drawn_since",
    "discarded_rank",
    "rank_in_their_melds",
    "rank_in_our_melds",
    "hand_size",
    "took_pile",
    "turns",
    "their_need",
)


def sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


@dataclass(frozen=True)
class _Seen:
    """What ``seat`` knows about opponent ``other`` and rank ``rank``."""

    known_rank: int
    known_wild: int
    hidden: int
    copies: int
    pool: int
    shown: bool
    since: int
    discarded: bool
    took: bool
    turns: int


def _seen(
    t: Table, other: int, rank: str, memory: BotMemory | None, counts: tuple[Any, int]
) -> _Seen:
    ranks, pool = counts
    known = memory.known[other] if memory is not None else []
    known_rank = sum(1 for c in known if c[0] == rank and c != "JK")
    known_wild = sum(1 for c in known if c == "JK" or c[0] == "2")
    hidden = max(0, len(t.hands[other]) - len(known))
    shown, since, discarded, took, turns = False, 0, False, False, 0
    if memory is not None:
        shown = rank in memory.evidence[other]
        since = memory.draws[other] - memory.evidence[other][rank] if shown else 0
        discarded = any(c[0] == rank for c in memory.discards[other])
        took = memory.pickups[other] > 0
        turns = memory.draws[other] + memory.pickups[other]
    copies = max(0, ranks.get(rank, 0) - known_rank)
    return _Seen(known_rank, known_wild, hidden, copies, pool, shown, since, discarded, took, turns)


def _need(t: Table, side: int) -> float:
    """The side's initial-meld minimum (0 once it has melded), 120 counting 1: a side that
    must meld 120 takes a frozen pile far less often than one that needs 50."""
    return minimum(t, side) / 120


def danger_features(
    t: Table, seat: int, card: Card, memory: BotMemory | None, counts: tuple[Any, int]
) -> list[float] | float:
    """The features of "the next player can take the pile after ``card``", or the answer
    itself (0.0 or 1.0) when the rules settle it."""
    rules = t.rules
    if pile_closed_after(t, seat, card):
        return 0.0
    nxt = next_seat(t, seat)
    opp = t.side_of(nxt)
    opp_melds = t.melds[opp]
    size = len(t.hands[nxt])
    rank = card[0]
    pile_after = len(t.discard) + 1
    if rules.freeze == "none":
        frozen = False
    elif rules.freeze == "always" or (rules.freeze == "classic" and not opp_melds):
        frozen = True
    else:
        frozen = any(rules.freezes_pile(c, t.settings) for c in [*t.discard, card])
    if not frozen and rules.top_card_alone and rank in opp_melds:
        return 1.0
    s = _seen(t, nxt, rank, memory, counts)
    ranks, pool = counts
    p_pair = 1.0 if s.known_rank >= 2 else p_at_least(2 - s.known_rank, s.copies, s.hidden, pool)
    p_one = 1.0 if s.known_rank >= 1 else p_at_least(1, s.copies, s.hidden, pool)
    p_wild = 1.0 if s.known_wild else p_at_least(1, ranks.get("W", 0), s.hidden, pool)
    formula = take_chance(t, seat, card, memory, counts, infer=True)
    need = _need(t, opp)
    return [
        1.0,
        formula,
        p_pair,
        p_one,
        p_wild,
        float(s.known_rank >= 1),
        float(s.known_rank >= 2),
        float(s.known_wild > 0),
        float(s.shown),
        min(s.since, 8) / 8 if s.shown else 0.0,
        float(s.discarded),
        float(frozen),
        float(rank in opp_melds),
        float(bool(opp_melds)),
        min(pile_after, 20) / 20,
        min(size, 15) / 15,
        float(size <= 2),
        s.copies / 8,
        float(len(t.stock) < 10),
        float(s.took),
        min(s.turns, 30) / 30,
        p_pair if frozen else 0.0,
        0.0 if frozen else p_one * p_wild,
        need,
        p_pair * need if frozen else 0.0,
    ]


def holding_features(
    t: Table, other: int, rank: str, memory: BotMemory | None, counts: tuple[Any, int]
) -> list[float]:
    """The features of "``other`` holds one / two or more cards of ``rank``" (a natural rank)."""
    s = _seen(t, other, rank, memory, counts)
    expected = s.copies * s.hidden / s.pool if s.pool else 0.0
    return [
        1.0,
        min(expected, 4.0) / 4,
        1.0 if s.known_rank >= 1 else p_at_least(1, s.copies, s.hidden, s.pool),
        1.0 if s.known_rank >= 2 else p_at_least(2 - s.known_rank, s.copies, s.hidden, s.pool),
        float(s.known_rank >= 1),
        float(s.known_rank >= 2),
        float(s.shown),
        min(s.since, 8) / 8 if s.shown else 0.0,
        float(s.discarded),
        float(rank in t.melds[t.side_of(other)]),
        float(any(rank in side for k, side in enumerate(t.melds) if k != t.side_of(other))),
        min(len(t.hands[other]), 15) / 15,
        float(s.took),
        min(s.turns, 30) / 30,
        _need(t, t.side_of(other)),
    ]


def predict(weights: list[float], features: list[float]) -> float:
    return sigmoid(sum(w * x for w, x in zip(weights, features, strict=True)))


class Belief:
    """Fitted weights per variant: ``{"danger": [...], "one": [...], "pair": [...]}``."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.models: dict[str, dict[str, list[float]]] = data["variants"]
        # A file names the features it was fitted on, so a file fitted before features were
        # added still predicts as it was fitted (the others are left out, not zero-weighted).
        named = data.get("features", {})
        self._danger = _positions(named.get("danger", DANGER_FEATURES), DANGER_FEATURES)
        self._holding = _positions(named.get("holding", HOLDING_FEATURES), HOLDING_FEATURES)

    def covers(self, variant: str) -> bool:
        return variant in self.models

    def danger(
        self, t: Table, seat: int, card: Card, memory: BotMemory | None, counts: tuple[Any, int]
    ) -> float:
        """Chance that the next player can take the pile after ``seat`` discards ``card``."""
        features = danger_features(t, seat, card, memory, counts)
        if isinstance(features, float):
            return features
        return predict(self.models[t.rules.name]["danger"], _pick(features, self._danger))

    def holding(
        self, t: Table, other: int, rank: str, memory: BotMemory | None
    ) -> tuple[float, float]:
        """Chances that ``other`` holds at least one and at least two cards of ``rank``."""
        counts = unseen_rank_counts(t, t.turn)
        features = _pick(holding_features(t, other, rank, memory, counts), self._holding)
        model = self.models[t.rules.name]
        one = predict(model["one"], features)
        return one, min(one, predict(model["pair"], features))


def _positions(
    names: list[str] | tuple[str, ...], known: tuple[str, ...]
) -> tuple[int, ...] | None:
    """Where a file's features sit among today's; None when they are today's, in order."""
    if tuple(names) == known:
        return None
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"the belief file names features this code lacks: {unknown}")
    return tuple(known.index(n) for n in names)


def _pick(features: list[float], positions: tuple[int, ...] | None) -> list[float]:
    return features if positions is None else [features[i] for i in positions]


@cache
def load_belief(path: str = str(DATA)) -> Belief | None:
    """The committed model, or None when no fitted file is there (the formula stands)."""
    file = Path(path)
    if not file.exists():
        return None
    return Belief(json.loads(file.read_text()))


__all__ = [
    "DANGER_FEATURES",
    "HOLDING_FEATURES",
    "Belief",
    "danger_features",
    "holding_features",
    "load_belief",
    "predict",
    "sigmoid",
]
