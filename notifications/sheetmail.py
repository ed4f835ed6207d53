"""The score sheet in the hand-over and match-over emails, as text and as an HTML table.

The sheet is games.scoresheet.HandSheet.to_json(), put in the payload when the hand ended
(notifications/payloads.py): the same figures as the game page's sheet. Only finished hands
have a sheet, so an email shows no card of a hand in play.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games import l10n
from games.engine.cards import sort_key
from games.mail.text import card_label


def _canasta_names() -> dict[str, str]:
    return {
        "natural": _("Natural canastas"),
        "mixed": _("Mixed canastas"),
        "joker": _("Canastas of wild cards"),
        "twos_clean": _("Canastas of twos"),
        "twos_dirty": _("Canastas of twos with jokers"),
    }


def side_labels(names: Sequence[str], seat: int | None, sides: int, players: int) -> list[str]:
    """Side names for a recipient: "Your side" ("You" when every player is a side of their
    own: a two-player game has no team), else the members' names ("carol & dave")."""
    mine = seat % sides if isinstance(seat, int) and sides else None
    out = []
    for side in range(sides):
        if side == mine:
            out.append(_("You") if players == sides else _("Your side"))
        else:
            members = [
                names[s] if s < len(names) else "?" for s in range(players) if s % sides == side
            ]
            out.append(" & ".join(members))
    return out


def payload_side_labels(payload: Mapping[str, Any]) -> list[str]:
    """The side names of a hand-over or match-over payload, for its recipient."""
    game = payload.get("game") or {}
    sides = len(payload.get("totals") or []) or 2
    names = list(payload.get("names") or [])
    return side_labels(names, payload.get("seat"), sides, int(game.get("players") or len(names)))


def _signed(points: int) -> str:
    return l10n.signed(points)


def _cards(codes: Sequence[str], variant: str) -> str:
    return " ".join(card_label(c, variant) for c in sorted(codes, key=sort_key))


def _canasta_cell(side: Mapping[str, Any], kind: str) -> str:
    for line in side.get("canastas") or []:
        if line.get("kind") == kind:
            return _("%(count)d × %(each)s = %(points)s") % {
                "count": line["count"],
                "each": l10n.number(line["each"]),
                "points": l10n.number(line["points"]),
            }
    return "—"


def _going_out(side: Mapping[str, Any]) -> str:
    if not side.get("went_out"):
        return "—"
    if side.get("concealed"):
        return _("went out concealed: %(points)s") % {"points": _signed(side["going_out"])}
    return _("went out: %(points)s") % {"points": _signed(side["going_out"])}


def _left(side: Mapping[str, Any]) -> str:
    count = int(side.get("cards_left", 0))
    points = int(side.get("in_hand", 0))
    return ngettext("%(count)d card: %(points)s", "%(count)d cards: %(points)s", count) % {
        "count": count,
        "points": l10n.signed(-points),
    }


def sheet_rows(sheet: Mapping[str, Any]) -> list[tuple[str, list[str]]]:
    """(label, one cell per side) for each line of the sheet."""
    sides = sheet.get("sides") or []
    variant = str(sheet.get("variant", "classic"))
    rows = [(_("Cards melded"), [l10n.number(s["melded"]) for s in sides])]
    kinds = [k for k in _canasta_names() if any(_canasta_cell(s, k) != "—" for s in sides)]
    rows += [(_canasta_names()[k], [_canasta_cell(s, k) for s in sides]) for k in kinds]
    if any(s.get("red_threes") for s in sides):
        rows.append(
            (
                _("Red threes"),
                [
                    f"{_cards(s['red_threes'], variant)}: {_signed(s['red_three_points'])}"
                    if s.get("red_threes")
                    else "—"
                    for s in sides
                ],
            )
        )
    rows.append((_("Going out"), [_going_out(s) for s in sides]))
    rows.append((_("Cards left in hand"), [_left(s) for s in sides]))
    rows.append((_("Hand total"), [l10n.number(s["total"]) for s in sides]))
    rows.append((_("Match total"), [l10n.number(s["match_total"]) for s in sides]))
    return rows


def _revealed(sheet: Mapping[str, Any], names: Sequence[str]) -> list[tuple[str, str]]:
    """(who, what) lines: each side's final melds, then each player's last cards."""
    variant = str(sheet.get("variant", "classic"))
    out = []
    for side in sheet.get("sides") or []:
        for seat, cards in sorted((side.get("hands") or {}).items(), key=lambda kv: int(kv[0])):
            number = int(seat)
            who = names[number] if number < len(names) else "?"
            left = _cards(cards, variant) if cards else _("no cards left")
            out.append((who, left))
    return out


def sheet_title(sheet: Mapping[str, Any]) -> str:
    return _("Score sheet of hand %(number)s") % {"number": sheet.get("hand")}


def sheet_text(sheet: Mapping[str, Any], labels: Sequence[str], names: Sequence[str]) -> str:
    rows = sheet_rows(sheet)
    width = max(len(label) for label, _cells in rows)
    widths = [
        max([len(labels[i]) if i < len(labels) else 1] + [len(cells[i]) for _l, cells in rows])
        for i in range(len(labels))
    ]
    lines = [sheet_title(sheet), ""]
    lines.append(
        " " * width + "  " + "  ".join(lab.rjust(w) for lab, w in zip(labels, widths, strict=False))
    )
    for label, cells in rows:
        lines.append(
            label.ljust(width)
            + "  "
            + "  ".join(c.rjust(w) for c, w in zip(cells, widths, strict=False))
        )
    lines.append("")
    lines.append(_("Cards left in the hands:"))
    lines += [f"  {who}: {what}" for who, what in _revealed(sheet, names)]
    return "\n".join(lines)


def sheet_html(sheet: Mapping[str, Any], labels: Sequence[str], names: Sequence[str]) -> str:
    esc = html.escape
    head = "".join(
        f'<th scope="col" style="text-align:right;padding:4px 8px">{esc(lab)}</th>'
        for lab in labels
    )
    body = []
    for label, cells in sheet_rows(sheet):
        tds = "".join(f'<td style="text-align:right;padding:4px 8px">{esc(c)}</td>' for c in cells)
        body.append(
            f'<tr><th scope="row" style="text-align:left;padding:4px 8px">{esc(label)}</th>{tds}</tr>'
        )
    hands = "".join(
        f"<li><strong>{esc(who)}</strong>: {esc(what)}</li>"
        for who, what in _revealed(sheet, names)
    )
    return (
        f"<h2>{esc(sheet_title(sheet))}</h2>"
        '<table style="border-collapse:collapse">'
        f"<thead><tr><th></th>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
        f"<p>{esc(_('Cards left in the hands:'))}</p><ul>{hands}</ul>"
    )


def hands_text(hands: Sequence[Mapping[str, Any]], labels: Sequence[str]) -> list[str]:
    """The match hand by hand: "Hand 2: Your side 710, carol & dave -50 (totals …)"."""
    out = []
    for hand in hands:
        scores = ", ".join(
            f"{lab} {l10n.number(score)}"
            for lab, score in zip(labels, hand.get("scores") or [], strict=False)
        )
        totals = ", ".join(
            f"{lab} {l10n.number(total)}"
            for lab, total in zip(labels, hand.get("totals") or [], strict=False)
        )
        if scores:
            out.append(
                _("Hand %(number)s: %(scores)s (match totals: %(totals)s)")
                % {"number": hand.get("hand"), "scores": scores, "totals": totals}
            )
    return out
