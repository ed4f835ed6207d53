"""manage.py simulate: bot against bot, engine only, to measure how strong each level is.

    python manage.py simulate --variant classic --players 4 --bots strong,basic \\
        --matches 200 --seed 1 --workers 2 --target 2000

Levels are assigned to sides round-robin and the assignment rotates one side per
match (see games/bots/simulate.py). The same --seed gives the same matches and
the same numbers (all but the timings) whatever --workers is. --target plays
shorter matches than the variant's 5,000 (classic, family, party), which makes a
measurement cheaper; tiles matches are shortened with --option match=three_rounds.
"""

from __future__ import annotations

import json
import random
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.bots.simulate import ProgressBar, SimulationConfig, format_report, simulate


def _option(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise CommandError(f"--option takes KEY=VALUE, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


class _Raw:
    """The command's stderr without the newline Django adds to every write."""

    def __init__(self, wrapper: Any) -> None:
        self.wrapper = wrapper

    def write(self, text: str) -> None:
        self.wrapper.write(text, ending="")

    def flush(self) -> None:
        self.wrapper.flush()


class Command(BaseCommand):
    help = "Play whole matches bot against bot (engine only) and report each level's strength."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--variant", default="classic")
        parser.add_argument("--players", type=int, default=4)
        parser.add_argument(
            "--bots",
            default="strong,basic",
            help="bot levels, comma-separated, assigned to sides round-robin",
        )
        parser.add_argument("--matches", type=int, default=100)
        parser.add_argument("--seed", type=int, default=None, help="default: a random seed")
        parser.add_argument("--workers", type=int, default=1, help="processes")
        parser.add_argument(
            "--target",
            type=int,
            default=None,
            help="points that end a match (shorter matches measure faster)",
        )
        parser.add_argument(
            "--option",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="a table option, e.g. ask_partner=true or match=three_rounds (repeatable)",
        )
        parser.add_argument(
            "--max-hands", type=int, default=60, help="safety cap on hands per match"
        )
        parser.add_argument("--json", action="store_true", help="print the results as JSON")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def handle(self, *args: Any, **options: Any) -> None:
        table_options = dict(_option(o) for o in options["option"])
        if options["target"] is not None:
            if options["variant"] == "tiles":
                raise CommandError(
                    "tiles has no points target; use --option match=one_round or three_rounds"
                )
            table_options["target"] = options["target"]
        seed = options["seed"]
        if seed is None:
            seed = random.SystemRandom().randrange(2**32)
        config = SimulationConfig(
            variant=options["variant"],
            players=options["players"],
            bots=tuple(b.strip() for b in options["bots"].split(",") if b.strip()),
            matches=options["matches"],
            seed=seed,
            workers=options["workers"],
            options=table_options,
            max_hands=options["max_hands"],
        )
        try:
            config.check()
        except Exception as exc:  # the rules' own messages name the bad value
            raise CommandError(str(exc)) from exc
        progress = None
        if not options["no_progress"]:
            progress = ProgressBar(config.matches, _Raw(self.stderr)).update  # type: ignore[arg-type]
        summary = simulate(config, progress)
        if options["json"]:
            self.stdout.write(json.dumps(summary.to_json(), indent=2))
        else:
            self.stdout.write(format_report(summary))
