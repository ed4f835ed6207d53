"""Which turn a reply answers, and the answer to a reply for an earlier turn
(docs/play-by-email-replies.md).

Every email with a reply address carries a token of its own, recording the moment of the game
it showed (mailplay.services.tokens.reply_token_issue): the hand, the game's last move then
(``issued_seq``) and whether it was the player's turn (``on_turn``). A turn of a seat ends only
with a move: the seat's own (a discard, an ask, going out; a timeout's or a standing-in bot's
moves are logged on the seat too) or, for the seats waiting, the next seat's. So the turn an
email showed is still the current one exactly when:

- the game is in the same hand, and it is (or is not) the player's turn now as it was then;
- while it was their turn: no other seat has moved since (their own moves since — a draw
  through the web, the forced draw — keep the turn theirs);
- while it was not their turn: they have not moved since (their turn has not come and gone).

A reply that answers an earlier turn plays nothing: it would be read against a table its
writer never saw (a late reply to a timed-out turn, a turn email of an earlier hand).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from games.models import Game, GameStatus
from games.movelog import game_moves
from mailplay.models import InboundMessage, InboundStatus, ReplyToken
from mailplay.services.answers import Answer, nothing_applied
from notifications.payloads import game_hand, seat_names

EARLIER_TURN = "earlier_turn"


def reply_is_current(*, token: ReplyToken, game: Game) -> bool:
    """Whether a reply through ``token`` answers the game's current turn for its player.

    ``game`` is locked by the caller (with its snapshot), so the answer holds until the
    commands are applied in the same transaction. A game that is over has no turn: any token
    of it is current, and the commands are refused as "the game is over".
    """
    if game.status != GameStatus.ACTIVE:
        return True
    if token.issued_seq is None or token.hand is None or token.on_turn is None:
        return False  # written before replies were tied to a turn
    seat = token.seat_number
    on_turn = game.turn_seat == seat
    if on_turn != token.on_turn or game_hand(game) != token.hand:
        return False
    # Through games.movelog: an old email's moves may be packed (games.services.coldmoves).
    since = game_moves(game, after=token.issued_seq)
    return not any((move.seat != seat) == on_turn for move in since)


def earlier_turn_answer(*, token: ReplyToken, game: Game) -> Answer:
    """The refusal of a reply to an earlier turn's email; the answer shows the table now. A
    reply to an email whose turn this player already played from it (a resent reply, a second
    reply to the same email) is told so, not that it answers "an earlier turn"."""
    hand = game_hand(game)
    played = InboundMessage.objects.filter(
        token=token, status=InboundStatus.PROCESSED, reason="applied"
    ).exists()
    if played:
        why = _(
            "This move was already played: an earlier reply to the same email was applied, "
            "so this one was not played again."
        )
    elif token.hand is not None and hand is not None and token.hand != hand:
        why = _(
            "Your email answers an email from hand %(then)d of this game, "
            "and the game is now in hand %(now)d, so its commands were not played."
        ) % {"then": token.hand, "now": hand}
    else:
        why = _(
            "Your email answers the email of an earlier turn, and the game has moved on "
            "since, so its commands were not played."
        )
    paragraphs = [why, nothing_applied(), _now(game, token.seat_number)]
    return Answer(EARLIER_TURN, _("Email for an earlier turn"), paragraphs, ok=False)


def _now(game: Any, seat: int) -> str:
    if game.turn_seat == seat:
        return _(
            "It is your turn now; the table below is the current one. "
            "Reply to this email with your commands."
        )
    names = seat_names(game)
    who = names[game.turn_seat] if game.turn_seat is not None else "?"
    return _(
        "It is now %(name)s's turn; the table below is the current one. "
        "We will email you when it is your turn."
    ) % {"name": who}
