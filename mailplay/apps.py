from django.apps import AppConfig


class MailplayConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "mailplay"
    verbose_name = "play by email"

    def ready(self) -> None:
        from mailplay import signals

        signals.connect()
