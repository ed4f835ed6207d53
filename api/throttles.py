"""Rate limits counted atomically in the shared cache, failing open when it is unreachable.

Every limit is a fixed window: one counter per (scope, who, window) key, raised by one per
request. With the Redis cache (REDIS_URL) the counter is a Redis key raised by `SET NX EX`
then `INCR` in one MULTI round trip, so concurrent requests in any number of processes and
hosts each get their own number: exactly `rate` requests pass per window. With the local
memory cache (development, tests) `add` then `incr` under the cache's lock do the same within
one process.

When the cache cannot be reached (Redis down, a network fault), the request is let through:
a limit protects the service, and the service can still play moves without Redis. The first
failure is logged at once, then at most one line a minute per process with the number of
requests let through meanwhile, and Redis is not asked again for a few seconds (a Redis that
times out would otherwise add its timeout to every request).

Rates come from REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] (SimpleRateThrottle.THROTTLE_RATES,
which the tests patch); a scope without a rate is not limited.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from django.core.cache import BaseCache, caches
from django.core.cache.backends.redis import RedisCache
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle

log = logging.getLogger(__name__)

# After a cache failure, requests skip the cache this long (fail open without waiting).
CACHE_RETRY_SECONDS = 5.0
# At most one "limits are off" line per process this often.
LOG_EVERY_SECONDS = 60.0


class _CacheOutage:
    """Per process: whether the cache failed recently, and the rate-limited log of it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.skip_until = 0.0
        self.logged_at: float | None = None
        self.unlogged = 0

    def active(self) -> bool:
        return time.monotonic() < self.skip_until

    def record_failure(self, error: BaseException) -> None:
        now = time.monotonic()
        with self._lock:
            self.skip_until = now + CACHE_RETRY_SECONDS
            self.unlogged += 1
            if self.logged_at is not None and now - self.logged_at < LOG_EVERY_SECONDS:
                return
            count, self.unlogged, self.logged_at = self.unlogged, 0, now
        log.warning(
            "rate limits are off: the cache is unreachable (%s: %s); %d request(s) let "
            "through unlimited since the last report",
            type(error).__name__,
            error,
            count,
        )

    def record_skip(self) -> None:
        with self._lock:
            self.unlogged += 1

    def record_success(self) -> None:
        if self.logged_at is None:
            return
        with self._lock:
            if self.logged_at is None:
                return
            count, self.unlogged, self.logged_at = self.unlogged, 0, None
        log.warning("rate limits are back on: the cache answers again (%d let through)", count)


cache_outage = _CacheOutage()


def _redis_count(cache: RedisCache, key: str, ttl: int) -> int:
    full_key = cache.make_and_validate_key(key)
    # The Redis client of Django's cache for this key (RedisCache has no atomic
    # create-or-increment of its own: its incr is EXISTS then INCR).
    client = cache._cache.get_client(full_key, write=True)
    with client.pipeline(transaction=True) as pipe:
        pipe.set(full_key, 0, ex=ttl, nx=True)
        pipe.incr(full_key)
        _, count = pipe.execute()
    return int(count)


def _local_count(cache: BaseCache, key: str, ttl: int) -> int:
    cache.add(key, 0, timeout=ttl)
    try:
        return int(cache.incr(key))
    except ValueError:  # expired between add and incr
        cache.add(key, 1, timeout=ttl)
        return 1


def window_count(key: str, duration: int) -> int | None:
    """Counts one request against `key` in the current window of `duration` seconds and
    returns the count so far, or None when the cache is unreachable (the caller lets the
    request through)."""
    if cache_outage.active():
        cache_outage.record_skip()
        return None
    ttl = duration + 1
    cache = caches["default"]
    try:
        if isinstance(cache, RedisCache):
            count = _redis_count(cache, key, ttl)
        else:
            count = _local_count(cache, key, ttl)
    except Exception as error:  # any cache failure: fail open, logged
        cache_outage.record_failure(error)
        return None
    cache_outage.record_success()
    return count


class WindowRateThrottle(BaseThrottle):
    """A fixed-window limit of `scope`'s rate per `identity()`; None skips the limit."""

    scope = ""
    cache_prefix = "throttle"

    def __init__(self) -> None:
        self._wait: float | None = None

    def identity(self, request: Request) -> str | None:
        raise NotImplementedError

    def rate_scope(self, request: Request) -> str:
        return self.scope

    def allow_request(self, request: Request, view: Any) -> bool:
        who = self.identity(request)
        if who is None:
            return True
        scope = self.rate_scope(request)
        rate = SimpleRateThrottle.THROTTLE_RATES.get(scope)
        if not rate:
            return True
        allowed, duration = SimpleRateThrottle.parse_rate(None, rate)  # type: ignore[arg-type]
        if allowed is None or duration is None:
            return True
        now = time.time()
        window = int(now // duration)
        count = window_count(f"{self.cache_prefix}:{scope}:{who}:{window}", duration)
        if count is None or count <= allowed:
            return True
        self._wait = max(1.0, (window + 1) * duration - now)
        return False

    def wait(self) -> float | None:
        return self._wait


class AnonRateThrottle(WindowRateThrottle):
    """Requests without credentials, per client address (NUM_PROXIES decides which)."""

    scope = "anon"

    def identity(self, request: Request) -> str | None:
        if request.user and request.user.is_authenticated:
            return None
        return self.get_ident(request)


class AuthRateThrottle(AnonRateThrottle):
    """Sign-up and token requests, per client address: slows down password guessing."""

    scope = "auth"


class PasswordRateThrottle(WindowRateThrottle):
    """A password change, per user, at the sign-in rate: slows down guessing the old one with
    a stolen session or account token."""

    scope = "auth"

    def identity(self, request: Request) -> str | None:
        user = request.user
        if not (user and user.is_authenticated):
            return self.get_ident(request)
        return f"user-{user.pk}"


class PasswordResetRateThrottle(WindowRateThrottle):
    """Password reset requests and confirmations, per client address, signed in or not (the
    web pages count against the same limit: web/views/recovery.py)."""

    scope = "password_reset"

    def identity(self, request: Any) -> str | None:
        return self.get_ident(request)
