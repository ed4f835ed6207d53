"""The table as one seat sees it, for the turn email: plain text (and a simple HTML part).

Input is the Player view JSON (table-json.md, docs/engine-notes.md): nothing here can show a
card the view does not hold. ``legal`` is `LegalActions.to_json()` for the same seat; its
actions are written as the commands that make them (`commands.format_action`).

Cards are written rank + suit symbol (``A♠ 10♥ 7♦ 2♣``, ``JK``), so suits never depend on
colour; the parser accepts the same forms, and the "what you can do" lines use the typed
codes (``7h``). `tiles` tables show tiles (``7 red``, ``13 blue``, ``joker``).
Pure: standard library and `games.engine` only.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from games.engine.cards import JOKER, sort_key
from games.engine.melds import canasta_kind
from games.engine.rules import RuleSet
from games.engine.variants import VARIANTS
from games.engine.view import tile_name

from .commands import format_action, format_actions, format_card, help_text

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
_KEY_ORDER = "AKQJT98765432W3"
_CANASTA_NAMES = {
    "natural": "natural",
    "mixed": "mixed",
    "joker": "jokers",
    "twos_clean": "twos, clean",
    "twos_dirty": "twos, with jokers",
}
_PHASE_TODO = {
    "draw": "draw from the stock or take the discard pile",
    "play": "meld if you like, then discard (or go out)",
    "discard": "discard one card (your opening turn)",
}
_MAX_LISTED = 40  # legal meld/add lines shown; more are summarised

# A line is a list of parts: plain text, or ("cards", [codes], separator) to be shown as cards.
Part = str | tuple[str, list[str], str]
Line = list[Part]


class _Doc:
    def __init__(self) -> None:
        self.sections: list[tuple[str, list[Line]]] = []

    def section(self, title: str) -> list[Line]:
        lines: list[Line] = []
        self.sections.append((title, lines))
        return lines


def _variant(view: Mapping[str, Any]) -> str:
    value = view.get("variant")
    return value if isinstance(value, str) else "classic"


def _rules(view: Mapping[str, Any]) -> RuleSet | None:
    return VARIANTS.get(_variant(view))


def card_label(card: str, variant: str, display: Mapping[str, str] | None = None) -> str:
    """A card for people: ``A♠``, ``10♥``, ``JK``; tiles: ``7 red``, ``joker``."""
    if variant == "tiles":
        if display and isinstance(display.get(card), str):
            return display[card]
        return tile_name(card)
    if card == JOKER:
        return "JK"
    rank = "10" if card[0] == "T" else card[0]
    return rank + SUIT_SYMBOLS.get(card[1], card[1])


def _key_label(key: str, variant: str) -> str:
    if key == "W":
        return "Wild cards"
    if key == "3":
        return "Black threes"
    if variant == "tiles":
        return {"A": "1", "T": "10", "J": "11", "Q": "12", "K": "13", "2": "Twos"}.get(key, key)
    return {"T": "10", "2": "Twos"}.get(key, key)


def _group_hand(hand: Sequence[str]) -> list[list[str]]:
    """Sorted (high to low, wild cards last) and grouped by rank; wild cards form one group."""
    groups: list[list[str]] = []
    last = None
    for card in sorted(hand, key=sort_key):
        rank = "wild" if card == JOKER or card[0] == "2" else card[0]
        if rank != last:
            groups.append([])
            last = rank
        groups[-1].append(card)
    return groups


def _name(players: Sequence[str] | None, seat: int) -> str:
    if players and 0 <= seat < len(players) and players[seat]:
        return str(players[seat])
    return f"Seat {seat + 1}"


def _int(view: Mapping[str, Any], key: str) -> int | None:
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


def _build(
    view: Mapping[str, Any],
    legal: Mapping[str, Any] | None,
    players: Sequence[str] | None,
    deadline: str | None,
) -> _Doc:
    variant = _variant(view)
    rules = _rules(view)
    tiles = variant == "tiles"
    seat = _int(view, "seat")
    n_players = _int(view, "players") or 0
    melds = _list(view, "melds")
    sides = len(melds) or 1
    turn = _int(view, "turn") or 0
    phase = view.get("phase")
    hand_sizes = _ints(view.get("hand_sizes"))
    scores = _ints(view.get("scores"))
    red_threes = _list(view, "red_threes")
    my_side = None if seat is None else seat % sides
    doc = _Doc()

    def who(s: int) -> str:
        return "you" if s == seat else _name(players, s)

    def side_members(side: int) -> list[int]:
        return [s for s in range(n_players) if s % sides == side]

    # --- heading and whose turn -------------------------------------------------------
    title = rules.title if rules else variant
    head = doc.section("")
    # The hand number: Table JSON's "hand" (which a Player view's cards shadow).
    number = _int(view, "hand_number") or _int(view, "hand")
    head.append(
        [f"{title}, {n_players} players" + (f", hand {number}" if number and number > 1 else "")]
    )
    if seat is not None:
        head.append([f"You are {_name(players, seat)} (seat {seat + 1})."])
    if phase == "over":
        ended = _map(view, "ended") or {}
        out = ended.get("went_out")
        if isinstance(out, int):
            how = " concealed" if ended.get("concealed") else ""
            head.append([f"The hand is over: {who(out)} went out{how}."])
        else:
            head.append(["The hand is over: the stock ran out."])
    elif phase == "answer":
        asker = view.get("asked_by")
        asker_name = who(asker) if isinstance(asker, int) else "a player"
        if turn == seat:
            head.append([f'{asker_name} asks you: "may I go out?" Answer yes or no.'])
        else:
            head.append([f'{asker_name} asked "may I go out?"; {who(turn)} must answer.'])
    elif turn == seat:
        head.append([f"It is your turn: {_PHASE_TODO.get(str(phase), str(phase))}."])
    else:
        head.append([f"It is {who(turn)}'s turn."])
    if phase == "play" and turn == seat and view.get("go_out") is True:
        head.append(["Your partner said YES: you must go out this turn."])
    elif phase == "play" and turn == seat and view.get("go_out") is False:
        head.append(["Your partner said NO: you may not go out this turn."])
    if deadline:
        head.append([f"Deadline: {deadline}"])

    # --- the hand ---------------------------------------------------------------------
    hand = view.get("hand")
    if isinstance(hand, list):
        lines = doc.section(f"YOUR HAND ({len(hand)} {'tiles' if tiles else 'cards'})")
        if hand:
            line: Line = ["  "]
            for i, group in enumerate(_group_hand(hand)):
                if i:
                    line.append(" | ")
                line.append(("cards", group, ", " if tiles else " "))
            lines.append(line)
        else:
            lines.append(["  (empty)"])
        if not tiles:
            lines.append(["  Suits: ♠ s, ♥ h, ♦ d, ♣ c. Type cards as 7h, 10s, JK."])

    # --- the pile and the stock -----------------------------------------------------------
    lines = doc.section("DISCARD PILE AND STOCK")
    pile = [c for c in _list(view, "discard") if isinstance(c, str)]
    if pile:
        top = pile[-1]
        line = [
            f"  {len(pile)} {'tile' if tiles else 'card'}{'s' if len(pile) != 1 else ''}, top: "
        ]
        line.append(("cards", [top], " "))
        options = _map(view, "options") or {}
        if rules and rules.is_pile_blocker(top, options):
            line.append(" (cannot be taken)")
        elif tiles:
            line.append(" (taking it needs a natural pair)")
        if not tiles:
            line.append(" — FROZEN" if view.get("frozen") else " — not frozen")
            if view.get("frozen") and seat is not None:
                line.append(" for your side")
        lines.append(line)
    else:
        lines.append(["  empty"])
    stock = view.get("stock_size")
    if isinstance(stock, int):
        lines.append([f"  Stock: {stock} {'tiles' if tiles else 'cards'}"])

    # --- sides: melds, red threes, scores ---------------------------------------------
    lines = doc.section("MELDS AND SCORES")
    order = list(range(sides))
    if my_side is not None:
        order.remove(my_side)
        order.insert(0, my_side)
    for side in order:
        members = sorted(side_members(side), key=lambda s: s != seat)
        names = " & ".join(who(s) for s in members) or f"side {side + 1}"
        label = "Your side" if side == my_side else "Side"
        if side == my_side and n_players > sides:
            label += f" ({names})"
        elif side != my_side:
            label = names[0].upper() + names[1:]
        score = scores[side] if side < len(scores) else 0
        lines.append([f"  {label}: score {score:,}"])
        side_melds = melds[side] if side < len(melds) and isinstance(melds[side], Mapping) else {}
        keys = sorted(side_melds, key=lambda k: _KEY_ORDER.find(k) if k in _KEY_ORDER else 99)
        for key in keys:
            cards = [c for c in side_melds[key] if isinstance(c, str)]
            kind = canasta_kind(key, cards)
            size = f"{len(cards)} {'tiles' if tiles else 'cards'}"
            tail = f"CANASTA ({_CANASTA_NAMES.get(kind, kind)}), {size}" if kind else size
            lines.append(
                [
                    f"    {_key_label(key, variant)}: ",
                    ("cards", sorted(cards, key=sort_key), ", " if tiles else " "),
                    f" — {tail}",
                ]
            )
        if not side_melds:
            need: int | None = None
            if side == my_side and _int(view, "minimum") is not None:
                need = _int(view, "minimum")
            elif rules is not None:
                need = rules.minimum_for_score(score)
            text = "    No melds yet"
            if need:
                text += f"; the first meld must be worth at least {need} points"
            lines.append([text + "."])
        reds = red_threes[side] if side < len(red_threes) else []
        if isinstance(reds, list) and reds:
            lines.append(["    Red threes: ", ("cards", list(reds), ", " if tiles else " ")])
    minimum = _int(view, "minimum")
    if my_side is not None and minimum is not None and melds:
        if minimum:
            lines.append([f"  Your side's initial meld: at least {minimum} points."])
        else:
            lines.append(["  Your side has made its initial meld."])

    # --- players ----------------------------------------------------------------------
    lines = doc.section("PLAYERS")
    labels = [_name(players, s) + (" (you)" if s == seat else "") for s in range(n_players)]
    width = max((len(label) for label in labels), default=0)
    for s, label in enumerate(labels):
        count = hand_sizes[s] if s < len(hand_sizes) else 0
        mark = "  <- to play" if s == turn and phase != "over" else ""
        if phase == "answer" and s == turn:
            mark = "  <- to answer"
        lines.append([f"  {label:{width}}  {count:2} {'tiles' if tiles else 'cards'}{mark}"])

    # --- what is legal ------------------------------------------------------------------
    if legal is not None:
        _legal_section(doc, legal, variant, my_turn=turn == seat and phase != "over")
    return doc


def _legal_section(doc: _Doc, legal: Mapping[str, Any], variant: str, *, my_turn: bool) -> None:
    lines = doc.section("WHAT YOU CAN DO NOW")
    shown: list[str] = []
    out = legal.get("going_out") or []
    if out:
        lines.append([f"  go out now:  {format_actions(out, variant)}"])
    if legal.get("draw"):
        shown.append("draw")
    for key in ("pickups", "melds", "adds"):
        for action in legal.get(key) or []:
            shown.append(format_action(action, variant))
    for action in legal.get("answers") or []:
        shown.append(format_action(action, variant))
    if legal.get("ask_partner"):
        shown.append('ask   (ask your partner "may I go out?")')
    extra = len(shown) - _MAX_LISTED
    for command in shown[:_MAX_LISTED]:
        lines.append([f"  {command}"])
    if extra > 0:
        lines.append([f"  ... and {extra} more ways to meld"])
    discards = legal.get("discards") or []
    if discards:
        ordered = sorted(dict.fromkeys(discards), key=sort_key)
        codes = (", " if variant == "tiles" else " ").join(format_card(c, variant) for c in ordered)
        if len(discards) == 1:
            lines.append([f"  discard {codes}"])
        else:
            lines.append([f"  discard <card>, one of: {codes}"])
    if not lines:
        lines.append(["  nothing: it is not your turn" if not my_turn else "  nothing"])


# --- output ---------------------------------------------------------------------------


def _text_line(line: Line, variant: str, display: Mapping[str, str] | None) -> str:
    out = []
    for part in line:
        if isinstance(part, str):
            out.append(part)
        else:
            _, cards, sep = part
            out.append(sep.join(card_label(c, variant, display) for c in cards))
    return "".join(out).rstrip()


def render_table_text(
    view: Mapping[str, Any],
    *,
    legal: Mapping[str, Any] | None = None,
    players: Sequence[str] | None = None,
    deadline: str | None = None,
    include_help: bool = True,
) -> str:
    """The plain-text table for the turn email (stands on its own; see the module docstring).

    ``players``: names by seat; ``deadline``: shown as given; ``include_help`` appends
    `commands.help_text` (the command language), as every turn email should carry it.
    """
    variant = _variant(view)
    display = _map(view, "display")
    doc = _build(view, legal, players, deadline)
    chunks = []
    for title, lines in doc.sections:
        body = [_text_line(line, variant, display) for line in lines]
        chunks.append("\n".join(([title] if title else []) + body))
    if include_help:
        chunks.append(help_text(variant).rstrip("\n"))
    return "\n\n".join(chunks) + "\n"


_HTML_COLOURS = {"H": "#c0001a", "D": "#c0001a", "S": "#111", "C": "#111"}
_TILE_COLOURS = {"H": "#c0001a", "D": "#9a7000", "S": "#111", "C": "#0b4fb3"}


def _html_line(line: Line, variant: str, display: Mapping[str, str] | None) -> str:
    colours = _TILE_COLOURS if variant == "tiles" else _HTML_COLOURS
    out: list[str] = []
    for part in line:
        if isinstance(part, str):
            # Only the leading indentation goes (the paragraph's padding shows it); the space
            # before the cards that follow stays ("top: 5♥", not "top:5♥").
            out.append(html.escape(part.lstrip() if not out else part))
        else:
            _, cards, sep = part
            spans = []
            for c in cards:
                colour = "#6a1b9a" if c == JOKER else colours.get(c[1:2], "#111")
                label = html.escape(card_label(c, variant, display))
                spans.append(
                    f'<span class="card" style="color:{colour};font-weight:bold">{label}</span>'
                )
            out.append(html.escape(sep).join(spans))
    return "".join(out)


def render_table_html(
    view: Mapping[str, Any],
    *,
    legal: Mapping[str, Any] | None = None,
    players: Sequence[str] | None = None,
    deadline: str | None = None,
    include_help: bool = True,
) -> str:
    """The same content as `render_table_text` as a small HTML fragment (everything escaped)."""
    variant = _variant(view)
    display = _map(view, "display")
    doc = _build(view, legal, players, deadline)
    out = ['<div class="canasta-table" style="font-family:sans-serif;font-size:15px">']
    for title, lines in doc.sections:
        if title:
            out.append(f'<h3 style="margin:16px 0 4px">{html.escape(title)}</h3>')
        mono = title == "WHAT YOU CAN DO NOW"
        for line in lines:
            style = "margin:2px 0"
            if line and isinstance(line[0], str) and line[0].startswith("    "):
                style += ";padding-left:24px"
            content = _html_line(line, variant, display)
            if mono:
                out.append(f'<p style="{style}"><code>{content}</code></p>')
            else:
                out.append(f'<p style="{style}">{content}</p>')
    if include_help:
        out.append(f"<pre>{html.escape(help_text(variant))}</pre>")
    out.append("</div>")
    return "\n".join(out) + "\n"
