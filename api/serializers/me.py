"""The caller's own settings: email preferences and absences (vacations)."""

from rest_framework import serializers

from api.validators import not_too_far_ahead
from notifications.models import EmailMode

EMAIL_MODE_HELP = (
    "every_turn: a mail for every turn, reminder, timeout and result; digest: one daily mail "
    "of the games waiting for you (after digest_hour), plus timeouts and results; none: no mail."
)


AUTO_DRAW_HELP = (
    "Play by email: when drawing from the stock is your only way to start a turn, the service "
    "draws for you before mailing the turn, so one reply plays it. null until you have played "
    "by email (answered a turn email)."
)


class PreferencesSerializer(serializers.Serializer):
    email_mode = serializers.ChoiceField(choices=EmailMode.choices, help_text=EMAIL_MODE_HELP)
    digest_hour = serializers.IntegerField(
        min_value=0, max_value=23, help_text="UTC hour after which the daily digest is sent."
    )
    auto_draw = serializers.BooleanField(allow_null=True, help_text=AUTO_DRAW_HELP)


class PreferencesPatchInSerializer(serializers.Serializer):
    email_mode = serializers.ChoiceField(
        choices=EmailMode.choices, required=False, help_text=EMAIL_MODE_HELP
    )
    digest_hour = serializers.IntegerField(
        min_value=0, max_value=23, required=False, help_text="UTC hour, 0-23."
    )
    auto_draw = serializers.BooleanField(
        required=False, help_text="The forced draw of play by email (only once you play by email)."
    )


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
