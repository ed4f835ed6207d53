"""Delete feed events and webhook delivery attempts older than --days (default: the
retention setting, CANASTA_EVENTS_RETENTION_DAYS). Beat does this daily; the command is for
a one-off clean-up.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from clients.services.retention import deliveries_prune, events_prune
from games.services.retention import Budget


class Command(BaseCommand):
    help = "Delete feed events and webhook delivery attempts older than --days."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--days", type=int, default=settings.CANASTA_EVENTS_RETENTION_DAYS)

    def handle(self, *args: Any, days: int, **options: Any) -> None:
        # By hand: no time budget, it runs to the end of what is due.
        deliveries = deliveries_prune(days=days, budget=Budget())
        events = events_prune(days=days, budget=Budget())
        self.stdout.write(
            f"deleted {events.deleted} events and {deliveries.deleted} delivery attempts"
        )
