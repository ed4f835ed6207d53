import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import caches
from django.core.cache.backends.locmem import LocMemCache
from django.utils import translation
from hypothesis import settings

# Tests never assert wall-clock time, and a Hypothesis deadline is one: off everywhere.
settings.register_profile("dev", deadline=None)
settings.register_profile("ci", deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

INTEGRATION_DIR = Path(__file__).resolve().parent / "integration"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Everything under tests/integration/ needs the services, marked or not, so the default
    # (`-m "not integration"`) run never picks it up by accident.
    for item in items:
        if INTEGRATION_DIR in item.path.parents:
            item.add_marker(pytest.mark.integration)


@pytest.fixture(autouse=True)
def turn_emails_at_once(settings: Any) -> None:
    # The site's default delay of turn and hand-over emails (they wait for the player to look
    # at the game first, notifications/services/presence.py) is minutes; tests about other
    # things see their emails at once. Tests of the delay set it themselves.
    settings.CANASTA_TURN_EMAIL_DELAY_MINUTES = 0


@pytest.fixture(autouse=True)
def english_until_asked() -> Iterator[None]:
    # A request in German leaves German active in the thread (LocaleMiddleware activates, and
    # nothing deactivates after the response), so a later test that calls a service or a
    # form directly would read German: every test starts and ends in the default language.
    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def fresh_throttles() -> Iterator[None]:
    # Rate-limit counters live in the cache, keyed by user id or address, which repeat from
    # test to test: every test starts with a clean slate. Only the process-local cache of the
    # unit pass; the integration pass's Redis also holds the Celery queue, and its tests clear
    # what they use themselves.
    cache = caches["default"]
    local = isinstance(cache, LocMemCache)
    if local:
        cache.clear()
    yield
    if local:
        cache.clear()
