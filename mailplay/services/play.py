"""Running the commands of a reply for the player who owns the reply address.

The commands are read against the game as it is when the email is processed (the player's
current view), not as it was when the turn email was written; they are applied as one
all-or-nothing batch at the game's current version, except that a draw from the stock stands
when a later command is refused (docs/fair-play.md). A move that lands between reading and
applying cannot happen: the inbound service locks the game before the commands are read
(mailplay.services.inbound._play) and hands the locked game in, which is read once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games import display, engine
from games.engine.events import cards_drawn, cards_taken
from games.events import game_events
from games.mail.commands import Command, CommandError, format_action, parse_commands
from games.mail.text import phase_todo
from games.messages import error_message, refusal_message
from games.models import Game, Move
from games.movelog import game_moves
from games.services.chat import chat_post
from games.services.errors import GameError
from games.services.moves import game_resign, moves_submit_with_table
from mailplay.models import ReplyToken
from mailplay.services.answers import Answer, draw_stands_answer, error_answer
from notifications.services.preferences import language_of


def _no_commands() -> Answer:
    return error_answer(
        "no_commands",
        _(
            "we found no commands in your email; write them at the top of your reply "
            "(the subject line is not read)"
        ),
    )


def _names(game: Game) -> dict[int, str]:
    return {s.number: s.display_name for s in game.seats.all() if s.number is not None}


def _table(game: Game) -> engine.Table | None:
    state = getattr(game, "state", None)
    return engine.from_json(state.table) if state is not None else None


def _line_of(commands: Sequence[Command], details: dict[str, Any]) -> Command | None:
    """The command whose action the engine refused (details.index counts actions only)."""
    index = details.get("index")
    actions = [c for c in commands if c.is_action]
    if isinstance(index, int) and 0 <= index < len(actions):
        return actions[index]
    return None


def run_commands(*, token: ReplyToken, text: str, game: Game) -> Answer:
    """Apply the reply's commands for the token's player to ``game``, which the caller has
    locked in its transaction (game_lock); the answer to send back, in the player's language
    (the commands are read in it and in English)."""
    lang = language_of(user=token.user)
    with translation.override(lang):
        said: list[str] = []
        answer = _run_once(game=game, token=token, text=text, lang=lang, said=said)
        return _say(token, said, answer)


def _say(token: ReplyToken, said: Sequence[str], answer: Answer) -> Answer:
    """Post the reply's table talk once its moves stand (all or nothing: a refused move posts
    nothing either); a line refused by the chat's limits is named in the answer."""
    if not said or not answer.ok or answer.reason == "resigned":
        return answer
    for text in said:
        try:
            chat_post(game_id=token.game_id, user=token.user, text=text, source="email")
        except GameError as error:
            answer.paragraphs.append(
                _("Your message was not posted: %(message)s") % {"message": error_message(error)}
            )
            return answer
    answer.paragraphs.insert(
        0,
        ngettext(
            "Your message was posted to the table.",
            "Your %(count)d messages were posted to the table.",
            len(said),
        )
        % {"count": len(said)},
    )
    return answer


def _resign(game: Game, token: ReplyToken, parsed: Sequence[Command], has_moves: bool) -> Answer:
    if has_moves:
        command = next(c for c in parsed if c.service == "resign")
        return error_answer(
            "invalid_action",
            _("resigning cannot be combined with moves; send it alone"),
            line=command.line,
            line_number=command.line_number,
        )
    try:
        game_resign(game_id=game.pk, user=token.user)
    except GameError as error:
        return error_answer(error.code, error_message(error, game.variant).rstrip("."))
    return Answer(
        "resigned",
        _("You resigned"),
        [_("You resigned: your side has lost the match. Everyone at the table gets an email.")],
    )


def _run_once(*, game: Game, token: ReplyToken, text: str, lang: str, said: list[str]) -> Answer:
    seat = token.seat_number
    if not any(s.number == seat and s.user_id == token.user_id for s in game.seats.all()):
        return error_answer("not_seated", _("you no longer play in this game"))
    table = _table(game)
    view = engine.player_view(table, seat) if table is not None else None
    if not text.strip():
        return _no_commands()
    try:
        parsed = parse_commands(text, view, lang=lang)
    except CommandError as error:
        return error_answer(
            error.code, error.message, line=error.line, line_number=error.line_number
        )
    if not len(parsed):
        return _no_commands()
    actions = parsed.actions
    said[:] = parsed.says
    if "resign" in parsed.services:
        return _resign(game, token, parsed.commands, bool(actions))
    if not actions and not parsed.services:
        return Answer("said", _("Message posted"), [])
    if not actions:
        wanted = "help" if parsed.services == ["help"] else "status"
        subject = _("Help") if wanted == "help" else _("The table")
        return Answer(wanted, subject, _status(game, seat))
    before_seq = game.last_seq
    try:
        moves_submit_with_table(
            game_id=game.pk,
            user=token.user,
            actions=actions,
            expected_version=game.version,
            locked=game,
        )
    except GameError as error:
        command = _line_of(parsed.commands, error.details)
        if error.details.get("applied"):
            return _draw_stands(game, token, error, command)
        return error_answer(
            error.code,
            error_message(error, game.variant).rstrip("."),
            line=command.line if command else "",
            line_number=command.line_number if command else 0,
        )
    return _applied(game, token, actions, before_seq, lang)


def _draw_stands(
    game: Game, token: ReplyToken, error: GameError, command: Command | None
) -> Answer:
    """A refusal after a draw from the stock: the draw was played (it cannot be taken back),
    the commands after it were not. ``game`` is as the draw left it (the move updates it)."""
    seat = token.seat_number
    lang = translation.get_language()
    drawn = [display.card_label(c, game.variant, lang) for c in error.details.get("drawn") or []]
    refused = refusal_message(error, game.variant).rstrip(".")
    return draw_stands_answer(
        error.code,
        refused,
        drawn=drawn,
        line=command.line if command else "",
        line_number=command.line_number if command else 0,
        next_steps=_next(game, seat),
    )


def _status(game: Game, seat: int) -> list[str]:
    table = _table(game)
    if game.status != "active" or table is None:
        return [_("The game is over: nothing more can be played in it.")]
    if table.turn == seat:
        return [_("It is your turn: %(todo)s.") % {"todo": phase_todo(table.phase)}]
    return [
        _("It is %(name)s's turn; we will email you on yours.")
        % {"name": _names(game).get(table.turn, "?")}
    ]


def _drawn(moves: Sequence[Move], seat: int, variant: str, lang: str) -> list[str]:
    mine = [event for move in moves if move.seat == seat for event in move.events]
    return [display.card_label(c, variant, lang) for c in cards_drawn(mine, seat)]


def _taken(moves: Sequence[Move], seat: int, variant: str, lang: str) -> list[str]:
    mine = [event for move in moves if move.seat == seat for event in move.events]
    return [display.card_label(c, variant, lang) for c in cards_taken(mine, seat)]


def _applied(
    game: Game, token: ReplyToken, actions: Sequence[dict[str, Any]], before_seq: int, lang: str
) -> Answer:
    seat = token.seat_number
    moves = game_moves(game, after=before_seq)
    done = "; ".join(format_action(a, game.variant, lang) for a in actions)
    paragraphs = [_("Applied: %(commands)s.") % {"commands": done}]
    own = moves[: len(actions)]
    drawn = _drawn(own, seat, game.variant, lang)
    if drawn:
        paragraphs.append(_("You drew %(cards)s.") % {"cards": " ".join(drawn)})
    taken = _taken(own, seat, game.variant, lang)
    if taken:
        # The pile's cards, so the player knows their hand without opening the game.
        paragraphs.append(_("You took the discard pile: %(cards)s.") % {"cards": " ".join(taken)})
    for move in moves:
        for event in game_events(move.events):
            if event["type"] == "hand_result":
                paragraphs.append(
                    _("Hand %(number)s is over; everyone gets the scores by email.")
                    % {"number": event["hand"]}
                )
    paragraphs += _next(game, seat)
    return Answer("applied", _("Move applied"), paragraphs)


def _next(game: Game, seat: int) -> list[str]:
    """What happens next, from the player's side."""
    table = _table(game)
    if game.status != "active" or table is None:
        return [_("The match is over; everyone gets the result by email.")]
    if table.turn == seat:
        return [
            _("It is still your turn: %(todo)s. Reply to this email with your next commands.")
            % {"todo": phase_todo(table.phase)}
        ]
    return [
        _("It is now %(name)s's turn. We will email you when it is your turn again.")
        % {"name": _names(game).get(table.turn, "?")}
    ]
