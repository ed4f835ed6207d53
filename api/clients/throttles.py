"""Rate limits per scope: `read` (GET, HEAD, OPTIONS) and `play` (everything else), per user,
whatever the credentials (session, account token, personal token). Anonymous requests have
the per-address `anon` limit (api/throttles.py).

Counted like every limit (api/throttles.py): atomically in the shared cache, so with Redis
every process and host shares one count per user and window, and let through when the cache
is unreachable. Rates come from REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] ("read", "play").
"""

from __future__ import annotations

from rest_framework.request import Request

from api.throttles import WindowRateThrottle
from clients.permissions import required_scope


class ScopeRateThrottle(WindowRateThrottle):
    cache_prefix = "throttle-scope"

    def identity(self, request: Request) -> str | None:
        user = request.user
        return str(user.pk) if user and user.is_authenticated else None

    def rate_scope(self, request: Request) -> str:
        return required_scope(request)
