"""Outbound notifications, their per-user preferences, and declared absences.

Every notification is an `Outbox` row written in the same transaction as the change that caused
it; Celery only delivers rows (docs/background-work.md). Writes go through
notifications/services/, reads through notifications/selectors.py.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from games.fields import DIGEST_BYTES, DigestField


class OutboxKind(models.TextChoices):
    YOUR_TURN = "your_turn", "your turn"
    REMINDER = "reminder", "the deadline is near"
    TIMEOUT = "timeout", "a timeout was applied"
    HAND_OVER = "hand_over", "a hand is over"
    MATCH_OVER = "match_over", "the match is over"
    DIGEST = "digest", "daily digest of games waiting for you"
    # Account mails (docs/accounts.md): sent whatever the email mode, even to an address that
    # is not confirmed yet.
    VERIFY_EMAIL = "verify_email", "confirm your email address"
    PASSWORD_RESET = "password_reset", "reset your password"
    # An invitation to a table: to an account, or to an address without one (no recipient).
    INVITATION = "invitation", "an invitation to a table"
    # The answer to an emailed move (mailplay.services.answers) and a notice about one of the
    # recipient's webhooks (clients.services.webhook_delivery).
    EMAIL_REPLY = "email_reply", "answer to an emailed move"
    WEBHOOK = "webhook", "webhook event"


class OutboxChannel(models.TextChoices):
    EMAIL = "email", "email"
    WEBHOOK = "webhook", "webhook"
    PUSH = "push", "web push"


class OutboxStatus(models.TextChoices):
    PENDING = "pending", "waiting to be sent"
    SENDING = "sending", "claimed by a worker"
    SENT = "sent", "sent"
    FAILED = "failed", "gave up after the last attempt"
    SKIPPED = "skipped", "not sent: the recipient's preferences or address"


# The rows a worker may still pick up; the partial index below covers exactly these, so the
# sweep's cost follows the backlog, not the history of sent mail.
OPEN_STATUSES = (OutboxStatus.PENDING, OutboxStatus.SENDING)


class OutboxShared(models.Model):
    """The part of a payload that every recipient of one event gets alike (a hand's result and
    score sheet: about 2 KB, once instead of once per player), written with the event's rows;
    a row's payload is this and its own (notifications.payloads.outbox_payload). Deleted by
    the daily outbox prune once no row refers to it."""

    data = models.JSONField(default=dict)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    def __str__(self) -> str:
        return f"shared payload {self.pk}"


class Outbox(models.Model):
    # None for a mail to an address without an account (an invitation by email): `address`.
    # Indexed by outbox_recipient_idx, whose leading column it is.
    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="outbox",
        null=True,
        blank=True,
        db_index=False,
    )
    address = models.CharField(max_length=254, blank=True, default="")
    game = models.ForeignKey(
        "games.Game", on_delete=models.CASCADE, null=True, blank=True, related_name="outbox"
    )
    move_seq = models.PositiveIntegerField(null=True, blank=True)
    kind = models.CharField(max_length=20, choices=OutboxKind.choices)
    channel = models.CharField(max_length=8, choices=OutboxChannel.choices, default="email")
    # "<game>:<move_seq>:<recipient>:<kind>" unless the caller names one: the same event can
    # be enqueued any number of times and is written (and so sent) once. Stored as its 16-byte
    # digest (games.fields.DigestField; an INSERT or lookup by the text compares digests): its
    # unique index took about 60 bytes a row as text.
    key = DigestField(max_length=DIGEST_BYTES, unique=True)
    # Everything the message shows, computed when the event happened and limited to what the
    # recipient may see: their player view, their legal actions, deadline, link data.
    payload = models.JSONField(default=dict)
    # The event's shared part of the payload, if any (OutboxShared): PROTECT, since only the
    # prune deletes it, and only once no row refers to it. Indexed by outbox_shared_idx, which
    # holds only the rows that have one (a hand's end): most rows have none, and a full index
    # kept an entry for each.
    shared = models.ForeignKey(
        OutboxShared,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="rows",
        db_index=False,
    )
    status = models.CharField(
        max_length=8, choices=OutboxStatus.choices, default=OutboxStatus.PENDING
    )
    # Claims so far. Counted when a worker claims the row, so a message that kills its worker
    # still runs out of attempts; also the fencing token of the claim (services/outbox.py).
    attempts = models.PositiveSmallIntegerField(default=0)
    # When a worker may next claim the row: now for a new row, the backoff after a failure,
    # the end of the visibility timeout while a worker holds it.
    next_attempt_at = models.DateTimeField(default=timezone.now)
    claimed_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [
            models.Index(
                fields=["next_attempt_at"],
                condition=Q(status__in=["pending", "sending"]),
                name="outbox_due_idx",
            ),
            models.Index(fields=["recipient", "-created_at"], name="outbox_recipient_idx"),
            # No index on created_at: the prune walks the primary key (ids follow creation;
            # notifications.services.retention.outbox_prune).
            # A shared part's rows (the prune's "no row refers to it", PROTECT's check).
            models.Index(
                fields=["shared"], condition=Q(shared__isnull=False), name="outbox_shared_idx"
            ),
        ]
        verbose_name_plural = "outbox"

    def __str__(self) -> str:
        return f"{self.kind} to user {self.recipient_id} ({self.status})"


class EmailMode(models.TextChoices):
    EVERY_TURN = "every_turn", "an email for every turn"
    DIGEST = "digest", "one daily digest of the games waiting for you"
    NONE = "none", "no email"


class Language(models.TextChoices):
    """The languages the service speaks (settings.LANGUAGES holds the same codes)."""

    ENGLISH = "en", "English"
    GERMAN = "de", "Deutsch"
    ICELANDIC = "is", "Íslenska"


def default_turn_email_delay() -> int:
    """The site's default delay of turn emails, in minutes (CANASTA_TURN_EMAIL_DELAY_MINUTES)."""
    return int(settings.CANASTA_TURN_EMAIL_DELAY_MINUTES)


class NotificationPreference(models.Model):
    """A user's preferences (email, language, time zone); a user without a row gets the defaults."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="notification_preference",
    )
    email_mode = models.CharField(
        max_length=10, choices=EmailMode.choices, default=EmailMode.EVERY_TURN
    )
    digest_hour = models.PositiveSmallIntegerField(
        default=7, help_text="Hour in the user's time zone, 0-23"
    )
    last_digest_at = models.DateTimeField(null=True, blank=True)
    # When the digest sweep next looks at this user (notifications/services/digests.py): their
    # digest hour, or a recheck later that day when nothing was waiting, or tomorrow's hour
    # after a digest. None: at the next sweep (new, or email_mode, digest_hour or time_zone
    # changed), which computes it. The sweep reads the due ones through an index, so its
    # cost follows the users due, not the digest readers.
    digest_due_at = models.DateTimeField(null=True, blank=True)
    # The language of everything the service writes to this user (pages, emails, API
    # messages) and the extra command language its emails accept besides English.
    language = models.CharField(max_length=8, choices=Language.choices, default=Language.ENGLISH)
    # An IANA zone name ("Europe/Berlin"): dates and times are shown in it.
    time_zone = models.CharField(max_length=64, default="UTC")
    # How long a "your turn" email waits for the player to look at the game first; looking
    # (the game page open, notifications/services/presence.py) drops it. 0: at once (still
    # not while the page is open). Hand-over emails wait as long, so that the hands of a fast
    # stretch of play come in one email.
    turn_email_delay_minutes = models.PositiveSmallIntegerField(default=default_turn_email_delay)
    # Verified addresses (docs/accounts.md). `email_verified`: the address this account proved
    # it reads (lowercased), unique across accounts; `email_pending`: the account's address
    # changed (or was given at sign-up) and is not confirmed yet, so the service sends it
    # nothing but the confirmation and password reset mails. A user without a row (accounts
    # made by an operator, before this existed) counts as confirmed.
    email_verified = models.CharField(max_length=254, null=True, blank=True, unique=True)
    email_pending = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(digest_hour__lte=23), name="preference_digest_hour_valid"
            )
        ]
        indexes = [
            models.Index(
                fields=["digest_due_at", "user"],
                condition=Q(email_mode="digest"),
                name="preference_digest_due_idx",
            )
        ]

    def __str__(self) -> str:
        return f"{self.email_mode} for user {self.user_id}"


class GamePresence(models.Model):
    """When a user last had a game in front of them (its page open, or read by the page).

    Written at most once per CANASTA_PRESENCE_WRITE_SECONDS per user and game
    (notifications.services.presence.presence_record); read when a turn email is due.
    """

    # Indexed by presence_user_game_unique, whose leading column it is.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="game_presence",
        db_index=False,
    )
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="presence")
    last_seen_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "game"], name="presence_user_game_unique")
        ]

    def __str__(self) -> str:
        return f"user {self.user_id} saw game {self.game_id} at {self.last_seen_at}"


class Absence(models.Model):
    """A declared vacation: the player's turn clocks stop from starts_at to ends_at."""

    # Indexed by absence_user_ends_idx, whose leading column it is.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="absences", db_index=False
    )
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["starts_at"]
        indexes = [models.Index(fields=["user", "ends_at"], name="absence_user_ends_idx")]
        constraints = [
            models.CheckConstraint(
                condition=Q(ends_at__gt=models.F("starts_at")), name="absence_ends_after_start"
            )
        ]

    def __str__(self) -> str:
        return f"absence of user {self.user_id}: {self.starts_at} to {self.ends_at}"


class PushSubscription(models.Model):
    """One browser's Web Push subscription (docs/notifications.md#web-push): where to post
    and the keys to encrypt for (RFC 8291). Per device: a player opts in on each one. Removed
    when the push service answers 404 or 410 (the browser dropped it), or the player opts out.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_subscriptions"
    )
    endpoint = models.URLField(max_length=1000, unique=True)
    p256dh = models.CharField(max_length=200)
    auth = models.CharField(max_length=100)
    created_at = models.DateTimeField(default=timezone.now)

    # A player's subscriptions are found through the foreign key's own index.

    def __str__(self) -> str:
        return f"push subscription {self.pk} of user {self.user_id}"
