"""A password change revokes the user's account tokens, wherever the password is changed.

Django calls `password_changed(password, user)` of every entry of AUTH_PASSWORD_VALIDATORS
after a user with a new password (set_password) is saved: the web form, the API, the admin's
password form, `manage.py changepassword`, a reset. Listed there, this class hooks all of them
at once; it checks nothing (validate() accepts every password), and its help text tells the
user what a change does.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from clients.services.tokens import account_tokens_revoke


class RevokeAccountTokens:
    def validate(self, password: str, user: Any = None) -> None:
        return None

    def password_changed(self, password: str, user: Any = None) -> None:
        if user is not None and user.pk is not None:
            account_tokens_revoke(owner=user)

    def get_help_text(self) -> str:
        # Shown with the password rules: the one place a user reads before changing it.
        return gettext(
            "Changing your password signs out every program that signed in with your "
            "password (account tokens); personal tokens keep working until you revoke them."
        )
