from django.contrib import admin

from notifications.models import Absence, NotificationPreference, Outbox


@admin.register(Outbox)
class OutboxAdmin(admin.ModelAdmin):
    list_display = ["id", "kind", "recipient", "status", "attempts", "next_attempt_at", "sent_at"]
    list_filter = ["status", "kind", "channel"]
    search_fields = ["key", "recipient__username", "recipient__email"]
    raw_id_fields = ["recipient", "game"]
    readonly_fields = ["created_at", "claimed_at", "sent_at"]


@admin.register(NotificationPreference)
class NotificationPreferenceAdmin(admin.ModelAdmin):
    list_display = ["user", "email_mode", "digest_hour", "last_digest_at"]
    list_filter = ["email_mode"]
    raw_id_fields = ["user"]


@admin.register(Absence)
class AbsenceAdmin(admin.ModelAdmin):
    list_display = ["user", "starts_at", "ends_at", "created_at"]
    raw_id_fields = ["user"]
