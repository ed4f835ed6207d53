"""The web pages' forms. They only read and check input; the services do the work."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy

from api.validators import LATEST_DATE
from games import engine
from games.models import TimeoutPolicy
from notifications.models import EmailMode

BOT_LEVELS = [
    ("basic", "basic — a careful beginner"),
    ("strong", "strong — plans ahead"),
    ("random", "random — any legal move"),
]
TURN_TIMES = [
    ("", "no time limit"),
    (str(3600), "1 hour"),
    (str(12 * 3600), "12 hours"),
    (str(86400), "1 day"),
    (str(2 * 86400), "2 days"),
    (str(3 * 86400), "3 days"),
    (str(5 * 86400), "5 days"),
    (str(7 * 86400), "7 days"),
    (str(14 * 86400), "14 days"),
]
DEFAULT_TURN_TIME = str(3 * 86400)


class SignupForm(UserCreationForm):
    email = forms.EmailField(
        help_text="Where we tell you it is your turn (you choose how often in Settings).",
    )

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")


def option_field_name(variant: str, option: str) -> str:
    return f"opt_{variant}_{option}"


def _option_field(variant: str, option: dict[str, Any]) -> forms.Field:
    label = option["name"].replace("_", " ").capitalize()
    help_text = option.get("help", "")
    if option["type"] == "bool":
        return forms.BooleanField(
            label=label, required=False, initial=option["default"], help_text=help_text
        )
    if option["type"] == "int":
        return forms.IntegerField(
            label=label,
            initial=option["default"],
            min_value=option.get("minimum"),
            max_value=option.get("maximum"),
            help_text=help_text,
            required=False,
        )
    return forms.ChoiceField(
        label=label,
        choices=[(c, str(c).replace("_", " ")) for c in option["choices"]],
        initial=option["default"],
        help_text=help_text,
        # Only the chosen variant's options are read; the others may be left out.
        required=False,
    )


class GameCreateForm(forms.Form):
    """A new table. Option fields are made from engine.list_variants(), one set per variant;
    only the chosen variant's are read."""

    variant = forms.ChoiceField()
    players = forms.TypedChoiceField(coerce=int, initial=4)
    public = forms.BooleanField(
        required=False,
        initial=True,
        label="Public table",
        help_text="Listed in the lobby for anyone to join and watch. A private table is seen "
        "only by its players; share its link to invite someone.",
    )
    rated = forms.BooleanField(
        required=False,
        initial=True,
        label=gettext_lazy("Rated match"),
        help_text=gettext_lazy(
            "The result moves the players' ratings. A table with a bot is never rated; "
            "untick for a casual match."
        ),
    )
    bots = forms.TypedChoiceField(
        coerce=int,
        initial=0,
        label="Bot seats",
        help_text="Seats played by bots; the other seats are for people.",
    )
    bot_level = forms.ChoiceField(choices=BOT_LEVELS, initial="basic", label="Bot level")
    invite = forms.CharField(
        required=False,
        label="Invite players",
        help_text="Usernames, separated by spaces or commas: their seats are kept for them.",
    )
    turn_seconds = forms.ChoiceField(
        choices=TURN_TIMES, initial=DEFAULT_TURN_TIME, required=False, label="Time per turn"
    )
    weekend_pause = forms.BooleanField(
        required=False,
        initial=False,
        label="Pause the clock at weekends",
        help_text="From Saturday 00:00 to Monday 00:00 UTC.",
    )
    timeout_policy = forms.ChoiceField(
        choices=TimeoutPolicy.choices,
        initial=TimeoutPolicy.AUTOPLAY,
        label="When the time runs out",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.variants = engine.list_variants()
        self.fields["variant"].choices = [(v["name"], v["title"]) for v in self.variants]
        self.fields["variant"].initial = self.variants[0]["name"]
        counts = sorted({n for v in self.variants for n in v["players"]})
        self.fields["players"].choices = [(n, f"{n} players") for n in counts]
        self.fields["bots"].choices = [(n, str(n)) for n in range(max(counts))]
        for variant in self.variants:
            for option in variant["options"]:
                name = option_field_name(variant["name"], option["name"])
                self.fields[name] = _option_field(variant["name"], option)

    def variant_groups(self) -> list[dict[str, Any]]:
        """The option fields by variant, for the template (shown for the chosen variant)."""
        return [
            {
                "name": v["name"],
                "title": v["title"],
                "summary": v["summary"],
                "players": v["players"],
                "fields": [self[option_field_name(v["name"], o["name"])] for o in v["options"]],
            }
            for v in self.variants
        ]

    def clean_invite(self) -> list[str]:
        raw = self.cleaned_data.get("invite", "")
        return [name for name in re.split(r"[\s,;]+", raw) if name]

    def clean_turn_seconds(self) -> int | None:
        value = self.cleaned_data.get("turn_seconds")
        return int(value) if value else None

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        variant = next((v for v in self.variants if v["name"] == data.get("variant")), None)
        if variant is None:
            return data
        # Another variant's option fields are not read, so their errors do not count.
        chosen = f"opt_{variant['name']}_"
        for name in [n for n in self.errors if n.startswith("opt_") and not n.startswith(chosen)]:
            del self.errors[name]
        players = data.get("players")
        if players is not None and players not in variant["players"]:
            counts = ", ".join(map(str, variant["players"]))
            self.add_error("players", f"{variant['title']} is played by {counts} players.")
        bots = data.get("bots") or 0
        invited = len(data.get("invite") or [])
        if players is not None and bots + invited > players - 1:
            self.add_error(
                "bots",
                f"You take one seat: bots and invited players fill at most {players - 1}.",
            )
        options = {}
        for option in variant["options"]:
            value = data.get(option_field_name(variant["name"], option["name"]))
            if value is None or value == "":
                value = option["default"]
            options[option["name"]] = value
        data["options"] = options
        return data


class EmailForm(forms.ModelForm):
    class Meta:
        model = get_user_model()
        fields = ("email",)
        help_texts = {"email": "Turn notifications and digests go here."}


class PreferenceForm(forms.Form):
    email_mode = forms.ChoiceField(
        choices=EmailMode.choices, widget=forms.RadioSelect, label="Email me"
    )
    digest_hour = forms.TypedChoiceField(
        coerce=int,
        choices=[(h, f"{h:02d}:00 UTC") for h in range(24)],
        label="Daily digest at",
        help_text="Only with the daily digest.",
    )


class AbsenceForm(forms.Form):
    """A vacation in whole days (UTC): from the start of ``starts`` (today: from now) to the
    start of ``returns``."""

    starts = forms.DateField(
        required=False,
        label="Away from",
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text="Leave empty to start now.",
    )
    returns = forms.DateField(
        label="Back on", widget=forms.DateInput(attrs={"type": "date"}), help_text="UTC dates."
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        # The absence services compute with the year after the last day (tests/fuzz).
        for name in ("starts", "returns"):
            day = data.get(name)
            if day is not None and day >= LATEST_DATE.date():
                self.add_error(name, f"Please choose a day before {LATEST_DATE:%Y-%m-%d}.")
        return data

    def interval(self, now: datetime) -> tuple[datetime | None, datetime]:
        starts: date | None = self.cleaned_data.get("starts")
        returns: date = self.cleaned_data["returns"]
        start = None
        if starts is not None and starts > now.astimezone(UTC).date():
            start = datetime.combine(starts, time(0), tzinfo=UTC)
        end = datetime.combine(returns, time(0), tzinfo=UTC)
        return start, end


def tomorrow(now: datetime) -> date:
    return now.astimezone(UTC).date() + timedelta(days=1)


class RatingFilterForm(forms.Form):
    """The lobby's filter of open tables by their rating (docs/ratings.md)."""

    rating_min = forms.IntegerField(
        required=False, min_value=-100000, max_value=100000, label=gettext_lazy("Rating from")
    )
    rating_max = forms.IntegerField(
        required=False, min_value=-100000, max_value=100000, label=gettext_lazy("Rating up to")
    )
