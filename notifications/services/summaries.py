"""Hand-over emails in one summary instead of one email per hand.

A hand-over email waits like a turn email (the player's delay; outbox.email_due_at). When it
is due:

- if a later hand-over or match-over email of the same game is waiting for the same player, it
  is dropped (FOLDED_REASON): the later one will carry its hand;
- while a bot plays the player's seat (they are away) and the match goes on, it waits again,
  CANASTA_AWAY_HAND_OVER_RECHECK_MINUTES at a time: a match the bots play out while the people
  are away ends in one match-over email, not one email per hand;
- otherwise it is sent, and so is a match-over email, each with the hands of the game folded
  into it since the last hand-over or match-over email the player got ("Earlier hands").

Everything here reads and writes outbox rows only (conditional UPDATEs): a row another worker
holds is never folded.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from games import l10n
from games.models import Game, GameStatus
from notifications.models import Outbox, OutboxChannel, OutboxKind, OutboxStatus
from notifications.payloads import payload_joined
from notifications.sheetmail import payload_side_labels

FOLDED_REASON = "summarised in a later email about this game"
SUMMARY_KINDS = (OutboxKind.HAND_OVER, OutboxKind.MATCH_OVER)


def _same_thread(row: Outbox) -> Any:
    # A None matches IS NULL (Django's rule for an exact lookup); the stub refuses None.
    return Outbox.objects.filter(  # type: ignore[misc]
        recipient_id=row.recipient_id, game_id=row.game_id, channel=OutboxChannel.EMAIL
    )


def hand_over_superseded(row: Outbox) -> bool:
    """A later hand-over or match-over email of the game waits for (or went to) the player."""
    if row.kind != OutboxKind.HAND_OVER or row.game_id is None:
        return False
    return (
        _same_thread(row)
        .filter(kind__in=SUMMARY_KINDS, pk__gt=row.pk)
        .exclude(status=OutboxStatus.SKIPPED)
        .exists()
    )


def hand_over_held(row: Outbox) -> bool:
    """The player is away (a bot plays their seat) and the match goes on."""
    if row.kind != OutboxKind.HAND_OVER or row.game_id is None or row.recipient_id is None:
        return False  # no game, or an address without an account: nobody to be away
    return Game.objects.filter(
        pk=row.game_id,
        status=GameStatus.ACTIVE,
        seats__user_id=row.recipient_id,
        seats__away=True,
    ).exists()


def hand_over_hold(row: Outbox, *, now: datetime | None = None) -> bool:
    """Give the claimed row back, due again after the recheck interval. The claim's attempt is
    handed back too: waiting is no failed delivery."""
    now = now or timezone.now()
    later = now + timedelta(minutes=settings.CANASTA_AWAY_HAND_OVER_RECHECK_MINUTES)
    return bool(
        Outbox.objects.filter(pk=row.pk, status=OutboxStatus.SENDING, attempts=row.attempts).update(
            status=OutboxStatus.PENDING,
            next_attempt_at=later,
            claimed_at=None,
            attempts=F("attempts") - 1,
        )
    )


def earlier_hands(row: Outbox) -> list[dict[str, Any]]:
    """Fold the player's waiting hand-over emails of this game into `row` (marked skipped), and
    return the hands folded since their last hand-over or match-over email, oldest first."""
    if row.kind not in SUMMARY_KINDS or row.game_id is None:
        return []
    thread = _same_thread(row).filter(pk__lt=row.pk)
    thread.filter(kind=OutboxKind.HAND_OVER, status=OutboxStatus.PENDING).update(
        status=OutboxStatus.SKIPPED, last_error=FOLDED_REASON
    )
    last_sent = (
        thread.filter(kind__in=SUMMARY_KINDS, status=OutboxStatus.SENT)
        .order_by("-pk")
        .values_list("pk", flat=True)
        .first()
    )
    folded = thread.filter(
        kind=OutboxKind.HAND_OVER, status=OutboxStatus.SKIPPED, last_error=FOLDED_REASON
    )
    if last_sent is not None:
        folded = folded.filter(pk__gt=last_sent)
    hands = []
    for folded_row in folded.select_related("shared").order_by("pk"):
        payload = payload_joined(folded_row)
        result = payload.get("hand_result") or {}
        hands.append(
            {
                "hand": result.get("hand"),
                "scores": list((result.get("result") or {}).get("scores") or []),
                "totals": list(payload.get("totals") or []),
            }
        )
    return hands


def earlier_hands_paragraphs(payload: dict[str, Any]) -> list[str]:
    """The "Earlier hands" lines of a hand-over or match-over email (empty: none folded)."""
    hands = payload.get("earlier_hands") or []
    if not hands:
        return []
    # One paragraph a line: HTML joins the lines of a paragraph.
    lines = [_("Earlier hands, not mailed one by one:")]
    labels = payload_side_labels(payload)
    for hand in hands:
        scores = hand.get("scores") or []
        if not scores:  # a hand cut short (a resignation): no score, and no "-" to puzzle over
            lines.append(_("Hand %(hand)s ended without a score.") % {"hand": hand.get("hand")})
            continue
        shown = l10n.scores(scores, labels)  # "Ihr Team 135, Klaus & Jörg 1.425"
        lines.append(_("Hand %(hand)s: %(scores)s") % {"hand": hand.get("hand"), "scores": shown})
    return lines
