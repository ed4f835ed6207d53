"""Thin Celery tasks of accounts: ids and addresses in, a service call."""

from __future__ import annotations

from celery import Task, shared_task

from accounts.services.reset import reset_mail_enqueue
from accounts.services.retention import sessions_prune
from games.tasks import prune_run


@shared_task(name="accounts.tasks.password_reset_mail", ignore_result=True)
def password_reset_mail(email: str) -> int:
    return reset_mail_enqueue(email=email)


@shared_task(name="accounts.tasks.prune_sessions", bind=True, ignore_result=True)
def prune_sessions(self: Task) -> int:
    """Beat, daily: sessions past their expiry (what `manage.py clearsessions` does, in
    bounded chunks)."""
    return prune_run(self, lambda budget: sessions_prune(budget=budget))
