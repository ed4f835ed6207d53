"""Reply addresses: ``<local>+<token>@<domain>``, a new token for every email that carries one.

The token is 20 random bytes (160 bits) in lowercase base32: 32 characters of ``a-z2-7``.
Lowercase because mail systems may change the case of an address's local part; base32 so the
address needs no quoting and holds no ``:`` (mailbox names) — ``play+<token>`` is 37 of the 64
characters a local part allows.

Each token records the moment of the game its email showed (the hand, the last move, whether it
was the player's turn), so a reply can be matched to the turn it answers
(mailplay.services.turns, docs/play-by-email-replies.md). Revoking a player's tokens in a game
makes every address they hold there dead; the next email carries a new one.
"""

from __future__ import annotations

import base64
import re
import secrets
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.utils import timezone

from games.services.compiled import compiled_bulk_insert
from mailplay.models import ReplyToken
from notifications.payloads import game_moment

TOKEN_BYTES = 20
TOKEN_LENGTH = 32
_TOKEN_CHARS = "a-z2-7"
# Anything that looks like a reply address's token, for redacting text before it is logged.
_ANY_TOKEN = re.compile(rf"\+[{_TOKEN_CHARS}]{{{TOKEN_LENGTH}}}(?=@)", re.IGNORECASE)


def new_token() -> str:
    return base64.b32encode(secrets.token_bytes(TOKEN_BYTES)).decode("ascii").lower()


def local_part() -> str:
    return settings.CANASTA_MAIL_LOCAL_PART


def reply_address(token: str) -> str:
    return f"{local_part()}+{token}@{settings.CANASTA_MAIL_DOMAIN}"


def redact(text: str) -> str:
    """``text`` with every reply-address token replaced (for logs and error messages)."""
    return _ANY_TOKEN.sub("+<token>", text)


def token_in_address(address: str) -> str | None:
    """The token of one of our reply addresses, or None (another address, another domain)."""
    local, _, domain = address.strip().rpartition("@")
    if domain.lower().rstrip(".") != settings.CANASTA_MAIL_DOMAIN.lower():
        return None
    prefix, plus, token = local.partition("+")
    if not plus or prefix.lower() != local_part().lower():
        return None
    token = token.lower()
    if len(token) != TOKEN_LENGTH or not re.fullmatch(f"[{_TOKEN_CHARS}]+", token):
        return None
    return token


def reply_token_issue(
    *, game: Any, user: Any, seat_number: int, moment: Mapping[str, Any] | None = None
) -> ReplyToken:
    """A new token for one email to this player, bound to the moment of the game it shows.

    ``moment`` is notifications.payloads.game_moment as the email's payload recorded it (the
    hand, the last move, whose turn); without one, the game as it is now (``game`` up to
    date). A reply plays only while the turn it describes lasts. One INSERT.
    """
    moment = moment if moment is not None else game_moment(game, table=None)
    token = ReplyToken(
        game=game,
        user=user,
        seat_number=seat_number,
        token=new_token(),
        hand=moment.get("hand"),
        issued_seq=moment.get("seq"),
        on_turn=moment.get("turn") == seat_number,
    )
    # Every turn email issues one: its INSERT compiled once per database.
    [token] = compiled_bulk_insert([token])
    return token


def token_issued(token: ReplyToken) -> str:
    """The text of a token this process just issued (reply_token_issue). The database keeps
    only its digest: a token read back from it has no text to give."""
    text: object = token.token  # typed as what is read back: the digest
    if not isinstance(text, str):
        raise ValueError(f"reply token {token.pk}: read back, only its digest is known")
    return text


def reply_token_revoke(*, game: Any, user: Any) -> int:
    """Revoke every live token of the player in the game (a leaked address); returns how
    many."""
    return ReplyToken.objects.filter(game=game, user=user, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )
