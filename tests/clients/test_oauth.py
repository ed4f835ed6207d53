"""OAuth 2 for third-party apps (docs/clients.md, "OAuth 2"): the authorization code flow
with PKCE required (S256 only), the finer scopes on the API, consent denied, revocation
(RFC 7009), the toolkit's tokens beside personal tokens, and the bounded prune."""

from __future__ import annotations

import base64
import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from oauth2_provider.models import AccessToken, Grant, RefreshToken
from rest_framework.test import APIClient

from accounts.services.export import account_export
from clients.scopes import ACCESS_PREFIX
from clients.services.oauth import (
    access_revoke,
    authorized_apps,
    oauth_forget,
    redirect_uris_parse,
)
from clients.services.retention import oauth_prune
from games.services.errors import GameError
from games.services.retention import Budget
from tests.api.helpers import code_of, error_of, url
from tests.clients.helpers import token_client
from tests.clients.oauth_helpers import (
    REDIRECT_URI,
    app_tokens,
    authorize_query,
    bearer,
    consent,
    exchange,
    pkce_pair,
    redirect_params,
    register,
)

pytestmark = pytest.mark.django_db


def _signed_in(user: object) -> Client:
    page = Client()
    page.force_login(user)
    return page


def _draw(client: APIClient, game: object) -> object:
    version = game.version  # type: ignore[attr-defined]
    body = {"actions": [{"type": "draw"}], "expected_version": version}
    return client.post(url(game, "actions"), body, format="json")


def test_a_public_app_gets_a_token_with_pkce_and_reads_with_it(users, game):
    app = register(users["carol"])
    tokens = app_tokens(users["alice"], app, "read play")

    assert tokens["access_token"].startswith(ACCESS_PREFIX)
    assert tokens["refresh_token"] and tokens["token_type"] == "Bearer"
    assert set(tokens["scope"].split()) == {"read", "play"}
    client = bearer(tokens["access_token"])
    assert client.get(url(game)).json()["my_seat"] == 0
    # The toolkit keeps only the token's checksum (RFC 9700 §4, hashed storage).
    assert tokens["access_token"] not in str(list(AccessToken.objects.values()))


def test_the_consent_page_names_the_app_and_its_scopes_in_the_players_language(users):
    app = register(users["carol"], name="Skýjaspil")
    page = _signed_in(users["alice"])
    _, challenge = pkce_pair()
    english = page.get(authorize_query(app, challenge, scope="read chat"))
    german = page.get(authorize_query(app, challenge, scope="read chat"), HTTP_ACCEPT_LANGUAGE="de")

    text = english.content.decode()
    assert english.status_code == 200 and "Skýjaspil" in text
    assert 'data-scope="read"' in text and 'data-scope="chat"' in text
    assert 'data-scope="play"' not in text
    assert "Write in the chat of your games" in text
    assert german.status_code == 200


def test_signed_out_the_consent_page_sends_to_the_sign_in_and_back(users):
    app = register(users["carol"])
    _, challenge = pkce_pair()
    query = authorize_query(app, challenge, scope="read")

    response = Client().get(query)

    assert response.status_code == 302
    assert response["Location"].startswith("/login/?next=")


def test_a_code_request_without_a_code_challenge_is_refused(users):
    app = register(users["carol"])
    response = _signed_in(users["alice"]).get(authorize_query(app, None, scope="read"))

    # The redirect address is known: the refusal goes back to the app (RFC 6749 §4.1.2.1).
    assert response.status_code == 302
    params = redirect_params(response)
    assert params["error"] == "invalid_request" and params["state"] == "xyz"
    assert not Grant.objects.exists()


def test_the_plain_pkce_method_is_refused(users):
    app = register(users["carol"])
    page = _signed_in(users["alice"])
    verifier = "v" * 50
    query = authorize_query(app, None, scope="read", code_challenge=verifier)
    shown = page.get(query + "&code_challenge_method=plain")
    # The toolkit refuses it when the code would be made (COMPLIANT_BCP_RFC9700_PKCE_METHOD).
    form = shown.context["form"]
    data = {key: value for key, value in form.initial.items() if value is not None}
    answered = page.post("/oauth/authorize/", {**data, "allow": "1"})
    params = redirect_params(answered)
    assert params["error"] == "invalid_request" and "S256" in params["error_description"]
    assert not Grant.objects.exists()


def test_a_wrong_code_verifier_gets_no_token(users):
    app = register(users["carol"])
    _, challenge = pkce_pair()
    params = redirect_params(consent(_signed_in(users["alice"]), app, challenge, scope="read"))

    response = exchange(app, params["code"], "not-the-verifier-" + "x" * 40)

    assert response.status_code == 400 and response.json()["error"] == "invalid_grant"
    assert not AccessToken.objects.exists()


def test_a_denied_consent_sends_access_denied_back_and_gives_nothing(users):
    app = register(users["carol"])
    _, challenge = pkce_pair()

    response = consent(_signed_in(users["alice"]), app, challenge, scope="read", allow=False)

    assert redirect_params(response)["error"] == "access_denied"
    assert not Grant.objects.exists() and not AccessToken.objects.exists()


def test_a_confidential_app_must_prove_its_secret(users):
    app = register(users["carol"], confidential=True)
    assert app.plain_secret and app.client_secret != app.plain_secret  # stored hashed
    verifier, challenge = pkce_pair()
    params = redirect_params(consent(_signed_in(users["alice"]), app, challenge, scope="read"))
    secret, app.plain_secret = app.plain_secret, "wrong"

    assert exchange(app, params["code"], verifier).status_code == 401
    app.plain_secret = secret
    verifier, challenge = pkce_pair()
    params = redirect_params(consent(_signed_in(users["alice"]), app, challenge, scope="read"))
    assert exchange(app, params["code"], verifier).status_code == 200


def test_each_scope_opens_its_own_part_of_the_api(users, game):
    app = register(users["carol"])
    reader = bearer(app_tokens(users["alice"], app, "read")["access_token"])

    error = error_of(_draw(reader, game), 403)
    assert error["code"] == "insufficient_scope"
    assert error["details"] == {"required": "play", "granted": ["read"]}
    chat = url(game, "chat")
    assert code_of(reader.post(chat, {"text": "hi"}, format="json"), 403) == "insufficient_scope"
    assert code_of(reader.get("/api/v1/webhooks/"), 403) == "insufficient_scope"
    assert code_of(reader.get("/api/v1/me/preferences/"), 403) == "insufficient_scope"
    assert code_of(reader.get("/api/v1/me/"), 403) == "insufficient_scope"
    assert reader.get(chat).status_code == 200

    player = bearer(app_tokens(users["alice"], app, "play")["access_token"])
    assert _draw(player, game).status_code == 200
    assert code_of(player.get(url(game)), 403) == "insufficient_scope"
    assert code_of(player.post(chat, {"text": "hi"}, format="json"), 403) == ("insufficient_scope")

    talker = bearer(app_tokens(users["alice"], app, "read chat")["access_token"])
    assert talker.post(chat, {"text": "hello from an app"}, format="json").status_code == 201

    hooks = bearer(app_tokens(users["alice"], app, "webhooks")["access_token"])
    assert hooks.get("/api/v1/webhooks/").status_code == 200


def test_the_account_scope_reads_the_account_but_never_holds_it(users):
    app = register(users["carol"])
    account = bearer(app_tokens(users["alice"], app, "account")["access_token"])

    assert account.get("/api/v1/me/").status_code == 200
    assert account.get("/api/v1/me/preferences/").status_code == 200
    assert account.get("/api/v1/tokens/").status_code == 200
    # The address, a new token, the password, the export, deleting: the holder's own acts.
    assert account.patch("/api/v1/me/", {"email": "x@example.com"}, format="json").status_code == (
        403
    )
    assert account.post("/api/v1/tokens/", {"name": "x"}, format="json").status_code == 403
    assert account.get("/api/v1/me/export/").status_code == 403
    body = {"old_password": "x", "new_password": "y"}
    assert account.post("/api/v1/auth/password/", body, format="json").status_code == 403
    assert account.post("/api/v1/me/delete/", {}, format="json").status_code == 403


def test_personal_tokens_keep_their_meaning(users, game):
    # read: every GET; play: every other method a personal token may use, chat included.
    reader = token_client(users["alice"], ["read"])
    assert reader.get("/api/v1/webhooks/").status_code == 200
    assert code_of(_draw(reader, game), 403) == "insufficient_scope"
    player = token_client(users["alice"], ["read", "play"])
    chat = url(game, "chat")
    assert player.post(chat, {"text": "still chatting"}, format="json").status_code == 201
    assert player.get("/api/v1/me/preferences/").status_code == 200
    hook = player.post("/api/v1/webhooks/", {"url": "https://x.example/h"}, format="json")
    assert hook.status_code != 403, hook.content


def test_an_unknown_or_revoked_oauth_token_is_401(users, game):
    app = register(users["carol"])
    tokens = app_tokens(users["alice"], app, "read")
    assert code_of(bearer(ACCESS_PREFIX + "nope").get(url(game)), 401) == "authentication_failed"

    revoked = Client().post(
        "/oauth/revoke/",
        {"token": tokens["access_token"], "client_id": app.client_id},
    )

    assert revoked.status_code == 200
    assert code_of(bearer(tokens["access_token"]).get(url(game)), 401) == "authentication_failed"


def test_revoking_the_refresh_token_ends_the_whole_grant(users, game):
    app = register(users["carol"])
    tokens = app_tokens(users["alice"], app, "read")

    revoked = Client().post(
        "/oauth/revoke/",
        {
            "token": tokens["refresh_token"],
            "token_type_hint": "refresh_token",
            "client_id": app.client_id,
        },
    )

    assert revoked.status_code == 200
    assert code_of(bearer(tokens["access_token"]).get(url(game)), 401) == "authentication_failed"
    again = Client().post(
        "/oauth/token/",
        {
            "grant_type": "refresh_token",
            "refresh_token": tokens["refresh_token"],
            "client_id": app.client_id,
        },
    )
    assert again.status_code == 400


def test_a_refresh_rotates_the_refresh_token(users, game):
    app = register(users["carol"])
    tokens = app_tokens(users["alice"], app, "read")
    body = {
        "grant_type": "refresh_token",
        "refresh_token": tokens["refresh_token"],
        "client_id": app.client_id,
    }

    fresh = Client().post("/oauth/token/", body)

    assert fresh.status_code == 200
    renewed = fresh.json()
    assert renewed["refresh_token"] != tokens["refresh_token"]
    assert bearer(renewed["access_token"]).get(url(game)).status_code == 200
    # The old refresh token replayed: refused, and its whole family revoked (RFC 9700 §4.14).
    assert Client().post("/oauth/token/", body).status_code == 400
    assert bearer(renewed["access_token"]).get(url(game)).status_code == 401


def test_redirect_addresses_are_https_or_loopback(users):
    assert redirect_uris_parse("https://a.example/cb\nhttp://127.0.0.1:8123/cb") == [
        "https://a.example/cb",
        "http://127.0.0.1:8123/cb",
    ]
    for bad in ("http://a.example/cb", "ftp://a.example/", "https://a.example/#x", "", "x"):
        with pytest.raises(GameError):
            redirect_uris_parse(bad)


def test_the_apps_page_registers_lists_and_deletes_an_app(users):
    page = _signed_in(users["carol"])
    shown = page.post(
        "/account/apps/",
        {
            "form": "register",
            "name": "My table bot",
            "redirect_uris": "https://bot.example/cb",
            "confidential": "1",
        },
    )

    assert shown.status_code == 200 and shown["Cache-Control"] == "no-store"
    app = shown.context["new_app"]
    assert shown.context["secret"] and app.client_id in shown.content.decode()
    listed = page.get("/account/apps/").content.decode()
    assert "My table bot" in listed and shown.context["secret"] not in listed
    refused = page.post(
        "/account/apps/",
        {"form": "register", "name": "x", "redirect_uris": "http://bot.example/cb"},
    )
    assert refused.status_code == 400
    assert _signed_in(users["bob"]).post("/account/apps/", {"form": "delete", "app": app.pk})
    assert type(app).objects.filter(pk=app.pk).exists()  # not bob's to delete

    page.post("/account/apps/", {"form": "delete", "app": app.pk})

    assert not type(app).objects.filter(pk=app.pk).exists()


def test_the_apps_page_lists_authorized_apps_and_revokes_their_access(users, game):
    app = register(users["carol"], name="Helper")
    tokens = app_tokens(users["alice"], app, "read play")
    page = _signed_in(users["alice"])

    shown = page.get("/account/apps/")

    [entry] = authorized_apps(user=users["alice"])
    assert entry.application.pk == app.pk and entry.scopes == ["read", "play"]
    text = shown.content.decode()
    assert "Helper" in text and 'data-scope="play"' in text

    page.post("/account/apps/", {"form": "revoke", "app": app.pk})

    assert authorized_apps(user=users["alice"]) == []
    assert bearer(tokens["access_token"]).get(url(game)).status_code == 401
    assert RefreshToken.objects.filter(revoked__isnull=True).count() == 0
    assert access_revoke(user=users["alice"], app_id=app.pk) == 0


def test_the_prune_clears_expired_codes_and_tokens_in_chunks(users, settings):
    settings.CANASTA_PRUNE_CHUNK = 1
    app = register(users["carol"])
    app_tokens(users["alice"], app, "read")
    kept = app_tokens(users["bob"], app, "read")
    long_ago = timezone.now() - timedelta(days=40)
    # An unused code past its minute, and alice's grant revoked long ago.
    Grant.objects.create(
        user=users["dave"],
        application=app,
        code="c",
        expires=timezone.now() - timedelta(minutes=1),
        redirect_uri="https://app.example/callback",
        scope="read",
        code_challenge="x" * 43,
        code_challenge_method="S256",
    )
    RefreshToken.objects.filter(user=users["alice"]).update(revoked=long_ago)
    AccessToken.objects.filter(user=users["alice"]).update(expires=long_ago)

    pruned = oauth_prune(budget=Budget())

    assert pruned.done and pruned.deleted == 3
    assert not Grant.objects.exists()
    assert not AccessToken.objects.filter(user=users["alice"]).exists()
    assert not RefreshToken.objects.filter(user=users["alice"]).exists()
    # bob's live grant stays, and works.
    assert bearer(kept["access_token"]).get("/api/v1/games/").status_code == 200
    assert oauth_prune(budget=Budget()).deleted == 0


def test_the_code_comes_with_the_issuer_and_the_server_publishes_its_metadata(users):
    app = register(users["carol"])
    _, challenge = pkce_pair()
    params = redirect_params(consent(_signed_in(users["alice"]), app, challenge, scope="read"))

    metadata = Client().get("/.well-known/oauth-authorization-server")

    assert metadata.status_code == 200
    document = metadata.json()
    assert params["iss"] == document["issuer"]
    assert document["authorization_endpoint"].endswith("/oauth/authorize/")
    assert document["token_endpoint"].endswith("/oauth/token/")
    assert document["code_challenge_methods_supported"] == ["S256"]


def test_a_confidential_app_introspects_a_token(users):
    app = register(users["carol"], confidential=True)
    tokens = app_tokens(users["alice"], app, "read play")
    credentials = base64.b64encode(f"{app.client_id}:{app.plain_secret}".encode()).decode()

    answer = Client().post(
        "/oauth/introspect/",
        {"token": tokens["access_token"]},
        HTTP_AUTHORIZATION=f"Basic {credentials}",
    )

    assert answer.status_code == 200, answer.content
    assert answer.json()["active"] is True and answer.json()["scope"] == "read play"


def test_deleting_the_account_forgets_its_oauth_grants_and_apps(users):
    app = register(users["alice"])
    app_tokens(users["bob"], app, "read")
    other = register(users["carol"])
    app_tokens(users["alice"], other, "read")

    oauth_forget(user=users["alice"])

    assert not type(app).objects.filter(pk=app.pk).exists()
    assert not AccessToken.objects.exists() and not RefreshToken.objects.exists()


def test_an_unknown_app_gets_the_sites_error_page_not_a_redirect(users):
    _, challenge = pkce_pair()
    app = register(users["carol"])
    app.client_id = "no-such-app"

    response = _signed_in(users["alice"]).get(authorize_query(app, challenge, scope="read"))

    assert response.status_code == 400  # invalid_client_id, shown to the player
    assert "not a valid request for access" in response.content.decode()
    assert not Grant.objects.exists()


def test_an_app_reads_the_event_feed_with_read(users, game):
    app = register(users["carol"])
    reader = bearer(app_tokens(users["alice"], app, "read")["access_token"])

    response = reader.get("/api/v1/events/", {"after": 0, "wait": 0})

    assert response.status_code == 200, response.content
    assert "events" in response.json()


def test_the_export_lists_the_apps_registered_and_allowed_without_secrets(users):
    own = register(users["alice"], confidential=True, name="Alice's scorer")
    other = register(users["carol"])
    tokens = app_tokens(users["alice"], other, "read chat")

    exported = account_export(user=users["alice"])["apps"]

    assert [a["name"] for a in exported["registered"]] == ["Alice's scorer"]
    assert exported["registered"][0]["client_id"] == own.client_id
    assert exported["registered"][0]["redirect_uris"] == [REDIRECT_URI]
    assert [(a["client_id"], a["scopes"]) for a in exported["allowed"]] == [
        (other.client_id, ["read", "chat"])
    ]
    text = json.dumps(exported)
    assert own.plain_secret not in text
    assert tokens["access_token"] not in text and tokens["refresh_token"] not in text
