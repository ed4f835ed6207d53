"""Numbers, dates and durations as a reader of each language writes them: the one place for it.

Pages, emails, score sheets, history lines and API messages format every number and moment a
person reads here, from CLDR's data through Babel (pinned in requirements.txt): "1,915" in
English, "1.915" in German and Icelandic; "Fri, Dec 4, 13:52 CET", "Fr., 4. Dez., 13:52 MEZ",
"fös., 4. des., 13:52 GMT"; "2 days and 23 hours", "2 Tage und 23 Stunden", "2 dagar og 23
klukkustundir".

Never for machines: numbers inside SVG, CSS, JSON and URLs stay as ``str(int)`` (a German
"92,0" in an SVG coordinate breaks the drawing).

The language is the active one (``django.utils.translation.get_language``) unless given; the
zone is the active one (``django.utils.timezone``) unless given.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta, tzinfo
from typing import Literal

from babel import Locale
from babel.dates import format_datetime, format_timedelta
from babel.lists import format_list
from babel.numbers import format_decimal
from django.utils import timezone, translation

from games.display import language_code

# The sign of a signed score: a true minus sign would not be found by a player searching
# "-40", and every mail program shows the hyphen-minus; CLDR's de/is patterns use it too.
_SIGNED = "+#,##0;-#,##0"


def locale_of(lang: str | None = None) -> str:
    """One of en/de/is for ``lang``, or for the active language when None."""
    return language_code(lang if lang is not None else translation.get_language())


def number(value: int | float, lang: str | None = None) -> str:
    """A number a person reads: 1,915 / 1.915 / 1.915 (grouped from four digits on)."""
    return format_decimal(value, locale=locale_of(lang), group_separator=True)


def signed(value: int, lang: str | None = None) -> str:
    """A score change with its sign: "+1,500", "-40", and "0" without one."""
    if not value:
        return "0"
    return format_decimal(value, format=_SIGNED, locale=locale_of(lang))


def _zone(zone: tzinfo | None) -> tzinfo:
    return zone if zone is not None else timezone.get_current_timezone()


def zone_abbreviation(local: datetime, lang: str | None = None) -> str:
    """The zone as readers of the language know it: MEZ/MESZ in German, CET/CEST in English
    (CLDR's short names where it has them), else the zone's own abbreviation (GMT, UTC), else
    an offset ("GMT+2")."""
    code = locale_of(lang)
    short = format_datetime(local, "z", tzinfo=local.tzinfo, locale=code)
    if short.isalpha():
        return short
    own = local.tzname() or ""
    if own.isalpha():
        return own
    return format_datetime(local, "O", tzinfo=local.tzinfo, locale=code)


def _skeleton(code: str, name: str) -> str:
    return str(Locale.parse(code).datetime_skeletons[name])


def moment(
    when: datetime,
    lang: str | None = None,
    zone: tzinfo | None = None,
    *,
    year: bool = False,
    with_zone: bool = True,
) -> str:
    """A moment with weekday, day, month and time in the reader's zone, in the language's
    CLDR pattern: "Fri, Dec 4, 13:52 CET", "Fr., 4. Dez., 13:52 MEZ", "fös., 4. des., 13:52
    GMT" (Icelandic months and weekdays in lower case, as CLDR writes them)."""
    code = locale_of(lang)
    local = timezone.localtime(when, _zone(zone)) if timezone.is_aware(when) else when
    date_pattern = _skeleton(code, "yMMMEd" if year else "MMMEd")
    text = format_datetime(local, f"{date_pattern}, HH:mm", tzinfo=local.tzinfo, locale=code)
    return f"{text} {zone_abbreviation(local, code)}" if with_zone else text


def day(when: datetime, lang: str | None = None, zone: tzinfo | None = None) -> str:
    """A day with its year: "Dec 4, 2026", "4. Dez. 2026", "4. des. 2026"."""
    code = locale_of(lang)
    local = timezone.localtime(when, _zone(zone)) if timezone.is_aware(when) else when
    return format_datetime(local, _skeleton(code, "yMMMd"), tzinfo=local.tzinfo, locale=code)


def clock(when: datetime, lang: str | None = None, zone: tzinfo | None = None) -> str:
    """The time of day: "13:52"."""
    code = locale_of(lang)
    local = timezone.localtime(when, _zone(zone)) if timezone.is_aware(when) else when
    return format_datetime(local, _skeleton(code, "Hm"), tzinfo=local.tzinfo, locale=code)


Unit = Literal["day", "hour", "minute"]


def duration(span: timedelta, lang: str | None = None) -> str:
    """A span in its two largest units: "2 days and 23 hours", "2 Tage und 23 Stunden",
    "2 dagar og 23 klukkustundir"; "5 minutes"; under a minute "1 minute"."""
    code = locale_of(lang)
    minutes = max(1, int(span.total_seconds()) // 60)
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    units: list[tuple[int, Unit]] = [(days, "day"), (hours, "hour"), (minutes, "minute")]
    parts = [(n, unit) for n, unit in units if n]
    first = next(i for i, (n, _unit) in enumerate(units) if n)
    # Two units at most, and only adjacent ones: "2 days and 23 hours", never "2 days and
    # 5 minutes" (the minutes of a two-day span do not matter to anyone).
    shown = [(n, u) for n, u in parts if units.index((n, u)) <= first + 1]
    return format_list(
        [
            format_timedelta(timedelta(**{f"{u}s": n}), granularity=u, threshold=1, locale=code)
            for n, u in shown
        ],
        locale=code,
    )


def remaining(until: datetime, now: datetime | None = None, lang: str | None = None) -> str:
    """The time left before ``until``: :func:`duration` of what is left, at least a minute."""
    left = until - (now if now is not None else timezone.now())
    return duration(max(left, timedelta(0)), lang)


def scores(values: Sequence[int], labels: Sequence[str] = (), lang: str | None = None) -> str:
    """Scores by side, each after its side's name: "Your side 1,915, Hildegard & Klaus 1,440"
    ("Ihre Seite 1.915, Hildegard & Klaus 1.440"); "1,915 / 1,440" when the sides are unnamed.
    A list of names and numbers, no sentence: the same in every language but for the
    numbers."""
    shown = [number(v, lang) for v in values]
    if len(labels) != len(values):
        return " / ".join(shown)
    return ", ".join(f"{label} {score}" for label, score in zip(labels, shown, strict=True))
