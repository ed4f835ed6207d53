from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "notifications"

    def ready(self) -> None:
        # Imported here, once the models are loaded (as Django wants). The registries below
        # are how the game domain, under notifications, reaches it without importing it.
        from games import hooks
        from notifications import (
            receivers,
            selectors,
            tasks,  # noqa: F401  registers the tasks queued by name
        )
        from notifications.models import OutboxChannel
        from notifications.services.delivery import email_row_send
        from notifications.services.outbox import channel_sender_register
        from notifications.services.push import push_row_send

        channel_sender_register(OutboxChannel.EMAIL, email_row_send)
        channel_sender_register(OutboxChannel.PUSH, push_row_send)
        hooks.moves_logged.connect(receivers.on_moves_logged, order=hooks.ORDER_OUTBOX)
        hooks.turn_started.connect(receivers.on_turn_started, order=hooks.ORDER_OUTBOX)
        hooks.turn_timed_out.connect(receivers.on_turn_timed_out, order=hooks.ORDER_OUTBOX)
        hooks.reminder_due.connect(receivers.on_reminder_due, order=hooks.ORDER_OUTBOX)
        hooks.invitation_sent.connect(receivers.on_invitation_sent, order=hooks.ORDER_OUTBOX)
        hooks.seat_read_register(receivers.SEAT_READ)
        # The turn clock stops while the player to act is away.
        hooks.absence_intervals_answer(
            lambda user, after: selectors.absence_intervals(user=user, after=after)
        )
        # Absences are shown with the game, to everyone at the table (games.readmodel).
        hooks.absences_of_answer(
            lambda user_ids, now: (
                (absence.user_id, absence.starts_at, absence.ends_at)
                for absence in selectors.absences_of(user_ids=user_ids, now=now)
            )
        )
