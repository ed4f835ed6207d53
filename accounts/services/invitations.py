"""Taking an invitation's seat from its link: the game's own service, plus the address: when
the account's address is the invited one, opening the link proves it reads it."""

from __future__ import annotations

import contextlib
from typing import Any

from accounts.services.addresses import address_mark_verified, address_normalized
from games.models import Invitation
from games.services.errors import GameError
from games.services.invitations import invitation_accept


def invitation_take(*, token: str, user: Any) -> Invitation:
    invitation = invitation_accept(token=token, user=user)
    if address_normalized(user.email) == invitation.email:
        # Another account may have confirmed the address meanwhile: the seat is taken all
        # the same, the address stays unconfirmed.
        with contextlib.suppress(GameError):
            address_mark_verified(user=user)
    return invitation
