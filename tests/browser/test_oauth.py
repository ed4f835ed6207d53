"""OAuth 2 end to end, in a real browser (issue 29): a developer registers an app in Settings
→ Apps; a player follows the app's authorization link, signs in on the site's own page, reads
the consent page and allows; the browser is sent back to the app's address with a code
(caught here, as the app would), which the app exchanges at the token endpoint with its PKCE
verifier; with the access token it creates a match against a bot and plays its turns through
the API (examples/canasta_client.py, the client kit) until a whole turn was accepted.

Screenshots: var/screenshots/oauth-*.png.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from games.models import Game
from tests.browser.conftest import PHONE
from tests.clients.oauth_helpers import REDIRECT_URI, pkce_pair
from tests.clients.test_signing import load_example
from tests.game_fixtures import PASSWORD, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _register_app(new_page: Any, developer: Any, screenshot: Any) -> str:
    """The developer registers a public app through Settings → Apps; its client id."""
    page = new_page(user=developer)
    page.goto("/settings/")
    page.get_by_role("link", name="Apps").click()
    page.get_by_label("Name").fill("Table helper")
    page.get_by_label("Redirect addresses").fill(REDIRECT_URI)
    page.get_by_label("Public: a phone, desktop or browser app (no secret)").check()
    page.get_by_role("button", name="Register the app").click()
    client_id = page.locator("#new-client-id").inner_text().strip()
    assert client_id and page.locator("#new-secret").count() == 0  # public: no secret
    screenshot(page, "oauth-registered")
    return client_id


def _authorize_url(client_id: str, challenge: str) -> str:
    return "/oauth/authorize/?" + urlencode(
        {
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": REDIRECT_URI,
            "scope": "read play",
            "state": "s-42",
            "code_challenge": challenge,
            "code_challenge_method": "S256",
        }
    )


def _consent_in_browser(new_page: Any, client_id: str, challenge: str, screenshot: Any) -> str:
    """The player signs in and allows; the URL the browser was sent back to."""
    page = new_page(PHONE)
    # The app's own address: the browser's request to it is answered here, as the app would.
    page.route(f"{REDIRECT_URI}**", lambda route: route.fulfill(status=200, body="got it"))
    page.goto(_authorize_url(client_id, challenge))
    assert "/login/" in page.url  # signed out: the site's sign-in first
    page.get_by_label("Username").fill("player")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.locator("#consent-form").wait_for()
    assert "Table helper" in page.locator("h1").inner_text()
    scopes = page.locator("#scopes li")
    assert [scopes.nth(i).get_attribute("data-scope") for i in range(scopes.count())] == [
        "read",
        "play",
    ]
    assert not page.evaluate("document.documentElement.scrollWidth > window.innerWidth")
    screenshot(page, "oauth-consent")
    with page.expect_request(f"{REDIRECT_URI}**") as sent_back:
        page.locator("#allow").click()
    return str(sent_back.value.url)


def _post_form(url: str, body: dict[str, str]) -> dict[str, Any]:
    request = urllib.request.Request(
        url,
        data=urlencode(body).encode(),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return dict(json.load(response))


def test_an_app_gets_a_token_through_the_real_pages_and_plays(
    live_server: Any, new_page: Any, screenshot: Any
) -> None:
    developer = make_user("developer")
    make_user("player")
    client_id = _register_app(new_page, developer, screenshot)
    verifier, challenge = pkce_pair()

    back = urlsplit(_consent_in_browser(new_page, client_id, challenge, screenshot))
    params = {key: values[0] for key, values in parse_qs(back.query).items()}
    assert params["state"] == "s-42" and params["code"]
    tokens = _post_form(
        f"{live_server.url}/oauth/token/",
        {
            "grant_type": "authorization_code",
            "code": params["code"],
            "redirect_uri": REDIRECT_URI,
            "client_id": client_id,
            "code_verifier": verifier,
        },
    )
    assert tokens["token_type"] == "Bearer" and tokens["scope"] == "read play"

    kit = load_example("canasta_client")
    app = kit.CanastaClient(live_server.url, tokens["access_token"])
    created = app.create_game(players=2, bots=["basic"])
    game_id = created["id"]
    played = 0
    for _ in range(6):
        game = app.game(game_id)
        if game["status"] != "active" or played >= 2:
            break
        played += kit.play_turn(app, game_id, lambda message: None)
    game = Game.objects.get(pk=game_id)
    # A whole turn (a draw, then a meld or a discard) was accepted, or the match ended.
    assert played >= 2 or game.status != "active", played
    assert game.moves.filter(actor="player").exists()
