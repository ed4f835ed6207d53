"""Browser tests: Playwright drives Debian's Chromium (/usr/bin/chromium; nothing is
downloaded) against pytest-django's live server.

They run in the default `pytest` run when the browser is there and are skipped with a message
when it is not; with CANASTA_REQUIRE_SERVICES=1 (CI) a missing browser is a failure.
Screenshots go to var/screenshots/ (CANASTA_SCREENSHOTS overrides).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

# Playwright's sync API runs an event loop in this thread; Django's ORM refuses to run in a
# thread with a running loop unless told that this is deliberate.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("CANASTA_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
SCREENSHOTS = Path(
    os.environ.get("CANASTA_SCREENSHOTS")
    or Path(__file__).resolve().parents[2] / "var" / "screenshots"
)
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 740}


def _unavailable() -> str | None:
    if not os.access(CHROMIUM, os.X_OK):
        return f"no browser at {CHROMIUM} (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (requirements-dev.txt)"
    return None


@pytest.fixture(scope="session", autouse=True)
def one_request_at_a_time() -> Iterator[None]:
    """The live server answers one request at a time.

    The in-memory test database is one SQLite connection, shared by the tests and by every
    thread of the live server; two requests at once (a page's poll during a move) would use
    it together and fail with "database table is locked". In production each request has a
    connection of its own. Without threads the server closes each connection after its
    answer (Django's ServerHandler), so a browser never waits on a kept-alive one.
    """
    from django.core.servers.basehttp import WSGIServer
    from django.test.testcases import LiveServerThread

    class OneAtATimeServer(WSGIServer):
        def __init__(self, *args: Any, connections_override: Any = None, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)

    threaded = LiveServerThread.server_class
    LiveServerThread.server_class = OneAtATimeServer
    yield
    LiveServerThread.server_class = threaded


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    reason = _unavailable()
    if reason is not None:
        if os.environ.get("CANASTA_REQUIRE_SERVICES") == "1":
            pytest.fail(f"browser tests cannot run: {reason} (CANASTA_REQUIRE_SERVICES=1)")
        pytest.skip(f"browser tests SKIPPED: {reason}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def new_page(browser: Any, live_server: Any) -> Iterator[Any]:
    """Make pages in fresh browser contexts (one per person): `new_page(viewport=PHONE)`."""
    contexts = []

    def make(
        viewport: dict[str, int] | None = None, *, user: Any = None, javascript: bool = True
    ) -> Any:
        context = browser.new_context(
            viewport=viewport or DESKTOP,
            base_url=live_server.url,
            locale="en-GB",
            java_script_enabled=javascript,
        )
        context.set_default_timeout(15_000)
        contexts.append(context)
        if user is not None:
            # Signed in without the sign-in page (that page has its own tests): the session
            # cookie Django's test client makes.
            client = Client()
            client.force_login(user)
            cookie = client.cookies[settings.SESSION_COOKIE_NAME]
            context.add_cookies(
                [{"name": cookie.key, "value": cookie.value, "url": live_server.url}]
            )
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def screenshot() -> Any:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(page: Any, name: str, *, full_page: bool = True) -> Path:
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=full_page)
        return path

    return take


@pytest.fixture(autouse=True)
def fast_password_hashing(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def quick_polling(settings: Any) -> None:
    # Pages notice other players' moves within half a second instead of four.
    settings.CANASTA_WEB_POLL_SECONDS = 0.5


@pytest.fixture(autouse=True)
def background_work_in_process(settings: Any) -> Iterator[None]:
    """Celery tasks (bot turns, emails) run in the server's thread as they are sent, so no
    broker is needed and the bots have moved when a move's response arrives; mail stays in
    memory."""
    from canasta_site.celery import app

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before
