"""The table as one seat sees it, for the turn email: plain text (and a simple HTML part).

Input is the Player view JSON (docs/formats.md, docs/engine-notes.md): nothing here can show a
card the view does not hold. ``legal`` is `LegalActions.to_json()` for the same seat; its
actions are written as the commands that make them (`commands.format_action`).

Cards are written rank + suit symbol (``A♠ 10♥ 7♦ 2♣``, ``JK``), so suits never depend on
colour; the parser accepts the same forms, and the "what you can do" lines use the typed
codes (``7h``). `tiles` tables show tiles (``7 red``, ``13 blue``, ``joker``).

In the reader's language (``lang``; default: the active one): sentences are translated with
gettext, cards, tiles and meld names come from `games.display`, the command lines from
`formatting` (German ``abwerfen Dp``, Icelandic ``kasta Ds``). No Django beyond its
translation functions: no database, no settings of ours.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games import display, l10n
from games.engine.cards import JOKER, sort_key
from games.engine.melds import canasta_kind
from games.engine.rules import RuleSet
from games.engine.variants import VARIANTS

from .formatting import format_action, format_actions, format_card, word
from .help import help_text

_MAX_LISTED = 40  # legal meld/add lines shown; more are summarised

# A line is a list of parts: plain text, or ("cards", [codes], separator) to be shown as cards.
Part = str | tuple[str, list[str], str]
Line = list[Part]


@dataclass
class _Section:
    title: str
    lines: list[Line] = field(default_factory=list)
    commands: bool = False  # lines are commands to copy (shown in monospace in HTML)


class _Doc:
    def __init__(self) -> None:
        self.sections: list[_Section] = []

    def section(self, title: str, *, commands: bool = False) -> list[Line]:
        self.sections.append(_Section(title, commands=commands))
        return self.sections[-1].lines


def phase_todo(phase: str) -> str:
    """What the player whose turn it is does now, in the active language (the turn emails and
    the answers to emailed moves)."""
    lang = translation.get_language()
    todo = {
        "draw": _("draw from the stock or take the discard pile"),
        "play": _("meld if you like, then discard (or go out)"),
        "discard": _("discard one card (your opening turn)"),
        "answer": _('answer your partner\'s "may I go out?" (%(yes)s or %(no)s)')
        % {
            "yes": format_action({"type": "answer", "yes": True}, "classic", lang),
            "no": format_action({"type": "answer", "yes": False}, "classic", lang),
        },
    }
    return todo.get(phase, phase)


def _canasta_name(kind: str) -> str:
    names = {
        "natural": _("natural"),
        "mixed": _("mixed"),
        "joker": _("jokers"),
        "twos_clean": _("twos, clean"),
        "twos_dirty": _("twos, with jokers"),
    }
    return names.get(kind, kind)


def table_line(variant: str, players: int, turn_seconds: int | None) -> str:
    """A table in one line, in the active language: "Klassisches Canasta, 2 Spieler, ohne
    Zeitlimit" (variant title, players, time per turn)."""
    count = ngettext("%(count)d player", "%(count)d players", players) % {"count": players}
    if turn_seconds:
        hours = max(1, turn_seconds // 3600)
        clock = ngettext("%(count)d hour per turn", "%(count)d hours per turn", hours) % {
            "count": hours
        }
    else:
        clock = _("no time limit")
    return _("%(title)s, %(players)s, %(clock)s") % {
        "title": variant_title(variant),
        "players": count,
        "clock": clock,
    }


def variant_title(variant: str) -> str:
    """The variant's full name in the active language ("Classic Canasta")."""
    titles = {
        "classic": _("Classic Canasta"),
        "family": _("Family Canasta"),
        "party": _("Party Canasta"),
        "tiles": _("Canasta with tiles"),
    }
    return titles.get(variant, variant)


def game_line(variant: str, game_id: str) -> str:
    """A game as emails name it: "classic game 84cb8bdc"; German and Icelandic "84cb8bdc
    (Klassisches Canasta)", without a noun, so that each sentence puts "Partie" / "leikur" in
    the case its slot needs ("in der Partie %(game)s", "í leiknum %(game)s")."""
    names = {
        "classic": _("classic game %(id)s"),
        "family": _("family game %(id)s"),
        "party": _("party game %(id)s"),
        "tiles": _("tiles game %(id)s"),
    }
    return names.get(variant, _("%(variant)s game %(id)s")) % {
        "variant": variant,
        "id": game_id[:8],
    }


def _has_partners(view: Mapping[str, Any]) -> bool:
    """Four players or more play in partnerships (games.models.Game.sides)."""
    return (_int_of(view, "players") or 4) >= 4


def _variant(view: Mapping[str, Any]) -> str:
    value = view.get("variant")
    return value if isinstance(value, str) else "classic"


def _lang(lang: str | None) -> str:
    return display.language_code(lang or translation.get_language())


def card_label(
    card: str,
    variant: str,
    display_names: Mapping[str, str] | None = None,
    *,
    lang: str | None = None,
) -> str:
    """A card for people in ``lang`` (default: the active language): ``A♠``, ``10♥``, ``D♦``
    (German Dame), ``JK``; tiles ``7 red`` / ``7 rot`` (`games.display.card_label`)."""
    return display.card_label(card, variant, _lang(lang), display_names)


def _count(n: int, tiles: bool) -> str:
    if tiles:
        return ngettext("%(count)d tile", "%(count)d tiles", n) % {"count": n}
    return ngettext("%(count)d card", "%(count)d cards", n) % {"count": n}


def _int_of(view: Mapping[str, Any], key: str) -> int | None:
    value = view.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _list(view: Mapping[str, Any], key: str) -> list[Any]:
    value = view.get(key)
    return value if isinstance(value, list) else []


def _map(view: Mapping[str, Any], key: str) -> Mapping[str, Any] | None:
    value = view.get(key)
    return value if isinstance(value, Mapping) else None


def _ints(value: Any) -> list[int]:
    return [v for v in value if isinstance(v, int)] if isinstance(value, list) else []


@dataclass
class _Facts:
    """What the table sections read from the player view (every value checked)."""

    view: Mapping[str, Any]
    players: Sequence[str] | None
    lang: str
    variant: str = "classic"
    rules: RuleSet | None = None
    seat: int | None = None
    n_players: int = 0
    melds: list[Any] = field(default_factory=list)
    turn: int = 0
    phase: Any = None

    @classmethod
    def of(cls, view: Mapping[str, Any], players: Sequence[str] | None, lang: str) -> _Facts:
        variant = _variant(view)
        return cls(
            view=view,
            players=players,
            lang=lang,
            variant=variant,
            rules=VARIANTS.get(variant),
            seat=_int_of(view, "seat"),
            n_players=_int_of(view, "players") or 0,
            melds=_list(view, "melds"),
            turn=_int_of(view, "turn") or 0,
            phase=view.get("phase"),
        )

    @property
    def tiles(self) -> bool:
        return self.variant == "tiles"

    @property
    def sides(self) -> int:
        return len(self.melds) or 1

    @property
    def my_side(self) -> int | None:
        return None if self.seat is None else self.seat % self.sides

    @property
    def my_turn(self) -> bool:
        return self.turn == self.seat

    def name(self, seat: int) -> str:
        players = self.players
        if players and 0 <= seat < len(players) and players[seat]:
            return str(players[seat])
        return _("Seat %(number)d") % {"number": seat + 1}

    def who(self, seat: int) -> str:
        return _("you") if seat == self.seat else self.name(seat)

    def side_members(self, side: int) -> list[int]:
        return [s for s in range(self.n_players) if s % self.sides == side]

    def cards(self, cards: list[str]) -> Part:
        return ("cards", cards, ", " if self.tiles else " ")


# --- heading and whose turn -------------------------------------------------------------


def _title_line(f: _Facts) -> str:
    title = variant_title(f.variant)
    # The hand number: Table JSON's "hand" (which a Player view's cards shadow).
    number = _int_of(f.view, "hand_number") or _int_of(f.view, "hand")
    values = {"title": title, "players": f.n_players, "hand": number}
    if number and number > 1:
        return _("%(title)s, %(players)d players, hand %(hand)d") % values
    return _("%(title)s, %(players)d players") % values


def _over_line(f: _Facts) -> str:
    ended = _map(f.view, "ended") or {}
    out = ended.get("went_out")
    if not isinstance(out, int):
        return _("The hand is over: the stock ran out.")
    if out == f.seat:
        if ended.get("concealed"):
            return _("The hand is over: you went out concealed.")
        return _("The hand is over: you went out.")
    if ended.get("concealed"):
        return _("The hand is over: %(name)s went out concealed.") % {"name": f.name(out)}
    return _("The hand is over: %(name)s went out.") % {"name": f.name(out)}


def _turn_line(f: _Facts) -> str:
    if f.phase == "over":
        return _over_line(f)
    if f.phase == "answer":
        asker = f.view.get("asked_by")
        name = f.who(asker) if isinstance(asker, int) else _("a player")
        if f.my_turn:
            return _('%(name)s asks you: "may I go out?" Answer %(yes)s or %(no)s.') % {
                "name": name,
                "yes": format_action({"type": "answer", "yes": True}, f.variant, f.lang),
                "no": format_action({"type": "answer", "yes": False}, f.variant, f.lang),
            }
        return _('%(name)s asked "may I go out?"; %(who)s must answer.') % {
            "name": name,
            "who": f.who(f.turn),
        }
    if f.my_turn:
        return _("It is your turn: %(todo)s.") % {"todo": phase_todo(str(f.phase))}
    return _("It is %(name)s's turn.") % {"name": f.who(f.turn)}


def _heading(doc: _Doc, f: _Facts, deadline: str | None) -> None:
    head = doc.section("")
    head.append([_title_line(f)])
    if f.seat is not None:
        head.append(
            [_("You are %(name)s (seat %(seat)d).") % {"name": f.name(f.seat), "seat": f.seat + 1}]
        )
    head.append([_turn_line(f)])
    go_out = f.view.get("go_out")
    if f.phase == "play" and f.my_turn and go_out is True:
        head.append([_("Your partner said YES: you must go out this turn.")])
    elif f.phase == "play" and f.my_turn and go_out is False:
        head.append([_("Your partner said NO: you may not go out this turn.")])
    if deadline:
        head.append([_("Deadline: %(when)s") % {"when": deadline}])


# --- the hand, the pile and the stock ---------------------------------------------------


def _hand_section(doc: _Doc, f: _Facts) -> None:
    hand = f.view.get("hand")
    if not isinstance(hand, list):
        return
    lines = doc.section(_("YOUR HAND (%(count)s)") % {"count": _count(len(hand), f.tiles)})
    if hand:
        line: Line = ["  "]
        for i, group in enumerate(display.hand_groups(hand)):
            if i:
                line.append(" | ")
            line.append(f.cards(group))
        lines.append(line)
    else:
        lines.append(["  " + _("(empty)")])
    if not f.tiles:
        suits = ", ".join(
            f"{display.SYMBOL_OF_SUIT[s]} {display.TYPED_SUITS[f.lang][s]}" for s in "SHDC"
        )
        examples = ", ".join(format_card(c, f.variant, f.lang) for c in ("7H", "TS", JOKER))
        lines.append(
            [
                "  "
                + _("Suits: %(suits)s. Type cards as %(examples)s.")
                % {"suits": suits, "examples": examples}
            ]
        )


def _pile_line(f: _Facts, pile: list[str]) -> Line:
    top = pile[-1]
    line: Line = ["  " + _("%(count)s, top: ") % {"count": _count(len(pile), f.tiles)}]
    line.append(f.cards([top]))
    options = _map(f.view, "options") or {}
    if f.rules and f.rules.is_pile_blocker(top, options):
        line.append(" " + _("(cannot be taken)"))
    elif f.tiles:
        line.append(" " + _("(taking it needs a natural pair)"))
    if not f.tiles:
        if not f.view.get("frozen"):
            line.append(" — " + _("not frozen"))
        elif f.seat is not None:
            line.append(" — " + _("FROZEN for your side"))
        else:
            line.append(" — " + _("FROZEN"))
    return line


def _pile_section(doc: _Doc, f: _Facts) -> None:
    lines = doc.section(_("DISCARD PILE AND STOCK"))
    pile = [c for c in _list(f.view, "discard") if isinstance(c, str)]
    lines.append(_pile_line(f, pile) if pile else ["  " + _("empty")])
    stock = f.view.get("stock_size")
    if isinstance(stock, int):
        lines.append(["  " + _("Stock: %(count)s") % {"count": _count(stock, f.tiles)}])


# --- sides: melds, red threes, scores ---------------------------------------------------


def _side_label(f: _Facts, side: int) -> str:
    members = sorted(f.side_members(side), key=lambda s: s != f.seat)
    names = " & ".join(f.who(s) for s in members) or _("side %(number)d") % {"number": side + 1}
    if side != f.my_side:
        return names[0].upper() + names[1:]
    if f.n_players > f.sides:
        return _("Your side (%(names)s)") % {"names": names}
    return _("Your side")


def _meld_lines(f: _Facts, side_melds: Mapping[str, Any]) -> list[Line]:
    lines: list[Line] = []
    for key in display.meld_order(side_melds):
        cards = [c for c in side_melds[key] if isinstance(c, str)]
        kind = canasta_kind(key, cards)
        size = _count(len(cards), f.tiles)
        tail = (
            _("CANASTA (%(kind)s), %(size)s") % {"kind": _canasta_name(kind), "size": size}
            if kind
            else size
        )
        label = display.key_short_label(key, f.variant, f.lang)
        lines.append([f"    {label}: ", f.cards(sorted(cards, key=sort_key)), f" — {tail}"])
    return lines


def _no_melds_line(f: _Facts, side: int, score: int) -> Line:
    need: int | None = None
    if side == f.my_side and _int_of(f.view, "minimum") is not None:
        need = _int_of(f.view, "minimum")
    elif f.rules is not None:
        need = f.rules.minimum_for_score(score)
    if need:
        return [
            "    "
            + _("No melds yet; the first meld must be worth at least %(points)d points.")
            % {"points": need}
        ]
    return ["    " + _("No melds yet.")]


def _side_lines(f: _Facts, side: int, scores: list[int]) -> list[Line]:
    score = scores[side] if side < len(scores) else 0
    shown = _("%(label)s: score %(score)s") % {
        "label": _side_label(f, side),
        "score": _number(score, f.lang),
    }
    lines: list[Line] = [[f"  {shown}"]]
    melds = f.melds
    side_melds = melds[side] if side < len(melds) and isinstance(melds[side], Mapping) else {}
    lines += _meld_lines(f, side_melds) if side_melds else [_no_melds_line(f, side, score)]
    red_threes = _list(f.view, "red_threes")
    reds = red_threes[side] if side < len(red_threes) else []
    if isinstance(reds, list) and reds:
        lines.append(["    " + _("Red threes: "), f.cards(list(reds))])
    return lines


def _number(value: int, lang: str) -> str:
    """A score with the thousands separator of the language (1,230 / 1.230)."""
    return l10n.number(value, lang)


def _sides_section(doc: _Doc, f: _Facts) -> None:
    lines = doc.section(_("MELDS AND SCORES"))
    order = list(range(f.sides))
    if f.my_side is not None:
        order.remove(f.my_side)
        order.insert(0, f.my_side)
    scores = _ints(f.view.get("scores"))
    for side in order:
        lines += _side_lines(f, side, scores)
    minimum = _int_of(f.view, "minimum")
    if f.my_side is not None and minimum is not None and f.melds:
        if minimum:
            lines.append(
                [
                    "  "
                    + _("Your side's initial meld: at least %(points)d points.")
                    % {"points": minimum}
                ]
            )
        else:
            lines.append(["  " + _("Your side has made its initial meld.")])


# --- players ----------------------------------------------------------------------------


def _players_section(doc: _Doc, f: _Facts) -> None:
    lines = doc.section(_("PLAYERS"))
    hand_sizes = _ints(f.view.get("hand_sizes"))
    you = _("%(name)s (you)")
    labels = [you % {"name": f.name(s)} if s == f.seat else f.name(s) for s in range(f.n_players)]
    width = max((len(label) for label in labels), default=0)
    count_width = max((len(_count(n, f.tiles)) for n in hand_sizes), default=0)
    for s, label in enumerate(labels):
        count = _count(hand_sizes[s] if s < len(hand_sizes) else 0, f.tiles)
        mark = ""
        if s == f.turn and f.phase == "answer":
            mark = "  <- " + _("to answer")
        elif s == f.turn and f.phase != "over":
            mark = "  <- " + _("to play")
        lines.append([f"  {label:{width}}  {count:>{count_width}}{mark}"])


def _build(
    view: Mapping[str, Any],
    legal: Mapping[str, Any] | None,
    players: Sequence[str] | None,
    deadline: str | None,
    lang: str,
) -> _Doc:
    f = _Facts.of(view, players, lang)
    doc = _Doc()
    _heading(doc, f, deadline)
    _hand_section(doc, f)
    _pile_section(doc, f)
    _sides_section(doc, f)
    _players_section(doc, f)
    if legal is not None:
        _legal_section(doc, legal, f.variant, lang, my_turn=f.my_turn and f.phase != "over")
    return doc


def _legal_section(
    doc: _Doc, legal: Mapping[str, Any], variant: str, lang: str, *, my_turn: bool
) -> None:
    lines = doc.section(_("WHAT YOU CAN DO NOW"), commands=True)
    shown: list[str] = []
    out = legal.get("going_out") or []
    if out:
        lines.append(["  " + _("go out now:") + "  " + format_actions(out, variant, lang)])
    if legal.get("draw"):
        shown.append(format_action({"type": "draw"}, variant, lang))
    for key in ("pickups", "melds", "adds", "answers"):
        for action in legal.get(key) or []:
            shown.append(format_action(action, variant, lang))
    if legal.get("ask_partner"):
        ask = format_action({"type": "ask_partner"}, variant, lang)
        shown.append(_('%(ask)s   (ask your partner "may I go out?")') % {"ask": ask})
    extra = len(shown) - _MAX_LISTED
    for command in shown[:_MAX_LISTED]:
        lines.append([f"  {command}"])
    if extra > 0:
        lines.append(["  " + _("... and %(count)d more ways to meld") % {"count": extra}])
    _discard_lines(lines, legal.get("discards") or [], variant, lang)
    if not lines:
        lines.append(["  " + (_("nothing: it is not your turn") if not my_turn else _("nothing"))])


def _discard_lines(lines: list[Line], discards: list[str], variant: str, lang: str) -> None:
    if not discards:
        return
    ordered = sorted(dict.fromkeys(discards), key=sort_key)
    codes = (", " if variant == "tiles" else " ").join(
        format_card(c, variant, lang) for c in ordered
    )
    if len(discards) == 1:
        lines.append([f"  {format_action({'type': 'discard', 'card': ordered[0]}, variant, lang)}"])
    else:
        verb = word("discard", lang)
        lines.append(
            ["  " + _("%(discard)s <card>, one of: %(cards)s") % {"discard": verb, "cards": codes}]
        )


# --- output ---------------------------------------------------------------------------


def _text_line(line: Line, variant: str, names: Mapping[str, str] | None, lang: str) -> str:
    out = []
    for part in line:
        if isinstance(part, str):
            out.append(part)
        else:
            _kind, cards, sep = part
            out.append(sep.join(display.card_label(c, variant, lang, names) for c in cards))
    return "".join(out).rstrip()


def render_table_text(
    view: Mapping[str, Any],
    *,
    legal: Mapping[str, Any] | None = None,
    players: Sequence[str] | None = None,
    deadline: str | None = None,
    include_help: bool = True,
    lang: str | None = None,
) -> str:
    """The plain-text table for the turn email (stands on its own; see the module docstring).

    ``players``: names by seat; ``deadline``: shown as given; ``include_help`` appends
    `help.help_text` (the command language), as every turn email should carry it; ``lang``:
    the reader's language (default: the active one).
    """
    return render_table_both(
        view,
        legal=legal,
        players=players,
        deadline=deadline,
        include_help=include_help,
        lang=lang,
        forms=("text",),
    )[0]


def _text_of(doc: _Doc, view: Mapping[str, Any], lang: str, include_help: bool) -> str:
    variant = _variant(view)
    names = _map(view, "display")
    chunks = []
    for section in doc.sections:
        body = [_text_line(line, variant, names, lang) for line in section.lines]
        chunks.append("\n".join(([section.title] if section.title else []) + body))
    if include_help:
        chunks.append(help_text(variant, lang, _has_partners(view)).rstrip("\n"))
    return "\n\n".join(chunks) + "\n"


_HTML_COLOURS = {"H": "#c0001a", "D": "#c0001a", "S": "#111", "C": "#111"}
_TILE_COLOURS = {"H": "#c0001a", "D": "#9a7000", "S": "#111", "C": "#0b4fb3"}


def _html_line(line: Line, variant: str, names: Mapping[str, str] | None, lang: str) -> str:
    colours = _TILE_COLOURS if variant == "tiles" else _HTML_COLOURS
    out: list[str] = []
    for part in line:
        if isinstance(part, str):
            # Only the leading indentation goes (the paragraph's padding shows it); the space
            # before the cards that follow stays ("top: 5♥", not "top:5♥").
            out.append(html.escape(part.lstrip() if not out else part))
        else:
            _kind, cards, sep = part
            spans = []
            for c in cards:
                colour = "#6a1b9a" if c == JOKER else colours.get(c[1:2], "#111")
                label = html.escape(display.card_label(c, variant, lang, names))
                spans.append(
                    f'<span class="card" style="color:{colour};font-weight:bold">{label}</span>'
                )
            out.append(html.escape(sep).join(spans))
    return "".join(out)


def _html_section(
    section: _Section, variant: str, names: Mapping[str, str] | None, lang: str
) -> list[str]:
    out = []
    if section.title:
        out.append(f'<h3 style="margin:16px 0 4px">{html.escape(section.title)}</h3>')
    for line in section.lines:
        style = "margin:2px 0"
        if line and isinstance(line[0], str) and line[0].startswith("    "):
            style += ";padding-left:24px"
        content = _html_line(line, variant, names, lang)
        if section.commands:
            out.append(f'<p style="{style}"><code>{content}</code></p>')
        else:
            out.append(f'<p style="{style}">{content}</p>')
    return out


def render_table_html(
    view: Mapping[str, Any],
    *,
    legal: Mapping[str, Any] | None = None,
    players: Sequence[str] | None = None,
    deadline: str | None = None,
    include_help: bool = True,
    lang: str | None = None,
) -> str:
    """The same content as `render_table_text` as a small HTML fragment (everything escaped)."""
    return render_table_both(
        view,
        legal=legal,
        players=players,
        deadline=deadline,
        include_help=include_help,
        lang=lang,
        forms=("html",),
    )[0]


def _html_of(doc: _Doc, view: Mapping[str, Any], lang: str, include_help: bool) -> str:
    variant = _variant(view)
    names = _map(view, "display")
    out = ['<div class="canasta-table" style="font-family:sans-serif;font-size:15px">']
    for section in doc.sections:
        out += _html_section(section, variant, names, lang)
    if include_help:
        out.append(f"<pre>{html.escape(help_text(variant, lang, _has_partners(view)))}</pre>")
    out.append("</div>")
    return "\n".join(out) + "\n"


def render_table_both(
    view: Mapping[str, Any],
    *,
    legal: Mapping[str, Any] | None = None,
    players: Sequence[str] | None = None,
    deadline: str | None = None,
    include_help: bool = True,
    lang: str | None = None,
    forms: Sequence[str] = ("text", "html"),
) -> list[str]:
    """`render_table_text` and `render_table_html` (in the order ``forms`` names them) from
    one build of the table's sections: an email carries both, and building them was most of
    the cost of rendering it."""
    lang = _lang(lang)
    writers = {"text": _text_of, "html": _html_of}
    with translation.override(lang):
        doc = _build(view, legal, players, deadline, lang)
        return [writers[form](doc, view, lang, include_help) for form in forms]
