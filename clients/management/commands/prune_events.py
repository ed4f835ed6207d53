"""Delete feed events and webhook delivery attempts older than --days (default 30).

The feed is a recent history for clients to catch up from, not an archive (the move log is
that); run this daily from cron or a scheduler.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.utils import timezone

from clients.models import Event, WebhookDelivery


class Command(BaseCommand):
    help = "Delete feed events and webhook delivery attempts older than --days."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--days", type=int, default=30)

    def handle(self, *args: Any, days: int, **options: Any) -> None:
        cutoff = timezone.now() - timedelta(days=days)
        deliveries, _ = WebhookDelivery.objects.filter(created_at__lt=cutoff).delete()
        events, _ = Event.objects.filter(created_at__lt=cutoff).delete()
        self.stdout.write(f"deleted {events} events and {deliveries} delivery attempts")
