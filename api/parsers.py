"""The API's one body format: JSON whose strings are Unicode text.

JSON's escapes can spell half of a surrogate pair ("\\ud800") and Python's json module
accepts it, giving a str that cannot be encoded as UTF-8. Such a string reached an error
message that echoed it and the renderer failed on it (a 500). It is refused here, where the
body is read, for every operation at once (400 malformed_request).
"""

from __future__ import annotations

from typing import Any

from rest_framework import parsers
from rest_framework.exceptions import ParseError


def _is_text(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _all_text(data: Any) -> bool:
    """Every string of a parsed JSON value (object keys included) is valid Unicode text.

    Iterative: json.loads already bounds the depth, a recursive walk would add its own limit.
    """
    pending = [data]
    while pending:
        value = pending.pop()
        if isinstance(value, str):
            if not _is_text(value):
                return False
        elif isinstance(value, dict):
            pending.extend(value.keys())
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
    return True


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, refusing strings that are not Unicode text (lone surrogates)."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        data = super().parse(stream, media_type, parser_context)
        if not _all_text(data):
            raise ParseError(
                "The request body has a string that is not valid Unicode text "
                "(an unpaired surrogate escape such as \\ud800)."
            )
        return data
