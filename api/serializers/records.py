"""Records, profiles and leaderboards (docs/record-format.md, docs/ratings.md): response shapes
for the OpenAPI schema."""

from __future__ import annotations

from rest_framework import serializers


class RatingPointSerializer(serializers.Serializer):
    game = serializers.UUIDField(
        allow_null=True,
        help_text="The match, when it is public (a private match's id is its link).",
    )
    at = serializers.DateTimeField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    rating = serializers.IntegerField(help_text="The displayed (conservative) rating after it.")
    # A field named "label" (the rating as written); DRF takes declared fields out of the
    # class, so Field.label is not shadowed at run time, but mypy sees the attribute.
    label = serializers.CharField(  # type: ignore[assignment]
        help_text='The rating as shown: the figure, with "?" while it is provisional ("1000?").'
    )
    change = serializers.IntegerField()
    rank = serializers.IntegerField(help_text="1: the side finished first (ties share).")


class RatingSerializer(serializers.Serializer):
    family = serializers.CharField(help_text="The variant the rating is for.")
    rating = serializers.IntegerField(
        help_text="Conservative estimate: 1000 + 40 × (mu − 3 sigma); a newcomer shows 1000."
    )
    # A field named "label" (the rating as written); DRF takes declared fields out of the
    # class, so Field.label is not shadowed at run time, but mypy sees the attribute.
    label = serializers.CharField(  # type: ignore[assignment]
        help_text='The rating as shown: the figure, with "?" while it is provisional ("1000?").'
    )
    provisional = serializers.BooleanField(
        help_text="Still too uncertain to be listed on the leaderboard (docs/ratings.md)."
    )
    uncertainty = serializers.IntegerField(help_text="± this many points (3 sigma).")
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    matches = serializers.IntegerField(help_text="Rated matches played in this variant.")
    history = RatingPointSerializer(many=True)


class VariantStatsSerializer(serializers.Serializer):
    variant = serializers.CharField()
    played = serializers.IntegerField()
    won = serializers.IntegerField()
    win_rate = serializers.FloatField(allow_null=True, help_text="0 to 1; null: none played.")
    average_hand_score = serializers.FloatField(
        allow_null=True, help_text="The player's side's score per hand played out."
    )


class ProfileSerializer(serializers.Serializer):
    username = serializers.CharField()
    played = serializers.IntegerField(help_text="Finished matches.")
    won = serializers.IntegerField()
    ratings = RatingSerializer(many=True)
    variants = VariantStatsSerializer(many=True)


class LeaderboardRowSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    username = serializers.CharField()
    rating = serializers.IntegerField()
    # A field named "label" (the rating as written); DRF takes declared fields out of the
    # class, so Field.label is not shadowed at run time, but mypy sees the attribute.
    label = serializers.CharField(  # type: ignore[assignment]
        help_text='The rating as shown: the figure, with "?" while it is provisional ("1000?").'
    )
    uncertainty = serializers.IntegerField()
    matches = serializers.IntegerField()


class LeaderboardSerializer(serializers.Serializer):
    family = serializers.CharField()
    minimum_matches = serializers.IntegerField(
        help_text="Only players with at least this many rated matches are listed."
    )
    minimum_opponents = serializers.IntegerField(
        help_text="... against at least this many different opponents."
    )
    players = LeaderboardRowSerializer(many=True)


class RecordSerializer(serializers.Serializer):
    format = serializers.CharField(help_text='"canasta-record".')
    format_version = serializers.IntegerField()
    game = serializers.DictField()
    seats = serializers.ListField(child=serializers.DictField())
    seating = serializers.DictField()
    hands = serializers.ListField(
        child=serializers.DictField(),
        help_text="Each hand: number, dealer, seed, commitment, end_reason, result, and the "
        "Table JSON at its deal and at its end.",
    )
    moves = serializers.ListField(child=serializers.DictField())
    final = serializers.DictField()
