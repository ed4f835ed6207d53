"""The game page's history: the latest moves of the log as sentences people read.

Events come through `api.presenters.move_entry`, which filters them with `engine.event_for`:
another player's drawn cards are a count here, never cards.

Each sentence is a list of parts: text, or ``{"cards": [...]}`` drawn as cards. Sentences are
whole translatable strings with the cards as a separate part after the text (never a
sentence glued together from translated fragments).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from api.presenters import move_entry
from games import l10n, selectors
from games.events import is_action, is_event
from games.models import Game, Move
from web import cards as shown

HISTORY_MOVES = 40


def end_reasons() -> dict[str, str]:
    """How a hand ended, in words (engine end reasons); translated when asked."""
    return {
        "went_out": _("a player went out"),
        "stock_exhausted": _("the stock ran out"),
        "red_three_last": _("a red three was the last card of the stock"),
    }


Line = list[Any]


@dataclass(frozen=True)
class _Say:
    """What the event describers share: names, the variant and the move's context."""

    names: Mapping[int, str]
    variant: str
    display: Mapping[str, str] | None
    sides: Sequence[str]
    action: Mapping[str, Any]
    # How the move was made: by the player, a bot, or the system for them (a forced draw or
    # a timeout, told apart by history_entries).
    how: str = "player"
    me: int | None = None

    def who(self, seat: Any) -> str:
        if isinstance(seat, int):
            return self.names.get(seat, _("Seat %(number)d") % {"number": seat + 1})
        return "?"

    def says(self, seat: Any, mine: str, theirs: str, **values: Any) -> str:
        """``mine`` when ``seat`` is the reader's own, else ``theirs`` with the seat's name:
        German and Icelandic conjugate the verb for "you" ("Sie haben abgeworfen", "þú
        kastaðir"), so the reader's lines cannot be another player's with "you" put in."""
        if self.me is not None and seat == self.me:
            return mine % values
        return theirs % {"name": self.who(seat), **values}

    def cards(self, codes: Sequence[str]) -> dict[str, Any]:
        return {"cards": shown.cards(codes, self.variant, self.display)}


def _draw(say: _Say, seat: int, event: Mapping[str, Any]) -> Line:
    if say.how == "forced":
        if "cards" in event:
            return [_("We drew for you (a forced draw):") + " ", say.cards(event["cards"])]
        return [_("A card was drawn for %(name)s (a forced draw).") % {"name": say.who(seat)}]
    if "cards" in event:
        drew = say.says(seat, _("You drew"), _("%(name)s drew"))
        return [drew + " ", say.cards(event["cards"])]
    count = int(event.get("count", 1))
    # Only another player's draw is told without its cards.
    if say.variant == "tiles":
        text = ngettext("%(name)s drew %(count)d tile.", "%(name)s drew %(count)d tiles.", count)
    else:
        text = ngettext("%(name)s drew %(count)d card.", "%(name)s drew %(count)d cards.", count)
    return [text % {"name": say.who(seat), "count": count}]


def _red_three(say: _Say, seat: int, event: Mapping[str, Any]) -> Line:
    return [
        say.says(seat, _("You laid down a red three:"), _("%(name)s laid down a red three:")) + " ",
        say.cards([event["card"]]),
    ]


def _pickup(say: _Say, seat: int, event: Mapping[str, Any]) -> Line:
    taken = event.get("cards", [])
    count = len(taken)
    line: Line = [_took(say, seat, count) + " ", say.cards(taken)]
    if is_action(say.action, "pickup") and say.action.get("cards"):
        line += [" " + _("with") + " ", say.cards(say.action["cards"])]
    return line


def _took(say: _Say, seat: int, count: int) -> str:
    if say.variant == "tiles":
        mine = ngettext(
            "You took the discard pile (%(count)d tile):",
            "You took the discard pile (%(count)d tiles):",
            count,
        )
        theirs = ngettext(
            "%(name)s took the discard pile (%(count)d tile):",
            "%(name)s took the discard pile (%(count)d tiles):",
            count,
        )
    else:
        mine = ngettext(
            "You took the discard pile (%(count)d card):",
            "You took the discard pile (%(count)d cards):",
            count,
        )
        theirs = ngettext(
            "%(name)s took the discard pile (%(count)d card):",
            "%(name)s took the discard pile (%(count)d cards):",
            count,
        )
    return say.says(seat, mine, theirs, count=count)


def _meld(say: _Say, seat: int, event: Mapping[str, Any]) -> Line | None:
    new = event.get("melds") or []
    adds = event.get("add") or {}
    if not new and not adds:
        return None
    parts: Line = []
    for i, meld in enumerate(new):
        lead = say.says(seat, _("You melded"), _("%(name)s melded")) if i == 0 else ","
        parts += [lead + " ", say.cards(meld)]
    for key, added in adds.items():
        label = shown.meld_label(key, say.variant)
        if parts:
            parts.append("; ")
            text = _("added to %(meld)s:") % {"meld": label}
        else:
            text = say.says(
                seat, _("You added to %(meld)s:"), _("%(name)s added to %(meld)s:"), meld=label
            )
        parts += [text + " ", say.cards(added)]
    return parts


def _discard(say: _Say, seat: int, event: Mapping[str, Any]) -> Line:
    discarded = say.says(seat, _("You discarded"), _("%(name)s discarded"))
    return [discarded + " ", say.cards([event["card"]])]


def _ask(say: _Say, seat: int, event: Mapping[str, Any]) -> Line:
    return [say.says(seat, _("You asked “may I go out?”"), _("%(name)s asked “may I go out?”"))]


def _answer(say: _Say, seat: int, event: Mapping[str, Any]) -> Line:
    if event.get("yes"):
        return [say.says(seat, _("You answered yes."), _("%(name)s answered yes."))]
    return [say.says(seat, _("You answered no."), _("%(name)s answered no."))]


def _stock_out(say: _Say, seat: int, event: Mapping[str, Any]) -> Line:
    return [
        say.says(
            seat, _("The stock ran out on your turn."), _("The stock ran out on %(name)s's turn.")
        )
    ]


def _hand_over(say: _Say, seat: int, event: Mapping[str, Any]) -> Line:
    out = event.get("went_out")
    if out is not None:
        if event.get("concealed"):
            return [
                say.says(
                    out,
                    _("You went out concealed: the hand is over."),
                    _("%(name)s went out concealed: the hand is over."),
                )
            ]
        return [
            say.says(
                out, _("You went out: the hand is over."), _("%(name)s went out: the hand is over.")
            )
        ]
    reason = str(event.get("reason", ""))
    return [_("The hand is over: %(reason)s.") % {"reason": end_reasons().get(reason, reason)}]


def _hand_result(say: _Say, seat: int, event: Mapping[str, Any]) -> Line:
    scores = (event.get("result") or {}).get("scores")
    if scores:
        return [
            _("Hand %(number)s scored: %(scores)s.")
            % {"number": event.get("hand"), "scores": scores_text(scores, say.sides)},
            {"sheet": event.get("hand")},
        ]
    return [_("Hand %(number)s ended without a score.") % {"number": event.get("hand")}]


def _deal(say: _Say, seat: int, event: Mapping[str, Any]) -> Line:
    return [
        say.says(
            event.get("dealer"),
            _("You deal hand %(number)s."),
            _("Hand %(number)s is dealt by %(name)s."),
            number=event.get("hand"),
        )
    ]


def _resign(say: _Say, seat: int, event: Mapping[str, Any]) -> Line:
    return [say.says(seat, _("You resigned."), _("%(name)s resigned."))]


def _timeout(say: _Say, seat: int, event: Mapping[str, Any]) -> Line:
    return [say.says(seat, _("Time ran out for you."), _("Time ran out for %(name)s."))]


def _match_over(say: _Say, seat: int, event: Mapping[str, Any]) -> Line:
    return [_("The match is over.")]


_DESCRIBE: dict[str, Callable[[_Say, int, Mapping[str, Any]], Line | None]] = {
    "draw": _draw,
    "red_three": _red_three,
    "pickup": _pickup,
    "meld": _meld,
    "discard": _discard,
    "ask_partner": _ask,
    "answer": _answer,
    "stock_out": _stock_out,
    "hand_over": _hand_over,
    "hand_result": _hand_result,
    "deal": _deal,
    "resign": _resign,
    "timeout": _timeout,
    "match_over": _match_over,
}


def _told_order(events: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    # The engine reports a pickup's extra melds before the pickup itself; people tell it the
    # other way round.
    out = list(events)
    for i in range(len(out) - 1):
        if is_event(out[i], "meld") and is_event(out[i + 1], "pickup"):
            out[i], out[i + 1] = out[i + 1], out[i]
    return out


def describe_move(
    entry: Mapping[str, Any],
    names: Mapping[int, str],
    variant: str,
    display: Mapping[str, str] | None = None,
    sides: Sequence[str] = (),
    how: str = "player",
    me: int | None = None,
) -> list[Line]:
    """Sentences for one move of the log: each a list of text parts and card lists; the
    moves of ``me`` (the reader's seat) in the second person."""
    say = _Say(names, variant, display, sides, entry.get("action") or {}, how, me)
    lines: list[Line] = []
    for event in _told_order(entry["events"]):
        describe = _DESCRIBE.get(str(event.get("type")))
        line = describe(say, event.get("seat", entry["seat"]), event) if describe else None
        if line:
            lines.append(line)
    if not lines:
        kind = (entry.get("action") or {}).get("type", "move")
        lines.append([_("%(name)s: %(action)s") % {"name": say.who(entry["seat"]), "action": kind}])
    return lines


def move_how(move: Move, following: Move | None) -> str:
    """player, bot, forced (a draw the system made for a player by email, alone in its
    batch) or timeout (what the system played when a player's time ran out)."""
    if move.actor != "system":
        return str(move.actor)
    if is_action(move.action, "timeout"):
        return "timeout"
    in_batch = (
        following is not None
        and following.actor == "system"
        and following.seat == move.seat
        and following.hand == move.hand
        and following.created_at == move.created_at
    )
    if is_action(move.action, "draw") and not in_batch:
        return "forced"
    return "timeout"


def history(
    game: Game,
    names: Mapping[int, str],
    me: int | None,
    display: Mapping[str, str] | None,
    sides: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """The latest moves grouped by hand, in reading order: oldest hand and move first (the
    page shows the end of the list, the newest, in view)."""
    rows = selectors.recent_moves(game=game, limit=HISTORY_MOVES)
    following: dict[int, Move | None] = {
        m.seq: (rows[i + 1] if i + 1 < len(rows) else None) for i, m in enumerate(rows)
    }
    hands: list[dict[str, Any]] = []
    for move in rows:
        entry = move_entry(move, me)
        how = move_how(move, following[move.seq])
        if not hands or hands[-1]["number"] != move.hand:
            hands.append({"number": move.hand, "moves": []})
        hands[-1]["moves"].append(
            {
                "seq": move.seq,
                "actor": move.actor,
                "how": how,
                "seat": move.seat,
                "at": move.created_at,
                "lines": describe_move(entry, names, game.variant, display, sides, how, me),
            }
        )
    return hands


def scores_text(scores: Sequence[int], sides: Sequence[str] = ()) -> str:
    """``[725, 910]`` -> "Bot 1 & Bot 3 725, your side 910" (or "725 / 910" unnamed)."""
    return l10n.scores(scores, sides)
