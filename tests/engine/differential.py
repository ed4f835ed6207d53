"""One line per random position: its table, legal actions and the next action's outcome, hashed.

Run once on each build (`CANASTA_ENGINE=pure` for the reference) and compare the outputs:
tests/engine/test_compiled_build.py does. Positions come from random legal play in every
configuration of tests/engine/helpers.py, with the random choices seeded, so both builds walk
the same positions as long as they agree.

    python -m tests.engine.differential [GAMES_PER_CONFIGURATION]
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from collections.abc import Iterator

from games.engine import apply, deal, legal_actions
from games.engine.compiled import is_compiled

from .helpers import CONFIG_IDS, CONFIGS


def positions(games: int) -> Iterator[str]:
    for (variant, players, options), config in zip(CONFIGS, CONFIG_IDS, strict=True):
        for game in range(games):
            seed = hashlib.sha256(f"{config}/{game}".encode()).hexdigest()
            rng = random.Random(seed)
            t = deal(variant, players, seed, options=options)
            step = 0
            while not t.over:
                actions = legal_actions(t).actions()
                action = rng.choice(actions)
                outcome = apply(t, t.turn, action)
                record = [t.to_json(), actions, action, outcome.events]
                digest = hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()
                yield f"{config} {game} {step} {len(actions)} {digest[:16]}"
                t = outcome.table
                step += 1
            yield f"{config} {game} end {json.dumps(t.to_json(), sort_keys=True)}"


def main(argv: list[str]) -> None:
    games = int(argv[0]) if argv else 3
    print(f"compiled {is_compiled()}")
    for line in positions(games):
        print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
