"""Tables for clients built by others: the per-user event feed, webhooks and their delivery
log, and personal API tokens (README.md, "Webhooks, event feed and tokens").

Writes go through clients/services/, reads through clients/selectors.py.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class EventKind(models.TextChoices):
    YOUR_TURN = "your_turn", "it is your turn"
    MOVE = "move", "moves were played"
    HAND_OVER = "hand_over", "a hand is over"
    MATCH_OVER = "match_over", "the match is over"
    TIMEOUT = "timeout", "a timeout was applied"


class Event(models.Model):
    """Something that happened in a game, as one player may see it.

    Written in the move's transaction. `id` is the feed's cursor: for one recipient, ids grow
    in commit order, because every transaction that writes a user's events first locks that
    user's row and holds it until commit (clients/services/events.py).
    """

    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="client_events"
    )
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="client_events")
    kind = models.CharField(max_length=12, choices=EventKind.choices)
    # The game's move seq when the event happened (0 at the deal of a new game).
    seq = models.PositiveIntegerField()
    # Built from the recipient's player view and engine.event_for only (clients/payloads.py).
    payload = models.JSONField(default=dict)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["id"]
        indexes = [
            # The feed: WHERE recipient = ? AND id > ? ORDER BY id.
            models.Index(fields=["recipient", "id"], name="event_recipient_id_idx"),
            # Which moves a game already announced (the last `move` event's seq).
            models.Index(fields=["game", "kind", "seq"], name="event_game_kind_seq_idx"),
            models.Index(fields=["created_at"], name="event_created_idx"),
        ]

    def __str__(self) -> str:
        return f"event {self.pk} {self.kind} for user {self.recipient_id} in {self.game_id}"


class Webhook(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhooks"
    )
    url = models.URLField(max_length=500)
    # Only this game's events; None: every game of the owner.
    game = models.ForeignKey(
        "games.Game", on_delete=models.CASCADE, null=True, blank=True, related_name="webhooks"
    )
    # EventKind values this hook wants.
    kinds = models.JSONField(default=list)
    # Kept in clear: every delivery is signed with it (HMAC). Shown once, at creation and on
    # rotation; never in a listing.
    secret = models.CharField(max_length=80)
    active = models.BooleanField(default=True)
    consecutive_failures = models.PositiveIntegerField(default=0)
    disabled_at = models.DateTimeField(null=True, blank=True)
    disabled_reason = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["owner", "active"], name="webhook_owner_active_idx")]

    def __str__(self) -> str:
        return f"webhook {self.pk} of user {self.owner_id} -> {self.url}"


class WebhookDelivery(models.Model):
    """One attempt to deliver one event to one hook: the log the owner reads."""

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    event = models.ForeignKey(
        Event, on_delete=models.SET_NULL, null=True, blank=True, related_name="deliveries"
    )
    # The notifications.Outbox row that carries the delivery (its retries and backoff).
    outbox_id = models.BigIntegerField(null=True, blank=True)
    attempt = models.PositiveSmallIntegerField()
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    ok = models.BooleanField(default=False)
    error = models.CharField(max_length=500, blank=True, default="")
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["webhook", "-id"], name="delivery_webhook_idx")]
        verbose_name_plural = "webhook deliveries"

    def __str__(self) -> str:
        return f"delivery {self.pk} of event {self.event_id} to webhook {self.webhook_id}"


class TokenScope(models.TextChoices):
    READ = "read", "read games, moves and events"
    PLAY = "play", "create, join, leave, move, resign; manage webhooks"


class TokenKind(models.TextChoices):
    PERSONAL = "personal", "personal token: named, scoped, for one client"
    ACCOUNT = "account", "account token: everything its user may do (POST /auth/token/)"


class ApiToken(models.Model):
    """An API key: a personal token (named, scoped) or an account token (sign-in with a
    password: the whole account). Only the sha256 of the key is stored; the key is shown once.
    A password change revokes every account token (clients/passwords.py)."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    kind = models.CharField(max_length=8, choices=TokenKind.choices, default=TokenKind.PERSONAL)
    name = models.CharField(max_length=100)
    scopes = models.JSONField(default=list)
    key_hash = models.CharField(max_length=64, unique=True)
    # The key's first characters, to tell tokens apart in a listing.
    prefix = models.CharField(max_length=16)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(
                fields=["owner"], condition=Q(revoked_at__isnull=True), name="token_owner_live_idx"
            )
        ]

    def __str__(self) -> str:
        return f"token {self.prefix}… ({self.name}) of user {self.owner_id}"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None

    @property
    def is_personal(self) -> bool:
        return self.kind == TokenKind.PERSONAL

    def allows(self, scope: str) -> bool:
        return scope in self.scopes
