"""The sessions signed in before accounts.UserSession existed are copied into it, each with
its account's id read from its signed data, so nobody is signed out by the change. Going
back copies them the other way. Unexpired sessions, in chunks of CHUNK rows; the old table
is emptied."""

from __future__ import annotations

from typing import Any

from django.db import migrations
from django.utils import timezone

from accounts.models import SessionStore, session_user_id

CHUNK = 2000


def _chunks(model: Any) -> Any:
    """The unexpired rows of `model`, CHUNK at a time, along its primary key."""
    rows = model.objects.filter(expire_date__gt=timezone.now()).order_by("session_key")
    last = ""
    while chunk := list(rows.filter(session_key__gt=last)[:CHUNK]):
        yield chunk
        last = chunk[-1].session_key


def _user_id(session_data: str) -> int | None:
    # Django's decode: an unreadable or tampered row reads as empty (not signed in).
    return session_user_id(SessionStore().decode(session_data))


def _copied(source: Any, target: Any, *, with_user: bool) -> None:
    """Every unexpired row of `source` into `target` (the account's id read from the data
    when `with_user`)."""
    for chunk in _chunks(source):
        rows = []
        for row in chunk:
            extra = {"user_id": _user_id(row.session_data)} if with_user else {}
            rows.append(
                target(
                    session_key=row.session_key,
                    session_data=row.session_data,
                    expire_date=row.expire_date,
                    **extra,
                )
            )
        target.objects.bulk_create(rows, ignore_conflicts=True)


def forwards(apps: Any, schema_editor: Any) -> None:
    old, new = apps.get_model("sessions", "Session"), apps.get_model("accounts", "UserSession")
    _copied(old, new, with_user=True)
    # Nothing reads or prunes the old table from now on: emptied, expired rows included.
    old.objects.all().delete()


def backwards(apps: Any, schema_editor: Any) -> None:
    old, new = apps.get_model("sessions", "Session"), apps.get_model("accounts", "UserSession")
    _copied(new, old, with_user=False)


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_user_sessions"), ("sessions", "0001_initial")]

    operations = [migrations.RunPython(forwards, backwards, elidable=True)]
