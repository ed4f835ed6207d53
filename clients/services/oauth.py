"""OAuth 2 apps (django-oauth-toolkit's models; docs/clients.md, "OAuth 2"): a player registers
apps, lists and deletes them; lists the apps they gave access to and takes that access back.

Every app uses the authorization code grant with PKCE (the toolkit requires it of every
client: OAUTH2_PROVIDER["PKCE_REQUIRED"]). A confidential app (a server) also proves its
secret at the token endpoint; a public one (a phone or desktop app, a page) cannot keep one.
The secret is stored hashed: it is shown once, when the app is registered.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from oauth2_provider.models import AccessToken, Application, Grant, RefreshToken

from clients.scopes import SCOPES
from games.services.errors import ErrorKind, refused

# RFC 8252 §7.3: a native app listens on the loopback address over plain http (any port).
LOOPBACK_HOSTS = ("127.0.0.1", "::1")
MAX_REDIRECT_URIS = 5
MAX_REDIRECT_URI_LENGTH = 500


@dataclass(frozen=True)
class AuthorizedApp:
    """An app that holds live tokens of a user: what it may do, since when."""

    application: Any
    scopes: list[str]
    since: datetime


def _checked_redirect_uri(uri: str) -> str:
    """An https address, or http on the loopback address (a native app); no fragment."""
    parts = urlsplit(uri)
    loopback = parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS
    if not (parts.scheme == "https" or loopback) or not parts.hostname or parts.fragment:
        raise refused(ErrorKind.INVALID, "redirect_uri_unsafe", {"uri": uri[:100]})
    return uri


def redirect_uris_parse(text: str) -> list[str]:
    """The redirect addresses of a registration, one per line (or separated by spaces)."""
    uris = list(dict.fromkeys(text.split()))
    if not uris or len(uris) > MAX_REDIRECT_URIS:
        raise refused(
            ErrorKind.INVALID,
            "redirect_uris_count",
            {"limit": MAX_REDIRECT_URIS},
            limit=MAX_REDIRECT_URIS,
        )
    if any(len(uri) > MAX_REDIRECT_URI_LENGTH for uri in uris):
        raise refused(ErrorKind.INVALID, "redirect_uri_too_long", limit=MAX_REDIRECT_URI_LENGTH)
    return [_checked_redirect_uri(uri) for uri in uris]


def app_register(
    *, owner: Any, name: str, redirect_uris: list[str], confidential: bool
) -> tuple[Any, str | None]:
    """A new app of `owner`, and its client secret for a confidential app (the only time it
    is shown: the toolkit stores it hashed)."""
    name = name.strip()[:100]
    if not name:
        raise refused(ErrorKind.INVALID, "app_needs_name")
    limit = settings.CANASTA_OAUTH_APPS_PER_USER
    if Application.objects.filter(user=owner).count() >= limit:
        raise refused(ErrorKind.INVALID, "too_many_apps", {"limit": limit}, limit=limit)
    app = Application(
        user=owner,
        name=name,
        redirect_uris=" ".join(_checked_redirect_uri(uri) for uri in redirect_uris),
        client_type=(
            Application.CLIENT_CONFIDENTIAL if confidential else Application.CLIENT_PUBLIC
        ),
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        skip_authorization=False,
    )
    # The field's default made the secret; saving replaces it by its hash.
    secret = str(app.client_secret)
    try:
        app.full_clean()
    except ValidationError as error:
        raise refused(ErrorKind.INVALID, "app_invalid", problems=" ".join(error.messages)) from None
    app.save()
    return app, (secret if confidential else None)


def apps_of(*, owner: Any) -> list[Any]:
    return list(Application.objects.filter(user=owner).order_by("-created", "-id"))


def app_delete(*, owner: Any, app_id: int) -> Any:
    """Delete an app of `owner`: every grant and token it holds goes with it (CASCADE)."""
    app = Application.objects.filter(pk=app_id, user=owner).first()
    if app is None:
        raise refused(ErrorKind.NOT_FOUND, "no_such_app")
    app.delete()
    return app


def _live_tokens(user: Any) -> Any:
    """A user's access tokens that still work, or whose refresh token can make new ones."""
    now = timezone.now()
    alive = Q(expires__gt=now) | Q(refresh_token__isnull=False, refresh_token__revoked__isnull=True)
    return AccessToken.objects.filter(alive, user=user).select_related("application")


def authorized_apps(*, user: Any) -> list[AuthorizedApp]:
    """The apps `user` gave access to that still hold it, with the scopes of their tokens."""
    found: dict[int, AuthorizedApp] = {}
    for token in _live_tokens(user).order_by("created"):
        app = token.application
        if app is None:
            continue
        known = found.get(app.pk)
        scopes = set(token.scope.split()) | set(known.scopes if known else [])
        found[app.pk] = AuthorizedApp(
            application=app,
            scopes=[name for name in SCOPES if name in scopes],
            since=known.since if known else token.created,
        )
    return list(found.values())


def access_revoke(*, user: Any, app_id: int) -> int:
    """Take back everything `user` gave the app: its refresh tokens are revoked, its access
    tokens and unused codes deleted. Returns how many tokens stopped working."""
    with transaction.atomic():
        refresh = RefreshToken.objects.filter(
            user=user, application_id=app_id, revoked__isnull=True
        )
        count = refresh.update(revoked=timezone.now())
        deleted, _ = AccessToken.objects.filter(user=user, application_id=app_id).delete()
        Grant.objects.filter(user=user, application_id=app_id).delete()
    return count + deleted


def oauth_forget(*, user: Any) -> None:
    """An account closed (accounts.services.deletion): every grant and token it gave apps,
    and the apps it registered (with the tokens other players gave them)."""
    RefreshToken.objects.filter(user=user).delete()
    AccessToken.objects.filter(user=user).delete()
    Grant.objects.filter(user=user).delete()
    Application.objects.filter(user=user).delete()
