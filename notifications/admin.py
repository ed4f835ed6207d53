"""Operators' view of the outbox, preferences and absences: read-only.

An outbox payload holds its recipient's hand (their player view, their legal actions, the
cards of an emailed command): the admin shows only its public keys, and nothing here can be
edited, added or deleted, so no operator can change (or suppress, or resend differently) what
a player receives, their preferences or their turn clocks.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin
from django.utils.html import format_html

from games.admin import ViewOnlyAdmin
from notifications.models import Absence, NotificationPreference, Outbox
from notifications.payloads import outbox_payload

# What an operator may read of a payload: nothing of a hand, no reply address, no free text
# (an answer to an emailed move quotes the player's commands, which name cards they hold).
PUBLIC_PAYLOAD_KEYS = (
    "game",
    "seat",
    "names",
    "deadline",
    "timed_out_seat",
    "policy",
    "handed_to_bot",
    "hand_result",
    "totals",
    "winner_side",
    "reason",
    "day",
    "games",
    "subject",
    "webhook",
    "event",
)


def public_payload(payload: dict[str, Any]) -> dict[str, Any]:
    """The keys of a payload an operator may read; the others are only named."""
    shown = {key: payload[key] for key in PUBLIC_PAYLOAD_KEYS if key in payload}
    hidden = sorted(key for key in payload if key not in PUBLIC_PAYLOAD_KEYS)
    if hidden:
        shown["(not shown)"] = hidden
    return shown


@admin.register(Outbox)
class OutboxAdmin(ViewOnlyAdmin):
    list_display = ["id", "kind", "recipient", "status", "attempts", "next_attempt_at", "sent_at"]
    list_filter = ["status", "kind", "channel"]
    # Not the key: it is stored as a digest (games.fields.DigestField).
    search_fields = ["recipient__username", "recipient__email"]
    readonly_fields = [
        "kind",
        "channel",
        "recipient",
        "game",
        "move_seq",
        "status",
        "attempts",
        "next_attempt_at",
        "claimed_at",
        "sent_at",
        "last_error",
        "created_at",
        "shown_payload",
    ]
    fields = tuple(readonly_fields)

    @admin.display(description="payload (public keys only)")
    def shown_payload(self, row: Outbox) -> str:
        text = json.dumps(public_payload(outbox_payload(row)), indent=2, sort_keys=True)
        return format_html("<pre>{}</pre>", text)


@admin.register(NotificationPreference)
class NotificationPreferenceAdmin(ViewOnlyAdmin):
    list_display = ["user", "email_mode", "digest_hour", "last_digest_at"]
    list_filter = ["email_mode"]
    readonly_fields = ["user", "email_mode", "digest_hour", "last_digest_at"]
    fields = tuple(readonly_fields)


@admin.register(Absence)
class AbsenceAdmin(ViewOnlyAdmin):
    list_display = ["user", "starts_at", "ends_at", "created_at"]
    readonly_fields = ["user", "starts_at", "ends_at", "created_at"]
    fields = tuple(readonly_fields)
