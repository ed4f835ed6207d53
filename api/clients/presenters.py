"""Plain dicts for the event, webhook and token endpoints. No secret or key appears here
except where a view adds it once (creation, rotation)."""

from __future__ import annotations

from typing import Any

from clients.models import ApiToken, Webhook, WebhookDelivery
from clients.payloads import event_entry, iso

__all__ = ["delivery_entry", "event_entry", "token_entry", "webhook_entry"]


def webhook_entry(hook: Webhook) -> dict[str, Any]:
    return {
        "id": hook.pk,
        "url": hook.url,
        "game": str(hook.game_id) if hook.game_id else None,
        "kinds": list(hook.kinds),
        "active": hook.active,
        "consecutive_failures": hook.consecutive_failures,
        "disabled_at": iso(hook.disabled_at),
        "disabled_reason": hook.disabled_reason,
        "created_at": iso(hook.created_at),
    }


def delivery_entry(delivery: WebhookDelivery) -> dict[str, Any]:
    return {
        "id": delivery.pk,
        "event": delivery.event_id,
        "attempt": delivery.attempt,
        "status_code": delivery.status_code,
        "ok": delivery.ok,
        "error": delivery.error,
        "duration_ms": delivery.duration_ms,
        "created_at": iso(delivery.created_at),
    }


def token_entry(token: ApiToken) -> dict[str, Any]:
    return {
        "id": token.pk,
        "kind": token.kind,
        "name": token.name,
        "scopes": list(token.scopes),
        "prefix": token.prefix,
        "created_at": iso(token.created_at),
        "last_used_at": iso(token.last_used_at),
        "revoked_at": iso(token.revoked_at),
    }
