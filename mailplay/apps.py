from django.apps import AppConfig


class MailplayConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "mailplay"
    verbose_name = "play by email"

    def ready(self) -> None:
        # Imported here, once the models are loaded (as Django wants).
        from games import hooks
        from mailplay import signals
        from mailplay.services import autodraw
        from mailplay.services.reply_to import reply_address_for_row
        from mailplay.services.retention import on_games_retired
        from notifications.services.delivery import reply_address_hook_register

        signals.connect()
        # Turn emails get their Reply-To when they are sent, never from a stored payload.
        reply_address_hook_register(reply_address_for_row)
        # The forced draw at the start of an email player's turn (games.services.moves), and
        # the choice it reads, joined to the seat rows of a locked game.
        hooks.auto_draw_wanted_answer(
            lambda user_id, pile_closed, user: autodraw.auto_draw_wanted(
                user_id=user_id, pile_closed=pile_closed, user=user
            )
        )
        hooks.seat_read_register(autodraw.SEAT_READ)
        # A game retired after its end takes its reply addresses and inbound mail with it.
        hooks.games_retired.connect(on_games_retired)
