"""canasta_site/wiring.py and the registries agree: every connection it lists is made, and
nothing is connected that it does not list (docs/architecture.md, docs/move-lifecycle.md)."""

from __future__ import annotations

from typing import Any

from celery import current_app

from canasta_site.wiring import WIRING, wire
from games import hooks
from notifications.services import delivery, outbox

HOOKS = [
    hooks.moves_logged,
    hooks.turn_started,
    hooks.turn_timed_out,
    hooks.reminder_due,
    hooks.invitation_sent,
    hooks.games_retired,
]


def _listed(registry: str) -> list[Any]:
    return [connection.target for connection in WIRING if connection.registry == registry]


def test_every_hook_receiver_is_listed_in_the_wiring_in_lock_order() -> None:
    for hook in HOOKS:
        connected = [receiver for _, receiver in hook.receivers()]
        assert connected == _listed(f"hooks.{hook.name}"), hook.name
        orders = [order for order, _ in hook.receivers()]
        assert orders == sorted(orders)
    # the feed locks its readers before the outbox: its receiver runs first
    first, second = hooks.moves_logged.receivers()
    assert first[0] == hooks.ORDER_FEED < second[0] == hooks.ORDER_OUTBOX


def test_the_questions_seat_reads_and_senders_are_the_listed_ones() -> None:
    answers = hooks._answers
    assert answers.absence_intervals in _listed("hooks.absence_intervals")
    assert answers.absences_of in _listed("hooks.absences_of")
    assert answers.auto_draw_wanted in _listed("hooks.auto_draw_wanted")
    assert answers.users_confirmed in _listed("hooks.users_confirmed")
    assert hooks._seat_reads == _listed("hooks.seat_read")
    assert list(outbox._channel_senders.values()) == _listed("outbox channel senders")
    assert delivery._reply_address_hooks == _listed("email Reply-To hooks")
    assert sorted(map(id, delivery._secret_links_hooks.values())) == sorted(
        map(id, _listed("email secret links"))
    )


def test_every_task_queued_by_name_is_registered() -> None:
    names = _listed("celery tasks")
    assert len(names) == 4
    for name in names:
        assert name in current_app.tasks, name


def test_wiring_again_changes_nothing() -> None:
    before = [list(hook.receivers()) for hook in HOOKS]
    wire()
    assert [list(hook.receivers()) for hook in HOOKS] == before
    assert len(hooks._seat_reads) == 2


def test_every_connection_names_its_app() -> None:
    apps = {connection.app for connection in WIRING}
    assert apps == {"games", "notifications", "clients", "mailplay", "accounts"}
