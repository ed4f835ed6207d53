"""Who gets the forced draw: a player who plays by email (a `MailPlayer`, created by their
first processed email) with `auto_draw` on, while their email mode sends every turn.

games.services.moves asks this when a batch leaves a human seat at the start of a turn; it
does the draw itself (a logged system move) when drawing from the stock is the only legal
start. Bots never get here.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from mailplay.models import MailPlayer


def wants_auto_draw(*, user_id: Any) -> bool:
    """One query: the player plays by email, has auto_draw on and gets every turn's email."""
    if not settings.CANASTA_MAIL_AUTO_DRAW or user_id is None:
        return False
    return (
        MailPlayer.objects.filter(user_id=user_id, auto_draw=True)
        .exclude(user__notification_preference__email_mode__in=("digest", "none"))
        .exists()
    )


def mail_player_set(*, user: Any, auto_draw: bool) -> MailPlayer:
    """Turn the forced draw on or off for a player (admin, tests)."""
    player, _ = MailPlayer.objects.update_or_create(user=user, defaults={"auto_draw": auto_draw})
    return player
