"""The signed-in user of an API request, typed as the user model.

DRF types `request.user` as the user or AnonymousUser; a view behind IsAuthenticated only ever
sees the first, and this says so once instead of each view reaching past the union.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request


def request_user(request: Request) -> User:
    """The request's user; NotAuthenticated (the API's 401) if nobody is signed in."""
    user = request.user
    if not isinstance(user, User):
        raise NotAuthenticated()
    return user
