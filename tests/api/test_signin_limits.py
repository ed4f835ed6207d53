"""One limiter for every door that takes a password (issue 26, finding 2): the API token,
the pages' sign-in, the browsable API's and the admin's. Per account and per client
address, with a wait that doubles; while it waits the right password is refused too."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client, RequestFactory

from api.signin import (
    DEVICE_COOKIE,
    DEVICE_NAMES_KEPT,
    FIRST_WAIT_SECONDS,
    LONGEST_WAIT_SECONDS,
    device_names,
    signin_wait,
    wait_after,
)
from tests.game_fixtures import PASSWORD

ACCOUNT_LIMIT = 10
ADDRESS_LIMIT = 30


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def victim(db) -> Any:
    return get_user_model().objects.create_user(
        username="victim", password=PASSWORD, is_staff=True, is_superuser=True
    )


def _api(client: Client, username: str, password: str) -> Any:
    return client.post(
        "/api/v1/auth/token/",
        {"username": username, "password": password},
        content_type="application/json",
        REMOTE_ADDR=client.address,
    )


def _page(path: str) -> Any:
    def sign_in(client: Client, username: str, password: str) -> Any:
        return client.post(
            path, {"username": username, "password": password}, REMOTE_ADDR=client.address
        )

    return sign_in


DOORS = {
    "api_token": (_api, 200),
    "login_page": (_page("/login/"), 302),
    "browsable_api_login": (_page("/api-auth/login/"), 302),
    "admin_login": (_page("/admin/login/"), 302),
}


def _client(address: str = "203.0.113.7") -> Client:
    client = Client()
    client.address = address  # type: ignore[attr-defined]
    return client


@pytest.mark.parametrize("door", sorted(DOORS))
def test_each_door_stops_guessing_one_account_and_refuses_even_the_right_password(victim, door):
    sign_in, success = DOORS[door]
    guesser = _client()
    for attempt in range(ACCOUNT_LIMIT):
        response = sign_in(guesser, "victim", f"wrong-{attempt}")
        assert response.status_code in (200, 400), (attempt, response.status_code)
    refused = sign_in(guesser, "victim", PASSWORD)
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) == FIRST_WAIT_SECONDS
    # The account waits for every address (a guesser changes addresses too) ...
    assert sign_in(_client("198.51.100.9"), "victim", PASSWORD).status_code == 429
    # ... and another account is not concerned.
    get_user_model().objects.create_user(username="other", password=PASSWORD, is_staff=True)
    assert sign_in(_client("198.51.100.9"), "other", PASSWORD).status_code == success


@pytest.mark.parametrize("door", sorted(DOORS))
def test_each_door_stops_one_address_guessing_many_accounts(victim, door):
    sign_in, success = DOORS[door]
    spray = _client()
    for attempt in range(ADDRESS_LIMIT):
        sign_in(spray, f"nobody{attempt % 25}", "wrong")
    assert sign_in(spray, "victim", PASSWORD).status_code == 429
    assert sign_in(_client("198.51.100.9"), "victim", PASSWORD).status_code == success


def test_the_doors_share_one_count(victim):
    doors = [sign_in for sign_in, _ in DOORS.values()]
    guesser = _client()
    for attempt in range(ACCOUNT_LIMIT):
        doors[attempt % len(doors)](guesser, "Victim", "wrong")  # any case of the name
    assert all(sign_in(guesser, "victim", PASSWORD).status_code == 429 for sign_in in doors)


def test_the_api_refusal_has_the_error_shape(victim):
    guesser = _client()
    for _ in range(ACCOUNT_LIMIT):
        _api(guesser, "victim", "wrong")
    body = _api(guesser, "victim", PASSWORD).json()
    assert body["error"]["code"] == "throttled"
    assert body["error"]["details"] == {"retry_after": FIRST_WAIT_SECONDS}


def test_the_wait_doubles_with_every_further_failure_up_to_an_hour(victim, monkeypatch):
    assert [wait_after(n, 10) for n in (9, 10, 11, 12, 20)] == [0, 60, 120, 240, 3600]
    assert wait_after(10_000, 10) == LONGEST_WAIT_SECONDS
    clock = {"now": 1_000_000.0}
    monkeypatch.setattr("api.signin.time.time", lambda: clock["now"])
    guesser = _client()
    for _ in range(ACCOUNT_LIMIT):
        _api(guesser, "victim", "wrong")
    request = RequestFactory().post("/login/", REMOTE_ADDR=guesser.address)
    assert signin_wait(request, "victim", clock["now"]) == FIRST_WAIT_SECONDS
    clock["now"] += FIRST_WAIT_SECONDS + 1  # the wait is over: one more guess
    assert _api(guesser, "victim", "wrong").status_code == 400
    assert _api(guesser, "victim", PASSWORD).status_code == 429
    assert signin_wait(request, "victim", clock["now"]) == 2 * FIRST_WAIT_SECONDS
    clock["now"] += 2 * FIRST_WAIT_SECONDS + 1
    assert _api(guesser, "victim", PASSWORD).status_code == 200  # and the count is forgotten
    assert signin_wait(request, "victim", clock["now"]) == 0


def _sign_out(client: Client) -> None:
    """The session ends, the browser's other cookies stay (Client.logout drops them all)."""
    del client.cookies[settings.SESSION_COOKIE_NAME]


def test_a_browser_that_signed_in_before_is_not_locked_out_by_a_strangers_guesses(victim):
    """Known devices: the account's lock holds for strangers, not for the player's own
    browser, whose failures count on the browser's own key (docs/accounts.md)."""
    player = _client("198.51.100.9")
    assert _page("/login/")(player, "victim", PASSWORD).status_code == 302
    assert DEVICE_COOKIE in player.cookies
    _sign_out(player)
    guesser = _client()
    for attempt in range(ACCOUNT_LIMIT):
        _api(guesser, "victim", f"wrong-{attempt}")
    assert _api(guesser, "victim", PASSWORD).status_code == 429
    assert _page("/login/")(_client("192.0.2.4"), "victim", PASSWORD).status_code == 429
    assert _page("/login/")(player, "victim", PASSWORD).status_code == 302
    _sign_out(player)
    # The player's browser has a limit of its own: a stolen cookie buys no more guesses.
    for attempt in range(ACCOUNT_LIMIT):
        _page("/login/")(player, "victim", f"wrong-{attempt}")
    assert _page("/login/")(player, "victim", PASSWORD).status_code == 429


def test_a_forged_or_foreign_device_cookie_counts_as_none(victim):
    guesser = _client()
    guesser.cookies[DEVICE_COOKIE] = "victim"  # unsigned
    for attempt in range(ACCOUNT_LIMIT):
        _api(guesser, "victim", f"wrong-{attempt}")
    assert _api(guesser, "victim", PASSWORD).status_code == 429
    other = get_user_model().objects.create_user(username="other", password=PASSWORD)
    assert other.pk
    neighbour = _client("192.0.2.5")
    assert _page("/login/")(neighbour, "other", PASSWORD).status_code == 302
    _sign_out(neighbour)
    # A browser known for another account is a stranger to this one.
    assert _page("/login/")(neighbour, "victim", PASSWORD).status_code == 429


def test_a_shared_browser_remembers_a_few_accounts(victim):
    tablet = _client("198.51.100.9")
    names = [f"family{n}" for n in range(DEVICE_NAMES_KEPT + 1)]
    for name in names:
        get_user_model().objects.create_user(username=name, password=PASSWORD)
        assert _page("/login/")(tablet, name, PASSWORD).status_code == 302
        _sign_out(tablet)
    request = RequestFactory().get("/")
    request.COOKIES[DEVICE_COOKIE] = tablet.cookies[DEVICE_COOKIE].value
    remembered = device_names(request)
    assert list(remembered) == [name.casefold() for name in reversed(names)][:DEVICE_NAMES_KEPT]


def test_the_sign_in_page_says_why_it_waits_in_the_players_language(victim):
    guesser = _client()
    for attempt in range(ACCOUNT_LIMIT):
        _page("/login/")(guesser, "victim", f"wrong-{attempt}")
    page = guesser.post(
        "/login/",
        {"username": "victim", "password": PASSWORD},
        REMOTE_ADDR=guesser.address,
        HTTP_ACCEPT_LANGUAGE="de",
    )
    assert page.status_code == 429
    assert page["Retry-After"] == str(FIRST_WAIT_SECONDS)
    assert page["Content-Type"].startswith("text/html")
    text = page.content.decode()
    assert "Bitte versuchen Sie es in 1 Minute erneut." in text
    assert 'name="password"' in text  # the form, to try again once the wait is over


def test_a_program_without_cookies_keeps_its_device_in_the_token_answer(victim):
    """A client that keeps no cookies is not locked out by a stranger either: the token answer
    gives it its device value, and the next sign-in offers it in the body."""
    program = _client("198.51.100.9")
    first = _api(program, "victim", PASSWORD).json()
    device = first["device"]
    program.cookies.clear()  # the program keeps no cookie, only what the body said
    guesser = _client()
    for attempt in range(ACCOUNT_LIMIT):
        _api(guesser, "victim", f"wrong-{attempt}")
    assert _api(program, "victim", PASSWORD).status_code == 429  # without its device
    again = program.post(
        "/api/v1/auth/token/",
        {"username": "victim", "password": PASSWORD, "device": device},
        content_type="application/json",
        REMOTE_ADDR=program.address,
    )
    assert again.status_code == 200
    assert again.json()["device"]
    # A value the service did not give, or one given for another account, counts as none.
    for forged in ("victim", device[:-2] + "xx"):
        refused = guesser.post(
            "/api/v1/auth/token/",
            {"username": "victim", "password": PASSWORD, "device": forged},
            content_type="application/json",
            REMOTE_ADDR=guesser.address,
        )
        assert refused.status_code == 429


def test_a_wrong_password_gives_no_device(victim):
    answer = _api(_client(), "victim", "wrong")
    assert answer.status_code == 400
    assert "device" not in answer.json()
    assert DEVICE_COOKIE not in answer.cookies
