"""Webhooks: registration, waking a hook when its owner has new events, the sweep.

A hook receives its owner's events one at a time, in event order, from a cursor kept on the
hook (clients/services/webhook_delivery.py runs the deliveries). Writing an event marks its
readers' active hooks due, in the event's transaction (`webhooks_wake`), and after commit a
Celery task runs each of them; beat's sweep runs the due hooks a lost task left behind
(`webhooks_sweep`). Nothing is written per event and hook: what a hook has not received yet is
simply the events after its cursor, so a hook turned off and on again receives what it
missed, as far as the feed still keeps it (CANASTA_EVENTS_RETENTION_DAYS).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterable
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit
from uuid import UUID

from celery import current_app
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from clients.models import EventKind, Webhook
from clients.selectors import last_event_id
from clients.services.netguard import UnsafeUrl, check_url
from games.selectors import game_visible_to
from games.services.errors import ErrorKind, GameError, refused

logger = logging.getLogger(__name__)

DELIVER_TASK = "clients.tasks.deliver_webhook"


# --- registration -----------------------------------------------------------------------


def new_secret() -> str:
    return "whsec_" + secrets.token_urlsafe(32)


def _invalid(reason: str, details: dict[str, Any] | None = None, **params: Any) -> GameError:
    return refused(ErrorKind.INVALID, reason, details, **params)


def _checked_kinds(kinds: Iterable[str] | None) -> list[str]:
    if kinds is None:
        return list(EventKind.values)
    chosen = list(dict.fromkeys(kinds))
    unknown = [kind for kind in chosen if kind not in EventKind.values]
    if unknown or not chosen:
        raise _invalid("invalid_kinds", {"choices": list(EventKind.values)})
    return chosen


def _host_of(url: str) -> str:
    try:
        return urlsplit(url.strip()).hostname or ""
    except ValueError:
        return ""


def _checked_url(url: str) -> str:
    try:
        check_url(url)
    except UnsafeUrl as error:
        # The host as the user wrote it (never what it resolves to: no resolver for our
        # network); netguard's own English reason stays in the logs.
        host = _host_of(url)
        if host:
            raise _invalid("unsafe_url_host", host=host) from error
        raise _invalid("unsafe_url") from error
    return url.strip()


def webhook_of(*, owner: Any, webhook_id: int) -> Webhook:
    try:
        return Webhook.objects.get(pk=webhook_id, owner=owner)
    except Webhook.DoesNotExist:
        raise refused(ErrorKind.NOT_FOUND, "no_such_webhook") from None


def webhook_create(
    *,
    owner: Any,
    url: str,
    kinds: Iterable[str] | None = None,
    game_id: UUID | str | None = None,
) -> tuple[Webhook, str]:
    """Register a hook; returns it and its secret (shown to the owner this once)."""
    if Webhook.objects.filter(owner=owner).count() >= settings.CANASTA_WEBHOOKS_PER_USER:
        limit = settings.CANASTA_WEBHOOKS_PER_USER
        raise _invalid("too_many_webhooks", {"limit": limit}, limit=limit)
    game = game_visible_to(game_id=game_id, user=owner)[0] if game_id is not None else None
    secret = new_secret()
    with transaction.atomic():
        # The owner's row, as an event writer locks it: no event of theirs is being written
        # meanwhile, so the cursor is exactly "everything so far" and the next event is sent.
        get_user_model().objects.select_for_update(no_key=True).filter(pk=owner.pk).first()
        hook = Webhook.objects.create(
            owner=owner,
            url=_checked_url(url),
            kinds=_checked_kinds(kinds),
            game=game,
            secret=secret,
            cursor=last_event_id(user=owner),
        )
    return hook, secret


def webhook_update(
    *,
    owner: Any,
    webhook_id: int,
    url: str | None = None,
    kinds: Iterable[str] | None = None,
    active: bool | None = None,
) -> Webhook:
    """Change a hook. `active=True` turns a disabled hook back on with a clean slate; it then
    receives, in order, the events it missed while it was off (those the feed still keeps)."""
    hook = webhook_of(owner=owner, webhook_id=webhook_id)
    if url is not None:
        hook.url = _checked_url(url)
    if kinds is not None:
        hook.kinds = _checked_kinds(kinds)
    if active is True and not hook.active:
        hook.active = True
        hook.consecutive_failures = 0
        hook.failing_since = None
        hook.disabled_at = None
        hook.disabled_reason = ""
        hook.due_at = timezone.now()
        transaction.on_commit(lambda: webhook_run_soon(hook.pk))
    elif active is False and hook.active:
        hook.active = False
        hook.disabled_at = timezone.now()
        hook.disabled_reason = "turned off by its owner"
    hook.save()
    return hook


def webhook_rotate_secret(*, owner: Any, webhook_id: int) -> tuple[Webhook, str]:
    """A new secret; deliveries from now on (retries included) are signed with it."""
    hook = webhook_of(owner=owner, webhook_id=webhook_id)
    hook.secret = new_secret()
    hook.save(update_fields=["secret"])
    return hook, hook.secret


def webhook_delete(*, owner: Any, webhook_id: int) -> None:
    webhook_of(owner=owner, webhook_id=webhook_id).delete()


# --- waking hooks up -----------------------------------------------------------------------


def _webhooks_run_soon(hook_ids: list[int]) -> None:
    for hook_id in hook_ids:
        webhook_run_soon(hook_id)


def webhook_run_soon(hook_id: int) -> None:
    try:
        # By name (clients.tasks imports this module): the registered task where this process
        # has it, else a plain message to the broker (a web process need not import tasks).
        current_app.signature(DELIVER_TASK, args=(hook_id,)).delay()
    except Exception:
        # The broker is down: the hook is due in the database and beat's sweep runs it.
        logger.warning("webhook %s: could not queue its run; the sweep will", hook_id)


def webhooks_wake(*, owner_ids: Iterable[int], now: datetime | None = None) -> list[int]:
    """The owners have new events (the caller's transaction writes them): their active hooks
    are due now, unless a failure's backoff has them wait longer, and a run is queued for each
    after commit. Returns the hooks' ids."""
    now = now or timezone.now()
    hooks = list(
        Webhook.objects.filter(owner_id__in=list(owner_ids), active=True).values_list(
            "pk", flat=True
        )
    )
    if hooks:
        Webhook.objects.filter(pk__in=hooks).update(due_at=Coalesce("due_at", Value(now)))
        transaction.on_commit(lambda: _webhooks_run_soon(hooks))
    return hooks


def webhooks_sweep(*, now: datetime | None = None, limit: int | None = None) -> int:
    """Queue a run for every active hook that is due and not held by a run (a lost task, a
    broker restart, the end of a backoff); beat calls this every CANASTA_SWEEP_SECONDS."""
    now = now or timezone.now()
    due = list(
        Webhook.objects.filter(active=True, due_at__lte=now)
        .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))
        .order_by("due_at")
        .values_list("pk", flat=True)[: limit or settings.CANASTA_OUTBOX_SWEEP_BATCH]
    )
    for hook_id in due:
        webhook_run_soon(hook_id)
    return len(due)
