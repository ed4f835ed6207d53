"""The answer to a processed email: an `email_reply` outbox row for the player (never for the
From address of the mail: answers go to the account's own address).

The payload is the usual one (game, seat, names) plus `subject`, `paragraphs`, and when the
game has a table the player's view (with their legal actions and deadline while it is their
turn), `reply_by_email` (true when their reply address is live: the email is then sent with a
new address of theirs as Reply-To, bound to `moment`, the game as it is after the email was
processed, so they can answer the answer; the address itself is never in the payload) and
`in_reply_to` (threading). notifications/emails.py renders it; the table carries the command
help.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ObjectDoesNotExist
from django.utils.translation import gettext as _

from games import engine
from games.mail.text import game_line
from games.models import Game, GameState
from mailplay.models import ReplyToken
from notifications.models import OutboxKind
from notifications.payloads import game_data, game_moment, seat_names
from notifications.services.outbox import outbox_enqueue


def nothing_applied() -> str:
    return _("Nothing was applied.")


# The payload key that asks for a Reply-To on an answer (mailplay.services.reply_to).
REPLY_BY_EMAIL = "reply_by_email"


@dataclass
class Answer:
    """What the reply says: a subject line and paragraphs; the table is added when known."""

    reason: str  # recorded on the InboundMessage: "applied", "status", an error code, ...
    subject: str
    paragraphs: list[str] = field(default_factory=list)
    ok: bool = True


def error_answer(code: str, message: str, *, line: str = "", line_number: int = 0) -> Answer:
    """An error: the code, a human message, the line that failed, and that nothing happened."""
    paragraphs = [
        _("Your email could not be played: %(message)s (code: %(code)s).")
        % {"message": message, "code": code}
    ]
    if line:
        paragraphs.append(_where(line, line_number))
    paragraphs.append(_("Nothing was applied. Fix the command and reply again."))
    return Answer(code, _("Move refused"), paragraphs, ok=False)


def _where(line: str, line_number: int) -> str:
    if line_number:
        return _('Line %(number)d: "%(line)s"') % {"number": line_number, "line": line}
    return _('The command: "%(line)s"') % {"line": line}


def draw_stands_answer(
    code: str,
    message: str,
    *,
    drawn: list[str],
    line: str = "",
    line_number: int = 0,
    next_steps: list[str],
) -> Answer:
    """A refusal after a draw from the stock: the draw was played and stays played (a draw
    cannot be taken back, as at a real table); the commands after it were not."""
    if drawn:
        first = _(
            "You drew %(cards)s: that draw stands, as at a real table, and the cards are in "
            "your hand."
        ) % {"cards": " ".join(drawn)}
    else:
        first = _(
            "You drew from the stock: that draw stands, as at a real table, and the cards are "
            "in your hand."
        )
    paragraphs = [
        first,
        _("The commands after the draw were not played: %(message)s (code: %(code)s).")
        % {"message": message, "code": code},
    ]
    if line:
        paragraphs.append(_where(line, line_number))
    return Answer(code, _("Draw played, the rest refused"), paragraphs + next_steps, ok=False)


def _game_line(game: Game) -> str:
    return game_line(game.variant, str(game.pk))


def _state_of(game: Game) -> GameState | None:
    try:
        return game.state
    except ObjectDoesNotExist:
        return None


def answer_enqueue(
    *,
    answer: Answer,
    token: ReplyToken,
    inbound_id: int,
    in_reply_to: str = "",
    game: Game | None = None,
    with_table: bool = True,
) -> None:
    """Write the reply row (in the caller's transaction); delivered like any notification."""
    game = game or (
        Game.objects.select_related("state").prefetch_related("seats__user").get(pk=token.game_id)
    )
    seat = token.seat_number
    payload: dict[str, Any] = {
        "game": game_data(game),
        "seat": seat,
        "names": seat_names(game),
        "subject": f"{answer.subject} ({_game_line(game)})",
        "paragraphs": list(answer.paragraphs),
    }
    state = _state_of(game) if with_table else None
    if state is not None:
        table = engine.from_json(state.table)
        payload["view"] = engine.player_view(table, seat)
        if game.status == "active" and table.turn == seat and not table.over:
            payload["legal"] = engine.legal_actions(table, seat).to_json()
            payload["deadline"] = game.deadline.isoformat() if game.deadline else None
    if token.revoked_at is None:  # a revoked address gets no new one: the next turn email has it
        # The address is made when the email is sent (mailplay.services.reply_to), bound to
        # the moment written here: the game as this email was processed.
        payload[REPLY_BY_EMAIL] = True
        payload["moment"] = game_moment(game, table=None)
    if in_reply_to:
        payload["in_reply_to"] = in_reply_to
    outbox_enqueue(
        recipient=token.user,
        kind=OutboxKind.EMAIL_REPLY,
        game=game,
        payload=payload,
        key=f"email_reply:{inbound_id}",
    )
