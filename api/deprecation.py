"""What is being phased out, and the headers that say so (docs/api-changelog.md: the policy).

An answer that still carries a deprecated form gets `Deprecation: @<unix seconds>` (RFC 9745,
since when) and `Sunset: <HTTP date>` (RFC 8594, after when it may go): a client sees it in
its logs before anything breaks. The schema marks the fields `deprecated: true` and declares
both headers on every answer that carries such a field (api.schema.complete_responses).
"""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import format_datetime

from django.http import HttpResponseBase

# The old names of a new key at sign-up and sign-in (`token_id`, `token`; `/tokens/` says
# `id`, `key`): deprecated from issue 29, kept for the six months of the policy.
TOKEN_NAMES_DEPRECATED = datetime(2026, 12, 1, tzinfo=UTC)
TOKEN_NAMES_SUNSET = datetime(2027, 6, 1, tzinfo=UTC)

# The old paging forms of the lists (`page`/`page_size` with `count`/`next`/`previous`;
# `last_id`, `before`/`next_before`, `has_more`, the lists' own array names): deprecated when
# every list took the one cursor (api/paging.py), kept for the six months of the policy.
PAGING_DEPRECATED = datetime(2026, 12, 2, tzinfo=UTC)
PAGING_SUNSET = datetime(2027, 6, 2, tzinfo=UTC)

# Where a client reads what is deprecated and what to use instead (RFC 9745 §3: the link
# relation "deprecation"): the served API documentation, which marks them and links the
# changelog. A relative reference, resolved against the request's URL.
DEPRECATION_LINK = '</api/docs/>; rel="deprecation"; type="text/html"'


def deprecation_headers(
    response: HttpResponseBase, *, since: datetime, sunset: datetime
) -> HttpResponseBase:
    response["Deprecation"] = f"@{int(since.timestamp())}"
    response["Sunset"] = format_datetime(sunset, usegmt=True)
    response["Link"] = DEPRECATION_LINK
    return response
