from django.apps import AppConfig


class ClientsConfig(AppConfig):
    name = "clients"
    verbose_name = "third-party clients: events, webhooks, API tokens"
    default_auto_field = "django.db.models.BigAutoField"
    # Its receivers, hooks and tasks are connected by canasta_site/wiring.py (SiteConfig.ready).
