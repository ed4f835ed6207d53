"""The game page's context: the game's read model (games.readmodel) plus what a page draws.

Every card comes from the engine's player view for the viewer's seat (through
`games.readmodel.game_detail`) and from the move log filtered by `engine.event_for`
(`games.readmodel.move_entry`): this module never reads a hand, the stock or a seed itself.
The move history is in web/history.py.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games import engine, l10n, selectors
from games.engine.melds import canasta_kind
from games.models import Game, GameStatus, InvitationStatus, Seat, SeatKind, SeatStatus
from games.readmodel import etag, game_detail, game_state, hand_entry, viewer_seat
from games.scoresheet import last_scored_hand, scoresheet_hand
from games.services.invitations import invitations_of_game
from web import cards as shown
from web.history import end_reasons as hand_end_reasons
from web.history import history, scores_text
from web.moves import MoveForm, without
from web.play import card_points, mark_drawn, mark_fresh, play_aids
from web.sheets import sheet_context
from web.variants import (
    BOT_LEVEL_NAMES,
    TIMEOUT_POLICY_LABELS,
    choice_label,
    option_label,
    variant_title,
)

# The most cards the dock shows without scrolling on the narrowest phone (320 CSS px: measured
# in Chromium, 13 need a third row).
# A longer hand takes the long-hand layout without JavaScript (site.css, .many-cards); with
# it, game.js measures instead.
DOCK_CARDS = 12


def _hand(groups: list[dict[str, Any]], hand: Sequence[Any]) -> dict[str, Any]:
    """The dock's hand: its cards by rank, how many, and whether that is more than the
    narrowest phone's dock shows (without JavaScript it then takes the long-hand layout)."""
    return {"hand_groups": groups, "hand_size": len(hand), "many_cards": len(hand) > DOCK_CARDS}


CANASTA_NAMES = {
    "natural": gettext_lazy("Natural canasta"),
    "mixed": gettext_lazy("Mixed canasta"),
    "joker": gettext_lazy("Canasta of wild cards"),
    "twos_clean": gettext_lazy("Canasta of twos"),
    "twos_dirty": gettext_lazy("Canasta of twos with jokers"),
}
PHASE_HINTS = {
    "draw": gettext_lazy("Draw from the stock, or take the discard pile."),
    "play": gettext_lazy("Meld if you like, then discard one card (or go out)."),
    "discard": gettext_lazy("Discard one card (your opening turn)."),
}
PHASE_WAITING = {
    "draw": gettext_lazy("Waiting for %(name)s to draw."),
    "play": gettext_lazy("Waiting for %(name)s to meld and discard."),
    "discard": gettext_lazy("Waiting for %(name)s to discard."),
    "answer": gettext_lazy("Waiting for %(name)s to answer “may I go out?”."),
}


def end_reasons() -> dict[str, str]:
    """How a match or a hand ended, in words (games.models.EndReason, engine end reasons)."""
    return {
        "match_over": _("the match was played to its end"),
        "resigned": _("a side resigned"),
        "aborted": _("it was called off before the first move"),
        "cancelled": _("every player left before the start"),
        "forfeit": _("a side ran out of time"),
        **hand_end_reasons(),
    }


def player_names(game: Game, me: int | None) -> dict[int, str]:
    names = {}
    for seat in game.seats.all():
        if seat.number is None:
            continue
        # "You" for the viewer; everyone else by their one name (games.models.Seat).
        names[seat.number] = _("You") if seat.number == me else seat.display_name
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
            "level": str(BOT_LEVEL_NAMES.get(seat.bot_level, seat.bot_level)),
        }
    return notes


def _side_label(members: Sequence[int], names: Mapping[int, str], me: int | None) -> str:
    ordered = sorted(members, key=lambda s: (s != me, s))
    return " & ".join(names.get(s, _("Seat %(number)d") % {"number": s + 1}) for s in ordered)


def _melds(
    side_melds: Mapping[str, Sequence[str]], variant: str, display: Mapping[str, str] | None
) -> list[dict[str, Any]]:
    out = []
    for key in shown.meld_order(side_melds):
        codes = list(side_melds[key])
        kind = canasta_kind(key, codes)
        cards = shown.sorted_cards(codes, variant, display)
        out.append(
            {
                "key": key,
                "label": shown.meld_label(key, variant),
                "cards": cards,
                # A closed canasta shows one card: a natural one (red on top, by custom),
                # else the first.
                "top": next((c for c in cards if not c["wild"]), cards[0]) if cards else None,
                "names": ", ".join(str(c["name"]) for c in cards),
                "size": len(codes),
                "canasta": kind,
                "canasta_label": CANASTA_NAMES.get(kind or "", ""),
            }
        )
    return out


def _sides(
    view: Mapping[str, Any],
    game: Game,
    names: Mapping[int, str],
    me: int | None,
    totals: Sequence[int] = (),
) -> list[dict[str, Any]]:
    """Each side's melds and facts; ``totals`` once the match is over (kept with the game:
    the final table shows the final scores, not the last hand's starting ones)."""
    rules = engine.get_rules(game.variant)
    variant = game.variant
    display = view.get("display")
    my_side = me % game.sides if me is not None else None
    out = []
    for side in range(game.sides):
        members = [s for s in range(game.players) if s % game.sides == side]
        melds = view["melds"][side]
        score = totals[side] if len(totals) == game.sides else view["scores"][side]
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
                # Every player a side of their own (two or three players): no team to name.
                "alone": len(members) == 1,
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
            "name": names.get(s, _("Seat %(number)d") % {"number": s + 1}),
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
        asker = names.get(view.get("asked_by", -1), _("Your partner"))
        if mine:
            text = _("%(name)s asks you: “may I go out?” Your answer binds them.") % {"name": asker}
        else:
            text = _("%(asker)s asked “may I go out?”; waiting for %(name)s to answer.") % {
                "asker": asker,
                "name": names.get(turn, "?") if turn is not None else "?",
            }
    elif mine:
        text = str(PHASE_HINTS.get(str(phase), str(phase)))
    else:
        waiting = PHASE_WAITING.get(str(phase), gettext_lazy("Waiting for %(name)s."))
        text = str(waiting) % {"name": names.get(turn, "?") if turn is not None else "?"}
    binding = None
    if mine and phase == "play" and view.get("go_out") is True:
        binding = _("Your partner said yes: you must go out this turn.")
    elif mine and phase == "play" and view.get("go_out") is False:
        binding = _("Your partner said no: you may not go out this turn.")
    return {
        "seat": turn,
        "name": names.get(turn, "") if turn is not None else "",
        "phase": phase,
        "mine": mine,
        "text": text,
        "binding": binding,
    }


def my_side_name(game: Game) -> str:
    """The reader's side in a sentence: "your side", or "you" where every player is a side of
    their own (two players have no team: "Ihr Team" would read wrong)."""
    return _("you") if game.players == game.sides else _("your side")


def side_names(game: Game, names: Mapping[int, str], me: int | None) -> list[str]:
    my_side = me % game.sides if me is not None else None
    out = []
    for side in range(game.sides):
        if side == my_side:
            out.append(my_side_name(game))
        else:
            members = [s for s in range(game.players) if s % game.sides == side]
            out.append(_side_label(members, names, me))
    return out


def _hands(game: Game, current: int | None, sides: Sequence[str]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for hand in reversed(selectors.hands_of(game=game)):
        # The page's row: the API's hand entry with its text forms added.
        entry: dict[str, Any] = dict(hand_entry(hand))
        entry["scores_text"] = scores_text(entry["scores"], sides) if entry["scores"] else ""
        entry["totals_text"] = scores_text(entry["totals"], sides) if entry["totals"] else ""
        entry["current"] = hand.number == current and hand.finished_at is None
        entry["reason_text"] = end_reasons().get(entry["end_reason"] or "", entry["end_reason"])
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
    reason = end_reasons().get(game.end_reason, game.end_reason)
    if game.winner_side is None:
        if not game.end_reason:
            return _("Over.")
        return _("The match is over: %(reason)s; nobody won.") % {"reason": reason}
    members = [s for s in range(game.players) if s % game.sides == game.winner_side]
    if me is not None and me % game.sides == game.winner_side:
        if len(members) == 1:
            return _("The match is over (%(reason)s): you won!") % {"reason": reason}
        return _("The match is over (%(reason)s): your side won!") % {"reason": reason}
    # The verb agrees with the winners: "Hildegard hat gewonnen", "Hildegard & Klaus haben".
    return ngettext(
        "The match is over (%(reason)s): %(side)s won.",
        "The match is over (%(reason)s): %(side)s won.",
        len(members),
    ) % {"reason": reason, "side": _side_label(members, names, me)}


def game_page(game: Game, seat: Seat | None, form: MoveForm | None = None) -> dict[str, Any]:
    """Everything the game page (and its refreshable table fragment) shows for ``seat``."""
    me = viewer_seat(seat)
    state = game_state(game)
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
        "invited_addresses": _invited_addresses(game),
        **_table_rules(game, rules),
    }
    names = player_names(game, me)
    context["result"] = _result(game, names, me)
    view = detail["table"]
    if table is None or view is None:
        return context
    display = view.get("display")
    hand_number = table.hand
    plan = form.plan if form is not None else []
    hand = list(view.get("hand") or []) if me is not None else []
    groups = shown.hand_groups(without(hand, [c for m in plan for c in m]), game.variant, display)
    if form is not None:
        _checked_ids(groups, form.cards)
    my_side = me % game.sides if me is not None else None
    sides = side_names(game, names, me)
    turn = _turn(game, view, names, me)
    aids = play_aids(game, table, me, turn["mine"], names, display)
    mark_drawn(groups, aids["drawn"])
    card_points(groups, game.variant)
    final = list(state.totals) if state is not None and game.status == GameStatus.FINISHED else []
    side_rows = _sides(view, game, names, me, final)
    _mark_last_plays(side_rows, aids["last_plays"])
    context.update(sheet_pending(game, seat, me, names, sides, display))
    context.update(
        {
            "view": view,
            "hand_number": hand_number,
            "names": names,
            "players": _players(game, view, names, me),
            "turn": turn,
            "pile": _pile(game, view),
            "sides": side_rows,
            "legal": aids["legal"],
            "going_out": aids["going_out"],
            "going_out_json": json.dumps(aids["legal"]["going_out"]),
            "last_plays": aids["last_plays"],
            "drawn": aids["drawn"],
            **_hand(groups, hand),
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


def _invited_addresses(game: Game) -> list[str]:
    """The addresses of the seats kept for people invited by email, while the table waits."""
    if game.status != GameStatus.OPEN:
        return []
    return [
        i.email
        for i in invitations_of_game(game=game)
        if i.seat_id is not None and i.status == InvitationStatus.PENDING
    ]


def _mark_last_plays(side_rows: list[dict[str, Any]], last_plays: list[dict[str, Any]]) -> None:
    """Outline in each other side's melds the cards its players laid in their last turn."""
    for side in side_rows:
        laid: dict[str, list[str]] = {}
        for played in last_plays:
            if played["side"] == side["number"] and not side["is_mine"]:
                for key, codes in played["laid"].items():
                    laid.setdefault(key, []).extend(codes)
        mark_fresh(side["melds"], laid)


def sheet_pending(
    game: Game,
    seat: Seat | None,
    me: int | None,
    names: dict[int, str],
    sides: list[str],
    display: Any,
) -> dict[str, Any]:
    """``sheet``: the score sheet of the latest finished hand while the viewer has not
    acknowledged it (Seat.sheet_seen); the page shows it before the next hand. The game goes
    on meanwhile: the others play, and the viewer's turn waits for them like any turn."""
    if me is None or seat is None:
        return {"sheet": None}
    number = last_scored_hand(game=game)
    if number is None or number <= seat.sheet_seen:
        return {"sheet": None}
    sheet = scoresheet_hand(game=game, number=number)
    if sheet is None:
        return {"sheet": None}
    return {"sheet": sheet_context(sheet, names, sides, display, me)}


def _options(game: Game) -> list[tuple[str, Any]]:
    rules = engine.get_rules(game.variant)
    out = []
    for option in rules.options:
        if option.name == "ask_partner" and game.players < 4:
            continue  # nobody to ask: two and three players have no partner
        value = game.options.get(option.name, option.default)
        if isinstance(value, bool):
            shown_value = _("yes") if value else _("no")
        elif isinstance(value, int):
            shown_value = l10n.number(value)
        else:
            shown_value = choice_label(option.name, value)
        # The create form's words for the option and its choices, in the reader's language.
        out.append((option_label(option.name), shown_value))
    return out


def _table_rules(game: Game, rules: Any) -> dict[str, Any]:
    """The table's rules as the page tells them, in the reader's language."""
    return {
        "variant_title": variant_title(game.variant, rules.title),  # "Klassisches Canasta"
        "options": _options(game),
        "timeout_policy": timeout_policy_text(game),
        "turn_time": duration_text(game.turn_seconds),
        "match_goal": match_goal_text(game, rules),
    }


def match_goal_text(game: Game, rules: Any) -> str:
    """When the match ends, shown on the table beside the scores: "Match to 5,000"."""
    settings = rules.resolve_options(game.options)
    if rules.match_rule == "tiles":
        return _("Match: %(length)s") % {
            "length": choice_label("match", settings.get("match", "to_10000"))
        }
    points = l10n.number(settings.get("target", 5000))
    if rules.match_rule == "above":
        return _("Match past %(points)s") % {"points": points}
    return _("Match to %(points)s") % {"points": points}


def timeout_policy_text(game: Game) -> str:
    """What happens when a turn's time runs out, in the create form's words."""
    return str(TIMEOUT_POLICY_LABELS.get(game.timeout_policy, game.timeout_policy))


def duration_text(seconds: int | None) -> str:
    """``259200`` -> "3 days"; "" for no limit."""
    if not seconds:
        return ""
    units = (
        (86400, lambda n: ngettext("%(count)d day", "%(count)d days", n)),
        (3600, lambda n: ngettext("%(count)d hour", "%(count)d hours", n)),
        (60, lambda n: ngettext("%(count)d minute", "%(count)d minutes", n)),
    )
    for size, unit in units:
        if seconds % size == 0 or seconds >= size * 2:
            count = round(seconds / size)
            return unit(count) % {"count": count}
    return ngettext("%(count)d second", "%(count)d seconds", seconds) % {"count": seconds}
