from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"

    def ready(self) -> None:
        # Registers the game tasks in every process: the services queue them by name
        # (games/services/enqueue.py) and never import the tasks module.
        from games import tasks  # noqa: F401
