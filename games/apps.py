from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    # Its receivers, hooks and tasks are connected by canasta_site/wiring.py (SiteConfig.ready).
