"""Rate limits per scope: `read` (GET, HEAD, OPTIONS) and `play` (everything else), per user,
whatever the credentials (session, account token, personal token). Anonymous requests keep
DRF's `anon` throttle.

A fixed window counted with the cache's atomic add/incr, so with the Redis cache (REDIS_URL)
every process shares one count per user and window; without Redis each process counts alone.
Rates come from REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] ("read", "play"); a scope without a
rate is not limited.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.cache import cache
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle

from clients.permissions import required_scope


class ScopeRateThrottle(BaseThrottle):
    cache_prefix = "throttle-scope"

    def __init__(self) -> None:
        self._wait: float | None = None

    def allow_request(self, request: Request, view: Any) -> bool:
        user = request.user
        if not (user and user.is_authenticated):
            return True
        scope = required_scope(request)
        # The class attribute DRF's throttles read (tests patch it for all of them at once).
        rate = SimpleRateThrottle.THROTTLE_RATES.get(scope)
        if not rate:
            return True
        allowed, duration = SimpleRateThrottle.parse_rate(None, rate)  # type: ignore[arg-type]
        now = time.time()
        window = int(now // duration)
        key = f"{self.cache_prefix}:{scope}:{user.pk}:{window}"
        # add() creates the counter only if absent; incr() is atomic in Redis and locmem.
        cache.add(key, 0, timeout=duration + 1)
        try:
            count = cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.add(key, 1, timeout=duration + 1)
            count = 1
        if count <= allowed:
            return True
        self._wait = max(1.0, (window + 1) * duration - now)
        return False

    def wait(self) -> float | None:
        return self._wait
