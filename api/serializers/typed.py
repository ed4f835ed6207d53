"""Typed shapes for the schema: actions, legal actions, move-log events, hand results, options.

These describe JSON the engine and the services build as plain dicts (api/presenters.py), so
generated clients get classes instead of free-form dicts. Actions and events are `oneOf`
unions with the `type` property as discriminator; api.schema.pin_discriminators gives each
member's `type` its one value. The fields that take an action still read a plain object at
run time (ActionField): the engine, not DRF, validates an action, so a bad one stays 422
invalid_action with details.index.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

CARDS_HELP = "Card codes <rank><suit>, e.g. 7H, TS, JK (docs/formats.md)."


def _cards(**kwargs: Any) -> serializers.ListField:
    kwargs.setdefault("help_text", CARDS_HELP)
    return serializers.ListField(child=serializers.CharField(), **kwargs)


def _melds(**kwargs: Any) -> serializers.ListField:
    kwargs.setdefault("help_text", "New melds, each a list of cards.")
    return serializers.ListField(child=_cards(), **kwargs)


def _add(**kwargs: Any) -> serializers.DictField:
    kwargs.setdefault("help_text", "Cards added to your side's melds, keyed by meld rank.")
    return serializers.DictField(child=_cards(), **kwargs)


def _type(value: str) -> serializers.CharField:
    return serializers.CharField(help_text=f'Always "{value}".')


# --- scalars --------------------------------------------------------------------------------

_SCALAR = {"oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "boolean"}]}


@extend_schema_field(_SCALAR)
class OptionValueField(serializers.JSONField):
    """A table option's value: a string (a choice), an integer or a boolean."""


def options_field(**kwargs: Any) -> serializers.DictField:
    return serializers.DictField(child=OptionValueField(), **kwargs)


# --- actions (docs/formats.md#actions) -----------------------------------------------------


class DrawActionSerializer(serializers.Serializer):
    type = _type("draw")


class PickupActionSerializer(serializers.Serializer):
    type = _type("pickup")
    cards = _cards(
        required=False,
        help_text="The hand cards that match the top of the pile (left out: the engine picks).",
    )
    melds = _melds(required=False)


class MeldActionSerializer(serializers.Serializer):
    type = _type("meld")
    melds = _melds(required=False)
    add = _add(required=False)


class DiscardActionSerializer(serializers.Serializer):
    type = _type("discard")
    card = serializers.CharField(help_text=CARDS_HELP)


class AskPartnerActionSerializer(serializers.Serializer):
    type = _type("ask_partner")


class AnswerActionSerializer(serializers.Serializer):
    type = _type("answer")
    yes = serializers.BooleanField()


ACTIONS: dict[str, serializers.Serializer | type[serializers.Serializer]] = {
    "draw": DrawActionSerializer,
    "pickup": PickupActionSerializer,
    "meld": MeldActionSerializer,
    "discard": DiscardActionSerializer,
    "ask_partner": AskPartnerActionSerializer,
    "answer": AnswerActionSerializer,
}

ACTION = PolymorphicProxySerializer(
    component_name="Action",
    serializers=ACTIONS,
    resource_type_field_name="type",
)


@extend_schema_field(ACTION)
class ActionField(serializers.DictField):
    """An action object; the engine checks it (422 invalid_action), DRF only that it is one."""


class ResignActionSerializer(serializers.Serializer):
    type = _type("resign")


class TimeoutActionSerializer(serializers.Serializer):
    type = _type("timeout")
    policy = serializers.CharField(help_text="forfeit: the seat's side lost the match.")


@extend_schema_field(
    PolymorphicProxySerializer(
        component_name="LoggedAction",
        serializers={
            **ACTIONS,
            "resign": ResignActionSerializer,
            "timeout": TimeoutActionSerializer,
        },
        resource_type_field_name="type",
    )
)
class LoggedActionField(serializers.DictField):
    """A move's action: a player's action, a resignation, or a forfeit on time."""


# --- legal actions ---------------------------------------------------------------------------


class LegalSerializer(serializers.Serializer):
    """engine legal_actions(...).to_json()."""

    seat = serializers.IntegerField()
    draw = serializers.BooleanField()
    pickups = serializers.ListField(child=PickupActionSerializer())
    melds = serializers.ListField(child=MeldActionSerializer())
    adds = serializers.ListField(child=MeldActionSerializer())
    going_out = serializers.ListField(
        child=ActionField(), help_text="Actions that go out now, in order (a meld, a discard)."
    )
    discards = _cards()
    ask_partner = serializers.BooleanField()
    answers = serializers.ListField(child=AnswerActionSerializer())


# --- hand results ----------------------------------------------------------------------------


class SideScoreSerializer(serializers.Serializer):
    melded = serializers.IntegerField()
    canastas = serializers.IntegerField()
    red_threes = serializers.IntegerField()
    going_out = serializers.IntegerField()
    in_hand = serializers.IntegerField()
    total = serializers.IntegerField()


class HandResultSerializer(serializers.Serializer):
    """engine HandResult JSON: a hand played to its end, scored."""

    scores = serializers.ListField(child=serializers.IntegerField(), help_text="Per side.")
    totals = serializers.ListField(
        child=serializers.IntegerField(), help_text="Match totals per side after the hand."
    )
    detail = SideScoreSerializer(many=True)
    went_out = serializers.IntegerField(allow_null=True, help_text="The seat that went out.")
    concealed = serializers.BooleanField()
    reason = serializers.CharField()
    match_over = serializers.BooleanField()
    winner = serializers.IntegerField(allow_null=True, help_text="Winning side, if over.")


class HandEndSerializer(serializers.Serializer):
    """How a hand ended, before it is scored (the table's `ended`)."""

    reason = serializers.CharField()
    went_out = serializers.IntegerField(allow_null=True)
    concealed = serializers.BooleanField()


# --- events of the move log ------------------------------------------------------------------


class _SeatEvent(serializers.Serializer):
    seat = serializers.IntegerField()


class DrawEventSerializer(_SeatEvent):
    type = _type("draw")
    cards = _cards(required=False, help_text="Your own draw only. " + CARDS_HELP)
    count = serializers.IntegerField(required=False, help_text="Another player's draw.")


class PickupEventSerializer(_SeatEvent):
    type = _type("pickup")
    cards = _cards()


class MeldEventSerializer(_SeatEvent):
    type = _type("meld")
    melds = _melds()
    add = _add()


class DiscardEventSerializer(_SeatEvent):
    type = _type("discard")
    card = serializers.CharField()


class RedThreeEventSerializer(_SeatEvent):
    type = _type("red_three")
    card = serializers.CharField()


class StockOutEventSerializer(_SeatEvent):
    type = _type("stock_out")


class AskPartnerEventSerializer(_SeatEvent):
    type = _type("ask_partner")


class AnswerEventSerializer(_SeatEvent):
    type = _type("answer")
    yes = serializers.BooleanField()


class HandOverEventSerializer(HandEndSerializer):
    type = _type("hand_over")


class DealEventSerializer(serializers.Serializer):
    type = _type("deal")
    hand = serializers.IntegerField()
    dealer = serializers.IntegerField()
    commitment = serializers.CharField(
        help_text="sha256 of the hand's seed (docs/fair-shuffle.md)."
    )


class HandResultEventSerializer(serializers.Serializer):
    type = _type("hand_result")
    hand = serializers.IntegerField()
    reason = serializers.CharField()
    seed = serializers.CharField(help_text="The hand's seed, revealed now (64 hex characters).")
    commitment = serializers.CharField()
    result = HandResultSerializer(allow_null=True, help_text="Null for a hand cut short.")


class MatchOverEventSerializer(serializers.Serializer):
    type = _type("match_over")
    reason = serializers.CharField()
    winner = serializers.IntegerField(allow_null=True, help_text="Winning side.")


class ResignEventSerializer(_SeatEvent):
    type = _type("resign")
    side = serializers.IntegerField(help_text="The side that resigned.")


class TimeoutEventSerializer(_SeatEvent):
    type = _type("timeout")
    policy = serializers.CharField()


@extend_schema_field(
    PolymorphicProxySerializer(
        component_name="MoveEvent",
        serializers={
            "draw": DrawEventSerializer,
            "pickup": PickupEventSerializer,
            "meld": MeldEventSerializer,
            "discard": DiscardEventSerializer,
            "red_three": RedThreeEventSerializer,
            "stock_out": StockOutEventSerializer,
            "ask_partner": AskPartnerEventSerializer,
            "answer": AnswerEventSerializer,
            "hand_over": HandOverEventSerializer,
            "deal": DealEventSerializer,
            "hand_result": HandResultEventSerializer,
            "match_over": MatchOverEventSerializer,
            "resign": ResignEventSerializer,
            "timeout": TimeoutEventSerializer,
        },
        resource_type_field_name="type",
    )
)
class MoveEventField(serializers.DictField):
    """One event of a move, as your seat may see it."""
