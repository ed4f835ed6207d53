from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "notifications"
    # Its receivers, hooks and tasks are connected by canasta_site/wiring.py (SiteConfig.ready).
