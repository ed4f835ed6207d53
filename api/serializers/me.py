"""The caller's own settings: email preferences and absences (vacations)."""

from typing import Any

from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from api.validators import not_too_far_ahead
from mailplay.models import AutoDraw
from mailplay.services.autodraw import FROM_SWITCH
from notifications.models import EmailMode, Language
from notifications.services.preferences import MAX_TURN_EMAIL_DELAY_MINUTES, time_zone_names

EMAIL_MODE_HELP = (
    "every_turn: a mail for every turn, reminder, timeout and result; digest: one daily mail "
    "of the games waiting for you (after digest_hour), plus timeouts and results; none: no mail."
)


AUTO_DRAW_HELP = (
    "Play by email: when the service draws from the stock for you as your turn starts, before "
    "mailing the turn, so that one reply plays it. off: never; pile_closed: when the table "
    "shows that nobody may take the pile (it is empty or blocked on top); always: every turn, "
    "even when you could take the pile. Never on your hand's account (others see the draw). "
    "null until you have played by email (answered a turn email)."
)


LANGUAGE_HELP = (
    "The language of everything the service writes to you: pages, emails, API messages (en, "
    "de, is). Your emails' commands are read in it and in English."
)
TIME_ZONE_HELP = (
    "The IANA time zone the pages and emails show dates and times in (Europe/Berlin, "
    "Atlantic/Reykjavik, UTC)."
)


class TimeZoneField(serializers.CharField):
    """An IANA time zone name this server knows (invalid_request otherwise)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_length=64, **kwargs)

    def to_internal_value(self, data: Any) -> str:
        name = super().to_internal_value(data)
        if name not in time_zone_names():
            raise serializers.ValidationError(
                _("Not a time zone name this server knows (e.g. Europe/Berlin).")
            )
        return name


class AutoDrawField(serializers.ChoiceField):
    """One of AutoDraw's values; true and false (the old switch) mean pile_closed and off."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(choices=AutoDraw.choices, **kwargs)

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, bool):
            return FROM_SWITCH[data]
        return super().to_internal_value(data)


TURN_EMAIL_DELAY_HELP = (
    'Minutes a "your turn" email (and a hand-over email) waits for you to look at the game '
    "first; looking at the game page drops it. 0: at once (still none while the page is open)."
)


class PreferencesSerializer(serializers.Serializer):
    email_mode = serializers.ChoiceField(choices=EmailMode.choices, help_text=EMAIL_MODE_HELP)
    digest_hour = serializers.IntegerField(
        min_value=0,
        max_value=23,
        help_text="Hour (0-23, in the user's time_zone) after which the daily digest is sent.",
    )
    turn_email_delay_minutes = serializers.IntegerField(
        min_value=0, max_value=MAX_TURN_EMAIL_DELAY_MINUTES, help_text=TURN_EMAIL_DELAY_HELP
    )
    auto_draw = serializers.ChoiceField(
        choices=AutoDraw.choices, allow_null=True, help_text=AUTO_DRAW_HELP
    )
    language = serializers.ChoiceField(choices=Language.choices, help_text=LANGUAGE_HELP)
    time_zone = serializers.CharField(help_text=TIME_ZONE_HELP)


class PreferencesPatchInSerializer(serializers.Serializer):
    email_mode = serializers.ChoiceField(
        choices=EmailMode.choices, required=False, help_text=EMAIL_MODE_HELP
    )
    digest_hour = serializers.IntegerField(
        min_value=0,
        max_value=23,
        required=False,
        help_text="Hour of the daily digest, 0-23, in the user's time_zone.",
    )
    turn_email_delay_minutes = serializers.IntegerField(
        min_value=0,
        max_value=MAX_TURN_EMAIL_DELAY_MINUTES,
        required=False,
        help_text=TURN_EMAIL_DELAY_HELP,
    )
    auto_draw = AutoDrawField(
        required=False,
        help_text="The forced draw of play by email (only once you play by email): off, "
        "pile_closed or always (true and false still mean pile_closed and off).",
    )
    language = serializers.ChoiceField(
        choices=Language.choices, required=False, help_text=LANGUAGE_HELP
    )
    time_zone = TimeZoneField(required=False, help_text=TIME_ZONE_HELP)


class AbsenceInSerializer(serializers.Serializer):
    starts_at = serializers.DateTimeField(
        required=False,
        allow_null=True,
        default=None,
        validators=[not_too_far_ahead],
        help_text="When your clocks stop (default: now; not in the past). Without a time zone: "
        "UTC.",
    )
    ends_at = serializers.DateTimeField(
        validators=[not_too_far_ahead], help_text="When you are back: your clocks run again."
    )


class AbsenceSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    starts_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField()
    state = serializers.ChoiceField(choices=["upcoming", "current", "over"])


class AbsencesOutSerializer(serializers.Serializer):
    absences = AbsenceSerializer(
        many=True, help_text="This year's absences and the coming ones, earliest first."
    )
    year = serializers.IntegerField(help_text="The current calendar year (UTC).")
    days_used = serializers.FloatField(help_text="Days of absence declared for this year.")
    days_per_year = serializers.IntegerField(
        help_text="At most this many days of absence per calendar year."
    )
