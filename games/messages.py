"""Refusals as sentences for people, in the reader's language (docs/i18n.md, "Error
messages").

Every refusal carries a `code` (never translated: programs compare it), its *reason* and the
reason's parameters. The sentence is built from the reason and the parameters: an engine
refusal's in games/refusals.py, a service's own in games/services/reasons.py. Nothing parses
an English message back. Only an error of a framework (a DRF exception without a reason of
ours) has none: it stays in its own English, and reads as its code's or kind's general
sentence in another language, so no page mixes two languages.

The API's error renderer (api/errors.py), the web pages (web/views/common.py) and the answers to
emailed moves (mailplay/services/play.py) all use `error_message`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import get_language, gettext, pgettext
from django.utils.translation import gettext_lazy as _

from games.engine.errors import REASONS
from games.refusals import cards_text, rank_text, refusal_text
from games.services.errors import ErrorKind, GameError
from games.services.reasons import SERVICE_REASONS, service_text

__all__ = [
    "cards_text",
    "error_message",
    "general_message",
    "rank_text",
    "reason_text",
    "refusal_message",
]


# For an error without a reason (a framework's), in a language other than English: what its
# kind of error means, so that a page never mixes English into German or Icelandic.
GENERAL = {
    ErrorKind.INVALID: _("The request is invalid."),
    ErrorKind.FORBIDDEN: _("You may not do this."),
    ErrorKind.NOT_FOUND: _("Not found."),
    ErrorKind.CONFLICT: _("This is not possible in the game's present state."),
    ErrorKind.ILLEGAL: _("The rules do not allow this move."),
}


def reason_text(reason: str, params: Mapping[str, Any], variant: str = "classic") -> str:
    """The sentence of refusal ``reason`` (the engine's or a service's) with its ``params``."""
    if reason in REASONS:
        return refusal_text(reason, params, variant)
    return service_text(reason, params)


def general_message(code: str, message: str, kind: ErrorKind | None = None) -> str:
    """An error without a reason of ours (a framework's own, in English): as it is in
    English; in another language, the sentence of the reason named like its code, or what its
    kind of error means."""
    if (get_language() or "en").split("-")[0] == "en":
        return message
    entry = SERVICE_REASONS.get(code)
    if entry is not None and "%(" not in str(entry.text):
        return str(entry.text)
    if kind is not None:
        return str(GENERAL[kind])
    return pgettext("error", "The request could not be carried out.")


def refusal_message(error: GameError, variant: str = "classic") -> str:
    """An engine refusal's own sentence (without what a draw from the stock kept)."""
    if error.reason in REASONS or error.reason in SERVICE_REASONS:
        return reason_text(error.reason, error.params, variant)
    return general_message(error.code, error.message, error.kind)


def error_message(error: GameError, variant: str = "classic") -> str:
    """A service's refusal, for people, in the active language."""
    refusal = refusal_message(error, variant)
    if error.details.get("applied"):
        return gettext(
            "Your draw from the stock stands (a draw cannot be taken back): the cards are in "
            "your hand, and the moves after the draw were not played. %(refusal)s"
        ) % {"refusal": refusal}
    return refusal
