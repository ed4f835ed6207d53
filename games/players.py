"""How a player is named to others, including an account that was deleted
(docs/accounts.md, "Deleting an account"): its seats stay in finished games, shown as
"deleted player"."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

# A deleted account keeps its row (seats and games point to it) under a name nobody can sign
# up with: "~" is not allowed in usernames.
DELETED_PREFIX = "~deleted-"


def deleted_username(pk: Any) -> str:
    return f"{DELETED_PREFIX}{pk}"


def is_deleted(user: Any) -> bool:
    return user is not None and str(user.get_username()).startswith(DELETED_PREFIX)


def player_name(user: Any) -> str:
    """The name others see: the username, or "deleted player"."""
    if user is None:
        return "?"
    if is_deleted(user):
        return _("deleted player")
    return str(user.get_username())
