"""Operators' view of play by email: read-only. A reply token is a credential and is shown
nowhere; an operator may revoke tokens (a leaked address) but never bring one back, and cannot
change a player's forced-draw choice or delete the inbound log (it is what stops a mail from
being played twice)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone

from games.admin import ViewOnlyAdmin
from mailplay.models import InboundMessage, MailPlayer, ReplyToken


@admin.register(ReplyToken)
class ReplyTokenAdmin(ViewOnlyAdmin):
    # The token is a credential: shown nowhere, not even to operators. What it is bound to
    # (hand, last move, turn) is read-only: an operator may revoke an address, never move it
    # to another turn.
    readonly_fields = [
        "game",
        "user",
        "seat_number",
        "hand",
        "issued_seq",
        "on_turn",
        "created_at",
        "revoked_at",
        "last_used_at",
    ]
    list_display = ["id", *readonly_fields]
    list_filter = ["revoked_at"]
    fields = tuple(readonly_fields)
    actions = ["revoke"]

    @admin.action(description="Revoke the selected reply addresses")
    def revoke(self, request: HttpRequest, queryset: QuerySet[ReplyToken]) -> None:
        # One way only: the player's next turn email carries a new address.
        count = queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        self.message_user(request, f"{count} revoked.", messages.SUCCESS)


@admin.register(InboundMessage)
class InboundMessageAdmin(ViewOnlyAdmin):
    list_display = ["id", "received_at", "status", "reason", "source", "user", "game", "size"]
    list_filter = ["status", "source"]
    search_fields = ["message_id", "from_address", "reason"]
    readonly_fields = [
        "received_at",
        "status",
        "reason",
        "source",
        "message_id",
        "from_address",
        "user",
        "game",
        "token",
        "size",
    ]
    fields = tuple(readonly_fields)


@admin.register(MailPlayer)
class MailPlayerAdmin(ViewOnlyAdmin):
    list_display = ["user", "auto_draw", "first_reply_at"]
    list_filter = ["auto_draw"]
    readonly_fields = ["user", "auto_draw", "first_reply_at"]
    fields = tuple(readonly_fields)
