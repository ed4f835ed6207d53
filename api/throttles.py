"""Rate limits counted atomically in the shared cache, failing open when it is unreachable.

Every limit is a token bucket (GCRA, `bucket_take`): `rate` requests may come at once, then
one more each window/rate seconds; nothing resets on the clock minute (a fixed window let
twice the rate through around its edge: 36 sign-ins in 21 s against 30 a minute). With the
Redis cache (REDIS_URL) the bucket is one Redis key updated by one Lua script, so concurrent
requests in any number of processes and hosts are counted exactly. With the local memory
cache (development, tests) a process lock does the same within one process. Each verdict is
kept on the request and sent as the IETF RateLimit / RateLimit-Policy headers
(api.middleware.rate_limit_headers_middleware).

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
import math
import threading
import time
from dataclasses import dataclass
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
    """Counts one event against `key`, kept `duration` seconds from the first, and returns the
    count so far, or None when the cache is unreachable (the caller lets the request through).
    The sign-in limiter's failure count (api/signin.py); rate limits use `bucket_take`."""
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


@dataclass(frozen=True)
class Decision:
    """One request's verdict under one limit: the figures of the RateLimit headers."""

    scope: str
    allowed: bool
    limit: int  # requests per window (the bucket's size)
    window: int  # seconds
    remaining: int  # requests that may be sent at once after this one
    reset: float  # seconds until the bucket is full again
    retry_after: float  # seconds until the next request can pass (0 when allowed)


# GCRA (the generic cell rate algorithm, a token bucket kept as one number): each identity has
# a "theoretical arrival time" `tat`; one request moves it on by `interval` = window / limit,
# and is refused when it would move it more than a whole window ahead of now. A refusal
# changes nothing. So `limit` requests may come at once, then one more every `interval`:
# there is no clock-minute reset for a burst to straddle (twice the rate within a second).
# Times are integer milliseconds (Lua numbers returned to Redis clients are integers).
_GCRA = """
local now = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local new_tat = tat + interval
if new_tat - now > window then
  return {0, tat}
end
redis.call('SET', KEYS[1], new_tat, 'PX', new_tat - now + 1000)
return {1, new_tat}
"""
_local_lock = threading.Lock()


def _redis_take(
    cache: RedisCache, key: str, now: int, interval: int, window: int
) -> tuple[bool, int]:
    full_key = cache.make_and_validate_key(key)
    # The Redis client of Django's cache for this key: one script, atomic across processes.
    client = cache._cache.get_client(full_key, write=True)
    allowed, tat = client.eval(_GCRA, 1, full_key, now, interval, window)
    return bool(allowed), int(tat)


def _local_take(
    cache: BaseCache, key: str, now: int, interval: int, window: int
) -> tuple[bool, int]:
    with _local_lock:  # one process: the lock makes read-and-write one step
        tat = max(int(cache.get(key, now)), now)
        if tat + interval - now > window:
            return False, tat
        cache.set(key, tat + interval, timeout=(tat + interval - now) // 1000 + 1)
        return True, tat + interval


def _decision(
    scope: str, limit: int, duration: int, now: int, interval: int, taken: tuple[bool, int]
) -> Decision:
    allowed, tat = taken
    window = interval * limit
    used = max(0, tat - now)  # milliseconds of the window the bucket has used up
    remaining = max(0, (window - used) // interval)
    # Refused: the next request can pass once now + window >= tat + interval.
    wait = 0.0 if allowed else max(0.0, (tat + interval - window - now) / 1000)
    return Decision(scope, allowed, limit, duration, remaining, used / 1000, wait)


def bucket_take(scope: str, key: str, limit: int, duration: int) -> Decision | None:
    """Takes one request from the bucket of `key` (`limit` requests per `duration` seconds)
    and returns the verdict, or None when the cache is unreachable (the caller lets the
    request through)."""
    if cache_outage.active():
        cache_outage.record_skip()
        return None
    now = int(time.time() * 1000)
    interval = max(1, duration * 1000 // limit)
    window = interval * limit
    cache = caches["default"]
    try:
        if isinstance(cache, RedisCache):
            taken = _redis_take(cache, key, now, interval, window)
        else:
            taken = _local_take(cache, key, now, interval, window)
    except Exception as error:  # any cache failure: fail open, logged
        cache_outage.record_failure(error)
        return None
    cache_outage.record_success()
    return _decision(scope, limit, duration, now, interval, taken)


def decisions_of(request: Any) -> list[Decision]:
    """The limits a request was counted against (api.middleware sends them as headers)."""
    django_request = getattr(request, "_request", request)
    if not hasattr(django_request, "rate_limits"):
        django_request.rate_limits = []
    return django_request.rate_limits


class WindowRateThrottle(BaseThrottle):
    """A token-bucket limit of `scope`'s rate per `identity()`; None skips the limit. Its
    verdict is kept on the request for the RateLimit headers (api.middleware)."""

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
        decision = bucket_take(scope, f"{self.cache_prefix}:{scope}:{who}", allowed, duration)
        if decision is None:
            return True
        decisions_of(request).append(decision)
        if decision.allowed:
            return True
        self._wait = max(1.0, math.ceil(decision.retry_after))
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
