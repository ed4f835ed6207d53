"""The web pages' forms. They only read and check input; the services do the work."""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta
from typing import Any, cast

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.core.exceptions import ValidationError
from django.utils import formats, timezone
from django.utils.functional import lazy
from django.utils.translation import get_language, gettext_lazy, ngettext, pgettext
from django.utils.translation import gettext as _

from accounts.services.addresses import address_available
from api.serializers.auth import ADDRESS_UNAVAILABLE
from api.signin import WAIT_ATTRIBUTE, WAIT_SHOWN_ATTRIBUTE, wait_message
from api.validators import LATEST_DATE
from games import engine
from games.models import TimeoutPolicy
from notifications.models import EmailMode
from notifications.services.preferences import time_zone_names
from web.variants import (
    TIMEOUT_POLICY_LABELS,
    choice_label,
    option_help,
    option_label,
    variant_summary,
    variant_title,
)

BOT_LEVELS = [
    ("basic", gettext_lazy("basic — a careful beginner")),
    ("strong", gettext_lazy("strong — plans ahead")),
    ("random", gettext_lazy("random — any legal move")),
]


def _hours(count: int) -> Any:
    # Lazy as a whole: the sentence is chosen when a page is drawn, in the reader's language.
    return lazy(
        lambda: ngettext("%(count)s hour", "%(count)s hours", count) % {"count": count}, str
    )()


def _days(count: int) -> Any:
    return lazy(
        lambda: ngettext("%(count)s day", "%(count)s days", count) % {"count": count}, str
    )()


TURN_TIMES = [
    ("", gettext_lazy("no time limit")),
    (str(3600), _hours(1)),
    (str(12 * 3600), _hours(12)),
    (str(86400), _days(1)),
    (str(2 * 86400), _days(2)),
    (str(3 * 86400), _days(3)),
    (str(5 * 86400), _days(5)),
    (str(7 * 86400), _days(7)),
    (str(14 * 86400), _days(14)),
]
DEFAULT_TURN_TIME = str(3 * 86400)
TIMEOUT_POLICIES = list(TIMEOUT_POLICY_LABELS.items())
EMAIL_MODES = [
    (EmailMode.EVERY_TURN, gettext_lazy("an email for every turn")),
    (EmailMode.DIGEST, gettext_lazy("one daily digest of the games waiting for you")),
    (EmailMode.NONE, gettext_lazy("no email")),
]
# The zones offered first on the settings page (any IANA name may be typed).
COMMON_TIME_ZONES = [
    "Europe/Berlin",
    "Europe/Vienna",
    "Europe/Zurich",
    "Atlantic/Reykjavik",
    "Europe/London",
    "Europe/Copenhagen",
    "Europe/Oslo",
    "Europe/Stockholm",
    "Europe/Amsterdam",
    "Europe/Brussels",
    "Europe/Luxembourg",
    "Europe/Paris",
    "Europe/Madrid",
    "Europe/Rome",
    "Europe/Warsaw",
    "Europe/Prague",
    "Europe/Helsinki",
    "Atlantic/Faroe",
    "America/Godthab",
    "UTC",
]
# A new account's time zone when the browser does not tell it: the language's main country.
TIME_ZONE_BY_LANGUAGE = {"de": "Europe/Berlin", "is": "Atlantic/Reykjavik"}


def language_choices() -> list[tuple[str, str]]:
    """The languages, each named in itself (Deutsch, Íslenska): a reader finds their own."""
    return [(code, name) for code, name in settings.LANGUAGES]


class TimeZoneField(forms.CharField):
    """An IANA time zone name; the page suggests the common ones (a datalist)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", 64)
        kwargs.setdefault("widget", forms.TextInput(attrs={"list": "time-zones"}))
        super().__init__(**kwargs)

    def clean(self, value: Any) -> str:
        name = super().clean(value).strip()
        if name and name not in time_zone_names():
            raise forms.ValidationError(
                _("“%(name)s” is not a time zone name we know. Choose one from the list."),
                params={"name": name},
                code="invalid_time_zone",
            )
        return name


class SignInForm(AuthenticationForm):
    """Django's sign-in form, saying so when the sign-in limit (api/signin.py) made it wait:
    its own "wrong name or password" would send a player who typed the right one to the
    password reset."""

    def clean(self) -> dict[str, Any]:
        try:
            return super().clean()
        except ValidationError:
            wait = getattr(self.request, WAIT_ATTRIBUTE, None)
            if not wait:
                raise
            setattr(self.request, WAIT_SHOWN_ATTRIBUTE, True)
            raise ValidationError(wait_message(wait), code="signin_wait") from None


class SignupForm(UserCreationForm):
    email = forms.EmailField(
        label=gettext_lazy("Email address"),
        help_text=gettext_lazy(
            "Where we tell you it is your turn (you choose how often in Settings). We mail it "
            "a link to confirm it first."
        ),
    )
    language = forms.ChoiceField(
        label=gettext_lazy("Language"),
        choices=language_choices,
        required=False,
        help_text=gettext_lazy("The pages and your emails are written in it."),
    )
    # Filled in by the browser (its time zone); empty: the language's main country.
    time_zone = TimeZoneField(required=False, widget=forms.HiddenInput)

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Django's own help texts read wrong in German ("das selbe Passwort") and Icelandic
        # (says "no accented letters", then accepts "Guðrún"): ours say what is accepted.
        self.fields["username"].help_text = gettext_lazy(
            "Up to 150 characters: letters (also with accents, like “Guðrún” or “Jörg”), "
            "digits and @ . + - _"
        )
        self.fields["password2"].help_text = gettext_lazy(
            "Enter the same password again, to check it."
        )

    def clean_language(self) -> str:
        # Left out (an old form, a script): the language the page was shown in.
        return self.cleaned_data.get("language") or (get_language() or "en").split("-")[0]

    def chosen_time_zone(self) -> str:
        chosen = self.cleaned_data.get("time_zone") or ""
        return chosen or TIME_ZONE_BY_LANGUAGE.get(self.cleaned_data["language"], "UTC")

    def clean_email(self) -> str:
        email = self.cleaned_data["email"]
        if not address_available(address=email):
            # The same words for every account that holds it: it names none.
            raise forms.ValidationError(ADDRESS_UNAVAILABLE)
        return email


def option_field_name(variant: str, option: str) -> str:
    return f"opt_{variant}_{option}"


def _option_field(variant: str, option: dict[str, Any]) -> forms.Field:
    label = option_label(option)
    help_text = option_help(variant, option)
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
        choices=[(c, choice_label(option["name"], c)) for c in option["choices"]],
        initial=option["default"],
        help_text=help_text,
        # Only the chosen variant's options are read; the others may be left out.
        required=False,
    )


def _choice_field(form: forms.Form, name: str) -> forms.ChoiceField:
    """A field the form declares as a choice field, typed so (`form.fields` holds Fields)."""
    return cast(forms.ChoiceField, form.fields[name])


class GameCreateForm(forms.Form):
    """A new table. Option fields are made from engine.list_variants(), one set per variant;
    only the chosen variant's are read."""

    variant = forms.ChoiceField(label=gettext_lazy("Variant"))
    players = forms.TypedChoiceField(coerce=int, initial=4, label=gettext_lazy("Players"))
    public = forms.BooleanField(
        required=False,
        initial=True,
        label=gettext_lazy("Public table"),
        help_text=gettext_lazy(
            "Listed in the lobby for anyone to join and watch. A private table is seen only by "
            "its players; share its link to invite someone."
        ),
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
        label=gettext_lazy("Bot seats"),
        help_text=gettext_lazy("Seats played by bots; the other seats are for people."),
    )
    bot_level = forms.ChoiceField(
        choices=BOT_LEVELS, initial="basic", label=gettext_lazy("Bot level")
    )
    invite = forms.CharField(
        required=False,
        label=gettext_lazy("Invite players"),
        help_text=gettext_lazy(
            "Usernames or email addresses, separated by spaces or commas: their seats are kept "
            "for them. An address gets a mail with a link to sign up and take the seat."
        ),
    )
    turn_seconds = forms.ChoiceField(
        choices=TURN_TIMES,
        initial=DEFAULT_TURN_TIME,
        required=False,
        label=gettext_lazy("Time per turn"),
    )
    weekend_pause = forms.BooleanField(
        required=False,
        initial=False,
        label=gettext_lazy("Pause the clock at weekends"),
        help_text=gettext_lazy("From Saturday 00:00 to Monday 00:00 UTC."),
    )
    timeout_policy = forms.ChoiceField(
        choices=TIMEOUT_POLICIES,
        initial=TimeoutPolicy.AUTOPLAY,
        label=gettext_lazy("When the time runs out"),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.variants = engine.list_variants()
        _choice_field(self, "variant").choices = [
            (v["name"], variant_title(v)) for v in self.variants
        ]
        self.fields["variant"].initial = self.variants[0]["name"]
        counts = sorted({n for v in self.variants for n in v["players"]})
        _choice_field(self, "players").choices = [
            (n, pgettext("count", "%(count)s players") % {"count": n}) for n in counts
        ]
        _choice_field(self, "bots").choices = [(n, str(n)) for n in range(max(counts))]
        for variant in self.variants:
            for option in variant["options"]:
                name = option_field_name(variant["name"], option["name"])
                self.fields[name] = _option_field(variant["name"], option)

    def variant_groups(self) -> list[dict[str, Any]]:
        """The option fields by variant, for the template (shown for the chosen variant)."""
        return [
            {
                "name": v["name"],
                "title": variant_title(v),
                "summary": variant_summary(v),
                "players": v["players"],
                "fields": [self[option_field_name(v["name"], o["name"])] for o in v["options"]],
            }
            for v in self.variants
        ]

    def clean_invite(self) -> list[str]:
        raw = self.cleaned_data.get("invite", "")
        names = [name for name in re.split(r"[\s,;]+", raw) if name]
        # Addresses are invited by mail (games.services.invitations), usernames directly.
        self.invite_emails = [name for name in names if "@" in name]
        return [name for name in names if "@" not in name]

    def clean_turn_seconds(self) -> int | None:
        value = self.cleaned_data.get("turn_seconds")
        return int(value) if value else None

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data  # what Form.clean returns (the stub says it may be None)
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
            self.add_error(
                "players",
                _("%(variant)s is played by %(counts)s players.")
                % {"variant": variant_title(variant), "counts": counts},
            )
        bots = data.get("bots") or 0
        data["invite_emails"] = getattr(self, "invite_emails", [])
        invited = len(data.get("invite") or []) + len(data["invite_emails"])
        if players is not None and bots + invited > players - 1:
            self.add_error(
                "bots",
                _("You take one seat: bots and invited players fill at most %(count)s.")
                % {"count": players - 1},
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
        labels = {"email": gettext_lazy("Email address")}
        help_texts = {
            "email": gettext_lazy(
                "Turn notifications and digests go here. A new address gets a link to confirm "
                "it first."
            )
        }


def turn_email_delays() -> list[tuple[int, str]]:
    """The choices, in the language of the request (a callable: read when the form is made)."""
    return [
        (0, _("at once")),
        *(
            (
                minutes,
                ngettext(
                    "after %(minutes)s minute if I have not looked",
                    "after %(minutes)s minutes if I have not looked",
                    minutes,
                )
                % {"minutes": minutes},
            )
            for minutes in (1, 3, 5, 10, 15, 30, 60)
        ),
    ]


class PreferenceForm(forms.Form):
    email_mode = forms.ChoiceField(
        choices=EMAIL_MODES, widget=forms.RadioSelect, label=gettext_lazy("Email me")
    )
    digest_hour = forms.TypedChoiceField(
        coerce=int,
        choices=[(h, f"{h:02d}:00") for h in range(24)],
        label=gettext_lazy("Daily digest at"),
        help_text=gettext_lazy("Only with the daily digest. In your time zone."),
    )
    # notifications/services/presence.py: the email waits this long for the player to look.
    # Optional: a form without it (an older page) leaves the delay as it is.
    turn_email_delay_minutes = forms.TypedChoiceField(
        coerce=int,
        required=False,
        empty_value=None,
        choices=turn_email_delays,
        label=gettext_lazy("Send the “your turn” email"),
        help_text=gettext_lazy(
            "No email while you have the game open. Hand-over emails wait as long, so that "
            "hands played in quick succession come in one email."
        ),
    )


class LocaleForm(forms.Form):
    """Settings: the language of pages and emails, and the time zone of the dates shown."""

    language = forms.ChoiceField(label=gettext_lazy("Language"), choices=language_choices)
    time_zone = TimeZoneField(
        label=gettext_lazy("Time zone"),
        help_text=gettext_lazy(
            "Dates and times are shown in it. Choose from the list or type a name such as "
            "Europe/Berlin."
        ),
    )


# A date input (type="date") takes only ISO dates: a localized "02.12.2026" leaves it empty.
ISO_DATE = "%Y-%m-%d"


class AbsenceForm(forms.Form):
    """A vacation in whole days of the reader's time zone: from the start of ``starts``
    (today: from now) to the start of ``returns``."""

    starts = forms.DateField(
        required=False,
        label=gettext_lazy("Away from"),
        widget=forms.DateInput(attrs={"type": "date"}, format=ISO_DATE),
        help_text=gettext_lazy("Leave empty to start now."),
    )
    returns = forms.DateField(
        label=gettext_lazy("Back on"),
        widget=forms.DateInput(attrs={"type": "date"}, format=ISO_DATE),
        help_text=gettext_lazy("Days in your time zone (Settings)."),
    )

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data  # what Form.clean returns (the stub says it may be None)
        # The absence services compute with the year after the last day (tests/fuzz).
        for name in ("starts", "returns"):
            day = data.get(name)
            if day is not None and day >= LATEST_DATE.date():
                self.add_error(
                    name,
                    _("Please choose a day before %(day)s.")
                    % {"day": formats.date_format(LATEST_DATE.date(), "DATE_FORMAT")},
                )
        return data

    def interval(self, now: datetime) -> tuple[datetime | None, datetime]:
        """Midnight to midnight in the reader's time zone (the one the page is shown in)."""
        zone = timezone.get_current_timezone()
        starts: date | None = self.cleaned_data.get("starts")
        returns: date = self.cleaned_data["returns"]
        start = None
        if starts is not None and starts > now.astimezone(zone).date():
            start = datetime.combine(starts, time(0), tzinfo=zone)
        end = datetime.combine(returns, time(0), tzinfo=zone)
        return start, end


def tomorrow(now: datetime) -> date:
    return now.astimezone(timezone.get_current_timezone()).date() + timedelta(days=1)


class RatingFilterForm(forms.Form):
    """The lobby's filter of open tables by their rating (docs/ratings.md)."""

    rating_min = forms.IntegerField(
        required=False, min_value=-100000, max_value=100000, label=gettext_lazy("Rating from")
    )
    rating_max = forms.IntegerField(
        required=False, min_value=-100000, max_value=100000, label=gettext_lazy("Rating up to")
    )
