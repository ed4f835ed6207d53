"""Emails from outbox payloads: a subject, a plain-text body and an HTML body for each kind.

Rendering reads only the payload (notifications/payloads.py), which holds only what the
recipient may see; the table itself is drawn by games.mail.text from the recipient's player
view. The command help (how to answer by email) is included only when the email has a Reply-To
address (play by email, mailplay/: turn emails and answers to emailed moves). That address is
a credential, so it is never read from the payload (which also feeds other channels): the
sender passes it in (notifications/services/delivery.py).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.utils.html import urlize
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.mail.text import card_label, render_table_html, render_table_text


@dataclass
class _Parts:
    subject: str
    paragraphs: list[str]
    # The recipient's table (player view), drawn after the paragraphs, with their legal
    # actions when it is their turn.
    table: dict[str, Any] | None = None
    after: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class RenderedEmail:
    subject: str
    text: str
    html: str
    reply_to: str | None = None


def when(iso: str | None) -> str:
    if not iso:
        return "no deadline"
    return datetime.fromisoformat(iso).strftime("%a %d %b %Y, %H:%M UTC")


def _game_line(game: dict[str, Any]) -> str:
    return f"{game['variant']} game {game['id'][:8]}"


def _name(names: Sequence[str], seat: Any) -> str:
    if isinstance(seat, int) and 0 <= seat < len(names):
        return names[seat]
    return f"seat {seat}"


def _totals(totals: Sequence[int]) -> str:
    return ", ".join(f"side {side}: {total}" for side, total in enumerate(totals))


def _table(
    payload: dict[str, Any], *, with_legal: bool, reply_to: str | None
) -> dict[str, Any] | None:
    view = payload.get("view")
    if not view:
        return None
    return {
        "view": view,
        "legal": payload.get("legal") if with_legal else None,
        "players": payload.get("names"),
        "deadline": when(payload.get("deadline")) if with_legal else None,
        "include_help": bool(reply_to),
    }


def _deadline_sentence(payload: dict[str, Any]) -> str:
    deadline = payload.get("deadline")
    return f"Play before {when(deadline)}." if deadline else "This game has no deadline."


def _by_email(payload: dict[str, Any], reply_to: str | None) -> list[str]:
    """Play by email (mailplay/): the forced draw, and how to answer."""
    lines = []
    drew = payload.get("auto_drew")
    if drew:
        view = payload.get("view") or {}
        variant = view.get("variant") or payload["game"]["variant"]
        cards = " ".join(card_label(c, variant, view.get("display")) for c in drew)
        lines.append(
            f"We drew {cards} for you: drawing from the stock was the only way to start your turn."
        )
    if reply_to:
        lines.append(
            "To play by email, reply to this email with your commands at the top "
            "(see HOW TO REPLY below)."
        )
    return lines


def _your_turn(payload: dict[str, Any], reply_to: str | None) -> _Parts:
    game = payload["game"]
    return _Parts(
        f"Your turn: {_game_line(game)}",
        [
            f"It is your turn in {_game_line(game)}. {_deadline_sentence(payload)}",
            *_by_email(payload, reply_to),
        ],
        _table(payload, with_legal=True, reply_to=reply_to),
    )


def _email_reply(payload: dict[str, Any], reply_to: str | None) -> _Parts:
    # The answer to an emailed move (mailplay.services.answers): what was done or refused,
    # then the table as it is now (with the choices while it is still the player's turn).
    paragraphs = payload.get("paragraphs")
    if not isinstance(paragraphs, list):
        paragraphs = [str(payload.get("text", ""))]
    return _Parts(
        str(payload.get("subject") or "Your email"),
        [str(p) for p in paragraphs],
        _table(payload, with_legal=payload.get("legal") is not None, reply_to=reply_to),
    )


def _reminder(payload: dict[str, Any], reply_to: str | None) -> _Parts:
    game = payload["game"]
    deadline = when(payload.get("deadline"))
    return _Parts(
        f"Reminder: your turn ends {deadline} ({_game_line(game)})",
        [
            f"Your turn in {_game_line(game)} ends {deadline}. After that the game's timeout "
            "rule applies."
        ],
        _table(payload, with_legal=True, reply_to=reply_to),
    )


def _timeout(payload: dict[str, Any], reply_to: str | None) -> _Parts:
    game = payload["game"]
    seat = payload.get("timed_out_seat")
    who = "your" if seat == payload.get("seat") else f"{_name(payload.get('names') or [], seat)}'s"
    applied = {
        "autoplay": "the system played a draw and a discard",
        "forfeit": "that side lost the match by forfeit",
    }.get(payload.get("policy", ""), f"the rule {payload.get('policy')!r} was applied")
    paragraphs = [f"Time ran out on {who} turn in {_game_line(game)}: {applied}."]
    if payload.get("handed_to_bot"):
        paragraphs.append(
            "After repeated timeouts a bot now plays that seat. Its player can take the seat "
            "back at any time from the game page."
        )
    return _Parts(
        f"Timeout in {_game_line(game)}",
        paragraphs,
        _table(payload, with_legal=False, reply_to=reply_to),
    )


def _hand_over(payload: dict[str, Any], reply_to: str | None) -> _Parts:
    game = payload["game"]
    event = payload.get("hand_result") or {}
    result = event.get("result") or {}
    lines = [f"Hand {event.get('hand')} of {_game_line(game)} is over ({event.get('reason')})."]
    if result.get("scores"):
        lines.append(f"Scores of the hand: {_totals(result['scores'])}")
    lines.append(f"Match totals: {_totals(payload.get('totals') or [])}")
    return _Parts(
        f"Hand {event.get('hand')} over: {_game_line(game)}",
        lines,
        after=[
            f"Check the shuffle: the seed was {event.get('seed')}; its commitment, published "
            f"before the deal, is {event.get('commitment')}."
        ],
    )


def _match_over(payload: dict[str, Any], reply_to: str | None) -> _Parts:
    game = payload["game"]
    winner = payload.get("winner_side")
    seat = payload.get("seat")
    sides = max(1, len(payload.get("totals") or []))
    if winner is None:
        outcome = "It ended without a single winner."
    elif isinstance(seat, int) and seat % sides == winner:
        outcome = "Your side won."
    else:
        outcome = f"Side {winner} won."
    return _Parts(
        f"Match over: {_game_line(game)}",
        [
            f"The match {_game_line(game)} is over ({payload.get('reason')}). {outcome}",
            f"Final totals: {_totals(payload.get('totals') or [])}",
        ],
    )


def _digest(payload: dict[str, Any], reply_to: str | None) -> _Parts:
    games = payload.get("games") or []
    lines = [
        f"- {_game_line(game)}, deadline {when(game.get('deadline'))}: {game['url']}"
        for game in games
    ]
    count = len(games)
    return _Parts(
        f"{count} game{'s' if count != 1 else ''} waiting for your move",
        [f"Games waiting for your move on {payload.get('day')}, most urgent first:", *lines],
    )


def _verify_email(payload: dict[str, Any], reply_to: str | None) -> _Parts:
    # The link (a signed token with an expiry) is added when the row is sent, never stored.
    link = str(payload.get("link", ""))
    hours = payload.get("valid_hours") or 0
    lines = []
    if payload.get("reason") == "mail_play":
        lines.append(
            _(
                "We received a move by email from this address, but it is not confirmed yet, "
                "so the move was not played."
            )
        )
    lines += [
        _(
            "Please confirm that %(address)s is the email address of the Canasta player "
            "%(username)s: open this link."
        )
        % {"address": payload.get("address", ""), "username": payload.get("username", "")},
        link,
        ngettext(
            "The link works for %(count)d hour. Until the address is confirmed we send it no "
            "turn emails or digests, and moves by email from it are not played.",
            "The link works for %(count)d hours. Until the address is confirmed we send it no "
            "turn emails or digests, and moves by email from it are not played.",
            hours,
        )
        % {"count": hours},
        _("If you did not sign up or change your address, ignore this email."),
    ]
    return _Parts(_("Confirm your email address"), lines)


def _password_reset(payload: dict[str, Any], reply_to: str | None) -> _Parts:
    return _Parts(
        _("Reset your password"),
        [
            _(
                "Someone (we hope you) asked to reset the password of the Canasta account "
                "%(username)s. To choose a new password, open this link:"
            )
            % {"username": payload.get("username", "")},
            str(payload.get("link", "")),
            _(
                "The link works once, for a limited time. Setting a new password signs out "
                "every program that used your old one."
            ),
            _("If you did not ask for this, ignore this email: your password stays as it is."),
        ],
    )


def _invitation(payload: dict[str, Any], reply_to: str | None) -> _Parts:
    inviter = str(payload.get("inviter", ""))
    table = str(payload.get("table", ""))
    if payload.get("rematch"):
        subject = _("%(inviter)s offers a rematch") % {"inviter": inviter}
        first = _("%(inviter)s offers a rematch at the same table: %(table)s.") % {
            "inviter": inviter,
            "table": table,
        }
    else:
        subject = _("%(inviter)s invites you to a game of Canasta") % {"inviter": inviter}
        first = _("%(inviter)s invites you to a table: %(table)s.") % {
            "inviter": inviter,
            "table": table,
        }
    lines = [first]
    if payload.get("by_email"):
        lines.append(
            _(
                "Open this link to take your seat. If you have no account yet, you can sign up "
                "there first; the link also confirms this email address."
            )
        )
    else:
        lines.append(_("Open this link to take your seat or decline:"))
    lines.append(str(payload.get("link", "")))
    if payload.get("expires_at"):
        lines.append(_("The invitation expires %(when)s.") % {"when": when(payload["expires_at"])})
    return _Parts(subject, lines)


def _generic(payload: dict[str, Any], reply_to: str | None) -> _Parts:
    # Kinds without their own layout (later issues) carry their subject and text.
    return _Parts(str(payload.get("subject", "Canasta")), [str(payload.get("text", ""))])


RENDERERS: dict[str, Callable[[dict[str, Any], str | None], _Parts]] = {
    "your_turn": _your_turn,
    "reminder": _reminder,
    "timeout": _timeout,
    "hand_over": _hand_over,
    "match_over": _match_over,
    "digest": _digest,
    "email_reply": _email_reply,
    "verify_email": _verify_email,
    "password_reset": _password_reset,
    "invitation": _invitation,
}


def render(*, kind: str, payload: dict[str, Any], reply_to: str | None = None) -> RenderedEmail:
    """The email of a row; ``reply_to``: its Reply-To (the player's reply address), if any."""
    parts = RENDERERS.get(kind, _generic)(payload, reply_to)
    game = payload.get("game")
    link = [f"Open the game: {game['url']}"] if game else []
    text_blocks = [*parts.paragraphs]
    html_blocks = [f"<p>{urlize(p, autoescape=True)}</p>" for p in parts.paragraphs]
    if parts.table is not None:
        text_blocks.append(render_table_text(**parts.table).rstrip("\n"))
        html_blocks.append(render_table_html(**parts.table))
    for p in [*parts.after, *link]:
        text_blocks.append(p)
        html_blocks.append(f"<p>{urlize(p, autoescape=True)}</p>")
    return RenderedEmail(
        subject=f"[Canasta] {parts.subject}",
        text="\n\n".join(b for b in text_blocks if b) + "\n",
        html=(
            f"<html><head><title>{html.escape(parts.subject)}</title></head><body>"
            + "\n".join(html_blocks)
            + "</body></html>"
        ),
        reply_to=reply_to or None,
    )


_MESSAGE_ID = re.compile(r"<[^<>\s]{1,250}>")


def _headers(payload: dict[str, Any], reply_to: str | None) -> dict[str, str]:
    headers = {}
    if reply_to:
        # RFC 3834: automatic mail, so vacation responders do not answer a reply address.
        headers["Auto-Submitted"] = "auto-generated"
    in_reply_to = str(payload.get("in_reply_to") or "")
    if _MESSAGE_ID.fullmatch(in_reply_to):
        headers["In-Reply-To"] = in_reply_to
        headers["References"] = in_reply_to
    return headers


def build_message(
    *, kind: str, payload: dict[str, Any], to: str, reply_to: str | None = None
) -> EmailMultiAlternatives:
    email = render(kind=kind, payload=payload, reply_to=reply_to)
    message = EmailMultiAlternatives(
        subject=email.subject,
        body=email.text,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[to],
        reply_to=[email.reply_to] if email.reply_to else None,
        headers=_headers(payload, email.reply_to),
    )
    message.attach_alternative(email.html, "text/html")
    return message
