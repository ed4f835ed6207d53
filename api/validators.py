"""Input checks shared by the API's serializers and the web forms."""

from __future__ import annotations

import unicodedata
from datetime import UTC, datetime

from django.core.exceptions import ValidationError

# Line breaks and other control characters (Unicode categories Cc: CR, LF, TAB, NUL, ESC, ...)
# plus the Unicode line and paragraph separators: text that may reach an email header (a
# subject names a webhook's URL) or a log line must not be able to start a new line there.
_SEPARATORS = {"\u2028", "\u2029", "\x85"}


def has_control_characters(value: str) -> bool:
    return any(unicodedata.category(c) == "Cc" or c in _SEPARATORS for c in value)


def no_control_characters(value: str) -> None:
    if has_control_characters(value):
        raise ValidationError(
            "Line breaks and other control characters are not allowed.", code="control_character"
        )


# The last instant the services can compute with: they add a year or a day to a date, and
# Python's datetime ends at 9999-12-31.
LATEST_DATE = datetime(9000, 1, 1, tzinfo=UTC)


def not_too_far_ahead(value: datetime) -> None:
    if value >= LATEST_DATE:
        raise ValidationError(
            f"Too far in the future: before {LATEST_DATE:%Y-%m-%d}, please.", code="too_far"
        )
