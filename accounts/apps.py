from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Accounts that recover and leave: password reset, verified addresses, data export and
    account deletion, the secret links of account and invitation mails (docs/accounts.md)."""

    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from accounts import tasks  # noqa: F401  registers the tasks queued by name
        from accounts.links import links_hooks_register

        links_hooks_register()
