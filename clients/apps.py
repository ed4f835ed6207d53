from django.apps import AppConfig


class ClientsConfig(AppConfig):
    name = "clients"
    verbose_name = "third-party clients: events, webhooks, API tokens"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the OpenAPI description of the personal-token authentication.
        from clients import schema  # noqa: F401
