from django.apps import AppConfig


class MailplayConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "mailplay"
    verbose_name = "play by email"
    # Its receivers, hooks and tasks are connected by canasta_site/wiring.py (SiteConfig.ready).
