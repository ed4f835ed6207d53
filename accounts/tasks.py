"""Thin Celery tasks of accounts: ids and addresses in, a service call."""

from __future__ import annotations

from celery import shared_task

from accounts.services.reset import reset_mail_enqueue


@shared_task(name="accounts.tasks.password_reset_mail", ignore_result=True)
def password_reset_mail(email: str) -> int:
    return reset_mail_enqueue(email=email)
