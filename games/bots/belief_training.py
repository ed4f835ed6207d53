"""Learning the belief model (belief.py) from simulated hands labelled with the true cards.

    data = collect(TrainingConfig(seed=1, hands=200))
    belief = fit(data)

Hands are dealt from the seed in every variant and player count, and played by
a mix of levels (`basic`, `strong` playing the danger formula, and optionally
`strong` with an earlier fitted model, "itself"), so the model does not learn
one player's habits only. At every discard, from the discarding seat's view and
memory (never the hidden cards), each natural rank it could discard gives one
danger row, labelled by playing that discard on the true table and asking the
engine whether the next player can take the pile; and each natural rank gives
one holding row for the next player, labelled with how many of it that player
really holds. A logistic model per variant and question is fitted by Newton's
method with a small ridge penalty. Everything derives from the seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from games.engine import (
    Table,
    apply,
    can_take_pile,
    deal,
    event_for,
    get_rules,
    player_view,
)
from games.events import is_action

from .analysis import NATURAL, legal_discards, next_seat, unseen_rank_counts
from .basic import BasicBot, take_chance
from .belief import (
    DANGER_FEATURES,
    HOLDING_FEATURES,
    Belief,
    danger_features,
    holding_features,
    predict,
)
from .memory import BotMemory
from .sampling import Sampler
from .strong import StrongBot

VARIANT_PLAYERS: dict[str, tuple[int, ...]] = {
    "classic": (4, 2),
    "family": (4, 2),
    "party": (4, 2, 3, 6),
    "tiles": (4,),
}
Row = tuple[list[float], int]
# The match scores a side is dealt at, one drawn per side and hand: every initial-meld
# minimum of the variant is met in training (a side needing 120 takes a frozen pile far less
# often than one needing 50), with the first hand's (score 0) as often as the others together.
MATCH_SCORES: dict[str, tuple[int, ...]] = {
    "classic": (0, 0, 0, -200, 1500, 3000),
    "family": (0, 0, 0, -200, 1500, 3000),
    "party": (0, 0, 1500, 3000),
    "tiles": (0, 0, 0, 1500, 3000, 7000),
}


@dataclass(frozen=True)
class TrainingConfig:
    seed: int = 1
    hands: int = 100  # per variant
    variants: tuple[str, ...] = ("classic", "family", "party", "tiles")
    itself: Belief | None = None  # an earlier model, for `strong` playing with it
    max_rows: int = 40_000  # per variant and question (a deterministic subsample)


@dataclass
class TrainingData:
    danger: dict[str, list[Row]] = field(default_factory=dict)
    formula: dict[str, list[float]] = field(default_factory=dict)  # take_chance per danger row
    one: dict[str, list[Row]] = field(default_factory=dict)
    pair: dict[str, list[Row]] = field(default_factory=dict)
    baseline_pair: dict[str, list[float]] = field(default_factory=dict)  # hypergeometric


def _players(config: TrainingConfig, variant: str) -> list[str]:
    levels = ["basic", "strong"]
    if config.itself is not None:
        levels.append("itself")
    return levels


def _bot(level: str, config: TrainingConfig) -> Any:
    if level == "basic":
        return BasicBot()
    return StrongBot(belief=config.itself if level == "itself" else None)


def collect(config: TrainingConfig) -> TrainingData:
    data = TrainingData()
    master = random.Random(config.seed)
    for variant in config.variants:
        for key in ("danger", "formula", "one", "pair", "baseline_pair"):
            getattr(data, key)[variant] = []
        counts = VARIANT_PLAYERS[variant]
        levels = _players(config, variant)
        for h in range(config.hands):
            players = counts[h % len(counts)]
            sides = get_rules(variant).sides(players)
            side_levels = [master.choice(levels) for _ in range(sides)]
            seat_levels = [side_levels[s % sides] for s in range(players)]
            scores = [master.choice(MATCH_SCORES[variant]) for _ in range(sides)]
            seed = master.getrandbits(256).to_bytes(32, "big").hex()
            rng = random.Random(master.getrandbits(64))
            hand = _Hand(variant, players, seed, scores)
            _play_hand(data, hand, seat_levels, config, rng)
    for variant in config.variants:
        _subsample(data, variant, config.max_rows, random.Random(config.seed + 1))
    return data


def _subsample(data: TrainingData, variant: str, cap: int, rng: random.Random) -> None:
    rows = data.danger[variant]
    if len(rows) > cap:
        keep = sorted(rng.sample(range(len(rows)), cap))
        data.danger[variant] = [rows[i] for i in keep]
        data.formula[variant] = [data.formula[variant][i] for i in keep]
    rows = data.one[variant]
    if len(rows) > cap:
        keep = sorted(rng.sample(range(len(rows)), cap))
        data.one[variant] = [rows[i] for i in keep]
        data.pair[variant] = [data.pair[variant][i] for i in keep]
        data.baseline_pair[variant] = [data.baseline_pair[variant][i] for i in keep]


@dataclass(frozen=True)
class _Hand:
    """One training hand: the deal and each side's match score."""

    variant: str
    players: int
    seed: str
    scores: list[int]


def _play_hand(
    data: TrainingData,
    hand: _Hand,
    levels: list[str],
    config: TrainingConfig,
    rng: random.Random,
) -> None:
    players = hand.players
    table = deal(hand.variant, players, hand.seed, scores=hand.scores)
    bots = [_bot(level, config) for level in levels]
    memories = [BotMemory(seat=s, players=players) for s in range(players)]
    while not table.over:
        seat = table.turn
        view = player_view(table, seat)
        action = bots[seat].choose(view, memories[seat], rng)
        if is_action(action, "discard"):
            _record(data, table, view, memories[seat])
        outcome = apply(table, seat, action)
        for s, memory in enumerate(memories):
            for event in outcome.events:
                memory.observe(event_for(event, s))
        table = outcome.table


def _record(data: TrainingData, truth: Table, view: dict[str, Any], memory: BotMemory) -> None:
    """Rows from the discarding seat's knowledge, labels from the true table."""
    seen = Sampler(view, memory).base  # own hand and public parts only
    seat = seen.turn
    variant = seen.rules.name
    counts = unseen_rank_counts(seen, seat)
    nxt = next_seat(seen, seat)
    done: set[str] = set()
    for card in legal_discards(seen):
        if card[0] in done or card[0] not in NATURAL or card == "JK":
            continue
        done.add(card[0])
        features = danger_features(seen, seat, card, memory, counts)
        if isinstance(features, float):
            continue
        after = apply(truth, seat, {"type": "discard", "card": card}).table
        if after.over or after.turn != nxt:
            continue
        data.danger[variant].append((features, int(can_take_pile(after, nxt))))
        data.formula[variant].append(take_chance(seen, seat, card, memory, counts, infer=True))
    if seen.side_of(nxt) == seen.side_of(seat):
        return
    for rank in NATURAL:
        features = holding_features(seen, nxt, rank, memory, counts)
        held = sum(1 for c in truth.hands[nxt] if c[0] == rank and c != "JK")
        data.one[variant].append((features, int(held >= 1)))
        data.pair[variant].append((features, int(held >= 2)))
        data.baseline_pair[variant].append(features[HOLDING_FEATURES.index("p_pair")])


# --- fitting -------------------------------------------------------------------------


def fit_logistic(rows: list[Row], ridge: float = 1.0, iterations: int = 12) -> list[float]:
    """Logistic regression by Newton's method; ``ridge`` penalises every weight but the bias."""
    d = len(rows[0][0])
    w = [0.0] * d
    for _ in range(iterations):
        grad = [ridge * w[i] if i else 0.0 for i in range(d)]
        hess = [[0.0] * d for _ in range(d)]
        for i in range(1, d):
            hess[i][i] = ridge
        for x, y in rows:
            p = predict(w, x)
            r, s = p - y, max(p * (1.0 - p), 1e-9)
            nz = [(i, xi) for i, xi in enumerate(x) if xi]
            for a, (i, xi) in enumerate(nz):
                grad[i] += r * xi
                row = hess[i]
                sx = s * xi
                for j, xj in nz[a:]:
                    row[j] += sx * xj
        for i in range(d):
            for j in range(i):
                hess[i][j] = hess[j][i]
        step = _solve(hess, grad)
        w = [wi - si for wi, si in zip(w, step, strict=True)]
        if max(abs(s) for s in step) < 1e-6:
            break
    return w


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (the systems are ~20 x 20)."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        if abs(m[col][col]) < 1e-12:
            continue
        for r in range(col + 1, n):
            f = m[r][col] / m[col][col]
            if f:
                for c in range(col, n + 1):
                    m[r][c] -= f * m[col][c]
    x = [0.0] * n
    for i in range(n - 1, -1, -1):
        if abs(m[i][i]) < 1e-12:
            continue
        x[i] = (m[i][n] - sum(m[i][j] * x[j] for j in range(i + 1, n))) / m[i][i]
    return x


def brier(probabilities: list[float], labels: list[int]) -> float:
    n = len(labels)
    return sum((p - y) ** 2 for p, y in zip(probabilities, labels, strict=True)) / max(1, n)


def fit(data: TrainingData) -> Belief:
    variants: dict[str, dict[str, list[float]]] = {}
    for variant, rows in data.danger.items():
        if not rows or not data.one[variant]:
            continue
        variants[variant] = {
            "danger": [round(w, 5) for w in fit_logistic(rows)],
            "one": [round(w, 5) for w in fit_logistic(data.one[variant])],
            "pair": [round(w, 5) for w in fit_logistic(data.pair[variant])],
        }
    return Belief(
        {
            "features": {"danger": list(DANGER_FEATURES), "holding": list(HOLDING_FEATURES)},
            "variants": variants,
            "meta": {},
        }
    )


def evaluate(belief: Belief, data: TrainingData) -> dict[str, dict[str, Any]]:
    """Brier scores on (held-out) rows: the model against the formula / hypergeometric."""
    out: dict[str, dict[str, Any]] = {}
    for variant, rows in data.danger.items():
        if not belief.covers(variant) or not rows:
            continue
        model = belief.models[variant]
        labels = [y for _, y in rows]
        pair_labels = [y for _, y in data.pair[variant]]
        out[variant] = {
            "danger_rows": len(rows),
            "danger_rate": round(sum(labels) / len(labels), 4),
            "danger_brier_model": round(
                brier([predict(model["danger"], x) for x, _ in rows], labels), 4
            ),
            "danger_brier_formula": round(brier(data.formula[variant], labels), 4),
            "holding_rows": len(pair_labels),
            "pair_brier_model": round(
                brier([predict(model["pair"], x) for x, _ in data.pair[variant]], pair_labels), 4
            ),
            "pair_brier_hypergeometric": round(brier(data.baseline_pair[variant], pair_labels), 4),
        }
    return out


__all__ = [
    "TrainingConfig",
    "TrainingData",
    "brier",
    "collect",
    "evaluate",
    "fit",
    "fit_logistic",
]
