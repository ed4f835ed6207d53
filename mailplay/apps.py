from django.apps import AppConfig


class MailplayConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "mailplay"
    verbose_name = "play by email"

    def ready(self) -> None:
        from mailplay import signals
        from mailplay.services.reply_to import reply_address_for_row
        from notifications.services.delivery import reply_address_hook_register

        signals.connect()
        # Turn emails get their Reply-To when they are sent, never from a stored payload.
        reply_address_hook_register(reply_address_for_row)
