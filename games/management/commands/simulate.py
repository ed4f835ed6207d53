"""manage.py simulate: bot against bot, engine only, to measure how strong each level is.

    python manage.py simulate --variant classic --players 4 --bots strong,basic \\
        --matches 200 --seed 1 --workers 2 --target 2000

Levels are assigned to sides round-robin and the assignment rotates one side per
match (see games/bots/simulate.py). The same --seed gives the same matches and
the same numbers (all but the timings) whatever --workers is. --target plays
shorter matches than the variant's 5,000 (classic, family, party), which makes a
measurement cheaper; tiles matches are shortened with --option match=three_rounds.

    python manage.py simulate --duplicate --bots strong,basic --deals 400 --seeds 7,8

--duplicate plays single hands instead of matches: each deal once per seating of
the two levels (games/bots/duplicate.py) and reports points a hand for the first
level with a 95% interval. --seeds runs several seeds (either mode) and adds a
pooled line.
"""

from __future__ import annotations

import json
import random
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.bots.duplicate import DuplicateConfig, format_duplicate, run_duplicate
from games.bots.simulate import (
    ProgressBar,
    SimulationConfig,
    Summary,
    format_report,
    simulate,
    wilson,
)


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
        parser.add_argument(
            "--seeds",
            default=None,
            help="several seeds, comma-separated: one run each, then the pooled figures",
        )
        parser.add_argument(
            "--duplicate",
            action="store_true",
            help="play single deals once per seating of the two levels (luck cancels out)",
        )
        parser.add_argument("--deals", type=int, default=100, help="deals per seed (--duplicate)")
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
        seeds = _seeds(options["seeds"], options["seed"])
        bots = tuple(b.strip() for b in options["bots"].split(",") if b.strip())
        if options["duplicate"]:
            self._duplicate(options, bots, seeds, table_options)
            return
        configs = [
            SimulationConfig(
                variant=options["variant"],
                players=options["players"],
                bots=bots,
                matches=options["matches"],
                seed=seed,
                workers=options["workers"],
                options=table_options,
                max_hands=options["max_hands"],
            )
            for seed in seeds
        ]
        _checked(configs[0])
        summaries = [
            simulate(config, self._progress(config.matches, options)) for config in configs
        ]
        if options["json"]:
            data = [s.to_json() for s in summaries]
            self.stdout.write(json.dumps(data[0] if len(data) == 1 else data, indent=2))
            return
        self.stdout.write("\n\n".join(format_report(s) for s in summaries))
        if len(summaries) > 1:
            self.stdout.write(_pooled(summaries))

    def _duplicate(
        self,
        options: dict[str, Any],
        bots: tuple[str, ...],
        seeds: list[int],
        table_options: dict[str, Any],
    ) -> None:
        configs = [
            DuplicateConfig(
                variant=options["variant"],
                players=options["players"],
                bots=bots,  # type: ignore[arg-type]  # check() refuses anything but two
                deals=options["deals"],
                seed=seed,
                workers=options["workers"],
                options=table_options,
            )
            for seed in seeds
        ]
        _checked(configs[0])
        summaries = [
            run_duplicate(config, self._progress(config.deals, options, "deals"))
            for config in configs
        ]
        if options["json"]:
            data = [s.to_json() for s in summaries]
            self.stdout.write(json.dumps(data[0] if len(data) == 1 else data, indent=2))
        else:
            self.stdout.write(format_duplicate(summaries))

    def _progress(self, total: int, options: dict[str, Any], unit: str = "matches") -> Any:
        if options["no_progress"]:
            return None
        return ProgressBar(total, _Raw(self.stderr), unit=unit).update  # type: ignore[arg-type]


def _seeds(text: str | None, seed: int | None) -> list[int]:
    if text is None:
        return [seed if seed is not None else random.SystemRandom().randrange(2**32)]
    if seed is not None:
        raise CommandError("give --seed or --seeds, not both")
    try:
        seeds = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise CommandError(
            f"--seeds takes whole numbers separated by commas, got {text!r}"
        ) from None
    if not seeds:
        raise CommandError("--seeds needs at least one seed")
    return seeds


def _checked(config: SimulationConfig | DuplicateConfig) -> None:
    try:
        config.check()
    except Exception as exc:  # the rules' own messages name the bad value
        raise CommandError(str(exc)) from exc


def _pooled(summaries: list[Summary]) -> str:
    """Every level's matches and wins over all seeds, with a Wilson interval."""
    lines = ["", "", "all seeds together:"]
    for k, level in enumerate(summaries[0].levels):
        wins = sum(s.levels[k].wins for s in summaries)
        matches = sum(s.levels[k].matches for s in summaries)
        low, high = wilson(wins, matches)
        lines.append(
            f"{level.level:<8} {matches:>7} {wins:>5} {100 * wins / matches:>7.1f}%  "
            f"{100 * low:.1f}%-{100 * high:.1f}%"
        )
    return "\n".join(lines)
