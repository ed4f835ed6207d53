from django.contrib import admin

from mailplay.models import InboundMessage, MailPlayer, ReplyToken


@admin.register(ReplyToken)
class ReplyTokenAdmin(admin.ModelAdmin):
    # The token is a credential: shown nowhere, not even to operators. What it is bound to
    # (hand, last move, turn) is read-only: an operator may revoke an address, never move it
    # to another turn.
    list_display = [
        "id",
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
    list_filter = ["revoked_at"]
    raw_id_fields = ["game", "user"]
    exclude = ["token"]
    readonly_fields = [
        "game",
        "user",
        "seat_number",
        "hand",
        "issued_seq",
        "on_turn",
        "created_at",
        "last_used_at",
    ]

    def has_add_permission(self, request: object) -> bool:
        return False


@admin.register(InboundMessage)
class InboundMessageAdmin(admin.ModelAdmin):
    list_display = ["id", "received_at", "status", "reason", "source", "user", "game", "size"]
    list_filter = ["status", "source"]
    search_fields = ["message_id", "from_address", "reason"]
    raw_id_fields = ["token", "user", "game"]

    def has_add_permission(self, request: object) -> bool:
        return False

    def has_change_permission(self, request: object, obj: object = None) -> bool:
        return False


@admin.register(MailPlayer)
class MailPlayerAdmin(admin.ModelAdmin):
    list_display = ["user", "auto_draw", "first_reply_at"]
    list_filter = ["auto_draw"]
    raw_id_fields = ["user"]
