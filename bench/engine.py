"""Engine benchmark: random hands per second and the replay of a long match.

    .venv/bin/python bench/engine.py [--hands N] [--variant V] [--players P]

Prints absolute figures and ratios against a baseline measured in the same
run (dealing a hand: shuffle + deal), so the numbers compare across machines.
Nothing here is a test: no figure is asserted.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engine import Match, deal
from games.engine.randomplay import play_random_hand


def seed_from(rng: random.Random) -> str:
    return rng.getrandbits(256).to_bytes(32, "big").hex()


def bench_deal(variant: str, players: int, n: int) -> float:
    rng = random.Random(1)
    seeds = [seed_from(rng) for _ in range(n)]
    start = time.perf_counter()
    for seed in seeds:
        deal(variant, players, seed)
    return (time.perf_counter() - start) / n


def bench_hands(variant: str, players: int, n: int) -> tuple[float, float]:
    rng = random.Random(2)
    actions = 0
    start = time.perf_counter()
    for _ in range(n):
        table = deal(variant, players, seed_from(rng))
        _, log = play_random_hand(table, rng)
        actions += len(log)
    elapsed = time.perf_counter() - start
    return n / elapsed, actions / elapsed


def long_match(variant: str, players: int, min_actions: int) -> tuple[list, int]:
    """Seeds and actions of a match of at least ``min_actions`` actions (random play)."""
    rng = random.Random(3)
    match = Match(variant, players, lambda: seed_from(rng), options={"target": 100000})
    actions = 0
    while actions < min_actions:
        assert match.table is not None
        _, log = play_random_hand(match.table, rng)
        for seat, action in log:
            match.act(seat, action)
        actions += len(log)
    hands = [(h.seed, h.actions) for h in match.hands]
    return hands, actions


def bench_replay(variant: str, players: int, min_actions: int, repeat: int) -> tuple[int, float]:
    hands, actions = long_match(variant, players, min_actions)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        Match.replay(variant, players, hands, options={"target": 100000})
        times.append(time.perf_counter() - start)
    return actions, statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--replay-actions", type=int, default=5000)
    args = parser.parse_args()

    deal_time = bench_deal(args.variant, args.players, 500)
    hands_per_s, actions_per_s = bench_hands(args.variant, args.players, args.hands)
    actions, replay_time = bench_replay(args.variant, args.players, args.replay_actions, 5)
    print(f"engine benchmark: {args.variant}, {args.players} players, one core")
    print(f"  baseline: deal one hand (shuffle + deal)   {deal_time * 1e3:8.3f} ms")
    print(
        f"  random complete hands                      {hands_per_s:8.1f} hands/s"
        f"   (one hand = {1 / hands_per_s / deal_time:.0f}x a deal)"
    )
    print(
        f"  actions applied in random play             {actions_per_s:8.0f} actions/s"
        f"  (one action = {1 / actions_per_s / deal_time:.2f}x a deal)"
    )
    print(
        f"  replay of a {actions}-action match from its seeds  {replay_time * 1e3:8.1f} ms"
        f"   ({replay_time / deal_time:.0f}x a deal)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
