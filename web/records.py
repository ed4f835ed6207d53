"""What the record pages show: a replay step as a table with every hand open, its score sheet,
and a rating history drawn as an inline SVG chart (no script, no chart library)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from games import l10n
from games.engine import Table
from games.models import Game, RatingChange
from games.services.records import Frame, seat_name
from web import cards as shown
from web.cards import meld_label, meld_order, sorted_cards
from web.history import describe_move

SCORE_ROWS = ("melded", "canastas", "red_threes", "going_out", "in_hand", "total")


def score_row_labels() -> dict[str, str]:
    return {
        "melded": _("Cards melded"),
        "canastas": _("Canasta bonuses"),
        "red_threes": _("Red threes"),
        "going_out": _("Going out"),
        "in_hand": _("Left in hand (minus)"),
        "total": _("Hand score"),
    }


def seat_names(game: Game) -> dict[int, str]:
    return {s.number: seat_name(s) for s in game.seats.all() if s.number is not None}


def side_labels(game: Game, names: Mapping[int, str]) -> list[str]:
    return [
        " & ".join(
            names.get(seat, "?") for seat in range(game.players) if seat % game.sides == side
        )
        for side in range(game.sides)
    ]


def _side(table: Table, side: int, names: Mapping[int, str], label: str) -> dict[str, Any]:
    variant = table.rules.name
    melds = table.melds[side]
    return {
        "label": label,
        "players": [
            {
                "name": names.get(seat, "?"),
                "turn": seat == table.turn and not table.over,
                "seat": seat,
                "cards": sorted_cards(table.hands[seat], variant),
                "codes": " ".join(sorted(table.hands[seat])),
                "count": len(table.hands[seat]),
            }
            for seat in range(table.players)
            if seat % table.sides == side
        ],
        "melds": [
            {
                "label": meld_label(key, variant),
                "cards": sorted_cards(melds[key], variant),
                "canasta": len(melds[key]) >= 7,
                "codes": f"{key}:" + ",".join(sorted(melds[key])),
            }
            for key in meld_order(melds)
        ],
        "red_threes": shown.cards(table.red_threes[side], variant),
        "score": table.scores[side],
    }


def score_sheet(result: Mapping[str, Any], labels: Sequence[str]) -> dict[str, Any]:
    """The engine's HandResult per side, one row per kind of points, then the match totals."""
    names = score_row_labels()
    detail = result["detail"]
    return {
        "sides": list(labels),
        "rows": [
            {
                "label": names[key],
                "values": [l10n.number(d[key]) for d in detail],
                "total": key == "total",
            }
            for key in SCORE_ROWS
        ],
        "totals": [l10n.number(t) for t in result["totals"]],
    }


def frame_context(game: Game, frame: Frame) -> dict[str, Any]:
    """A replay step: the table with every hand revealed, the move that led to it, and the
    hand's score sheet when that move ended the hand."""
    table = frame.table
    names = seat_names(game)
    labels = side_labels(game, names)
    lines: list[list[Any]] = []
    if frame.move is not None:
        # The match is over and every seed public: the move is told with its cards.
        entry = {"seat": frame.move.seat, "action": frame.move.action, "events": frame.move.events}
        lines = describe_move(entry, names, game.variant, None, labels)
    top = table.discard[-1] if table.discard else None
    return {
        "sides": [_side(table, side, names, labels[side]) for side in range(game.sides)],
        "pile_top": shown.card(top, game.variant) if top else None,
        "pile_size": len(table.discard),
        "stock": len(table.stock),
        "lines": lines,
        "actor": frame.move.actor if frame.move is not None else "",
        "sheet": score_sheet(frame.result, labels) if frame.result else None,
    }


@dataclass
class Chart:
    width: int
    height: int
    left: int
    top: int
    bottom: int
    points: str
    dots: list[dict[str, Any]]
    ticks: list[dict[str, Any]]
    label: str


# The chart's drawing area in SVG units; it scales to the page's width (a phone's too), so
# the labels are large enough to read when it is drawn at half size.
CHART_WIDTH, CHART_HEIGHT = 600, 240
CHART_LEFT, CHART_TOP, CHART_BOTTOM = 80, 20, 220


def rating_chart(history: Sequence[RatingChange]) -> Chart | None:
    """The displayed rating before the first rated match and after each one, as SVG geometry:
    a line through the points, labelled with the lowest and highest rating reached."""
    if not history:
        return None
    values = [history[0].display_before] + [c.display for c in history]
    low, high = min(values), max(values)
    pad = max(10, (high - low) // 10)
    floor, ceiling = low - pad, high + pad
    span_x = max(1, len(values) - 1)

    def x(index: int) -> float:
        return round(CHART_LEFT + 12 + (CHART_WIDTH - CHART_LEFT - 24) * index / span_x, 1)

    def y(value: int) -> float:
        return round(
            CHART_TOP + (CHART_BOTTOM - CHART_TOP) * (ceiling - value) / (ceiling - floor), 1
        )

    dots = [
        {
            "x": x(i),
            "y": y(v),
            "value": v,
            "title": _("After match %(number)s: %(rating)s")
            % {"number": i, "rating": l10n.number(v)}
            if i
            else _("Start: %(rating)s") % {"rating": l10n.number(v)},
        }
        for i, v in enumerate(values)
    ]
    ticks = [{"y": y(v), "value": v} for v in sorted({low, high})]
    return Chart(
        width=CHART_WIDTH,
        height=CHART_HEIGHT,
        left=CHART_LEFT,
        top=CHART_TOP,
        bottom=CHART_BOTTOM,
        points=" ".join(f"{d['x']},{d['y']}" for d in dots),
        dots=dots,
        ticks=ticks,
        label=_("Rating after each rated match, from %(first)s to %(last)s")
        % {"first": l10n.number(values[0]), "last": l10n.number(values[-1])},
    )
