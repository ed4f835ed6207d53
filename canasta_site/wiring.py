"""Every runtime connection of the project, in one place, in the order a move triggers them.

The game domain does not import the apps above it (docs/architecture.md): it announces what
happened and asks what it needs through registries, and the services queue Celery tasks by
name. Those connections are made here, and only here, by `wire()`, which the site's
AppConfig.ready() calls once every app's models are loaded (canasta_site/apps.py). Read top to
bottom, WIRING is the walk of a move after the transaction of docs/move-lifecycle.md:

1. the seat reads joined to the locked game (what the receivers will read about each player);
2. the questions the move asks (is a player away, does an email player want the forced draw);
3. the receivers of what the move changed, in their `order`. The order is a lock order, not a
   preference: the event feed (`hooks.ORDER_FEED`) locks its readers' user rows before the
   outbox (`hooks.ORDER_OUTBOX`) writes rows that reference them, so every transaction takes
   those locks in the same order and two moves cannot deadlock;
4. after the commit, the tasks queued by name (a bot's turn, an outbox row's delivery, a
   webhook's), which every process must have registered;
5. the outbox row's channel sender, and the hooks that give an email its Reply-To and the
   secret links of an account mail, when it is sent;
6. the inbound mail signal (anymail), where an emailed move comes in.

`tests/test_wiring.py` checks that the registries hold exactly what is listed here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import accounts.tasks
import clients.schema
import clients.tasks
import games.tasks
import notifications.tasks
from accounts import links
from accounts.services.reset import RESET_TASK
from clients import receivers as feed
from clients.services.webhooks import DELIVER_TASK as WEBHOOK_TASK
from games import hooks
from games.services.enqueue import BOT_TURN_TASK
from mailplay import signals as inbound_mail
from mailplay.services import autodraw
from mailplay.services import retention as mail_retention
from mailplay.services.reply_to import reply_address_for_row
from notifications import receivers as outbox_rows
from notifications import selectors as absences
from notifications.models import OutboxChannel, OutboxKind
from notifications.services import retention as outbox_retention
from notifications.services.delivery import (
    email_row_send,
    reply_address_hook_register,
    secret_links_hook_register,
)
from notifications.services.outbox import DELIVER_TASK as OUTBOX_TASK
from notifications.services.outbox import channel_sender_register
from notifications.services.push import push_row_send


def absence_intervals(user: Any, after: datetime) -> list[tuple[datetime, datetime]]:
    """The turn clock stops while the player to act is away (notifications' absences)."""
    return absences.absence_intervals(user=user, after=after)


def absences_of(user_ids: list[Any], now: datetime) -> Iterable[tuple[Any, datetime, datetime]]:
    """Absences are shown with the game, to everyone at the table (games.readmodel)."""
    return (
        (absence.user_id, absence.starts_at, absence.ends_at)
        for absence in absences.absences_of(user_ids=user_ids, now=now)
    )


def users_confirmed(user_ids: list[Any]) -> set[Any]:
    """Only players with a confirmed address play rated matches (docs/ratings.md)."""
    return absences.users_confirmed(user_ids=user_ids)


def auto_draw_wanted(user_id: Any, pile_closed: bool, user: Any) -> bool:
    """The forced draw at the start of an email player's turn (mail play's choice)."""
    return autodraw.auto_draw_wanted(user_id=user_id, pile_closed=pile_closed, user=user)


@dataclass(frozen=True)
class Wire:
    """One connection: the app that owns ``target``, the registry it goes into, and how."""

    app: str
    registry: str
    target: object
    connect: Callable[[], object]


def _hook(hook: hooks.Hook[Any], receiver: Callable[[Any], None], order: int, app: str) -> Wire:
    return Wire(app, f"hooks.{hook.name}", receiver, lambda: hook.connect(receiver, order=order))


def _task(name: str, module: object, app: str) -> Wire:
    # The module's import registered the task with Celery; the services queue it by ``name``.
    return Wire(app, "celery tasks", name, lambda: module)


WIRING: tuple[Wire, ...] = (
    # 1. what the receivers read about each seated user, joined to the locked game's seats
    Wire(
        "notifications",
        "hooks.seat_read",
        outbox_rows.SEAT_READ,
        lambda: hooks.seat_read_register(outbox_rows.SEAT_READ),
    ),
    Wire(
        "mailplay",
        "hooks.seat_read",
        autodraw.SEAT_READ,
        lambda: hooks.seat_read_register(autodraw.SEAT_READ),
    ),
    # 2. the questions a move and its clock ask
    Wire(
        "notifications",
        "hooks.absence_intervals",
        absence_intervals,
        lambda: hooks.absence_intervals_answer(absence_intervals),
    ),
    Wire(
        "notifications",
        "hooks.absences_of",
        absences_of,
        lambda: hooks.absences_of_answer(absences_of),
    ),
    Wire(
        "mailplay",
        "hooks.auto_draw_wanted",
        auto_draw_wanted,
        lambda: hooks.auto_draw_wanted_answer(auto_draw_wanted),
    ),
    Wire(
        "notifications",
        "hooks.users_confirmed",
        users_confirmed,
        lambda: hooks.users_confirmed_answer(users_confirmed),
    ),
    # 3. what a change causes, in its transaction: the feed first, then the outbox (lock order)
    _hook(hooks.moves_logged, feed.on_moves_logged, hooks.ORDER_FEED, "clients"),
    _hook(hooks.moves_logged, outbox_rows.on_moves_logged, hooks.ORDER_OUTBOX, "notifications"),
    _hook(hooks.turn_started, feed.on_turn_started, hooks.ORDER_FEED, "clients"),
    _hook(hooks.turn_started, outbox_rows.on_turn_started, hooks.ORDER_OUTBOX, "notifications"),
    _hook(hooks.turn_timed_out, feed.on_turn_timed_out, hooks.ORDER_FEED, "clients"),
    _hook(hooks.turn_timed_out, outbox_rows.on_turn_timed_out, hooks.ORDER_OUTBOX, "notifications"),
    _hook(hooks.reminder_due, outbox_rows.on_reminder_due, hooks.ORDER_OUTBOX, "notifications"),
    _hook(
        hooks.invitation_sent, outbox_rows.on_invitation_sent, hooks.ORDER_OUTBOX, "notifications"
    ),
    # (not a move: a game retired after its end takes its reply addresses, inbound mail and
    # presence rows with it; docs/operations.md, "Retention")
    _hook(hooks.games_retired, outbox_retention.on_games_retired, 0, "notifications"),
    _hook(hooks.games_retired, mail_retention.on_games_retired, 0, "mailplay"),
    # 4. after the commit: the tasks queued by name
    _task(BOT_TURN_TASK, games.tasks, "games"),
    _task(OUTBOX_TASK, notifications.tasks, "notifications"),
    _task(WEBHOOK_TASK, clients.tasks, "clients"),
    _task(RESET_TASK, accounts.tasks, "accounts"),
    # 5. sending an outbox row: its channel's sender, the Reply-To, the secret links
    Wire(
        "notifications",
        "outbox channel senders",
        email_row_send,
        lambda: channel_sender_register(OutboxChannel.EMAIL, email_row_send),
    ),
    Wire(
        "notifications",
        "outbox channel senders",
        push_row_send,
        lambda: channel_sender_register(OutboxChannel.PUSH, push_row_send),
    ),
    Wire(
        "mailplay",
        "email Reply-To hooks",
        reply_address_for_row,
        lambda: reply_address_hook_register(reply_address_for_row),
    ),
    Wire(
        "accounts",
        "email secret links",
        links.reset_links,
        lambda: secret_links_hook_register(OutboxKind.PASSWORD_RESET, links.reset_links),
    ),
    Wire(
        "accounts",
        "email secret links",
        links.confirm_links,
        lambda: secret_links_hook_register(OutboxKind.VERIFY_EMAIL, links.confirm_links),
    ),
    Wire(
        "accounts",
        "email secret links",
        links.invitation_links,
        lambda: secret_links_hook_register(OutboxKind.INVITATION, links.invitation_links),
    ),
    # 6. where an emailed move comes in: anymail's inbound signal from our webhook view
    Wire("mailplay", "anymail inbound signal", inbound_mail.on_inbound, inbound_mail.connect),
)


def wire() -> None:
    """Make every connection of WIRING (once per process; again is harmless)."""
    for connection in WIRING:
        connection.connect()
