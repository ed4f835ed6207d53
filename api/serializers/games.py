from rest_framework import serializers

from games.models import GameStatus, SeatKind, SeatStatus, TimeoutPolicy

CARD_HELP = "Card code <rank><suit>, e.g. 7H, TS, JK (table-json.md)."


class GameCreateInSerializer(serializers.Serializer):
    variant = serializers.CharField(help_text="A name from GET /api/v1/variants/.")
    players = serializers.IntegerField(min_value=2, max_value=6)
    options = serializers.DictField(
        required=False, default=dict, help_text="Table options of the variant; defaults apply."
    )
    public = serializers.BooleanField(
        required=False,
        default=True,
        help_text="Public: listed in /games/open/ and watchable by any user. Private: only "
        "players, invitees and holders of the game's link (its id) can join.",
    )
    turn_seconds = serializers.IntegerField(
        required=False, allow_null=True, default=None, help_text="Time per turn; null: no limit."
    )
    timeout_policy = serializers.ChoiceField(
        choices=TimeoutPolicy.choices, required=False, default=TimeoutPolicy.AUTOPLAY
    )
    invite = serializers.ListField(
        child=serializers.CharField(max_length=150),
        required=False,
        default=list,
        help_text="Usernames to keep a seat for; other seats are open to anyone.",
    )


class SeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField(allow_null=True, help_text="Null until the game starts.")
    side = serializers.IntegerField(allow_null=True)
    username = serializers.CharField(allow_null=True)
    kind = serializers.ChoiceField(choices=SeatKind.choices)
    status = serializers.ChoiceField(choices=SeatStatus.choices)
    drew = serializers.CharField(
        allow_null=True, help_text="Card drawn for seating (seating=draw). " + CARD_HELP
    )


class ResultSerializer(serializers.Serializer):
    reason = serializers.ChoiceField(choices=["match_over", "resigned", "aborted", "cancelled"])
    winner = serializers.IntegerField(allow_null=True, help_text="Winning side, if any.")


class GameSummarySerializer(serializers.Serializer):
    id = serializers.UUIDField()
    variant = serializers.CharField()
    players = serializers.IntegerField()
    public = serializers.BooleanField()
    status = serializers.ChoiceField(choices=GameStatus.choices)
    version = serializers.IntegerField(
        help_text="+1 on every visible change; send it back as expected_version."
    )
    created_by = serializers.CharField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    turn = serializers.IntegerField(allow_null=True, help_text="Seat that must act now.")
    deadline = serializers.DateTimeField(
        allow_null=True, help_text="When the seat to act runs out of time (null: no limit)."
    )
    moves = serializers.IntegerField(help_text="Number of moves in the log (last seq).")
    totals = serializers.ListField(
        child=serializers.IntegerField(), allow_null=True, help_text="Match score per side."
    )
    seats = SeatSerializer(many=True)
    result = ResultSerializer(allow_null=True)
    my_seat = serializers.IntegerField(allow_null=True)
    my_side = serializers.IntegerField(allow_null=True)
    my_status = serializers.ChoiceField(choices=SeatStatus.choices, allow_null=True)
    my_turn = serializers.BooleanField()


class PlayerViewSerializer(serializers.Serializer):
    """table-json.md, "Player view JSON", plus the engine's optional keys (engine-notes.md)."""

    seat = serializers.IntegerField(required=False, help_text="Absent for spectators.")
    hand = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="Your cards. " + CARD_HELP
    )
    variant = serializers.CharField()
    players = serializers.IntegerField()
    options = serializers.DictField(required=False)
    dealer = serializers.IntegerField()
    turn = serializers.IntegerField()
    phase = serializers.ChoiceField(choices=["draw", "play", "discard", "answer", "over"])
    scores = serializers.ListField(child=serializers.IntegerField())
    hand_sizes = serializers.ListField(child=serializers.IntegerField())
    stock_size = serializers.IntegerField()
    discard = serializers.ListField(child=serializers.CharField(), help_text="Bottom first.")
    melds = serializers.ListField(
        child=serializers.DictField(child=serializers.ListField(child=serializers.CharField())),
        help_text="Per side, keyed by rank.",
    )
    red_threes = serializers.ListField(child=serializers.ListField(child=serializers.CharField()))
    melded = serializers.ListField(child=serializers.BooleanField())
    frozen = serializers.BooleanField()
    minimum = serializers.IntegerField()
    hand_number = serializers.IntegerField(required=False, help_text="Absent for hand 1.")
    asked_by = serializers.IntegerField(required=False)
    go_out = serializers.BooleanField(required=False)
    concealed_melds = serializers.ListField(child=serializers.CharField(), required=False)
    ended = serializers.DictField(required=False)
    display = serializers.DictField(child=serializers.CharField(), required=False)


class CurrentHandSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    commitment = serializers.CharField(help_text="sha256 of the hand's seed (fair-shuffle.md).")


class GameDetailSerializer(GameSummarySerializer):
    options = serializers.DictField(help_text="Every option of the variant, defaults included.")
    turn_seconds = serializers.IntegerField(allow_null=True)
    timeout_policy = serializers.ChoiceField(choices=TimeoutPolicy.choices)
    seating_seed = serializers.CharField(
        allow_null=True,
        help_text="Seed of the seating draw (engine draw_cards, in join order), once started.",
    )
    current_hand = CurrentHandSerializer(allow_null=True)
    table = PlayerViewSerializer(
        allow_null=True, help_text="The table as your seat sees it (spectator view otherwise)."
    )
