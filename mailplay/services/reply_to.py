"""The Reply-To of an email: the recipient's own reply address, added when the row is sent.

A reply address is a credential (whoever holds it plays the seat by mail), so it is never put
in an outbox payload: payloads also feed the event feed, webhooks and the admin. The outbox
asks this hook when it sends a row (notifications.services.delivery; registered in
mailplay/apps.py), and the answer depends only on the row itself: its recipient, its game,
its kind, the seat its payload is for and the payload's `moment` (the game as the email shows
it: a new address is bound to that turn, mailplay.services.turns). Turn emails and reminders
always offer an address; an answer to an emailed move offers it when its payload asks (the
token it answered was live).
"""

from __future__ import annotations

from typing import Any

from games.models import Seat, SeatKind
from mailplay.services.answers import REPLY_BY_EMAIL
from mailplay.services.tokens import reply_address, reply_token_issue, token_issued
from notifications.models import Outbox, OutboxChannel, OutboxKind

TURN_KINDS = frozenset({OutboxKind.YOUR_TURN, OutboxKind.REMINDER})


def _offers_reply(row: Outbox) -> bool:
    if row.channel != OutboxChannel.EMAIL or row.game_id is None:
        return False
    if row.kind in TURN_KINDS:
        return True
    return row.kind == OutboxKind.EMAIL_REPLY and row.payload.get(REPLY_BY_EMAIL) is True


def _holds_seat(row: Outbox, game_id: Any, user_id: Any, seat_number: int) -> bool:
    # A claimed row carries the number of its recipient's own seat, read with it
    # (notifications.services.outbox): no query then.
    if hasattr(row, "own_seat"):
        return bool(row.own_seat == seat_number)
    return Seat.objects.filter(
        game_id=game_id, number=seat_number, user_id=user_id, kind=SeatKind.HUMAN
    ).exists()


def reply_address_for_row(row: Outbox) -> str | None:
    """The recipient's reply address in the row's game, when the row is an email that offers
    it and the recipient (a person, not a bot) still holds the payload's seat; else None."""
    if not _offers_reply(row):
        return None
    seat_number = row.payload.get("seat")
    if not isinstance(seat_number, int) or isinstance(seat_number, bool):
        return None
    if row.game_id is None or row.recipient_id is None:
        return None
    moment = row.payload.get("moment")
    if not isinstance(moment, dict):
        # A row written before payloads recorded their moment: an address bound to the game
        # as it is now could play a turn the email does not show, so it gets none.
        return None
    held = _holds_seat(row, row.game_id, row.recipient_id, seat_number)
    if not held:
        return None
    # row.game: loaded with the claimed row (notifications.services.outbox), no query.
    token = reply_token_issue(
        game=row.game, user=row.recipient, seat_number=seat_number, moment=moment
    )
    return reply_address(token_issued(token))
