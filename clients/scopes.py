"""What OAuth 2 apps may be allowed to do: the scopes, in players' words, and which requests
each covers (docs/clients.md, "OAuth 2").

Scopes of an OAuth access token (granted on the consent page):

- `read`: see your games, moves, events and chat (every GET of the API, except the account);
- `play`: create, join and leave games, play moves, resign, invite (the lobby and the table);
- `chat`: write in a game's chat, mute it, report a message;
- `webhooks`: list, create, change and delete your webhooks;
- `account`: your account's settings: /me/, preferences, absences, personal tokens.

A view names the scopes it needs in `oauth_scopes` ({"read": ..., "write": ...}: safe
methods, the others); without it a GET needs `read` and anything else `play`.

Personal tokens keep their two scopes and their meaning (clients/permissions.py): `read`
allows every GET (the webhook list included), `play` every other method a personal token may
use, so a `play` token also chats and manages webhooks; neither reaches the account.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.utils.translation import gettext_lazy as _
from oauth2_provider.scopes import BaseScopes

READ = "read"
PLAY = "play"
CHAT = "chat"
WEBHOOKS = "webhooks"
ACCOUNT = "account"

# In the order the consent page lists them.
SCOPES = {
    READ: _("See your games, their moves and chat, and your events"),
    PLAY: _("Create, join and leave matches, play your moves and resign for you"),
    CHAT: _("Write in the chat of your games, mute it and report messages"),
    WEBHOOKS: _("Manage your webhooks (where your events are sent)"),
    ACCOUNT: _("Change your account settings: preferences, absences and API tokens"),
}
DEFAULT_SCOPES = [READ]

# Access and refresh tokens begin with this: the API sends a key so marked to the OAuth
# check and any other to the API keys (clients/authentication.py), one lookup either way.
ACCESS_PREFIX = "cnso_"
REFRESH_PREFIX = "cnsr_"


def access_token_generate(request: Any) -> str:
    """oauthlib's token generator (OAUTH2_PROVIDER["ACCESS_TOKEN_GENERATOR"])."""
    return ACCESS_PREFIX + secrets.token_urlsafe(32)


def refresh_token_generate(request: Any) -> str:
    """oauthlib's refresh token generator (OAUTH2_PROVIDER["REFRESH_TOKEN_GENERATOR"])."""
    return REFRESH_PREFIX + secrets.token_urlsafe(32)


def scope_descriptions(scopes: list[str]) -> list[tuple[str, str]]:
    """(scope, what it allows in the reader's language) for the scopes known here, in order."""
    return [(name, str(words)) for name, words in SCOPES.items() if name in scopes]


class CanastaScopes(BaseScopes):
    """The toolkit's scopes backend (OAUTH2_PROVIDER["SCOPES_BACKEND_CLASS"])."""

    def get_all_scopes(self) -> dict[str, Any]:
        return dict(SCOPES)

    def get_available_scopes(
        self, application: Any = None, request: Any = None, *args: Any, **kwargs: Any
    ) -> list[str]:
        return list(SCOPES)

    def get_default_scopes(
        self, application: Any = None, request: Any = None, *args: Any, **kwargs: Any
    ) -> list[str]:
        return list(DEFAULT_SCOPES)


# A view's `oauth_scopes` (clients.permissions.oauth_scope): "read" for GET, HEAD and
# OPTIONS, "write" for the other methods; a missing key keeps the default (read, play).
CHAT_SCOPES = {"write": CHAT}
WEBHOOK_SCOPES = {"read": WEBHOOKS, "write": WEBHOOKS}
ACCOUNT_SCOPES = {"read": ACCOUNT, "write": ACCOUNT}
