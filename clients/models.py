"""Tables for clients built by others: the per-user event feed, webhooks and their delivery
log, and personal API tokens (docs/clients.md).

Writes go through clients/services/, reads through clients/selectors.py.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q

from clients.fields import EventFactsField, facts_unpacked


class EventKind(models.TextChoices):
    YOUR_TURN = "your_turn", "it is your turn"
    MOVE = "move", "moves were played"
    HAND_OVER = "hand_over", "a hand is over"
    MATCH_OVER = "match_over", "the match is over"
    TIMEOUT = "timeout", "a timeout was applied"


class Event(models.Model):
    """Something that happened in a game, written once for everyone who may see it.

    A shared event (`recipient` None: move, hand_over, match_over, timeout) reaches every
    person seated at the game; a `your_turn` reaches its `recipient` only. The row keeps the
    public facts of the event (`facts`); what a recipient reads (a feed answer, a webhook body)
    is built from them when it is read, for that recipient's seat: the moves from the move log
    filtered by engine.event_for, a player view of the table replayed to `seq`
    (clients/payloads.py). So nothing hidden is stored here, and a move costs one row, not one
    per player.

    `id` is the feed's cursor: for one person, ids grow in commit order, because every
    transaction that writes events a person may see first locks that person's row and holds it
    until commit (clients/services/events.py).
    """

    # Only for an event meant for one person (your_turn); None: every person at the table.
    # The feed reads by game ((game, id) below). Deleting a user looks their events up by
    # recipient (the CASCADE, and PostgreSQL's check of the foreign key): the partial index
    # below holds the your_turn events only, so that costs what the user has, not a scan of
    # every event.
    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="client_events",
        db_index=False,
    )
    game = models.ForeignKey(
        "games.Game", on_delete=models.CASCADE, related_name="client_events", db_index=False
    )
    kind = models.CharField(max_length=12, choices=EventKind.choices)
    # The game's move seq when the event happened (0 at the deal of a new game).
    seq = models.PositiveIntegerField()
    # move: the first move of the batch (the batch is first_seq..seq of the move log).
    first_seq = models.PositiveIntegerField(null=True, blank=True)
    # Public facts only, the same for every recipient (clients/payloads.py lists them by kind).
    # Compact JSON text, not jsonb (games.fields): a move's facts are two small numbers, and
    # jsonb's offsets and header doubled them in a row written for every move. A move's and a
    # your_turn's facts are stored as the list of their values (clients.fields), rebuilt in
    # from_db.
    facts = EventFactsField(default=dict)
    created_at = models.DateTimeField()

    @classmethod
    def from_db(cls, db: str | None, field_names: Any, values: Any, **kwargs: Any) -> Event:
        event = super().from_db(db, field_names, values, **kwargs)
        if "facts" in event.__dict__:
            event.facts = facts_unpacked(event.facts, event.kind)
        return event

    class Meta:
        ordering = ["id"]
        indexes = [
            # The feed: a reader's games' events after a cursor (their your_turn events are
            # in those games too); a game's last `move` event.
            models.Index(fields=["game", "id"], name="event_game_id_idx"),
            models.Index(
                fields=["recipient"],
                condition=Q(recipient__isnull=False),
                name="event_recipient_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"event {self.pk} {self.kind} in {self.game_id}"


class Webhook(models.Model):
    """A receiver of its owner's events, delivered one at a time in event order.

    `cursor` is the last event handled (delivered, or not one the hook wants); a run claims
    the hook (one worker at a time, `claims` is the fencing token), sends the events after the
    cursor in order and stops at the first failure, which waits `due_at` (a backoff) and is
    tried again. A hook is turned off only after its deliveries have kept failing for
    CANASTA_WEBHOOK_DISABLE_AFTER_SECONDS; turned on again it resumes from its cursor, so it
    receives what it missed, as far as the feed still holds it (clients/services/webhooks.py).
    """

    # Indexed by webhook_owner_active_idx, whose leading column it is.
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhooks", db_index=False
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
    # The last event id handled; the next delivery is the owner's first event after it.
    cursor = models.BigIntegerField(default=0)
    # When a run should next look for events: set when an event is written for the owner,
    # pushed back by a failure's backoff; None: nothing known to do.
    due_at = models.DateTimeField(null=True, blank=True)
    # A run holds the hook until then (a worker that died frees it when this passes).
    claimed_until = models.DateTimeField(null=True, blank=True)
    claims = models.PositiveIntegerField(default=0)
    consecutive_failures = models.PositiveIntegerField(default=0)
    # The first failure of the current run of failures (None: the last attempt succeeded).
    failing_since = models.DateTimeField(null=True, blank=True)
    disabled_at = models.DateTimeField(null=True, blank=True)
    disabled_reason = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [
            models.Index(fields=["owner", "active"], name="webhook_owner_active_idx"),
            # The sweep: active hooks whose run is due.
            models.Index(fields=["due_at"], condition=Q(active=True), name="webhook_due_idx"),
        ]

    def __str__(self) -> str:
        return f"webhook {self.pk} of user {self.owner_id} -> {self.url}"


class WebhookDelivery(models.Model):
    """One attempt to deliver one event to one hook: the log the owner reads."""

    # Indexed by delivery_webhook_idx, whose leading column it is.
    webhook = models.ForeignKey(
        Webhook, on_delete=models.CASCADE, related_name="deliveries", db_index=False
    )
    # Its index serves the prune of events, which clears this in one UPDATE per chunk.
    event = models.ForeignKey(
        Event, on_delete=models.SET_NULL, null=True, blank=True, related_name="deliveries"
    )
    # Deliveries made through the outbox before hooks had a cursor: that row (else None).
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
            ),
            # The prune of revoked tokens (clients.services.retention.tokens_prune).
            models.Index(
                fields=["revoked_at"],
                condition=Q(revoked_at__isnull=False),
                name="token_revoked_idx",
            ),
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
