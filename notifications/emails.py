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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.utils import timezone, translation
from django.utils.html import urlize
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games import display, l10n
from games.mail.formatting import word
from games.mail.text import game_line, render_table_both, table_line
from notifications.headers import thread_subject
from notifications.services.summaries import earlier_hands_paragraphs
from notifications.sheetmail import hands_text, payload_side_labels, sheet_html, sheet_text


@dataclass
class _Parts:
    subject: str
    paragraphs: list[str]
    # The recipient's table (player view), drawn after the paragraphs, with their legal
    # actions when it is their turn.
    table: dict[str, Any] | None = None
    after: list[str] = field(default_factory=list)
    # A finished hand's score sheet (hand_over, match_over): (text, HTML), after the table.
    sheet: tuple[str, str] | None = None


@dataclass(frozen=True)
class RenderedEmail:
    subject: str
    text: str
    html: str
    reply_to: str | None = None


def when(iso: str | None) -> str:
    """A moment in the reader's time zone and language (active ones), CLDR's pattern
    (games/l10n.py): "Wed, Dec 2, 2026, 02:39 UTC", "Mi., 2. Dez. 2026, 03:39 MEZ"."""
    if not iso:
        return _("no deadline")
    moment = datetime.fromisoformat(iso)
    if timezone.is_naive(moment):
        moment = moment.replace(tzinfo=UTC)
    return l10n.moment(moment, year=True)


def _game_line(game: dict[str, Any]) -> str:
    return game_line(game["variant"], game["id"])


def _name(names: Sequence[str], seat: Any) -> str:
    if isinstance(seat, int) and 0 <= seat < len(names):
        return names[seat]
    return _("seat %(seat)s") % {"seat": seat}


def _totals(totals: Sequence[int], labels: Sequence[str]) -> str:
    """ "Your side 135, Hildegard & Klaus 1,425": sides named by their players."""
    return l10n.scores(totals, labels)


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
    if deadline:
        return _("Play before %(when)s.") % {"when": when(deadline)}
    return _("This game has no deadline.")


def _by_email(payload: dict[str, Any], reply_to: str | None) -> list[str]:
    """Play by email (mailplay/): the forced draw, and how to answer."""
    lines = []
    drew = payload.get("auto_drew")
    if drew:
        view = payload.get("view") or {}
        variant = view.get("variant") or payload["game"]["variant"]
        lang = translation.get_language()
        cards = " ".join(display.card_label(c, variant, lang, view.get("display")) for c in drew)
        lines.append(
            _(
                "We drew %(cards)s for you: drawing from the stock was the only way to start "
                "your turn."
            )
            % {"cards": cards}
        )
    if reply_to:
        lines.append(
            _(
                "To play by email, reply to this email with your commands at the top "
                "(see %(help)s below)."
            )
            % {"help": _("HOW TO REPLY")}
        )
    return lines


class Written(str):
    """A paragraph in a player's own words: escaped in the HTML part, never made a link (a
    URL in table talk must not become a link the service's mail vouches for)."""

    __slots__ = ()


def _html_paragraph(text: str) -> str:
    if isinstance(text, Written):
        return f"<p>{html.escape(text)}</p>"
    return f"<p>{urlize(text, autoescape=True)}</p>"


def _chat(payload: dict[str, Any], reply_to: str | None) -> list[str]:
    """Table talk since the recipient's last turn: the players' own words, as written (the
    HTML part escapes them like every paragraph)."""
    lines = [line for line in payload.get("chat") or [] if isinstance(line, dict)]
    if not lines:
        return []
    out = [_("Table talk since your last turn:")]
    out += [
        Written(
            _("%(name)s: %(text)s") % {"name": line.get("name", "?"), "text": line.get("text", "")}
        )
        for line in lines
    ]
    if reply_to:
        lang = translation.get_language()
        out.append(
            _("To answer the table, write a line starting with %(say)s in your reply.")
            % {"say": word("say", lang)}
        )
    return out


def _your_turn(payload: dict[str, Any], reply_to: str | None) -> _Parts:
    game = payload["game"]
    return _Parts(
        _("Your turn: %(game)s") % {"game": _game_line(game)},
        [
            _("It is your turn in %(game)s. %(deadline)s")
            % {"game": _game_line(game), "deadline": _deadline_sentence(payload)},
            *_by_email(payload, reply_to),
            *_chat(payload, reply_to),
        ],
        _table(payload, with_legal=True, reply_to=reply_to),
    )


def push_text(*, kind: str, payload: dict[str, Any]) -> tuple[str, str, str]:
    """A push's title, text and link (notifications/services/push.py): the your-turn email's
    subject and first sentence, in the active language and time zone."""
    game = payload["game"]
    line = _game_line(game)
    body = _("It is your turn in %(game)s. %(deadline)s") % {
        "game": line,
        "deadline": _deadline_sentence(payload),
    }
    return _("Your turn: %(game)s") % {"game": line}, body, str(game.get("url") or "")


def _email_reply(payload: dict[str, Any], reply_to: str | None) -> _Parts:
    # The answer to an emailed move (mailplay.services.answers): what was done or refused,
    # then the table as it is now (with the choices while it is still the player's turn).
    paragraphs = payload.get("paragraphs")
    if not isinstance(paragraphs, list):
        paragraphs = [str(payload.get("text", ""))]
    subject = str(payload.get("subject") or _("Your email"))
    # The subject is the game's thread subject: what the answer says comes first in the body.
    return _Parts(
        subject,
        [subject, *(str(p) for p in paragraphs)],
        _table(payload, with_legal=payload.get("legal") is not None, reply_to=reply_to),
    )


def _reminder(payload: dict[str, Any], reply_to: str | None) -> _Parts:
    game = payload["game"]
    deadline = when(payload.get("deadline"))
    values = {"deadline": deadline, "game": _game_line(game)}
    return _Parts(
        _("Reminder: your turn ends %(deadline)s (%(game)s)") % values,
        [
            _(
                "Your turn in %(game)s ends %(deadline)s. After that the game's timeout "
                "rule applies."
            )
            % values
        ],
        _table(payload, with_legal=True, reply_to=reply_to),
    )


def _timeout(payload: dict[str, Any], reply_to: str | None) -> _Parts:
    game = payload["game"]
    seat = payload.get("timed_out_seat")
    applied = {
        "autoplay": _("the system played a draw and a discard"),
        "forfeit": _("that side lost the match by forfeit"),
    }.get(payload.get("policy", ""), _("the game's timeout rule was applied"))
    values = {"game": _game_line(game), "applied": applied}
    if seat == payload.get("seat"):
        first = _("Time ran out on your turn in %(game)s: %(applied)s.") % values
    else:
        values["name"] = _name(payload.get("names") or [], seat)
        first = _("Time ran out on %(name)s's turn in %(game)s: %(applied)s.") % values
    paragraphs = [first]
    if payload.get("handed_to_bot"):
        paragraphs.append(
            _(
                "After repeated timeouts a bot now plays that seat. Its player can take the "
                "seat back at any time from the game page."
            )
        )
    return _Parts(
        _("Timeout in %(game)s") % values,
        paragraphs,
        _table(payload, with_legal=False, reply_to=reply_to),
    )


def _hand_over(payload: dict[str, Any], reply_to: str | None) -> _Parts:
    game = payload["game"]
    event = payload.get("hand_result") or {}
    result = event.get("result") or {}
    values = {"hand": event.get("hand"), "game": _game_line(game)}
    labels = payload_side_labels(payload)
    lines = [_("Hand %(hand)s of %(game)s is over.") % values]
    if result.get("scores"):
        scores = _totals(result["scores"], labels)
        lines.append(_("Scores of the hand: %(scores)s") % {"scores": scores})
    totals = _totals(payload.get("totals") or [], labels)
    lines.append(_("Match totals: %(totals)s") % {"totals": totals})
    return _Parts(
        _("Hand %(hand)s over: %(game)s") % values,
        lines,
        sheet=_sheet(payload),
        after=[
            _(
                "Check the shuffle: the seed was %(seed)s; its commitment, published before "
                "the deal, is %(commitment)s."
            )
            % {"seed": event.get("seed"), "commitment": event.get("commitment")}
        ],
    )


def _outcome(payload: dict[str, Any], labels: Sequence[str]) -> str:
    """Who won, named as a person would: "You won.", "Your side won.", "Hildegard won.",
    "Hildegard & Klaus won." (the verb agrees with the number of winners)."""
    winner = payload.get("winner_side")
    seat = payload.get("seat")
    sides = max(1, len(labels))
    players = int((payload.get("game") or {}).get("players") or sides)
    if not isinstance(winner, int) or not 0 <= winner < sides:
        return _("It ended without a single winner.")
    if isinstance(seat, int) and seat % sides == winner:
        return _("You won.") if players == sides else _("Your side won.")
    return ngettext("%(names)s won.", "%(names)s won.", players // sides) % {
        "names": labels[winner]
    }


def _match_over(payload: dict[str, Any], reply_to: str | None) -> _Parts:
    game = payload["game"]
    labels = payload_side_labels(payload)
    values = {"game": _game_line(game), "outcome": _outcome(payload, labels)}
    return _Parts(
        _("Match over: %(game)s") % values,
        [
            _("The match %(game)s is over. %(outcome)s") % values,
            _("Final totals: %(totals)s")
            % {"totals": _totals(payload.get("totals") or [], labels)},
            *hands_text(payload.get("hands") or [], labels),
        ],
        sheet=_sheet(payload),
    )


def _sheet(payload: dict[str, Any]) -> tuple[str, str] | None:
    """The score sheet of hand_over and match_over (notifications/sheetmail.py)."""
    sheet = payload.get("sheet")
    if not isinstance(sheet, dict):
        return None
    labels = payload_side_labels(payload)
    names = list(payload.get("names") or [])
    return sheet_text(sheet, labels, names), sheet_html(sheet, labels, names)


def _digest(payload: dict[str, Any], reply_to: str | None) -> _Parts:
    games = payload.get("games") or []
    lines = [
        "- "
        + _("%(game)s, deadline %(when)s: %(url)s")
        % {"game": _game_line(game), "when": when(game.get("deadline")), "url": game["url"]}
        for game in games
    ]
    count = len(games)
    return _Parts(
        ngettext(
            "%(count)d game waiting for your move", "%(count)d games waiting for your move", count
        )
        % {"count": count},
        [
            _("Games waiting for your move on %(day)s, most urgent first:")
            % {"day": payload.get("day")},
            *lines,
        ],
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
    facts = payload.get("table_facts")
    # Written in the reader's language now; rows queued before table_facts keep their label.
    table = table_line(**facts) if isinstance(facts, dict) else str(payload.get("table", ""))
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
    # Kinds without their own layout carry their subject and text.
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


def render(
    *,
    kind: str,
    payload: dict[str, Any],
    reply_to: str | None = None,
    lang: str | None = None,
    time_zone: str | None = None,
) -> RenderedEmail:
    """The email of a row; ``reply_to``: its Reply-To (the player's reply address), if any;
    ``lang`` and ``time_zone``: the recipient's (notifications.services.preferences), default
    the active ones."""
    lang = display.language_code(lang or translation.get_language())
    with (
        translation.override(lang),
        timezone.override(time_zone or timezone.get_current_timezone()),
    ):
        return _render(kind, payload, reply_to)


def _render(kind: str, payload: dict[str, Any], reply_to: str | None) -> RenderedEmail:
    parts = RENDERERS.get(kind, _generic)(payload, reply_to)
    parts.paragraphs += earlier_hands_paragraphs(payload)  # a bot-played stretch, summarised
    game = payload.get("game")
    link = [_("Open the game: %(url)s") % {"url": game["url"]}] if game else []
    text_blocks = [*parts.paragraphs]
    html_blocks = [_html_paragraph(p) for p in parts.paragraphs]
    if parts.table is not None:
        text, html_table = render_table_both(**parts.table)
        text_blocks.append(text.rstrip("\n"))
        html_blocks.append(html_table)
    if parts.sheet is not None:
        text_blocks.append(parts.sheet[0])
        html_blocks.append(parts.sheet[1])
    for p in [*parts.after, *link]:
        text_blocks.append(p)
        html_blocks.append(_html_paragraph(p))
    return RenderedEmail(
        # One subject for every email of a game, so that it is one thread (notifications/headers.py).
        subject=thread_subject(payload) or f"[Canasta] {parts.subject}",
        text="\n\n".join(b for b in text_blocks if b) + "\n",
        html=(
            f"<html><head><title>{html.escape(parts.subject)}</title></head><body>"
            + "\n".join(html_blocks)
            + "</body></html>"
        ),
        reply_to=reply_to or None,
    )


class _Message(EmailMultiAlternatives):
    """A message whose MIME form is built once: the sender builds it to check it before any
    connection (notifications.services.delivery) and the backend would build it again."""

    _built: Any = None

    def message(self, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs:
            return super().message(*args, **kwargs)
        if self._built is None:
            self._built = super().message()
        return self._built


def build_message(
    *,
    kind: str,
    payload: dict[str, Any],
    to: str,
    reply_to: str | None = None,
    lang: str | None = None,
    time_zone: str | None = None,
    headers: dict[str, str] | None = None,
) -> EmailMultiAlternatives:
    """``headers``: notifications.headers.message_headers of the row (threading, Date,
    unsubscribe); without them the email is still marked automatic."""
    email = render(kind=kind, payload=payload, reply_to=reply_to, lang=lang, time_zone=time_zone)
    message = _Message(
        subject=email.subject,
        body=email.text,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[to],
        reply_to=[email.reply_to] if email.reply_to else None,
        headers=headers or {"Auto-Submitted": "auto-generated"},
    )
    message.attach_alternative(email.html, "text/html")
    return message
