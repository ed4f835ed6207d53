"""Operators' view of webhooks, their delivery log and API tokens: read-only. Secrets and key
hashes are not shown; nothing can be added, edited or deleted (a player's webhooks are what
they receive); an operator may revoke API tokens, one way only."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone
from rest_framework.authtoken.models import TokenProxy

from clients.models import ApiToken, Webhook, WebhookDelivery
from games.admin import ViewOnlyAdmin

# DRF's authtoken admin lists account keys in clear. Account tokens are hashed ApiTokens now
# (the authtoken table is emptied by migration clients 0003): its page goes.
if admin.site.is_registered(TokenProxy):
    admin.site.unregister(TokenProxy)


@admin.register(Webhook)
class WebhookAdmin(ViewOnlyAdmin):
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
class WebhookDeliveryAdmin(ViewOnlyAdmin):
    list_display = ("id", "webhook", "event", "attempt", "status_code", "ok", "created_at")
    list_filter = ("ok",)
    readonly_fields = [f.name for f in WebhookDelivery._meta.fields]


@admin.register(ApiToken)
class ApiTokenAdmin(ViewOnlyAdmin):
    list_display = (
        "prefix",
        "kind",
        "name",
        "owner",
        "scopes",
        "created_at",
        "last_used_at",
        "revoked_at",
    )
    list_filter = ("kind",)
    search_fields = ("owner__username", "name", "prefix")
    fields = (
        "owner",
        "kind",
        "name",
        "scopes",
        "prefix",
        "created_at",
        "last_used_at",
        "revoked_at",
    )
    readonly_fields = fields
    actions = ["revoke"]

    @admin.action(description="Revoke the selected tokens")
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        count = queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        self.message_user(request, f"{count} revoked.", messages.SUCCESS)
