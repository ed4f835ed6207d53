"""The headers of every email we send: one thread per game, standard automated-mail headers.

- One thread per game and recipient in every mail client: every email of a game has the same
  subject (thread_subject; Gmail and Outlook group by it) and chains to the earlier ones with
  In-Reply-To and References (Thunderbird, Apple Mail and Gmail follow them). The first email
  of the game sent to the recipient is the thread's root.
- `Message-ID` on our own domain (CANASTA_MESSAGE_ID_DOMAIN, else DEFAULT_FROM_EMAIL's): made
  from the outbox row, so a retried row keeps its Message-ID and the thread can be rebuilt from
  the rows already sent, without storing anything.
- `Date` with the offset of the recipient's time zone (not "-0000", "offset unknown").
- `Auto-Submitted` (RFC 3834) on every email: `auto-replied` on the answer to an emailed move,
  `auto-generated` on the rest, so vacation responders leave them alone.
- `X-Canasta-Kind` (your_turn, reminder, hand_over, ...): the subject no longer tells the
  kinds apart, this header does, for mail filters and scripts (examples/email_player.py).
- `List-Unsubscribe` with one-click unsubscribe (RFC 8058): a signed per-user URL; a POST to it
  turns email off (web/views/unsubscribe.py).

Play by email is not bound by these headers: a reply is matched to its seat and turn by the
token in the address it is sent to (mailplay.services.tokens, .turns), never by In-Reply-To
or References, so threading cannot make a reply play another turn.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from email.utils import format_datetime, parseaddr
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core import signing
from django.db.models import QuerySet
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext as _

from games.services.compiled import SENTINEL_ID, compiled_rows, sentinel_ints
from notifications.models import Outbox, OutboxChannel, OutboxKind, OutboxStatus
from notifications.services.preferences import time_zone_of, zone_named

UNSUBSCRIBE_SALT = "notifications.unsubscribe"
# How many Message-IDs References carries: the root and the latest ones (RFC 5322 allows
# leaving out the middle; clients need the root and the parent).
MAX_REFERENCES = 10
_MESSAGE_ID = re.compile(r"<[^<>\s]{1,250}>")


def mail_domain() -> str:
    """The domain of our Message-IDs."""
    if settings.CANASTA_MESSAGE_ID_DOMAIN:
        return str(settings.CANASTA_MESSAGE_ID_DOMAIN)
    _, address = parseaddr(settings.DEFAULT_FROM_EMAIL)
    domain = address.rpartition("@")[2]
    return domain or urlsplit(settings.CANASTA_SITE_URL).hostname or "localhost"


def message_id(*, pk: int, created_at: datetime) -> str:
    """The Message-ID of the row `pk`: the same on every attempt, unique across databases (the
    digest covers the row's creation time), and telling nothing about the game."""
    digest = salted_hmac("notifications.message-id", f"{pk}:{created_at.isoformat()}")
    return f"<canasta.{pk}.{digest.hexdigest()[:16]}@{mail_domain()}>"


def thread_subject(payload: Mapping[str, Any]) -> str | None:
    """The one subject of every email of a game: its players and its short number. None for an
    email about no game (the digest)."""
    game = payload.get("game")
    if not isinstance(game, Mapping) or not game.get("id"):
        return None
    names = [str(name) for name in payload.get("names") or []]
    return _("Canasta: %(players)s (game %(game)s)") % {
        "players": ", ".join(names) or "?",
        "game": str(game["id"])[:8],
    }


def thread_ids(row: Outbox) -> list[str]:
    """The Message-IDs of the emails sent to the row's recipient about its game, oldest
    first, as References names them: the thread's root and the latest MAX_REFERENCES - 1 (the middle is
    left out, and so is the cost of a digest for each of its emails: a long game's thread
    holds dozens; _chain keeps the same ones). Empty: the email starts one."""
    if row.game_id is None:
        return []
    if row.recipient_id is None:
        earlier = list(_earlier(row.recipient_id, row.game_id, row.pk))
    else:
        [recipient, pk] = sentinel_ints(2)
        earlier = compiled_rows(
            shape="thread-ids",
            model=Outbox,
            build=lambda: _earlier(recipient, SENTINEL_ID, pk),
            values={
                "recipient": (recipient, row.recipient_id, Outbox._meta.get_field("recipient")),
                "game": (SENTINEL_ID, row.game_id, Outbox._meta.get_field("game")),
                "pk": (pk, row.pk, Outbox._meta.pk),
            },
        )
    if len(earlier) > MAX_REFERENCES:
        earlier = [earlier[0], *earlier[-(MAX_REFERENCES - 1) :]]
    return [message_id(pk=pk, created_at=created) for pk, created in earlier]


def _earlier(recipient_id: Any, game_id: Any, pk: int) -> QuerySet[Outbox, tuple[Any, ...]]:
    """thread_ids' statement (compiled once per database: building it cost more than running
    it)."""
    return (
        Outbox.objects.filter(
            recipient_id=recipient_id,
            game_id=game_id,
            channel=OutboxChannel.EMAIL,
            status=OutboxStatus.SENT,
        )
        .exclude(pk=pk)
        .order_by("sent_at", "pk")
        .values_list("pk", "created_at")
    )


def unsubscribe_token(user_id: Any) -> str:
    return signing.dumps({"u": user_id}, salt=UNSUBSCRIBE_SALT, compress=True)


def unsubscribe_user_id(token: str) -> Any | None:
    """The user a token was made for, or None when it is not one of ours."""
    try:
        data = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        return None
    return data.get("u") if isinstance(data, dict) else None


def unsubscribe_url(user_id: Any) -> str:
    path = reverse("web:unsubscribe", kwargs={"token": unsubscribe_token(user_id)})
    return f"{settings.CANASTA_SITE_URL}{path}"


def _date(user: Any, now: datetime) -> str:
    zone = zone_named(time_zone_of(user=user) if user is not None else "UTC")
    return format_datetime(now.astimezone(zone))


def _chain(row: Outbox, payload: Mapping[str, Any]) -> dict[str, str]:
    ids = thread_ids(row)
    # The answer to an emailed move answers the player's own mail first of all.
    theirs = str(payload.get("in_reply_to") or "")
    if _MESSAGE_ID.fullmatch(theirs):
        ids.append(theirs)
    if not ids:
        return {}
    kept = ids if len(ids) <= MAX_REFERENCES else [ids[0], *ids[-(MAX_REFERENCES - 1) :]]
    return {"In-Reply-To": ids[-1], "References": " ".join(kept)}


def message_headers(
    row: Outbox, *, payload: Mapping[str, Any], now: datetime | None = None
) -> dict[str, str]:
    """Every header of the row's email but From, To, Subject and Reply-To."""
    headers = {
        "Message-ID": message_id(pk=row.pk, created_at=row.created_at),
        "Date": _date(row.recipient, now or timezone.now()),
        "Auto-Submitted": "auto-replied"
        if row.kind == OutboxKind.EMAIL_REPLY
        else "auto-generated",
        # What the email is about, for mail filters and scripts (the subject is the game's).
        "X-Canasta-Kind": str(row.kind),
    }
    if row.recipient_id is not None:
        # An invitation to an address without an account has no preference to change.
        url = unsubscribe_url(row.recipient_id)
        headers["List-Unsubscribe"] = f"<{url}>"
        headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    headers.update(_chain(row, payload))
    return headers
