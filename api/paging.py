"""One paging convention for every list of the API (issue 29; docs/api.md, "Paging").

A request names where to go on with an opaque `cursor` and how many rows it wants with
`limit`; the answer is `{"results": [...], "next_cursor": "..." | null}`. A cursor is the
keyset position of the last row given (the values of the list's ordering columns, as JSON,
in urlsafe base64), so the next page is one index range scan after that row: stable while
rows are added, and never an OFFSET that grows with the table.

Lists that only grow at their end (the move log, the event feed, chat after a line) never
end: their `next_cursor` is always a string, and an empty `results` means "caught up, ask
again later with the same cursor". Every other list gives `next_cursor: null` on its last
page. A cursor that cannot be read, or one of another list, is 400 `invalid_cursor`.

The old forms each list had (`page`, `last_id`, `before`, `after`, `has_more`, ...) keep
working until PAGING_SUNSET; an answer that carries them says so (`paging_deprecated`).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar
from uuid import UUID

from django.db.models import Model, Q, QuerySet
from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.request import Request

from api.deprecation import PAGING_DEPRECATED, PAGING_SUNSET, deprecation_headers
from api.errors import ApiError

M = TypeVar("M", bound=Model)
T = TypeVar("T")

# A cursor longer than this was not made here (ours are well under 200 characters).
MAX_CURSOR_LENGTH = 500


def _as_datetime(value: Any) -> datetime:
    if not isinstance(value, str):
        raise ValueError(value)
    moment = datetime.fromisoformat(value)
    if moment.tzinfo is None:
        raise ValueError(value)
    # In UTC now: a time at the edge of the calendar fails here, not in the database.
    return moment.astimezone(UTC)


def _as_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
        raise ValueError(value)
    return value


def _as_uuid(value: Any) -> UUID:
    if not isinstance(value, str):
        raise ValueError(value)
    return UUID(value)


_READERS: dict[type, Callable[[Any], Any]] = {datetime: _as_datetime, int: _as_int, UUID: _as_uuid}


def _written(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, UUID):
        return str(value)
    return value


@dataclass(frozen=True)
class Keyset:
    """A list's order, as `order_by` names it (`-` for descending), with the type of each
    column; `tag` keeps a cursor of one list from being read by another."""

    tag: str
    order: tuple[str, ...]
    types: tuple[type, ...]

    def encode(self, values: Sequence[Any]) -> str:
        raw = json.dumps([self.tag, *(_written(v) for v in values)], separators=(",", ":"))
        return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")

    def encode_row(self, row: Model) -> str:
        return self.encode([getattr(row, name.lstrip("-")) for name in self.order])

    def decode(self, cursor: str) -> tuple[Any, ...]:
        """The position a cursor names; 400 invalid_cursor for anything else."""
        try:
            if len(cursor) > MAX_CURSOR_LENGTH:
                raise ValueError(cursor)
            raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
            parts = json.loads(raw)
            if not isinstance(parts, list) or len(parts) != len(self.types) + 1:
                raise ValueError(parts)
            if parts[0] != self.tag:
                raise ValueError(parts[0])
            return tuple(_READERS[kind](v) for kind, v in zip(self.types, parts[1:], strict=True))
        except (ValueError, TypeError, OverflowError, binascii.Error):
            raise invalid_cursor() from None

    def after(self, rows: QuerySet[M], position: Sequence[Any]) -> QuerySet[M]:
        """The rows after `position` in this order: (a, b) after (x, y) is a > x, or a = x
        and b > y (`<` for a descending column)."""
        condition = Q()
        for index, name in enumerate(self.order):
            column = name.lstrip("-")
            equal = {n.lstrip("-"): v for n, v in zip(self.order[:index], position, strict=False)}
            step = "lt" if name.startswith("-") else "gt"
            condition |= Q(**equal, **{f"{column}__{step}": position[index]})
        return rows.filter(condition).order_by(*self.order)


def invalid_cursor() -> ApiError:
    return ApiError(
        status.HTTP_400_BAD_REQUEST,
        "invalid_cursor",
        {"fields": {"cursor": ["Not a cursor of this list."]}},
    )


def cursor_of(request: Request) -> str | None:
    """The `cursor` query parameter; empty is "not given", as for every optional parameter."""
    return request.query_params.get("cursor") or None


@dataclass(frozen=True)
class Page(Generic[T]):
    rows: list[T]
    next_cursor: str | None


def keyset_page(rows: QuerySet[M], keyset: Keyset, cursor: str | None, limit: int) -> Page[M]:
    """One page of a list that ends: `limit` rows after the cursor (from the start without
    one), and the cursor of the next page, None after the last. One row more than asked says
    whether there is a next page."""
    if cursor is not None:
        rows = keyset.after(rows, keyset.decode(cursor))
    found = list(rows.order_by(*keyset.order)[: limit + 1])
    page = found[:limit]
    more = len(found) > limit
    return Page(page, keyset.encode_row(page[-1]) if more and page else None)


def paging_deprecated(response: Any) -> Any:
    """The headers of an answer that carries an old paging form (docs/api-changelog.md)."""
    return deprecation_headers(response, since=PAGING_DEPRECATED, sunset=PAGING_SUNSET)


def cursor_parameter(growing: bool = False) -> OpenApiParameter:
    ends = (
        "The list grows at its end: next_cursor is never null; an empty page means you are "
        "caught up (ask again later with the same cursor)."
        if growing
        else "next_cursor is null on the last page."
    )
    return OpenApiParameter(
        "cursor",
        {"type": "string", "maxLength": MAX_CURSOR_LENGTH},
        description="Opaque: the `next_cursor` of the previous page, as it was given (none: "
        f"the first page). {ends} A cursor that cannot be read: 400 invalid_cursor.",
    )


def limit_parameter(default: int, maximum: int) -> OpenApiParameter:
    return OpenApiParameter(
        "limit",
        {"type": "integer", "minimum": 1, "maximum": maximum},
        description=f"At most this many results (1-{maximum}; {default} by default).",
    )


def deprecated_parameter(name: str, schema: dict[str, Any], instead: str) -> OpenApiParameter:
    return OpenApiParameter(
        name,
        schema,
        deprecated=True,
        description=f"Deprecated (sunset {PAGING_SUNSET.date().isoformat()}): {instead} The "
        "answer then carries the Deprecation and Sunset headers.",
    )
