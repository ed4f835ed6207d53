"""Who gets the forced draw: a player who plays by email (a `MailPlayer`, created by their
first processed email) with `auto_draw` on, while their email mode sends every turn.

games.services.moves asks this when a batch leaves a human seat at the start of a turn; it
does the draw itself (a logged system move) when drawing from the stock is the only legal
start. Bots never get here.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from games.services.errors import ErrorKind, GameError
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
    """Make the user an email player with this setting (tests, the admin)."""
    player, _ = MailPlayer.objects.update_or_create(user=user, defaults={"auto_draw": auto_draw})
    return player


def auto_draw_of(*, user: Any) -> bool | None:
    """The player's forced-draw setting; None for someone who never played by email."""
    return MailPlayer.objects.filter(user_id=user.pk).values_list("auto_draw", flat=True).first()


def auto_draw_update(*, user: Any, auto_draw: bool) -> MailPlayer:
    """The player's own switch (Settings page, PATCH /me/preferences/). Only for someone who
    plays by email: the forced draw exists to make one reply a whole turn."""
    updated = MailPlayer.objects.filter(user_id=user.pk).update(auto_draw=auto_draw)
    if not updated:
        raise GameError(
            ErrorKind.INVALID,
            "not_an_email_player",
            "The forced draw is for players who play by email: answer a turn email first.",
            {},
        )
    return MailPlayer.objects.get(user_id=user.pk)
