"""GET /api/v1/health/: what a load balancer and a monitor need to know (docs/operations.md).

503 only when the database does not answer: without it nothing works, so a load balancer
should stop sending traffic. Redis (the rate-limit cache and the Celery broker) being down is
200 "degraded": moves still work (the limits are let through, the outbox waits for the sweep),
so taking the web processes out of rotation would only make things worse.
"""

from __future__ import annotations

import threading
from typing import Literal

import redis
from celery import current_app as celery_app
from django.conf import settings
from django.core.cache import caches
from django.db import DatabaseError, connection
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

State = Literal["ok", "unavailable"]
# A component probe gives up after this long (a load balancer's probe timeout is a few seconds).
PROBE_TIMEOUT_SECONDS = 1.0
COMPONENT_STATES = ["ok", "unavailable"]

_broker_clients: dict[str, redis.Redis] = {}
_broker_clients_lock = threading.Lock()


class HealthComponentsSerializer(serializers.Serializer):
    database = serializers.ChoiceField(choices=COMPONENT_STATES)
    cache = serializers.ChoiceField(
        choices=COMPONENT_STATES,
        help_text="The rate-limit cache (Redis, or this process's memory without REDIS_URL).",
    )
    broker = serializers.ChoiceField(
        choices=COMPONENT_STATES, help_text="The Celery broker (emails, bots, timeouts)."
    )


class HealthSerializer(serializers.Serializer):
    status = serializers.ChoiceField(
        choices=["ok", "degraded", "unavailable"],
        help_text="ok: everything answers; degraded: the database answers but the cache or "
        "the broker does not (moves still work); unavailable: the database does not (503).",
    )
    database = serializers.CharField(help_text="Database vendor: sqlite or postgresql.")
    components = HealthComponentsSerializer()


def database_state() -> State:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError:
        return "unavailable"
    return "ok"


def cache_state() -> State:
    try:
        # A read is a round trip to Redis; the local memory cache always answers.
        caches["default"].get("health-probe")
    except Exception:  # any failure of the cache client means it is down
        return "unavailable"
    return "ok"


def _redis_broker_client(url: str) -> redis.Redis:
    # One client (and connection pool) per process, not a new connection per probe.
    with _broker_clients_lock:
        client = _broker_clients.get(url)
        if client is None:
            client = redis.Redis.from_url(
                url,
                socket_connect_timeout=PROBE_TIMEOUT_SECONDS,
                socket_timeout=PROBE_TIMEOUT_SECONDS,
            )
            _broker_clients[url] = client
        return client


def broker_state() -> State:
    url = settings.CELERY_BROKER_URL
    try:
        if url.startswith(("redis://", "rediss://", "unix://")):
            _redis_broker_client(url).ping()
        else:
            # Another transport (the filesystem queue in development): kombu connects. The
            # current app is the project's (canasta_site/celery.py, loaded with the settings).
            with celery_app.connection_for_write() as conn:
                conn.ensure_connection(max_retries=1, interval_start=0, timeout=1)
    except Exception:  # whatever the transport raises, it is not reachable
        return "unavailable"
    return "ok"


class HealthView(APIView):
    """Liveness and the state of the database, the cache and the broker, for monitors."""

    authentication_classes: list = []
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="health",
        tags=["health"],
        summary="Service health",
        description="200 with status ok or degraded (the cache or the broker is down, moves "
        "still work); 503 with status unavailable when the database does not answer.",
        responses={200: HealthSerializer, 503: HealthSerializer},
    )
    def get(self, request: Request) -> Response:
        code: int
        components = {
            "database": database_state(),
            "cache": cache_state(),
            "broker": broker_state(),
        }
        if components["database"] != "ok":
            overall, code = "unavailable", status.HTTP_503_SERVICE_UNAVAILABLE
        elif all(state == "ok" for state in components.values()):
            overall, code = "ok", status.HTTP_200_OK
        else:
            overall, code = "degraded", status.HTTP_200_OK
        body = {"status": overall, "database": connection.vendor, "components": components}
        return Response(body, status=code)
