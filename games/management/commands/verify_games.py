"""manage.py verify_games: replay every game's log from its seeds and compare with its snapshot.

Exits 1 when any game differs, so it can run from cron or CI.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.models import Game
from games.services.replay import game_verify


class Command(BaseCommand):
    help = "Replay every game from its hand seeds and move log; report snapshots that differ."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("game_ids", nargs="*", help="Only these games (default: all).")

    def handle(self, *args: Any, **options: Any) -> None:
        games = Game.objects.order_by("created_at", "pk")
        if options["game_ids"]:
            games = games.filter(pk__in=options["game_ids"])
        checked = differing = 0
        # iterator(): a database of many games is walked without holding them all in memory.
        for game in games.prefetch_related("seats").iterator(chunk_size=200):
            report = game_verify(game=game)
            checked += 1
            if report.ok:
                if options["verbosity"] >= 2:
                    self.stdout.write(f"ok {game.pk}: {report.hands} hands, {report.moves} moves")
                continue
            differing += 1
            for problem in report.problems:
                self.stdout.write(f"DIFFERS {game.pk}: {problem}")
        self.stdout.write(f"{checked} games checked, {differing} differ")
        if differing:
            raise CommandError(f"{differing} of {checked} games differ from their replay")
