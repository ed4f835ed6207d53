"""The API's JSON renderer: DRF's, never failing on a string that is not Unicode text.

The parser refuses such strings (api/parsers.py), but an answer can still carry one from
elsewhere (a stored value, a URL or header echoed in an error). DRF's renderer then raised
UnicodeEncodeError, a 500 with no body; here the answer is rendered with every non-ASCII
character escaped, which is valid JSON, so the client gets the answer it was meant to get.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework import renderers


class JSONRenderer(renderers.JSONRenderer):
    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        try:
            return super().render(data, accepted_media_type, renderer_context)
        except UnicodeEncodeError:
            escaping = ASCIIJSONRenderer()
            # Instance attributes on purpose (the class ones stay); the stub says ClassVar.
            escaping.strict = self.strict  # type: ignore[misc]
            escaping.compact = self.compact  # type: ignore[misc]
            return escaping.render(data, accepted_media_type, renderer_context)


class ASCIIJSONRenderer(renderers.JSONRenderer):
    ensure_ascii = True
