from django.apps import AppConfig
from django.db.backends.signals import connection_created


class SiteConfig(AppConfig):
    """The site itself (last in INSTALLED_APPS): it makes every runtime connection between the
    apps, from one list a reader can follow (canasta_site/wiring.py)."""

    name = "canasta_site"
    label = "canasta_site"

    def ready(self) -> None:
        # Imported here, once every app's models are loaded (as Django wants).
        from canasta_site import timestamps, wiring

        wiring.wire()
        # Every new database connection: PostgreSQL's timestamps read in C (timestamps.py).
        connection_created.connect(
            timestamps.timestamps_loader_install, dispatch_uid="canasta-timestamps"
        )
