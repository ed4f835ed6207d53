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
from typing import Any

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.utils import timezone

from mailplay.models import ReplyToken

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


def game_hand(game: Any) -> int | None:
    """The number of the hand in play (or the last one), None before the deal.

    Read from the game's snapshot: the callers that lock the game have it loaded already
    (games.services.common.game_lock), so this costs no query on a move.
    """
    try:
        table = game.state.table
    except ObjectDoesNotExist:
        return None
    # Table JSON (table-json.md) leaves hand_number out for hand 1.
    hand = table.get("hand_number", 1) if isinstance(table, dict) else None
    return hand if isinstance(hand, int) else None


def reply_token_issue(*, game: Any, user: Any, seat_number: int) -> ReplyToken:
    """A new token for one email to this player, bound to the game as it is now.

    ``game`` must be up to date (its last move, turn and snapshot): the token records them
    and a reply plays only while the turn they describe lasts. One INSERT.
    """
    return ReplyToken.objects.create(
        game=game,
        user=user,
        seat_number=seat_number,
        token=new_token(),
        hand=game_hand(game),
        issued_seq=game.last_seq,
        on_turn=game.status == "active" and game.turn_seat == seat_number,
    )


def reply_address_for_seat(*, game: Any, seat: int | None) -> str | None:
    """A new Reply-To for the human player in ``seat`` of ``game`` (its prefetched seats).

    Call it when the email's table is built, in the transaction of the move that caused it,
    with the game as that move left it: the address is bound to that moment, and a reply
    plays only while the turn it shows lasts (building it later, at delivery, would bind it
    to a turn the email does not show).
    """
    if seat is None:
        return None
    for row in game.seats.all():
        if row.number == seat and row.kind == "human" and row.user_id is not None:
            token = reply_token_issue(game=game, user=row.user, seat_number=seat)
            return reply_address(token.token)
    return None


def reply_token_revoke(*, game: Any, user: Any) -> int:
    """Revoke every live token of the player in the game (a leaked address); returns how
    many."""
    return ReplyToken.objects.filter(game=game, user=user, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )
