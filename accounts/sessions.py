"""The session engine (settings.SESSION_ENGINE): Django's database sessions, kept in
accounts.models.UserSession with the signed-in account's id beside the data."""

from accounts.models import SessionStore

__all__ = ["SessionStore"]
