"""What keeps the event feed's waiting requests (long polls and server-sent-event streams)
cheap and honest: a per-user cap on open ones, shared by every web process, and a fresh check
of the request's credentials every few seconds while one is open (docs/event-streams.md).

Open feeds (`feed_slot_*`): a Redis sorted set per user, one member per open request whose score
is the moment it lapses. An open request renews its member while it runs and removes it when it
ends; a process that dies leaves members that lapse after FEED_SLOT_TTL_SECONDS, so the count
never drifts. Taking a slot is one Lua script (drop the lapsed members, count, add), atomic across
processes. Without REDIS_URL the count is per process (development). If Redis does not answer,
the cap fails open: the request is served and a warning logged.

Credentials (`credentials_check`): the request's own authenticators and permissions run again,
on a fresh request built from its headers and cookies, so a revoked or deleted token, a
deactivated user, a flushed session or a session whose password changed all end the feed, and
whatever the authentication classes become, the check follows them.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any, TypeVar

import redis
from asgiref.sync import SyncToAsync, sync_to_async
from django.conf import settings
from django.contrib import auth
from django.core.handlers.asgi import ASGIRequest
from django.db import connection
from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject
from rest_framework import exceptions, status
from rest_framework.request import Request
from rest_framework.views import APIView

from api.errors import ApiError
from clients.models import Event
from clients.selectors import events_after

logger = logging.getLogger(__name__)
T = TypeVar("T")

# A slot a process stopped renewing (it died) lapses after this long; open requests renew
# theirs every FEED_SLOT_RENEW_SECONDS.
FEED_SLOT_TTL_SECONDS = 30
FEED_SLOT_RENEW_SECONDS = 10
# Redis answers in well under a millisecond; a longer silence means it is down, and the cap
# then steps aside instead of holding the request.
REDIS_TIMEOUT_SECONDS = 0.5

_TAKE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
return 1
"""

_client_lock = threading.Lock()
_client: redis.Redis | None = None
_local_lock = threading.Lock()
_local_slots: dict[int, dict[str, float]] = {}


def _redis() -> redis.Redis | None:
    global _client
    if not settings.REDIS_URL:
        return None
    with _client_lock:
        if _client is None:
            _client = redis.Redis.from_url(
                settings.REDIS_URL,
                socket_timeout=REDIS_TIMEOUT_SECONDS,
                socket_connect_timeout=REDIS_TIMEOUT_SECONDS,
            )
        return _client


def _key(user_id: int) -> str:
    return f"canasta:feed-slots:{user_id}"


# The Retry-After of too_many_open_feeds: a feed that ends frees its slot at once, one whose
# process died within FEED_SLOT_TTL_SECONDS; which of the open ones ends first is not known,
# so a client is told to look again after one renewal period (docs/clients.md: every 429
# carries Retry-After).
FEEDS_RETRY_AFTER_SECONDS = FEED_SLOT_RENEW_SECONDS


def too_many_feeds(limit: int) -> ApiError:
    error = ApiError(
        status.HTTP_429_TOO_MANY_REQUESTS,
        "too_many_open_feeds",
        {"limit": limit, "retry_after": FEEDS_RETRY_AFTER_SECONDS},
        limit=limit,
    )
    # DRF's exception handler turns `wait` into the Retry-After header.
    error.wait = FEEDS_RETRY_AFTER_SECONDS  # type: ignore[attr-defined]
    return error


@dataclass
class FeedSlot:
    user_id: int
    member: str = field(default_factory=lambda: uuid.uuid4().hex)
    renewed: float = field(default_factory=time.monotonic)


def feed_slot_take(user_id: int, *, limit: int | None = None) -> FeedSlot:
    """A slot among the user's open feeds; raises the 429 ApiError when all are taken."""
    limit = settings.CANASTA_EVENTS_OPEN_PER_USER if limit is None else limit
    slot = FeedSlot(user_id)
    now = time.time()
    client = _redis()
    if client is None:
        with _local_lock:
            mine = {m: t for m, t in _local_slots.get(user_id, {}).items() if t > now}
            taken = len(mine) < limit
            if taken:
                mine[slot.member] = now + FEED_SLOT_TTL_SECONDS
            _local_slots[user_id] = mine
    else:
        try:
            taken = bool(
                client.eval(
                    _TAKE,
                    1,
                    _key(user_id),
                    now,
                    limit,
                    now + FEED_SLOT_TTL_SECONDS,
                    slot.member,
                    FEED_SLOT_TTL_SECONDS,
                )
            )
        except redis.RedisError as error:
            logger.warning("feed slots: Redis unavailable, not capping (%s)", error)
            taken = True
    if not taken:
        raise too_many_feeds(limit)
    return slot


def feed_slot_renew(slot: FeedSlot) -> None:
    """Pushes the slot's lapse time on (called while the feed is open)."""
    slot.renewed = time.monotonic()
    lapses = time.time() + FEED_SLOT_TTL_SECONDS
    client = _redis()
    if client is None:
        with _local_lock:
            _local_slots.setdefault(slot.user_id, {})[slot.member] = lapses
        return
    try:
        pipe = client.pipeline()
        pipe.zadd(_key(slot.user_id), {slot.member: lapses}, xx=True)
        pipe.expire(_key(slot.user_id), FEED_SLOT_TTL_SECONDS)
        pipe.execute()
    except redis.RedisError as error:
        logger.warning("feed slots: Redis unavailable, slot not renewed (%s)", error)


def feed_slot_release(slot: FeedSlot) -> None:
    client = _redis()
    if client is None:
        with _local_lock:
            _local_slots.get(slot.user_id, {}).pop(slot.member, None)
        return
    try:
        client.zrem(_key(slot.user_id), slot.member)
    except redis.RedisError as error:
        # It lapses by itself after FEED_SLOT_TTL_SECONDS.
        logger.warning("feed slots: Redis unavailable, slot left to lapse (%s)", error)


def _fresh_request(original: HttpRequest) -> HttpRequest:
    """A request with the original's headers and cookies and a session and user read anew from
    the stores, as SessionMiddleware and AuthenticationMiddleware would read them now."""
    fresh = HttpRequest()
    fresh.method = original.method
    fresh.path = original.path
    fresh.path_info = original.path_info
    fresh.META = dict(original.META)
    fresh.COOKIES = dict(original.COOKIES)
    engine = import_module(settings.SESSION_ENGINE)
    fresh.session = engine.SessionStore(fresh.COOKIES.get(settings.SESSION_COOKIE_NAME))
    # Django's own lazy user, as AuthenticationMiddleware sets it; the stub types the attribute
    # as the user itself.
    fresh.user = SimpleLazyObject(lambda: auth.get_user(fresh))  # type: ignore[assignment]
    return fresh


def credentials_check(request: Request, view: APIView) -> None:
    """Runs the view's authentication and permission classes again on what the request sent;
    raises their exception (AuthenticationFailed, NotAuthenticated, PermissionDenied) when the
    credentials no longer let the same user in."""
    again = Request(_fresh_request(request._request), authenticators=view.get_authenticators())
    user = again.user
    if not (user and user.is_authenticated and user.pk == request.user.pk and user.is_active):
        raise exceptions.NotAuthenticated("Your sign-in has ended; sign in again.")
    view.check_permissions(again)


def serves_asynchronously(request: Request) -> bool:
    """True under an ASGI server: the feed then waits in the event loop, not in a thread."""
    return isinstance(request._request, ASGIRequest)


def request_thread_release() -> None:
    """Lets the current ASGI request's own thread go. Django runs a request's synchronous parts
    on a thread that asgiref keeps for the request until it ends (its ThreadSensitiveContext);
    an open feed needs it no more once authenticated, so it would otherwise hold an idle thread
    for minutes. A later thread-sensitive call of the request (rendering the answer) gets a
    new one. Call it from the event loop, with no call pending on that thread."""
    context = SyncToAsync.thread_sensitive_context.get(None)
    if context is None:
        return
    executor = SyncToAsync.context_to_thread_executor.pop(context, None)
    if executor is not None:
        executor.shutdown(wait=False)


class FeedWatch:
    """One open feed: each `look` reads the events after the cursor and, every
    CANASTA_EVENTS_AUTH_CHECK_SECONDS, checks the credentials again and renews the slot.

    `look` is synchronous (database and Redis). With `asynchronous` (ASGI) the views call it
    through `look_async`: it gives its database connection back after each look, and after the
    first look (on the request's own thread, which holds the connection its authentication
    opened) the request's thread is let go and later looks borrow a thread of the event loop's
    shared pool, so an open feed holds neither a thread nor a connection between looks. Without
    it (WSGI, the test client) every call runs on the request's thread, as Django's
    async_to_sync arranges."""

    def __init__(
        self,
        request: Request,
        view: APIView,
        after: int,
        *,
        limit: int | None = None,
        slot: FeedSlot | None = None,
        asynchronous: bool = False,
    ) -> None:
        self.request = request
        self.view = view
        self.after = after
        self.limit = limit
        self.slot = slot
        self.asynchronous = asynchronous
        self.request_thread_held = asynchronous
        self.checked = time.monotonic()

    def look(self) -> list[Event]:
        try:
            now = time.monotonic()
            if now - self.checked >= settings.CANASTA_EVENTS_AUTH_CHECK_SECONDS:
                credentials_check(self.request, self.view)
                self.checked = now
            if self.slot is not None and now - self.slot.renewed >= FEED_SLOT_RENEW_SECONDS:
                feed_slot_renew(self.slot)
            kwargs = {} if self.limit is None else {"limit": self.limit}
            events = events_after(user=self.request.user, after=self.after, **kwargs)
        finally:
            if self.asynchronous:
                connection.close()
        if events:
            self.after = events[-1].pk
        return events

    async def call(self, function: Callable[..., T], *args: Any) -> T:
        """`function(*args)` from the event loop, on the request's thread while the feed holds
        it, else on the loop's shared pool."""
        shared = self.asynchronous and not self.request_thread_held
        return await sync_to_async(function, thread_sensitive=not shared)(*args)

    async def look_async(self) -> list[Event]:
        events = await self.call(self.look)
        if self.request_thread_held:
            request_thread_release()
            self.request_thread_held = False
        return events

    def close(self) -> None:
        if self.slot is not None:
            feed_slot_release(self.slot)
            self.slot = None
