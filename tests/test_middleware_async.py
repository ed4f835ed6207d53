"""Every middleware runs in Django's async mode: under the Procfile's ASGI web process one
synchronous-only middleware makes Django run each request, open event feeds included, in a
thread of its own (docs/event-streams.md), and a few feeds would hold the web tier again."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.utils.module_loading import import_string


@pytest.mark.parametrize("path", settings.MIDDLEWARE)
def test_the_middleware_can_run_asynchronously(path: str) -> None:
    middleware = import_string(path)
    assert getattr(middleware, "async_capable", False), f"{path} is synchronous only"
