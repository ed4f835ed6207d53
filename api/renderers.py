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
from rest_framework.response import Response

# The attribute of a response that holds its data rendered already, and that data.
_PRERENDERED = "_canasta_prerendered"


def prerendered(response: Response, body: bytes) -> None:
    """Remember ``body`` as ``response.data`` rendered by JSONRenderer with no indent (what
    api.idempotency stores), so that rendering the response sends it as it is."""
    setattr(response, _PRERENDERED, (response.data, body))


class JSONRenderer(renderers.JSONRenderer):
    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        kept = getattr((renderer_context or {}).get("response"), _PRERENDERED, None)
        # The same data object, and a rendering without indent: what was rendered already.
        if (
            kept is not None
            and kept[0] is data
            and self.get_indent(accepted_media_type or "", renderer_context or {}) is None
        ):
            return bytes(kept[1])
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
