"""Table talk (docs/table-talk.md): what the chat endpoints read and answer."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from api.serializers.paging import next_cursor_field, old_field


class ChatLineSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    seat = serializers.IntegerField()
    name = serializers.CharField()
    text = serializers.CharField(help_text="As the player wrote it: plain text, escape it.")
    created_at = serializers.DateTimeField()
    mine = serializers.BooleanField()


@extend_schema_serializer(deprecate_fields=["lines"])
class ChatOutSerializer(serializers.Serializer):
    results = ChatLineSerializer(many=True, help_text="Oldest first; muted players left out.")
    next_cursor = next_cursor_field(growing=True)
    muted_seats = serializers.ListField(child=serializers.IntegerField())
    lines = old_field(ChatLineSerializer, "the same as `results`.", many=True)


class ChatInSerializer(serializers.Serializer):
    text = serializers.CharField(
        allow_blank=True,
        trim_whitespace=False,
        help_text="At most 500 characters; line breaks become spaces.",
    )


class ChatMuteInSerializer(serializers.Serializer):
    seat = serializers.IntegerField(help_text="The seat of the player at this table.")
    muted = serializers.BooleanField(default=True, help_text="false to unmute.")


class ChatReportInSerializer(serializers.Serializer):
    reason = serializers.CharField(
        required=False, allow_blank=True, default="", help_text="Optional, for the operators."
    )


class ChatReportOutSerializer(serializers.Serializer):
    reported = serializers.BooleanField()
