from django.apps import AppConfig


class ClientsConfig(AppConfig):
    name = "clients"
    verbose_name = "third-party clients: events, webhooks, API tokens"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Imported here, once the models are loaded (as Django wants).
        from clients import (
            receivers,
            schema,  # noqa: F401  the OpenAPI description of API-key authentication
            tasks,  # noqa: F401  registers the tasks queued by name
        )
        from games import hooks

        # The event feed of a change, written before its emails (hooks.ORDER_FEED).
        hooks.moves_logged.connect(receivers.on_moves_logged, order=hooks.ORDER_FEED)
        hooks.turn_started.connect(receivers.on_turn_started, order=hooks.ORDER_FEED)
        hooks.turn_timed_out.connect(receivers.on_turn_timed_out, order=hooks.ORDER_FEED)
