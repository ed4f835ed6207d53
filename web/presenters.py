"""The game page's context: the API's presenters (api.presenters) plus what a page draws.

Every card comes from the engine's player view for the viewer's seat (through
`api.presenters.game_detail`) and from the move log filtered by `engine.event_for`
(`api.presenters.move_entry`): this module never reads a hand, the stock or a seed itself.
The move history is in web/history.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from api.presenters import etag, game_detail, hand_entry, viewer_seat
from games import engine, selectors
from games.engine.melds import canasta_kind
from games.models import Game, GameState, GameStatus, Seat, SeatKind, SeatStatus
from games.players import player_name
from web import cards as shown
from web.history import END_REASONS as HAND_END_REASONS
from web.history import history, scores_text
from web.moves import MoveForm, without

CANASTA_NAMES = {
    "natural": "Natural canasta",
    "mixed": "Mixed canasta",
    "joker": "Canasta of wild cards",
    "twos_clean": "Canasta of twos",
    "twos_dirty": "Canasta of twos with jokers",
}
PHASE_HINTS = {
    "draw": "draw from the stock, or take the discard pile",
    "play": "meld if you like, then discard one card (or go out)",
    "discard": "discard one card (your opening turn)",
}
PHASE_WAITING = {
    "draw": "to draw",
    "play": "to meld and discard",
    "discard": "to discard",
    "answer": "to answer “may I go out?”",
}
# How a match or a hand ended, in words (games.models.EndReason, engine end reasons).
END_REASONS = {
    "match_over": "the match was played to its end",
    "resigned": "a side resigned",
    "aborted": "it was called off before the first move",
    "cancelled": "every player left before the start",
    "forfeit": "a side ran out of time",
    **HAND_END_REASONS,
}


def _state(game: Game) -> GameState | None:
    if game.status == GameStatus.OPEN:
        return None
    try:
        return game.state
    except GameState.DoesNotExist:
        return None


def player_names(game: Game, me: int | None) -> dict[int, str]:
    names = {}
    for seat in game.seats.all():
        if seat.number is None:
            continue
        if seat.number == me:
            names[seat.number] = "You"
        elif seat.user_id:
            names[seat.number] = player_name(seat.user)
        else:
            names[seat.number] = f"Bot {seat.number + 1}"
    return names


def _seat_notes(game: Game) -> dict[int, dict[str, Any]]:
    """Per seat number: whether a bot plays it (a bot seat, or standing in for an away
    player) and at which level."""
    notes = {}
    for seat in game.seats.all():
        if seat.number is None:
            continue
        notes[seat.number] = {
            "is_bot": seat.kind == SeatKind.BOT,
            "away": seat.away,
            "level": seat.bot_level,
        }
    return notes


def _side_label(members: Sequence[int], names: Mapping[int, str], me: int | None) -> str:
    ordered = sorted(members, key=lambda s: (s != me, s))
    return " & ".join(names.get(s, f"Seat {s + 1}") for s in ordered)


def _melds(
    side_melds: Mapping[str, Sequence[str]], variant: str, display: Mapping[str, str] | None
) -> list[dict[str, Any]]:
    out = []
    for key in shown.meld_order(side_melds):
        codes = list(side_melds[key])
        kind = canasta_kind(key, codes)
        out.append(
            {
                "key": key,
                "label": shown.meld_label(key, variant),
                "cards": shown.sorted_cards(codes, variant, display),
                "size": len(codes),
                "canasta": kind,
                "canasta_label": CANASTA_NAMES.get(kind or "", ""),
            }
        )
    return out


def _sides(
    view: Mapping[str, Any], game: Game, names: Mapping[int, str], me: int | None
) -> list[dict[str, Any]]:
    rules = engine.get_rules(game.variant)
    variant = game.variant
    display = view.get("display")
    my_side = me % game.sides if me is not None else None
    out = []
    for side in range(game.sides):
        members = [s for s in range(game.players) if s % game.sides == side]
        melds = view["melds"][side]
        score = view["scores"][side]
        if side == my_side:
            minimum = view.get("minimum", 0)
        else:
            minimum = 0 if melds else rules.minimum_for_score(score)
        built = _melds(melds, variant, display)
        out.append(
            {
                "number": side,
                "label": _side_label(members, names, me),
                "is_mine": side == my_side,
                "score": score,
                "minimum": minimum,
                "melds": built,
                "canastas": sum(1 for m in built if m["canasta"]),
                "red_threes": shown.cards(view["red_threes"][side], variant, display),
                "hand_sizes": [view["hand_sizes"][s] for s in members],
            }
        )
    out.sort(key=lambda s: not s["is_mine"])
    return out


def _players(
    game: Game, view: Mapping[str, Any], names: Mapping[int, str], me: int | None
) -> list[dict[str, Any]]:
    notes = _seat_notes(game)
    over = view.get("phase") == "over"
    return [
        {
            **notes.get(s, {"is_bot": False, "away": False, "level": ""}),
            "seat": s,
            "name": names.get(s, f"Seat {s + 1}"),
            "side": s % game.sides,
            "is_me": s == me,
            "is_partner": me is not None and s != me and s % game.sides == me % game.sides,
            "is_turn": s == view["turn"] and not over and game.status == GameStatus.ACTIVE,
            "is_dealer": s == view.get("dealer"),
            "cards": view["hand_sizes"][s],
        }
        for s in range(game.players)
    ]


def _pile(game: Game, view: Mapping[str, Any]) -> dict[str, Any]:
    rules = engine.get_rules(game.variant)
    pile = list(view.get("discard") or [])
    display = view.get("display")
    top = pile[-1] if pile else None
    return {
        "size": len(pile),
        "top": shown.card(top, game.variant, display) if top else None,
        "frozen": bool(view.get("frozen")),
        "blocked": bool(top and rules.is_pile_blocker(top, game.options)),
        "stock": view.get("stock_size", 0),
        "tiles": game.variant == "tiles",
    }


def _turn(
    game: Game, view: Mapping[str, Any], names: Mapping[int, str], me: int | None
) -> dict[str, Any]:
    phase = view.get("phase")
    turn = view.get("turn")
    mine = me is not None and turn == me and game.status == GameStatus.ACTIVE
    if game.status != GameStatus.ACTIVE:
        text = ""
    elif phase == "answer":
        asker = names.get(view.get("asked_by", -1), "Your partner")
        if mine:
            text = f"{asker} asks you: “may I go out?” Your answer binds them."
        else:
            text = f"{asker} asked “may I go out?”; waiting for {names.get(turn, '?')} to answer."
    elif mine:
        hint = PHASE_HINTS.get(str(phase), str(phase))
        text = f"{hint[0].upper()}{hint[1:]}."
    else:
        text = f"Waiting for {names.get(turn, '?')} {PHASE_WAITING.get(str(phase), '')}.".replace(
            " .", "."
        )
    binding = None
    if mine and phase == "play" and view.get("go_out") is True:
        binding = "Your partner said yes: you must go out this turn."
    elif mine and phase == "play" and view.get("go_out") is False:
        binding = "Your partner said no: you may not go out this turn."
    return {
        "seat": turn,
        "name": names.get(turn, "") if turn is not None else "",
        "phase": phase,
        "mine": mine,
        "text": text,
        "binding": binding,
    }


def side_names(game: Game, names: Mapping[int, str], me: int | None) -> list[str]:
    my_side = me % game.sides if me is not None else None
    out = []
    for side in range(game.sides):
        if side == my_side:
            out.append("your side")
        else:
            members = [s for s in range(game.players) if s % game.sides == side]
            out.append(_side_label(members, names, me))
    return out


def _hands(game: Game, current: int | None, sides: Sequence[str]) -> list[dict[str, Any]]:
    rows = []
    for hand in reversed(selectors.hands_of(game=game)):
        entry = hand_entry(hand)
        entry["scores_text"] = scores_text(entry["scores"], sides) if entry["scores"] else ""
        entry["totals_text"] = scores_text(entry["totals"], sides) if entry["totals"] else ""
        entry["current"] = hand.number == current and hand.finished_at is None
        entry["reason_text"] = END_REASONS.get(entry["end_reason"] or "", entry["end_reason"])
        rows.append(entry)
    return rows


def _checked_ids(groups: list[dict[str, Any]], checked: Sequence[str]) -> None:
    wanted: dict[str, int] = {}
    for code in checked:
        wanted[code] = wanted.get(code, 0) + 1
    for group in groups:
        for c in group["cards"]:
            if wanted.get(c["code"], 0) > 0:
                c["checked"] = True
                wanted[c["code"]] -= 1


def _result(game: Game, names: Mapping[int, str], me: int | None) -> str:
    if game.status not in (GameStatus.FINISHED, GameStatus.ABORTED):
        return ""
    reason = END_REASONS.get(game.end_reason, game.end_reason)
    if game.winner_side is None:
        return f"The match is over: {reason}; nobody won." if game.end_reason else "Over."
    members = [s for s in range(game.players) if s % game.sides == game.winner_side]
    if me is not None and me % game.sides == game.winner_side:
        return f"The match is over ({reason}): your side won!"
    return f"The match is over ({reason}): {_side_label(members, names, me)} won."


def game_page(game: Game, seat: Seat | None, form: MoveForm | None = None) -> dict[str, Any]:
    """Everything the game page (and its refreshable table fragment) shows for ``seat``."""
    me = viewer_seat(seat)
    state = _state(game)
    table = engine.from_json(state.table) if state is not None else None
    detail = game_detail(game, seat, table)
    rules = engine.get_rules(game.variant)
    context: dict[str, Any] = {
        "game": game,
        "detail": detail,
        "etag": etag(game, seat),
        "rules": rules,
        "me": me,
        "my_seat": seat,
        "invited": seat is not None and seat.status == SeatStatus.INVITED,
        "is_creator": seat is not None and game.created_by_id == seat.user_id,
        "form": form,
        "error": None,
        "seats": detail["seats"],
        "free_seats": game.players - len(detail["seats"]),
        "options": _options(game),
        "turn_time": duration_text(game.turn_seconds),
    }
    names = player_names(game, me)
    context["result"] = _result(game, names, me)
    if table is None:
        return context
    view = detail["table"]
    display = view.get("display")
    hand_number = table.hand
    plan = form.plan if form is not None else []
    hand = list(view.get("hand") or []) if me is not None else []
    groups = shown.hand_groups(without(hand, [c for m in plan for c in m]), game.variant, display)
    if form is not None:
        _checked_ids(groups, form.cards)
    my_side = me % game.sides if me is not None else None
    sides = side_names(game, names, me)
    context.update(
        {
            "view": view,
            "hand_number": hand_number,
            "names": names,
            "players": _players(game, view, names, me),
            "turn": _turn(game, view, names, me),
            "pile": _pile(game, view),
            "sides": _sides(view, game, names, me),
            "hand_groups": groups,
            "hand_size": len(hand),
            "plan": [
                {"value": " ".join(m), "cards": shown.cards(m, game.variant, display)} for m in plan
            ],
            "meld_keys": [
                (k, shown.meld_label(k, game.variant))
                for k in shown.meld_order(view["melds"][my_side])
            ]
            if my_side is not None
            else [],
            "history": history(game, names, me, display, sides),
            "hands": _hands(game, hand_number, sides),
            "totals": list(state.totals) if state is not None else [],
            "totals_text": scores_text(list(state.totals), sides) if state is not None else "",
            "tiles": game.variant == "tiles",
            "noun": "tile" if game.variant == "tiles" else "card",
            "can_abort": game.status == GameStatus.ACTIVE and game.last_seq == 0 and me is not None,
        }
    )
    return context


def _options(game: Game) -> list[tuple[str, Any]]:
    rules = engine.get_rules(game.variant)
    out = []
    for option in rules.options:
        value = game.options.get(option.name, option.default)
        if isinstance(value, bool):
            value = "yes" if value else "no"
        elif isinstance(value, int):
            value = f"{value:,}"
        out.append((option.name.replace("_", " "), str(value).replace("_", " ")))
    return out


def duration_text(seconds: int | None) -> str:
    """``259200`` -> "3 days"; "" for no limit."""
    if not seconds:
        return ""
    for size, unit in ((86400, "day"), (3600, "hour"), (60, "minute")):
        if seconds % size == 0 or seconds >= size * 2:
            count = round(seconds / size)
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return f"{seconds} seconds"
