"""Template filters for numbers and moments a person reads (games/l10n.py, in the active
language and zone): ``{{ score|number }}``, ``{{ deadline|moment }}``, ``{{ deadline|left }}``.

Django's own ``date`` filter writes one English-shaped pattern in every language and its
``timeuntil`` has no Icelandic; these use CLDR's patterns through Babel instead.
"""

from __future__ import annotations

from datetime import datetime

from django import template

from games import l10n

register = template.Library()


@register.filter
def number(value: int | float | None) -> str:
    """1,915 / 1.915; an empty value stays empty."""
    return "" if value is None or value == "" else l10n.number(value)


@register.filter
def signed(value: int | None) -> str:
    return "" if value is None else l10n.signed(value)


@register.filter
def moment(value: datetime | None, form: str = "") -> str:
    """ "Fr., 4. Dez., 14:52 MEZ"; ``|moment:"year"`` with the year."""
    if not value:
        return ""
    return l10n.moment(value, year=form == "year")


@register.filter
def day(value: datetime | None) -> str:
    return l10n.day(value) if value else ""


@register.filter
def clock(value: datetime | None) -> str:
    return l10n.clock(value) if value else ""


@register.filter
def left(value: datetime | None) -> str:
    """The time from now until ``value``: "2 Tage und 23 Stunden"."""
    return l10n.remaining(value) if value else ""
