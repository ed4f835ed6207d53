"""Score sheets as the pages draw them (the figures: games/scoresheet.py).

One column per side, one row per kind of points: cards melded, canastas by kind, red threes,
going out, cards left in hand (subtracted), the hand's total and the match total after it;
then each side's final melds and every player's last cards, revealed (the hand is over).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games import l10n
from games.scoresheet import CANASTA_KINDS, HandSheet
from web import cards as shown

CANASTA_ROWS = {
    "natural": gettext_lazy("Natural canastas"),
    "mixed": gettext_lazy("Mixed canastas"),
    "joker": gettext_lazy("Canastas of wild cards"),
    "twos_clean": gettext_lazy("Canastas of twos"),
    "twos_dirty": gettext_lazy("Canastas of twos with jokers"),
}


def _signed(points: int) -> str:
    return l10n.signed(points)


def _canasta_cells(sheet: HandSheet, kind: str) -> list[str]:
    cells = []
    for side in sheet.sides:
        line = next((c for c in side.canastas if c.kind == kind), None)
        if line is None:
            cells.append("—")
        else:
            cells.append(
                _("%(count)d × %(each)s = %(points)s")
                % {
                    "count": line.count,
                    "each": l10n.number(line.each),
                    "points": l10n.number(line.points),
                }
            )
    return cells


def _going_out_cell(sheet: HandSheet, side_index: int) -> str:
    side = sheet.sides[side_index]
    if not side.went_out:
        return "—"
    if side.concealed:
        return _("went out concealed: %(points)s") % {"points": _signed(side.going_out)}
    return _("went out: %(points)s") % {"points": _signed(side.going_out)}


def _rows(sheet: HandSheet, display: Mapping[str, str] | None) -> list[dict[str, Any]]:
    variant = sheet.variant
    rows: list[dict[str, Any]] = [
        {"label": _("Cards melded"), "cells": [l10n.number(s.melded) for s in sheet.sides]}
    ]
    for kind in CANASTA_KINDS:
        if any(c.kind == kind for s in sheet.sides for c in s.canastas):
            rows.append({"label": str(CANASTA_ROWS[kind]), "cells": _canasta_cells(sheet, kind)})
    if any(s.red_threes for s in sheet.sides):
        rows.append(
            {
                "label": _("Red threes"),
                "cells": [
                    _signed(s.red_three_points) if s.red_threes else "—" for s in sheet.sides
                ],
                "cards": [shown.cards(s.red_threes, variant, display) for s in sheet.sides],
            }
        )
    rows.append(
        {
            "label": _("Going out"),
            "cells": [_going_out_cell(sheet, i) for i in range(len(sheet.sides))],
        }
    )
    rows.append(
        {
            "label": _("Cards left in hand"),
            "cells": [
                (
                    ngettext(
                        "%(count)d card: %(points)s", "%(count)d cards: %(points)s", s.cards_left
                    )
                    % {"count": s.cards_left, "points": l10n.signed(-s.in_hand)}
                )
                for s in sheet.sides
            ],
        }
    )
    rows.append(
        {
            "label": _("Hand total"),
            "cells": [l10n.number(s.total) for s in sheet.sides],
            "total": True,
        }
    )
    rows.append(
        {
            "label": _("Match total"),
            "cells": [l10n.number(s.match_total) for s in sheet.sides],
            "total": True,
        }
    )
    return rows


def _melds(
    melds: Mapping[str, Sequence[str]], variant: str, display: Mapping[str, str] | None
) -> list[dict[str, Any]]:
    return [
        {
            "label": shown.meld_label(key, variant),
            "cards": shown.sorted_cards(melds[key], variant, display),
            "size": len(melds[key]),
        }
        for key in shown.meld_order(melds)
    ]


def sheet_context(
    sheet: HandSheet,
    names: Mapping[int, str],
    side_labels: Sequence[str],
    display: Mapping[str, str] | None = None,
    me: int | None = None,
) -> dict[str, Any]:
    """What the score sheet template draws for ``sheet``; ``me``: the reader's seat."""
    variant = sheet.variant
    mine = (_("your side"), _("you"))
    # "your side" / "you" start a heading with a capital; players' names stay as they are.
    side_labels = [
        label[:1].upper() + label[1:] if label in mine else label for label in side_labels
    ]
    if sheet.went_out is not None and sheet.went_out == me:
        how = _("You went out concealed.") if sheet.concealed else _("You went out.")
    elif sheet.went_out is not None:
        who = names.get(sheet.went_out, "?")
        if sheet.concealed:
            how = _("%(name)s went out concealed.") % {"name": who}
        else:
            how = _("%(name)s went out.") % {"name": who}
    elif sheet.reason == "red_three_last":
        how = _("A red three was the last card of the stock.")
    else:
        how = _("The stock ran out.")
    return {
        "number": sheet.number,
        "how": how,
        "sides": [
            {
                "label": side_labels[s.side] if s.side < len(side_labels) else str(s.side),
                "melds": _melds(s.melds, variant, display),
                "hands": [
                    {
                        "name": names.get(seat, "?"),
                        "cards": shown.sorted_cards(cards, variant, display),
                        "count": len(cards),
                    }
                    for seat, cards in sorted(s.hands.items())
                ],
            }
            for s in sheet.sides
        ],
        "columns": [
            side_labels[s.side] if s.side < len(side_labels) else str(s.side) for s in sheet.sides
        ],
        "rows": _rows(sheet, display),
        "seed": sheet.seed,
        "commitment": sheet.commitment,
        "match_over": sheet.match_over,
    }
