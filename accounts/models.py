"""The signed-in sessions, with the account each belongs to (settings.SESSION_ENGINE is
accounts.sessions, whose store is SessionStore)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore as DatabaseStore
from django.contrib.sessions.base_session import AbstractBaseSession
from django.db import models
from django.db.models import Q


def session_user_id(data: dict[str, Any]) -> int | None:
    """The account a session's data is signed in as, or None."""
    value = data.get(SESSION_KEY)
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


class UserSession(AbstractBaseSession):
    """Django's database session, plus the id of the account signed in with it.

    Django's own table keeps the account only inside the signed session data, so finding an
    account's sessions (to end them when the account is deleted) meant reading and decoding
    every session of every player: a cost that grew with the sessions that exist. `user_id`
    is written by SessionStore whenever the session is saved; a plain integer, not a
    foreign key: a deleted account's row stays as a tombstone, and the deletion deletes its
    sessions itself.
    """

    user_id = models.BigIntegerField(null=True, blank=True)

    class Meta:
        db_table = "accounts_session"
        indexes = [
            # Only signed-in sessions are looked up by account (anonymous ones hold a language).
            models.Index(
                fields=["user_id"], condition=Q(user_id__isnull=False), name="session_user_idx"
            )
        ]

    @classmethod
    def get_session_store_class(cls) -> type[SessionStore]:
        return SessionStore


class SessionStore(DatabaseStore):
    """Django's database store on UserSession. Its class name stays "SessionStore": Django
    salts the signed session data with it, so the sessions signed before this store
    (django.contrib.sessions' own, copied by migration 0002) still read."""

    @classmethod
    def get_model_class(cls) -> type[UserSession]:
        return UserSession

    def create_model_instance(self, data: dict[str, Any]) -> UserSession:
        session = super().create_model_instance(data)
        assert isinstance(session, UserSession)  # get_model_class above
        session.user_id = session_user_id(data)
        return session
