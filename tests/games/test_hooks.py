"""games/hooks.py: the registries the apps above the domain fill from their ready()."""

from datetime import UTC, datetime

from clients import receivers as client_receivers
from games import hooks
from notifications import receivers as email_receivers


def test_a_hook_calls_its_receivers_in_order_once_each():
    hook: hooks.Hook[list[str]] = hooks.Hook("test")
    hook.connect(lambda seen: seen.append("outbox"), order=hooks.ORDER_OUTBOX)

    def feed(seen: list[str]) -> None:
        seen.append("feed")

    hook.connect(feed, order=hooks.ORDER_FEED)
    hook.connect(feed, order=hooks.ORDER_FEED)  # ready() may run twice
    seen: list[str] = []
    hook.send(seen)
    assert seen == ["feed", "outbox"]


def test_the_apps_registered_the_feed_before_the_emails():
    # The feed locks its readers' rows before the outbox's rows reference them.
    receivers = [receiver for _, receiver in hooks.moves_logged._receivers]
    assert receivers == [client_receivers.on_moves_logged, email_receivers.on_moves_logged]
    assert [r for _, r in hooks.turn_timed_out._receivers] == [
        client_receivers.on_turn_timed_out,
        email_receivers.on_turn_timed_out,
    ]
    assert [r for _, r in hooks.reminder_due._receivers] == [email_receivers.on_reminder_due]


def test_the_seat_reads_join_what_the_receivers_read():
    assert hooks.seat_related() == ["user__notification_preference", "user__mail_player"]
    annotations = hooks.seat_annotations(now=datetime(2026, 1, 1, tzinfo=UTC))
    assert set(annotations) == {"may_be_absent", "chat_news"}
