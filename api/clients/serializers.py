"""Input validation and the OpenAPI description of the event, webhook and token endpoints.

Responses are plain dicts built in api/clients/presenters.py; these serializers describe them.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from api.serializers.games import PlayerViewSerializer
from api.serializers.paging import next_cursor_field, old_field
from api.serializers.play import MoveSerializer
from api.serializers.typed import ActionField, HandResultEventSerializer, LegalSerializer
from api.validators import no_control_characters
from clients.models import EventKind, TokenKind, TokenScope
from clients.selectors import DELIVERIES_PAGE_DEFAULT, DELIVERIES_PAGE_MAX, EVENTS_PAGE_MAX

KINDS_HELP = "Event kinds: " + ", ".join(EventKind.values) + "."


class EventsQuerySerializer(serializers.Serializer):
    after = serializers.RegexField(
        r"^(\d{1,18}|latest)$",
        required=False,
        default="0",
        help_text="The last event id you have (0: from the oldest kept), or `latest`: only "
        "events from now on.",
    )
    wait = serializers.FloatField(
        required=False, min_value=0, help_text="Seconds to wait for an event (0: answer at once)."
    )
    limit = serializers.IntegerField(
        required=False, min_value=1, max_value=EVENTS_PAGE_MAX, default=100
    )


class EventGameSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    url = serializers.CharField(help_text="The game's page.")
    variant = serializers.CharField()
    players = serializers.IntegerField()


class EventDataSerializer(serializers.Serializer):
    """Every kind has game, seat and names; the other keys depend on the kind."""

    game = EventGameSerializer()
    seat = serializers.IntegerField(allow_null=True, help_text="Your seat.")
    names = serializers.ListField(
        child=serializers.CharField(), help_text="Player names by seat (bot for a bot seat)."
    )
    moves = MoveSerializer(many=True, required=False, help_text="move: the moves played.")
    version = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="move: the game's version after the batch; your_turn: the version your turn "
        "starts at (send it as expected_version; null only in events written before it was "
        "stored).",
    )
    turn = serializers.IntegerField(required=False, allow_null=True, help_text="move.")
    status = serializers.CharField(required=False, help_text="move: the game's status.")
    view = PlayerViewSerializer(required=False, help_text="your_turn, timeout: your table.")
    legal = LegalSerializer(required=False, help_text="your_turn: your legal actions.")
    actions = serializers.ListField(
        child=ActionField(),
        required=False,
        help_text="your_turn: concrete legal actions, each accepted as it is by POST "
        ".../actions/ with expected_version = version (as GET .../legal/ lists them).",
    )
    deadline = serializers.CharField(
        required=False, allow_null=True, help_text="your_turn, timeout: ISO 8601, or null."
    )
    hand_result = HandResultEventSerializer(required=False, help_text="hand_over.")
    totals = serializers.ListField(
        child=serializers.IntegerField(),
        required=False,
        help_text="hand_over, match_over: match totals by side.",
    )
    winner_side = serializers.IntegerField(required=False, allow_null=True, help_text="match_over.")
    reason = serializers.CharField(required=False, help_text="match_over: how it ended.")
    timed_out_seat = serializers.IntegerField(required=False, help_text="timeout.")
    policy = serializers.CharField(required=False, help_text="timeout: autoplay or forfeit.")
    handed_to_bot = serializers.BooleanField(
        required=False, help_text="timeout: a bot plays the seat until its player reclaims it."
    )


class EventSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="Unique; for one recipient, ids grow in order.")
    kind = serializers.ChoiceField(choices=EventKind.choices)
    game = serializers.UUIDField()
    seq = serializers.IntegerField(help_text="The game's move seq when it happened.")
    created_at = serializers.DateTimeField()
    # A field named `data`, as the event feed's payload has it; the stub only knows
    # Serializer.data, the property this field shadows on the class.
    data = EventDataSerializer(help_text="What happened, as your seat sees it.")  # type: ignore[assignment]


@extend_schema_serializer(deprecate_fields=["events"])
class EventsOutSerializer(serializers.Serializer):
    results = EventSerializer(many=True, help_text="Oldest first.")
    next_cursor = next_cursor_field(growing=True)
    last_id = serializers.IntegerField(
        help_text="The last event's id (or the position you asked from): the stream's "
        "Last-Event-ID, or `after`, to go on from here."
    )
    events = old_field(EventSerializer, "the same as `results`.", many=True)


class WebhookInSerializer(serializers.Serializer):
    # No control characters: urlsplit drops CR, LF and TAB, so such a URL passed the address
    # check and was stored with them; it is shown in emails (the hook-disabled subject).
    url = serializers.CharField(
        max_length=500,
        validators=[no_control_characters],
        help_text="http(s) URL of your receiver.",
    )
    kinds = serializers.ListField(
        child=serializers.ChoiceField(choices=EventKind.choices),
        required=False,
        help_text=KINDS_HELP + " Default: all.",
    )
    game = serializers.UUIDField(
        required=False, allow_null=True, default=None, help_text="Only this game's events."
    )


class WebhookPatchInSerializer(serializers.Serializer):
    url = serializers.CharField(max_length=500, required=False, validators=[no_control_characters])
    kinds = serializers.ListField(
        child=serializers.ChoiceField(choices=EventKind.choices), required=False
    )
    active = serializers.BooleanField(
        required=False,
        help_text="true turns a disabled hook on again (failures reset); it then receives "
        "the events it missed, in order, as far back as the feed keeps them.",
    )


class WebhookSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.CharField()
    game = serializers.UUIDField(allow_null=True)
    kinds = serializers.ListField(child=serializers.ChoiceField(choices=EventKind.choices))
    active = serializers.BooleanField()
    consecutive_failures = serializers.IntegerField()
    disabled_at = serializers.DateTimeField(allow_null=True)
    disabled_reason = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()


class WebhookSecretSerializer(WebhookSerializer):
    secret = serializers.CharField(
        help_text="Signs every delivery (HMAC-SHA256); shown only now: keep it."
    )


class DeliveriesQuerySerializer(serializers.Serializer):
    limit = serializers.IntegerField(
        required=False, min_value=1, max_value=DELIVERIES_PAGE_MAX, default=DELIVERIES_PAGE_DEFAULT
    )
    before = serializers.IntegerField(
        required=False, min_value=1, help_text="Deprecated: only attempts older than this id."
    )


class DeliverySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    event = serializers.IntegerField(allow_null=True, help_text="The event id (None if pruned).")
    attempt = serializers.IntegerField(help_text="1 for the first try, then each retry.")
    status_code = serializers.IntegerField(allow_null=True)
    ok = serializers.BooleanField()
    error = serializers.CharField(allow_blank=True)
    duration_ms = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()


@extend_schema_serializer(deprecate_fields=["deliveries", "next_before"])
class DeliveriesOutSerializer(serializers.Serializer):
    results = DeliverySerializer(many=True, help_text="Newest first.")
    next_cursor = next_cursor_field()
    deliveries = old_field(DeliverySerializer, "the same as `results`.", many=True)
    next_before = old_field(
        serializers.IntegerField,
        "send as `before` for the next, older page; null when this page was not full.",
        allow_null=True,
    )


class ApiTokenInSerializer(serializers.Serializer):
    name = serializers.CharField(
        max_length=100, validators=[no_control_characters], help_text="What the token is for."
    )
    scopes = serializers.ListField(
        child=serializers.ChoiceField(choices=TokenScope.choices),
        required=False,
        help_text="read: GET requests; play: everything else. Default: [read].",
    )


class ApiTokenSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(
        choices=TokenKind.choices,
        help_text="personal: made with POST /tokens/, scoped; account: given by POST "
        "/auth/token/ for a password, may do everything the account may.",
    )
    name = serializers.CharField()
    scopes = serializers.ListField(child=serializers.ChoiceField(choices=TokenScope.choices))
    prefix = serializers.CharField(help_text="The key's first characters.")
    created_at = serializers.DateTimeField()
    last_used_at = serializers.DateTimeField(allow_null=True)
    revoked_at = serializers.DateTimeField(allow_null=True)


class ApiTokenCreatedSerializer(ApiTokenSerializer):
    key = serializers.CharField(
        help_text="Send as `Authorization: Bearer <key>`. Shown only now: it is stored hashed."
    )


@extend_schema_serializer(deprecate_fields=["tokens"])
class ApiTokensOutSerializer(serializers.Serializer):
    results = ApiTokenSerializer(many=True, help_text="Newest first.")
    next_cursor = next_cursor_field()
    tokens = old_field(ApiTokenSerializer, "the same as `results`.", many=True)
