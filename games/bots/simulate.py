"""Bot against bot, engine only: whole matches, and how strong each level is.

    simulate(SimulationConfig(variant="classic", players=4, bots=("strong", "basic"),
                              matches=100, seed=1))

Bot levels are assigned to sides round-robin (`bots[k]` plays side k, so
partners are always the same level: with 4 players "strong,basic" gives seats
0 and 2 to strong, 1 and 3 to basic). From one match to the next the
assignment rotates by one side, so every level plays every seat equally often
and the first player's edge cancels out.

Everything random derives from the seed: one 64-bit seed per match drawn from
`random.Random(seed)`, and from each match's own `random.Random` the 64-hex
seed of every hand and one generator per seat. Bots budget their thinking in
work, not in time, so the results do not depend on the machine, the load or
`workers`.
"""

from __future__ import annotations

import math
import multiprocessing
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO, TypeVar

from games.engine import Match, event_for, get_rules, player_view

from . import BOT_LEVELS, get_bot
from .memory import BotMemory


@dataclass(frozen=True)
class SimulationConfig:
    variant: str = "classic"
    players: int = 4
    bots: tuple[str, ...] = ("strong", "basic")
    matches: int = 100
    seed: int = 0
    workers: int = 1
    options: dict[str, Any] = field(default_factory=dict)
    max_hands: int = 60

    def check(self) -> None:
        rules = get_rules(self.variant)
        if self.players not in rules.player_counts:
            counts = ", ".join(map(str, rules.player_counts))
            raise ValueError(f"{self.variant} is played by {counts} players")
        for level in self.bots:
            if level not in BOT_LEVELS:
                raise ValueError(f"unknown bot level {level!r}; known: {', '.join(BOT_LEVELS)}")
        if not self.bots:
            raise ValueError("name at least one bot level")
        if self.matches < 1 or self.workers < 1 or self.max_hands < 1:
            raise ValueError("matches, workers and max-hands must be at least 1")
        rules.resolve_options(self.options)


@dataclass
class MatchResult:
    index: int
    side_levels: list[str]
    winner: int | None
    capped: bool
    totals: list[int]
    hand_scores: list[list[int]]  # per hand, per side
    actions: dict[str, int]
    think: dict[str, float]
    max_think: dict[str, float]


def match_seeds(seed: int, matches: int) -> list[int]:
    master = random.Random(seed)
    return [master.getrandbits(64) for _ in range(matches)]


def play_match(config: SimulationConfig, index: int, seed: int) -> MatchResult:
    rules = get_rules(config.variant)
    sides = rules.sides(config.players)
    rng = random.Random(seed)
    hand_rng = random.Random(rng.getrandbits(64))
    seat_rngs = [random.Random(rng.getrandbits(64)) for _ in range(config.players)]
    side_levels = [config.bots[(side + index) % len(config.bots)] for side in range(sides)]
    levels = [side_levels[seat % sides] for seat in range(config.players)]
    bots = [get_bot(level) for level in levels]
    memories = [BotMemory(seat=s, players=config.players) for s in range(config.players)]
    match = Match(
        config.variant,
        config.players,
        lambda: hand_rng.getrandbits(256).to_bytes(32, "big").hex(),
        options=config.options,
    )
    actions = dict.fromkeys(side_levels, 0)
    think = dict.fromkeys(side_levels, 0.0)
    max_think = dict.fromkeys(side_levels, 0.0)
    capped = False
    while not match.over:
        table = match.table
        assert table is not None
        seat = table.turn
        view = player_view(table, seat)
        started = time.perf_counter()
        action = bots[seat].choose(view, memories[seat], seat_rngs[seat])
        spent = time.perf_counter() - started
        level = levels[seat]
        actions[level] += 1
        think[level] += spent
        max_think[level] = max(max_think[level], spent)
        hands_before = len(match.hands)
        outcome = match.act(seat, action)
        for s, memory in enumerate(memories):
            for event in outcome.events:
                memory.observe(event_for(event, s))
        if not match.over and len(match.hands) > hands_before and hands_before >= config.max_hands:
            capped = True
            break
    hand_scores = [list(h.result.scores) for h in match.hands if h.result is not None]
    winner = match.winner
    if capped:
        best = max(match.totals)
        leaders = [s for s, total in enumerate(match.totals) if total == best]
        winner = leaders[0] if len(leaders) == 1 else None
    return MatchResult(
        index=index,
        side_levels=side_levels,
        winner=winner,
        capped=capped,
        totals=list(match.totals),
        hand_scores=hand_scores,
        actions=actions,
        think=think,
        max_think=max_think,
    )


def _play(task: tuple[SimulationConfig, int, int]) -> MatchResult:
    return play_match(*task)


# --- results -------------------------------------------------------------------------


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a proportion."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class LevelSummary:
    level: str
    matches: int = 0
    wins: int = 0
    hand_score_sum: int = 0
    side_hands: int = 0
    hands: int = 0
    actions: int = 0
    think: float = 0.0
    max_think: float = 0.0

    @property
    def win_rate(self) -> float:
        return self.wins / self.matches if self.matches else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.matches)

    @property
    def average_hand_score(self) -> float:
        return self.hand_score_sum / self.side_hands if self.side_hands else 0.0

    @property
    def hands_per_match(self) -> float:
        return self.hands / self.matches if self.matches else 0.0

    def to_json(self, timing: bool = True) -> dict[str, Any]:
        low, high = self.interval
        out: dict[str, Any] = {
            "level": self.level,
            "matches": self.matches,
            "wins": self.wins,
            "win_rate": round(self.win_rate, 4),
            "ci95": [round(low, 4), round(high, 4)],
            "average_hand_score": round(self.average_hand_score, 1),
            "hands_per_match": round(self.hands_per_match, 2),
            "actions": self.actions,
        }
        if timing:
            out["actions_per_second"] = round(self.actions / self.think, 1) if self.think else 0.0
            out["mean_decision_ms"] = round(1000 * self.think / max(1, self.actions), 2)
            out["max_decision_ms"] = round(1000 * self.max_think, 1)
        return out


@dataclass
class Summary:
    config: SimulationConfig
    levels: list[LevelSummary]
    capped: int
    elapsed: float
    results: list[MatchResult]

    def to_json(self, timing: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "variant": self.config.variant,
            "players": self.config.players,
            "bots": list(self.config.bots),
            "matches": self.config.matches,
            "seed": self.config.seed,
            "options": dict(self.config.options),
            "capped": self.capped,
            "levels": [lv.to_json(timing) for lv in self.levels],
            "match_winners": [
                None if r.winner is None else r.side_levels[r.winner] for r in self.results
            ],
            "totals": [r.totals for r in self.results],
        }
        if timing:
            out["elapsed"] = round(self.elapsed, 2)
        return out


def summarise(config: SimulationConfig, results: list[MatchResult], elapsed: float) -> Summary:
    results = sorted(results, key=lambda r: r.index)
    levels = {level: LevelSummary(level) for level in dict.fromkeys(config.bots)}
    for r in results:
        for level in dict.fromkeys(r.side_levels):
            summary = levels[level]
            summary.matches += 1
            summary.hands += len(r.hand_scores)
            if r.winner is not None and r.side_levels[r.winner] == level:
                summary.wins += 1
            summary.actions += r.actions[level]
            summary.think += r.think[level]
            summary.max_think = max(summary.max_think, r.max_think[level])
        for scores in r.hand_scores:
            for side, score in enumerate(scores):
                levels[r.side_levels[side]].hand_score_sum += score
                levels[r.side_levels[side]].side_hands += 1
    return Summary(
        config=config,
        levels=list(levels.values()),
        capped=sum(1 for r in results if r.capped),
        elapsed=elapsed,
        results=results,
    )


def format_report(summary: Summary) -> str:
    c = summary.config
    opts = ", ".join(f"{k}={v}" for k, v in sorted(c.options.items())) or "defaults"
    lines = [
        f"{c.variant}, {c.players} players, {c.matches} matches, seed {c.seed}, options: {opts}",
        f"bots by side: {','.join(c.bots)} (rotating one side per match)",
        "",
        f"{'level':<8} {'matches':>7} {'won':>5} {'win rate':>8}  {'95% CI':<15} "
        f"{'avg hand score':>14} {'hands/match':>11} {'actions/s':>9} "
        f"{'mean decision':>13} {'max decision':>12}",
    ]
    for lv in summary.levels:
        low, high = lv.interval
        rate = lv.actions / lv.think if lv.think else 0.0
        mean_ms = 1000 * lv.think / max(1, lv.actions)
        lines.append(
            f"{lv.level:<8} {lv.matches:>7} {lv.wins:>5} {100 * lv.win_rate:>7.1f}%  "
            f"{f'{100 * low:.1f}%-{100 * high:.1f}%':<15} "
            f"{lv.average_hand_score:>14.1f} {lv.hands_per_match:>11.2f} {rate:>9.0f} "
            f"{mean_ms:>10.1f} ms {1000 * lv.max_think:>9.0f} ms"
        )
    lines.append("")
    lines.append(
        f"capped matches (stopped after {c.max_hands} hands, won by the side ahead): "
        f"{summary.capped}; wall time {summary.elapsed:.1f} s"
    )
    return "\n".join(lines)


# --- running ---------------------------------------------------------------------------


class ProgressBar:
    """A plain text progress bar on a stream (stderr by default)."""

    def __init__(
        self, total: int, stream: TextIO | None = None, width: int = 30, unit: str = "matches"
    ) -> None:
        self.total = total
        self.unit = unit
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.started = time.perf_counter()
        self.done = 0

    def update(self, done: int) -> None:
        self.done = done
        elapsed = time.perf_counter() - self.started
        filled = int(self.width * done / max(1, self.total))
        eta = elapsed / done * (self.total - done) if done else 0.0
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(
            f"\r[{bar}] {done}/{self.total} {self.unit}, {elapsed:.0f} s elapsed, ETA {eta:.0f} s"
        )
        if done >= self.total:
            self.stream.write("\n")
        self.stream.flush()


T = TypeVar("T")
R = TypeVar("R")


def tasks_run(
    play: Callable[[T], R],
    tasks: list[T],
    workers: int,
    progress: Callable[[int], None] | None = None,
) -> list[R]:
    """``play`` over ``tasks``, in this process or a pool of ``workers`` (results in the order
    they finish); ``progress`` hears how many are done."""
    results: list[R] = []
    if workers == 1:
        for task in tasks:
            results.append(play(task))
            if progress:
                progress(len(results))
        return results
    with multiprocessing.Pool(workers) as pool:
        for result in pool.imap_unordered(play, tasks):
            results.append(result)
            if progress:
                progress(len(results))
    return results


def simulate(config: SimulationConfig, progress: Callable[[int], None] | None = None) -> Summary:
    config.check()
    started = time.perf_counter()
    tasks = [(config, i, s) for i, s in enumerate(match_seeds(config.seed, config.matches))]
    results = tasks_run(_play, tasks, config.workers, progress)
    return summarise(config, results, time.perf_counter() - started)
