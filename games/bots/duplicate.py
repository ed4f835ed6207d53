"""Duplicate deals: each deal played once per seating of the levels, so the luck cancels out.

    run_duplicate(DuplicateConfig(variant="classic", players=4, bots=("strong", "basic"),
                                  deals=400, seed=7))

A deal is the first hand of a match dealt from one 64-hex seed. It is played
once with the tested level (`bots[0]`) on side 0 and the other level on the
other sides, then again with the tested level on side 1, and so on for every
side, with the same cards every time (and the same generator seeds per seat).
Each deal gives one figure, the tested side's hand score minus the others'
average, averaged over the seatings; the report is the mean over deals with a
95% interval (normal approximation over deals, which are independent).

Everything random derives from the seed, as in simulate.py, so a seed gives
the same figures on any machine and whatever `workers` is.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from games.engine import apply, deal, event_for, get_rules, player_view, score_hand

from . import BOT_LEVELS, get_bot
from .memory import BotMemory
from .simulate import tasks_run


@dataclass(frozen=True)
class DuplicateConfig:
    variant: str = "classic"
    players: int = 4
    bots: tuple[str, str] = ("strong", "basic")  # tested level, then the level it plays against
    deals: int = 100
    seed: int = 0
    workers: int = 1
    options: dict[str, Any] = field(default_factory=dict)

    def check(self) -> None:
        rules = get_rules(self.variant)
        if self.players not in rules.player_counts:
            counts = ", ".join(map(str, rules.player_counts))
            raise ValueError(f"{self.variant} is played by {counts} players")
        if len(self.bots) != 2:
            raise ValueError(
                "duplicate deals compare two levels: name the tested one, then another"
            )
        for level in self.bots:
            if level not in BOT_LEVELS:
                raise ValueError(f"unknown bot level {level!r}; known: {', '.join(BOT_LEVELS)}")
        if self.deals < 1 or self.workers < 1:
            raise ValueError("deals and workers must be at least 1")
        rules.resolve_options(self.options)


@dataclass
class DealResult:
    index: int
    edges: list[float]  # per seating (tested level on side k): its score minus the others' mean
    actions: int
    think: float
    max_think: float
    # The tested level's decisions, CPU seconds each (wall time waits for a core when loaded).
    cpu: list[float] = field(default_factory=list)

    @property
    def edge(self) -> float:
        return sum(self.edges) / len(self.edges)


def deal_seeds(seed: int, deals: int) -> list[int]:
    master = random.Random(seed)
    return [master.getrandbits(64) for _ in range(deals)]


def play_hand(
    config: DuplicateConfig, hand_seed: str, levels: list[str], seat_seeds: list[int]
) -> tuple[list[int], int, float, float, list[float]]:
    """One hand with ``levels[seat]`` at each seat: its scores per side and the tested
    level's action count, total and longest thinking time, and each decision's CPU time."""
    table = deal(config.variant, config.players, hand_seed, options=config.options)
    bots = [get_bot(level) for level in levels]
    memories = [BotMemory(seat=s, players=config.players) for s in range(config.players)]
    rngs = [random.Random(s) for s in seat_seeds]
    tested = config.bots[0]
    actions, think, longest, cpu = 0, 0.0, 0.0, []
    while not table.over:
        seat = table.turn
        started, cpu_started = time.perf_counter(), time.process_time()
        action = bots[seat].choose(player_view(table, seat), memories[seat], rngs[seat])
        spent = time.perf_counter() - started
        cpu_spent = time.process_time() - cpu_started
        if levels[seat] == tested:
            actions += 1
            think += spent
            longest = max(longest, spent)
            cpu.append(cpu_spent)
        outcome = apply(table, seat, action)
        for s, memory in enumerate(memories):
            for event in outcome.events:
                memory.observe(event_for(event, s))
        table = outcome.table
    return list(score_hand(table).scores), actions, think, longest, cpu


def play_deal(config: DuplicateConfig, index: int, seed: int) -> DealResult:
    rng = random.Random(seed)
    hand_seed = rng.getrandbits(256).to_bytes(32, "big").hex()
    seat_seeds = [rng.getrandbits(64) for _ in range(config.players)]
    sides = get_rules(config.variant).sides(config.players)
    tested, other = config.bots
    result = DealResult(index=index, edges=[], actions=0, think=0.0, max_think=0.0)
    for side in range(sides):
        levels = [tested if s % sides == side else other for s in range(config.players)]
        scores, actions, think, longest, cpu = play_hand(config, hand_seed, levels, seat_seeds)
        others = [v for k, v in enumerate(scores) if k != side]
        result.edges.append(scores[side] - sum(others) / len(others))
        result.actions += actions
        result.think += think
        result.max_think = max(result.max_think, longest)
        result.cpu += cpu
    return result


def _play(task: tuple[DuplicateConfig, int, int]) -> DealResult:
    return play_deal(*task)


def mean_interval(values: list[float], z: float = 1.96) -> tuple[float, float, float]:
    """Mean and its 95% interval (normal approximation)."""
    n = len(values)
    if n == 0:
        return 0.0, -math.inf, math.inf
    mean = sum(values) / n
    if n < 2:
        return mean, -math.inf, math.inf
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = z * math.sqrt(var / n)
    return mean, mean - half, mean + half


@dataclass
class DuplicateSummary:
    config: DuplicateConfig
    results: list[DealResult]
    elapsed: float

    @property
    def edges(self) -> list[float]:
        return [r.edge for r in self.results]

    def to_json(self, timing: bool = True) -> dict[str, Any]:
        mean, low, high = mean_interval(self.edges)
        out: dict[str, Any] = {
            "mode": "duplicate",
            "variant": self.config.variant,
            "players": self.config.players,
            "bots": list(self.config.bots),
            "deals": self.config.deals,
            "seed": self.config.seed,
            "options": dict(self.config.options),
            "points_a_hand": round(mean, 1),
            "ci95": [round(low, 1), round(high, 1)],
            "edges": [round(e, 1) for e in self.edges],
        }
        if timing:
            actions = sum(r.actions for r in self.results)
            think = sum(r.think for r in self.results)
            out["mean_decision_ms"] = round(1000 * think / max(1, actions), 2)
            out["max_decision_ms"] = round(1000 * max(r.max_think for r in self.results), 1)
            cpu = sorted(c for r in self.results for c in r.cpu)
            out["p99_decision_cpu_ms"] = (
                round(1000 * cpu[int(0.99 * (len(cpu) - 1))], 1) if cpu else 0.0
            )
            out["elapsed"] = round(self.elapsed, 2)
        return out


def run_duplicate(
    config: DuplicateConfig, progress: Callable[[int], None] | None = None
) -> DuplicateSummary:
    config.check()
    started = time.perf_counter()
    tasks = [(config, i, s) for i, s in enumerate(deal_seeds(config.seed, config.deals))]
    results = tasks_run(_play, tasks, config.workers, progress)
    results.sort(key=lambda r: r.index)
    return DuplicateSummary(config, results, time.perf_counter() - started)


def format_duplicate(summaries: list[DuplicateSummary]) -> str:
    """One line per seed, and the pooled figure when there are several seeds."""
    c = summaries[0].config
    opts = ", ".join(f"{k}={v}" for k, v in sorted(c.options.items())) or "defaults"
    tested, other = c.bots
    lines = [
        f"{c.variant}, {c.players} players, duplicate deals, options: {opts}",
        f"{tested} against {other}: points a hand for {tested} (its side's hand score minus "
        "the others' average, each deal played once per seating)",
        "",
        f"{'seed':>10} {'deals':>6} {'points a hand':>14}  {'95% CI':<17} {'mean decision':>13} "
        f"{'max decision':>12}",
    ]
    for s in summaries:
        data = s.to_json()
        low, high = data["ci95"]
        lines.append(
            f"{s.config.seed:>10} {len(s.results):>6} {data['points_a_hand']:>14.1f}  "
            f"{f'{low:.1f} to {high:.1f}':<17} {data['mean_decision_ms']:>10.2f} ms "
            f"{data['max_decision_ms']:>9.0f} ms"
        )
    if len(summaries) > 1:
        pooled = [e for s in summaries for e in s.edges]
        mean, low, high = mean_interval(pooled)
        lines.append(
            f"{'all':>10} {len(pooled):>6} {mean:>14.1f}  {f'{low:.1f} to {high:.1f}':<17}"
        )
    lines.append("")
    lines.append(f"wall time {sum(s.elapsed for s in summaries):.1f} s")
    return "\n".join(lines)
