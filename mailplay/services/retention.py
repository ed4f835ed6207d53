"""What play by email keeps, and for how long (docs/operations.md, "Retention").

A reply address is a credential for one game: it is kept while the game is played and for
CANASTA_FINISHED_GAME_GRACE_DAYS after its end (a late reply is still answered with the
result), then deleted with the inbound mail of that game when the game is retired
(games.services.retention.games_retire). Mail that reached no game (refused, ignored) is kept
CANASTA_INBOUND_RETENTION_DAYS.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from games import hooks
from games.services.retention import Budget, Pruned, range_prune, where_delete
from mailplay.models import InboundMessage, ReplyToken


def on_games_retired(change: hooks.GamesRetired) -> None:
    """The games' inbound mail, then their reply addresses: one statement each for the batch,
    through the (game, …) indexes. Mail logged for another game with one of these addresses
    (none is written so, but the log would allow it) keeps its row with the address cleared."""
    ids = change.game_ids
    where_delete(InboundMessage.objects.filter(game_id__in=ids))
    tokens = ReplyToken.objects.filter(game_id__in=ids)
    InboundMessage.objects.filter(token__in=tokens.values("pk")).update(token=None)
    tokens._raw_delete(tokens.db)  # its one reference is cleared above


def inbound_prune(*, budget: Budget, now: datetime | None = None) -> Pruned:
    """Inbound mail that reached no game (refused or ignored: bounces, auto-replies, unknown
    addresses) after CANASTA_INBOUND_RETENTION_DAYS, along the `received_at` index."""
    cutoff = (now or timezone.now()) - timedelta(days=settings.CANASTA_INBOUND_RETENTION_DAYS)
    old = InboundMessage.objects.filter(received_at__lt=cutoff, game__isnull=True)
    return range_prune(old, key="received_at", budget=budget)
