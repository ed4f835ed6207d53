"""Delete feed events and webhook delivery attempts older than --days (default: the
retention setting, CANASTA_EVENTS_RETENTION_DAYS). Beat does this daily; the command is for
a one-off clean-up.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from clients.services.events import events_prune


class Command(BaseCommand):
    help = "Delete feed events and webhook delivery attempts older than --days."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--days", type=int, default=settings.CANASTA_EVENTS_RETENTION_DAYS)

    def handle(self, *args: Any, days: int, **options: Any) -> None:
        events, deliveries = events_prune(days=days)
        self.stdout.write(f"deleted {events} events and {deliveries} delivery attempts")
