from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from api.serializers.paging import next_cursor_field, old_field
from api.serializers.typed import HandEndSerializer, options_field
from api.validators import no_control_characters
from games.bots import BOT_LEVELS
from games.models import EndReason, GameStatus, SeatKind, SeatStatus, TimeoutPolicy

CARD_HELP = "Card code <rank><suit>, e.g. 7H, TS, JK (docs/formats.md)."


class GameCreateInSerializer(serializers.Serializer):
    variant = serializers.CharField(help_text="A name from GET /api/v1/variants/.")
    players = serializers.IntegerField(min_value=2, max_value=6)
    options = options_field(
        required=False, default=dict, help_text="Table options of the variant; defaults apply."
    )
    public = serializers.BooleanField(
        required=False,
        default=True,
        help_text="Public: listed in /games/open/ and watchable by any user. Private: only "
        "players, invitees and holders of the game's link (its id) can join.",
    )
    # No min_value here: the floor is the CANASTA_MIN_TURN_SECONDS setting, checked by the
    # service (invalid_time_control), so tests and demos can use seconds.
    turn_seconds = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        help_text="Running time per turn in seconds, from the server's floor "
        "(CANASTA_MIN_TURN_SECONDS, 60 by default) to 14 days; null: no limit.",
    )
    timeout_policy = serializers.ChoiceField(
        choices=TimeoutPolicy.choices,
        required=False,
        default=TimeoutPolicy.AUTOPLAY,
        help_text="When a turn's time runs out: autoplay (the system draws and discards for "
        "the seat) or forfeit (that side loses the match).",
    )
    weekend_pause = serializers.BooleanField(
        required=False,
        default=False,
        help_text="The turn clocks stop from Saturday 00:00 to Monday 00:00 UTC.",
    )
    rated = serializers.BooleanField(
        required=False,
        default=True,
        help_text="Rated: the result moves the players' ratings (docs/ratings.md; a table "
        "with a bot is never rated). false: a casual match.",
    )
    invite = serializers.ListField(
        child=serializers.CharField(max_length=150, validators=[no_control_characters]),
        required=False,
        default=list,
        help_text="Usernames to keep a seat for; other seats are open to anyone.",
    )
    invite_emails = serializers.ListField(
        child=serializers.EmailField(max_length=254),
        required=False,
        default=list,
        max_length=5,
        help_text="Email addresses to invite: each gets a mail with a link that takes the seat "
        "kept for it after signing up or in (docs/accounts.md).",
    )
    bots = serializers.ListField(
        child=serializers.ChoiceField(choices=BOT_LEVELS),
        required=False,
        default=list,
        max_length=5,
        help_text="A bot seat per entry, of that level. Bots take their seats at once; the "
        "game starts when the last seat is taken.",
    )


class AbsenceSpanSerializer(serializers.Serializer):
    starts_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField()


class SeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField(allow_null=True, help_text="Null until the game starts.")
    side = serializers.IntegerField(allow_null=True)
    username = serializers.CharField(allow_null=True)
    kind = serializers.ChoiceField(choices=SeatKind.choices)
    status = serializers.ChoiceField(choices=SeatStatus.choices)
    drew = serializers.CharField(
        allow_null=True, help_text="Card drawn for seating (seating=draw). " + CARD_HELP
    )
    presence = serializers.ChoiceField(
        choices=["human", "away", "bot"],
        help_text="human: the player plays; away: a bot stands in after repeated timeouts "
        "until the player reclaims the seat (POST .../reclaim/) or moves; bot: a bot seat.",
    )
    bot_level = serializers.ChoiceField(
        choices=BOT_LEVELS, allow_null=True, help_text="A bot seat's level; null otherwise."
    )
    stand_in = serializers.ChoiceField(
        choices=BOT_LEVELS,
        allow_null=True,
        help_text="The level of the bot standing in for an away player; null otherwise.",
    )
    timeouts_in_a_row = serializers.IntegerField(
        help_text="Turns in a row this seat ran out of time (0 after a move of the player)."
    )
    absent = AbsenceSpanSerializer(
        many=True,
        help_text="The player's current and coming absences (their clocks stop); empty for "
        "bots and for games that are over.",
    )


class ResultSerializer(serializers.Serializer):
    reason = serializers.ChoiceField(choices=EndReason.choices)
    winner = serializers.IntegerField(allow_null=True, help_text="Winning side, if any.")


class GameSummarySerializer(serializers.Serializer):
    id = serializers.UUIDField()
    variant = serializers.CharField()
    players = serializers.IntegerField()
    public = serializers.BooleanField()
    rated = serializers.BooleanField(help_text="Rated, or casual (docs/ratings.md).")
    status = serializers.ChoiceField(choices=GameStatus.choices)
    version = serializers.IntegerField(
        help_text="+1 on every visible change; send it back as expected_version."
    )
    created_by = serializers.CharField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    turn = serializers.IntegerField(allow_null=True, help_text="Seat that must act now.")
    turn_started_at = serializers.DateTimeField(
        allow_null=True, help_text="When the current turn began (null before the start)."
    )
    deadline = serializers.DateTimeField(
        allow_null=True,
        help_text="When the seat to act runs out of time: the turn's running time after "
        "turn_started_at, the clock stopped on weekends (weekend_pause) and during the "
        "player's absences. Null: no limit, or a bot's turn.",
    )
    weekend_pause = serializers.BooleanField(
        help_text="Clocks stop from Saturday 00:00 to Monday 00:00 UTC."
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
    """docs/formats.md, "Player view JSON", plus the engine's optional keys (docs/engine-notes.md)."""

    seat = serializers.IntegerField(required=False, help_text="Absent for spectators.")
    hand = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="Your cards. " + CARD_HELP
    )
    variant = serializers.CharField()
    players = serializers.IntegerField()
    options = options_field(required=False)
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
    ended = HandEndSerializer(required=False)
    display = serializers.DictField(child=serializers.CharField(), required=False)


class CurrentHandSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    commitment = serializers.CharField(
        help_text="sha256 of the hand's seed (docs/fair-shuffle.md)."
    )


class GameDetailSerializer(GameSummarySerializer):
    options = options_field(help_text="Every option of the variant, defaults included.")
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


@extend_schema_serializer(deprecate_fields=["count", "next", "previous"])
class GamePageSerializer(serializers.Serializer):
    results = GameSummarySerializer(many=True)
    next_cursor = next_cursor_field()
    count = old_field(serializers.IntegerField, "the number of games in the list.")
    next = old_field(
        serializers.URLField,
        "the URL of the next page by number; use next_cursor.",
        allow_null=True,
    )
    previous = old_field(
        serializers.URLField, "the URL of the previous page by number.", allow_null=True
    )
