"""The OAuth 2 authorization code flow with PKCE, driven through Django's test client: the
consent page, the token endpoint; shared by the OAuth tests (the browser test drives the same
pages in Chromium)."""

from __future__ import annotations

import base64
import hashlib
import secrets
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from django.test import Client
from rest_framework.test import APIClient

from clients.services.oauth import app_register

REDIRECT_URI = "https://app.example/callback"


def pkce_pair() -> tuple[str, str]:
    """A code verifier and its S256 challenge (RFC 7636 §4.1, §4.2)."""
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def register(owner: Any, *, confidential: bool = False, name: str = "Table bot") -> Any:
    app, secret = app_register(
        owner=owner, name=name, redirect_uris=[REDIRECT_URI], confidential=confidential
    )
    app.plain_secret = secret
    return app


def authorize_query(app: Any, challenge: str | None, *, scope: str, **extra: str) -> str:
    params = {
        "response_type": "code",
        "client_id": app.client_id,
        "redirect_uri": REDIRECT_URI,
        "scope": scope,
        "state": "xyz",
        **extra,
    }
    if challenge is not None:
        params.update(code_challenge=challenge, code_challenge_method="S256")
    return "/oauth/authorize/?" + urlencode(params)


def redirect_params(response: Any) -> dict[str, str]:
    """The query of a redirect to the app (the code and state, or the error)."""
    location = response["Location"]
    assert location.startswith(REDIRECT_URI), location
    return {key: values[0] for key, values in parse_qs(urlsplit(location).query).items()}


def consent(page: Client, app: Any, challenge: str, *, scope: str, allow: bool = True) -> Any:
    """Open the consent page and answer it; the response redirects to the app."""
    shown = page.get(authorize_query(app, challenge, scope=scope))
    assert shown.status_code == 200, shown.content[:500]
    form = shown.context["form"]
    data = {name: value for name, value in form.initial.items() if value is not None}
    if allow:
        data["allow"] = "1"
    return page.post("/oauth/authorize/", data)


def exchange(app: Any, code: str, verifier: str) -> Any:
    body = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": REDIRECT_URI,
        "client_id": app.client_id,
        "code_verifier": verifier,
    }
    if getattr(app, "plain_secret", None):
        body["client_secret"] = app.plain_secret
    return Client().post("/oauth/token/", body)


def app_tokens(user: Any, app: Any, scope: str) -> dict[str, Any]:
    """The whole flow for `user`: consent, then the code for tokens (the token response)."""
    page = Client()
    page.force_login(user)
    verifier, challenge = pkce_pair()
    params = redirect_params(consent(page, app, challenge, scope=scope))
    response = exchange(app, params["code"], verifier)
    assert response.status_code == 200, response.content
    return dict(response.json())


def bearer(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client
