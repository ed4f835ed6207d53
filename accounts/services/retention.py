"""Signed-in sessions past their expiry (docs/operations.md, "Retention").

Django keeps a session row until `clearsessions` deletes it; this does the same in bounded
chunks along the `expire_date` index, so the cost follows the sessions that expired.
"""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from accounts.models import UserSession
from games.services.retention import Budget, Pruned, range_prune


def sessions_prune(*, budget: Budget, now: datetime | None = None) -> Pruned:
    old = UserSession.objects.filter(expire_date__lt=now or timezone.now())
    return range_prune(old, key="expire_date", budget=budget)
