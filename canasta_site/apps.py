from django.apps import AppConfig


class SiteConfig(AppConfig):
    """The site itself (last in INSTALLED_APPS): it makes every runtime connection between the
    apps, from one list a reader can follow (canasta_site/wiring.py)."""

    name = "canasta_site"
    label = "canasta_site"

    def ready(self) -> None:
        # Imported here, once every app's models are loaded (as Django wants).
        from canasta_site import wiring

        wiring.wire()
