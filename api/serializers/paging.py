"""The fields every page of a list carries (api/paging.py; docs/api.md, "Paging")."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from api.deprecation import PAGING_SUNSET

SUNSET = PAGING_SUNSET.date().isoformat()


def next_cursor_field(*, growing: bool = False) -> serializers.CharField:
    if growing:
        help_text = (
            "Send as `cursor` for what follows. Never null: this list grows at its end; an "
            "empty page means you are caught up (ask again later with this cursor)."
        )
        return serializers.CharField(help_text=help_text)
    return serializers.CharField(
        allow_null=True, help_text="Send as `cursor` for the next page; null on the last page."
    )


def old_field(field_class: type[serializers.Field], instead: str, **kwargs: Any) -> Any:
    """A field of the old paging form: only in answers to a request without `cursor`, until
    the sunset, and then with the Deprecation, Sunset and Link headers."""
    return field_class(
        required=False,
        help_text=f"Deprecated (sunset {SUNSET}; only without `cursor`): {instead}",
        **kwargs,
    )
