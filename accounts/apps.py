from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Accounts that recover and leave: password reset, verified addresses, data export and
    account deletion, the secret links of account and invitation mails (docs/accounts.md)."""

    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"
    # Its receivers, hooks and tasks are connected by canasta_site/wiring.py (SiteConfig.ready).
