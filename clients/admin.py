"""Operators' view of webhooks, their delivery log and API tokens. Secrets and key hashes are
not shown."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from clients.models import ApiToken, Webhook, WebhookDelivery


class _ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Webhook)
class WebhookAdmin(_ReadOnly):
    list_display = ("id", "owner", "url", "game", "active", "consecutive_failures", "created_at")
    list_filter = ("active",)
    search_fields = ("owner__username", "url")
    fields = (
        "owner",
        "url",
        "game",
        "kinds",
        "active",
        "consecutive_failures",
        "failing_since",
        "cursor",
        "due_at",
        "disabled_at",
        "disabled_reason",
        "created_at",
    )
    readonly_fields = fields


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(_ReadOnly):
    list_display = ("id", "webhook", "event", "attempt", "status_code", "ok", "created_at")
    list_filter = ("ok",)
    readonly_fields = [f.name for f in WebhookDelivery._meta.fields]


@admin.register(ApiToken)
class ApiTokenAdmin(_ReadOnly):
    list_display = ("prefix", "name", "owner", "scopes", "created_at", "last_used_at", "revoked_at")
    search_fields = ("owner__username", "name", "prefix")
    fields = ("owner", "name", "scopes", "prefix", "created_at", "last_used_at", "revoked_at")
    readonly_fields = fields
