"""manage.py train_belief: fit the strong bot's belief model from simulated hands.

    python manage.py train_belief --seed 1 --hands 300 --holdout 80 \\
        --out games/bots/data/belief.json

Deals --hands hands per variant from --seed (every player count), played by a
mix of `basic` and `strong` (and, with --itself FILE, `strong` playing an
earlier model), labels every discard with the true hidden cards, fits the
logistic models (games/bots/belief_training.py) and writes them as JSON. With
--holdout N it deals N more hands per variant from seed + 1000 and prints the
Brier scores of the model and of the heuristic's formula on them. The same
arguments give the same file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.bots.belief import Belief
from games.bots.belief_training import VARIANT_PLAYERS, TrainingConfig, collect, evaluate, fit


class Command(BaseCommand):
    help = "Fit the strong bot's belief about hidden hands from simulated, labelled hands."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--hands", type=int, default=300, help="hands per variant")
        parser.add_argument("--holdout", type=int, default=0, help="held-out hands per variant")
        parser.add_argument(
            "--variants", default=",".join(VARIANT_PLAYERS), help="comma-separated variants"
        )
        parser.add_argument("--itself", default=None, help="an earlier model for `strong` to play")
        parser.add_argument("--out", required=True, help="where to write the fitted model (JSON)")
        parser.add_argument(
            "--update",
            action="store_true",
            help="keep the other variants already in --out (train variants one run at a time)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        variants = tuple(v.strip() for v in options["variants"].split(",") if v.strip())
        unknown = [v for v in variants if v not in VARIANT_PLAYERS]
        if unknown or not variants:
            raise CommandError(f"unknown variants {unknown}; known: {', '.join(VARIANT_PLAYERS)}")
        if options["hands"] < 1 or options["holdout"] < 0:
            raise CommandError("--hands must be at least 1 and --holdout at least 0")
        itself = None
        if options["itself"]:
            try:
                itself = Belief(json.loads(Path(options["itself"]).read_text()))
            except (OSError, ValueError, KeyError) as exc:
                raise CommandError(f"cannot read the model {options['itself']}: {exc}") from exc
        config = TrainingConfig(
            seed=options["seed"], hands=options["hands"], variants=variants, itself=itself
        )
        data = collect(config)
        belief = fit(data)
        held = {}
        if options["holdout"]:
            held = evaluate(
                belief,
                collect(
                    TrainingConfig(
                        seed=config.seed + 1000,
                        hands=options["holdout"],
                        variants=variants,
                        itself=itself,
                    )
                ),
            )
        belief.data["meta"] = {
            v: {
                "seed": config.seed,
                "hands": config.hands,
                "itself": options["itself"] is not None,
                "danger_rows": len(data.danger[v]),
                "holding_rows": len(data.one[v]),
                "holdout": held.get(v),
            }
            for v in variants
        }
        out = Path(options["out"])
        result = belief.data
        if options["update"] and out.exists():
            result = _merged(json.loads(out.read_text()), result)
        out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
        self.stdout.write(json.dumps(belief.data["meta"], indent=2))


def _merged(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """``old`` with the variants of ``new`` replaced by the new fit."""
    if old.get("features") != new["features"]:
        raise CommandError("the model in --out was fitted on other features; write a new file")
    return {
        **old,
        "variants": {**old["variants"], **new["variants"]},
        "meta": {**old.get("meta", {}), **new["meta"]},
    }
