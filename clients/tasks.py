"""Background work of the client features: webhook runs and their sweep, pruning the feed."""

from __future__ import annotations

from celery import Task, shared_task
from django.conf import settings

from clients.services.retention import feed_prune, oauth_prune, tokens_prune
from clients.services.webhook_delivery import RUN_SECONDS, webhook_run
from clients.services.webhooks import webhooks_sweep
from games.tasks import prune_run


# A run stops starting deliveries after RUN_SECONDS; each delivery has its own deadline
# (CANASTA_WEBHOOK_TIMEOUT_SECONDS). The limits only catch what those cannot.
@shared_task(
    name="clients.tasks.deliver_webhook",
    ignore_result=True,
    soft_time_limit=int(RUN_SECONDS) + 30,
    time_limit=int(RUN_SECONDS) + 45,
)
def deliver_webhook(webhook_id: int) -> str:
    return webhook_run(webhook_id)


@shared_task(name="clients.tasks.sweep_webhooks", ignore_result=True)
def sweep_webhooks() -> int:
    return webhooks_sweep()


@shared_task(name="clients.tasks.prune_events", bind=True, ignore_result=True)
def prune_events(self: Task) -> int:
    """Beat, daily: webhook delivery attempts and feed events past their retention."""
    days = settings.CANASTA_EVENTS_RETENTION_DAYS
    return prune_run(self, lambda budget: feed_prune(days=days, budget=budget))


@shared_task(name="clients.tasks.prune_tokens", bind=True, ignore_result=True)
def prune_tokens(self: Task) -> int:
    """Beat, daily: API tokens revoked more than CANASTA_REVOKED_TOKEN_RETENTION_DAYS ago."""
    return prune_run(self, lambda budget: tokens_prune(budget=budget))


@shared_task(name="clients.tasks.prune_oauth", bind=True, ignore_result=True)
def prune_oauth(self: Task) -> int:
    """Beat, hourly: expired OAuth codes and tokens (clients.services.retention.oauth_prune)."""
    return prune_run(self, lambda budget: oauth_prune(budget=budget))
