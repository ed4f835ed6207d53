from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from api.serializers.games import GameDetailSerializer
from api.serializers.paging import next_cursor_field, old_field
from api.serializers.typed import (
    ActionField,
    HandResultSerializer,
    LegalSerializer,
    LoggedActionField,
    MoveEventField,
)
from games.models import Actor


class ActionsInSerializer(serializers.Serializer):
    actions = serializers.ListField(
        child=ActionField(),
        min_length=1,
        max_length=50,
        help_text="Actions (docs/formats.md#actions), applied in order, all or nothing, "
        "except that a draw from the stock stands (docs/fair-play.md).",
    )
    expected_version = serializers.IntegerField(
        required=False,
        min_value=1,
        help_text="The game version the actions were chosen against (or send If-Match).",
    )


class LegalOutSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    seat = serializers.IntegerField()
    my_turn = serializers.BooleanField()
    phase = serializers.CharField(allow_null=True)
    legal = LegalSerializer(help_text="engine legal_actions(...).to_json()")
    actions = serializers.ListField(
        child=ActionField(),
        help_text="Concrete actions, each accepted as it is by POST .../actions/. Melds can "
        "combine in more ways than listed.",
    )


class ActionsOutSerializer(GameDetailSerializer):
    your_move = LegalOutSerializer(
        allow_null=True,
        help_text="While it is still your turn after the batch (you drew, now meld or "
        "discard): your legal actions now, as GET .../legal/ answers, so the next batch needs "
        "no GET first. null once the turn has passed.",
    )


class MoveSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    hand = serializers.IntegerField()
    seat = serializers.IntegerField()
    actor = serializers.ChoiceField(
        choices=Actor.choices,
        help_text="player: the seat's player; system: on the seat's behalf (a timeout, or the "
        "bot standing in for an away player); bot: a bot seat.",
    )
    action = LoggedActionField(
        help_text="Canonical action JSON, {'type': 'resign'}, or {'type': 'timeout', "
        "'policy': 'forfeit'} (a system move when a forfeit table's clock runs out)."
    )
    events = serializers.ListField(
        child=MoveEventField(),
        help_text="What happened, as your seat may see it: other players' draws show a count, "
        "not cards. Service events: deal (commitment), hand_result (the revealed seed), "
        "match_over, resign, timeout.",
    )
    created_at = serializers.DateTimeField()


@extend_schema_serializer(deprecate_fields=["has_more", "moves"])
class MovesOutSerializer(serializers.Serializer):
    results = MoveSerializer(many=True, help_text="Oldest first.")
    next_cursor = next_cursor_field(growing=True)
    version = serializers.IntegerField()
    last_seq = serializers.IntegerField(help_text="The seq of the game's last move.")
    has_more = old_field(
        serializers.BooleanField, "whether more moves follow; ask again with next_cursor."
    )
    moves = old_field(MoveSerializer, "the same as `results`.", many=True)


class HandSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    dealer = serializers.IntegerField()
    commitment = serializers.CharField(help_text="sha256(seed bytes), hex.")
    seed = serializers.CharField(
        allow_null=True, help_text="64 hex characters once the hand is over, else null."
    )
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    end_reason = serializers.CharField(
        allow_null=True,
        help_text="went_out, stock_exhausted, red_three_last; resigned or aborted if cut short.",
    )
    scores = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    totals = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    result = HandResultSerializer(
        allow_null=True, help_text="engine HandResult JSON; null for a hand cut short."
    )


class HandsOutSerializer(serializers.Serializer):
    hands = HandSerializer(many=True)
