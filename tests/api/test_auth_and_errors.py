import pytest
from rest_framework.throttling import SimpleRateThrottle

from tests.api.helpers import code_of, error_of, url
from tests.game_fixtures import PASSWORD, client_for


def test_it_registers_a_user_and_returns_a_working_token(db):
    client = client_for(None)

    response = client.post(
        "/api/v1/auth/register/", {"username": "zoe", "password": PASSWORD}, format="json"
    )

    assert response.status_code == 201
    token = response.json()["token"]
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get("/api/v1/games/").status_code == 200


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"username": "zoe", "password": "123"}, "password"),
        ({"username": "bad name!", "password": PASSWORD}, "username"),
        ({"username": "alice", "password": PASSWORD}, "username"),
        ({"password": PASSWORD}, "username"),
    ],
)
def test_it_refuses_an_invalid_registration(users, body, field):
    response = client_for(None).post("/api/v1/auth/register/", body, format="json")

    error = error_of(response, 400)
    assert error["code"] == "invalid_request"
    assert field in error["details"]["fields"]


def test_it_exchanges_credentials_for_a_new_account_token(users):
    client = client_for(None)

    response = client.post(
        "/api/v1/auth/token/", {"username": "alice", "password": PASSWORD}, format="json"
    )

    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"username", "id", "key", "token_id", "token", "device"}
    assert body["username"] == "alice"
    assert body["key"].startswith("cnsa_") and body["key"] != users["alice"].api_key
    # One name per thing (issue 29): `id`/`key` as under /tokens/; the old names stay for
    # the deprecation period, which the answer announces (RFC 9745, RFC 8594).
    assert (body["token_id"], body["token"]) == (body["id"], body["key"])
    assert response["Deprecation"] == "@1796083200"
    assert response["Sunset"] == "Tue, 01 Jun 2027 00:00:00 GMT"
    assert response["Cache-Control"] == "no-store"
    wrong = client.post(
        "/api/v1/auth/token/", {"username": "alice", "password": "x"}, format="json"
    )
    assert code_of(wrong, 400) == "invalid_credentials"
    assert code_of(client.post("/api/v1/auth/token/", {}, format="json"), 400) == "invalid_request"


def test_the_browsable_api_works_with_a_session(users, client):
    client.force_login(users["alice"])

    response = client.get("/api/v1/games/", HTTP_ACCEPT="text/html")

    assert response.status_code == 200
    assert b"Django REST framework" in response.content


def test_it_lists_the_engines_variants_to_anyone(db):
    from games import engine

    response = client_for(None).get("/api/v1/variants/")

    assert response.status_code == 200
    assert response.json() == engine.list_variants()


def test_a_bad_token_is_401_in_the_error_shape(db, game):
    client = client_for(None)
    client.credentials(HTTP_AUTHORIZATION="Token not-a-token")

    response = client.get(url(game))

    assert code_of(response, 401) == "authentication_failed"
    assert response["WWW-Authenticate"] == "Token"


@pytest.mark.parametrize(
    "path", ["/api/v1/nothing/", "/api/v2/games/", "/api/v1/games/not-a-uuid/"]
)
def test_unknown_api_urls_are_404_in_the_error_shape(clients, path):
    assert code_of(clients["alice"].get(path), 404) == "not_found"


def test_a_missing_slash_gets_a_hint(clients):
    error = error_of(clients["alice"].get("/api/v1/games"), 404)
    assert error["details"]["hint"].endswith("/api/v1/games/")


def test_an_unknown_game_is_404(clients):
    response = clients["alice"].get(url("00000000-0000-4000-8000-000000000000"))
    assert code_of(response, 404) == "not_found"


def test_a_wrong_method_is_405_in_the_error_shape(clients, game):
    assert code_of(clients["alice"].delete(url(game)), 405) == "method_not_allowed"


def test_malformed_json_is_400(clients, game):
    response = clients["alice"].post(
        url(game, "actions"), "{not json", content_type="application/json"
    )
    assert code_of(response, 400) == "malformed_request"


def test_an_unsupported_media_type_is_415(clients, game):
    response = clients["alice"].post(url(game, "actions"), "x", content_type="text/csv")
    assert code_of(response, 415) == "unsupported_media_type"


def test_a_server_error_under_the_api_is_json(clients, monkeypatch, settings):
    from django.test import Client

    from api.views import variants

    def explode(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(variants.engine, "list_variants", explode)
    response = Client(raise_request_exception=False).get("/api/v1/variants/")

    error = error_of(response, 500)
    assert error["code"] == "server_error"
    assert "boom" not in response.content.decode()


def test_a_request_refused_before_any_view_is_json_under_the_api(db, settings):
    from django.test import Client

    settings.ALLOWED_HOSTS = ["canasta.example"]
    client = Client(raise_request_exception=False)

    refused = client.get("/api/v1/variants/", HTTP_HOST="attacker.example")

    error = error_of(refused, 400)
    assert error["code"] == "bad_request"
    assert "attacker" not in refused.content.decode()
    page = client.get("/", HTTP_HOST="attacker.example")
    assert page.status_code == 400 and "json" not in page["Content-Type"]


def test_throttled_requests_get_429_with_retry_after(clients, monkeypatch):
    monkeypatch.setattr(
        SimpleRateThrottle, "THROTTLE_RATES", {"read": "3/min", "anon": "2/min", "auth": "2/min"}
    )

    for _ in range(3):
        assert clients["alice"].get("/api/v1/games/").status_code == 200
    response = clients["alice"].get("/api/v1/games/")

    error = error_of(response, 429)
    assert error["code"] == "throttled"
    assert int(response["Retry-After"]) > 0
    assert error["details"]["retry_after"] == int(response["Retry-After"])
    # Another user has their own allowance.
    assert clients["bob"].get("/api/v1/games/").status_code == 200


def test_sign_up_and_token_requests_are_throttled_per_address(db, monkeypatch):
    monkeypatch.setattr(
        SimpleRateThrottle,
        "THROTTLE_RATES",
        {"user": "100/min", "anon": "100/min", "auth": "2/min"},
    )
    client = client_for(None)

    for _ in range(2):
        client.post("/api/v1/auth/token/", {"username": "x", "password": "y"}, format="json")
    response = client.post("/api/v1/auth/token/", {"username": "x", "password": "y"}, format="json")

    assert code_of(response, 429) == "throttled"


@pytest.mark.parametrize(("num_proxies", "separate"), [(0, False), (1, True)])
def test_behind_a_proxy_the_address_limits_see_the_clients_address(
    db, monkeypatch, settings, num_proxies, separate
):
    monkeypatch.setattr(
        SimpleRateThrottle,
        "THROTTLE_RATES",
        {"user": "100/min", "anon": "100/min", "auth": "1/min"},
    )
    # 0, the default: a made-up X-Forwarded-For does not give a client a fresh limit.
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": num_proxies}
    client = client_for(None)
    body = {"username": "x", "password": "y"}

    first = client.post(
        "/api/v1/auth/token/", body, format="json", HTTP_X_FORWARDED_FOR="198.51.100.1"
    )
    other = client.post(
        "/api/v1/auth/token/", body, format="json", HTTP_X_FORWARDED_FOR="198.51.100.2"
    )

    assert first.status_code != 429
    assert (other.status_code != 429) is separate
