"""Who gets the forced draw, and when: a player who plays by email (a `MailPlayer`, created by
their first processed email) whose email mode sends every turn, by their own standing choice
(`MailPlayer.auto_draw`, docs/fair-play.md):

- ``off``: never;
- ``pile_closed`` (the default): when the public table shows that they may not take the
  pile (it is empty, a black three or a wild card is on top, ...);
- ``always``: at the start of every turn, even when they could take the pile.

games.services.moves asks this when a batch leaves a human seat at the start of a turn, with
the public facts it read from the table; it does the draw itself (a logged system move).
Nothing here ever sees the player's hand: whether the service draws is public, so it must
tell the table nothing the table did not know. Bots never get here.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from games.hooks import SeatRead
from games.services.errors import ErrorKind, refused
from mailplay.models import AutoDraw, MailPlayer

# The old on/off switch, still accepted (PATCH /me/preferences/ {"auto_draw": true}, tests).
FROM_SWITCH = {True: AutoDraw.PILE_CLOSED, False: AutoDraw.OFF}

# Email modes that send no turn emails: the forced draw is for players who get them.
DIGEST_OR_NONE = ("digest", "none")


# The choice auto_draw_wanted reads, joined to the seat rows of a locked game (registered in
# mailplay/apps.py; notifications joins the email preference the same way).
SEAT_READ = SeatRead(related=("user__mail_player",))


def auto_draw_wanted(*, user_id: Any, pile_closed: bool, user: Any = None) -> bool:
    """The player plays by email, gets every turn's email, and their choice asks for a draw
    on a turn whose pile is (``pile_closed``) or is not publicly closed. One query, none when
    ``user`` comes with both answers loaded (games.services.common.game_lock)."""
    if not settings.CANASTA_MAIL_AUTO_DRAW or user_id is None:
        return False
    wanted = [AutoDraw.ALWAYS, AutoDraw.PILE_CLOSED] if pile_closed else [AutoDraw.ALWAYS]
    if user is not None and _loaded(user, "mail_player", "notification_preference"):
        player = _cached(user, "mail_player")
        preference = _cached(user, "notification_preference")
        mode = preference.email_mode if preference is not None else None
        return player is not None and player.auto_draw in wanted and mode not in DIGEST_OR_NONE
    return (
        MailPlayer.objects.filter(user_id=user_id, auto_draw__in=wanted)
        .exclude(user__notification_preference__email_mode__in=DIGEST_OR_NONE)
        .exists()
    )


def _loaded(user: Any, *relations: str) -> bool:
    """Whether every one of these one-to-one relations of ``user`` is loaded (None included)."""
    model = type(user)
    return all(
        (descriptor := model.__dict__.get(name)) is not None and descriptor.is_cached(user)
        for name in relations
    )


def _cached(user: Any, relation: str) -> Any:
    # The loaded related row, None for "loaded: there is none" (the attribute would raise).
    return type(user).__dict__[relation].related.get_cached_value(user)


def _choice(value: bool | str) -> str:
    if isinstance(value, bool):
        return FROM_SWITCH[value]
    if value not in AutoDraw.values:
        raise refused(
            ErrorKind.INVALID,
            "invalid_auto_draw",
            {"fields": {"auto_draw": [f"{value!r} is not a choice."]}},
        )
    return value


def mail_player_set(*, user: Any, auto_draw: bool | str) -> MailPlayer:
    """Make the user an email player with this choice (tests, the admin); True and False are
    the old switch (pile_closed and off)."""
    player, _ = MailPlayer.objects.update_or_create(
        user=user, defaults={"auto_draw": _choice(auto_draw)}
    )
    return player


def auto_draw_of(*, user: Any) -> str | None:
    """The player's forced-draw choice; None for someone who never played by email."""
    return MailPlayer.objects.filter(user_id=user.pk).values_list("auto_draw", flat=True).first()


def auto_draw_update(*, user: Any, auto_draw: bool | str) -> MailPlayer:
    """The player's own choice (Settings page, PATCH /me/preferences/). Only for someone who
    plays by email: the forced draw exists to make one reply a whole turn."""
    choice = _choice(auto_draw)
    updated = MailPlayer.objects.filter(user_id=user.pk).update(auto_draw=choice)
    if not updated:
        raise refused(ErrorKind.INVALID, "not_an_email_player")
    return MailPlayer.objects.get(user_id=user.pk)
