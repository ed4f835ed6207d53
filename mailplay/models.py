"""Reply addresses, the inbound mail log, and who plays by email.

A `ReplyToken` is a credential: the token inside a player's reply address lets mail sent to it
act for that player in that game, at the moment of the game its email was written for. It
appears only in that player's own mail (the Reply-To of their turn emails and answers);
`__str__` and the admin show its id, never its value.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from games.fields import DIGEST_BYTES, DigestField


class ReplyToken(models.Model):
    """One reply address, made for one email (docs/play-by-email-replies.md).

    `hand`, `issued_seq` and `on_turn` say which moment of the game the email showed: the hand,
    the game's last move, and whether it was the player's turn. A reply plays only while that
    is still the same turn (mailplay.services.turns); a reply to an earlier turn's email is
    refused with the table as it is now. Rows written before turns were recorded have them
    empty and count as an earlier turn.
    """

    # Indexed by reply_token_game_user, whose leading column it is.
    game = models.ForeignKey(
        "games.Game", on_delete=models.CASCADE, related_name="reply_tokens", db_index=False
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reply_tokens"
    )
    seat_number = models.PositiveSmallIntegerField()
    # 32 lowercase base32 characters, 160 random bits (mailplay/services/tokens.py), stored as
    # their 16-byte digest (games.fields.DigestField: a lookup by the text compares digests;
    # the text is on the object only when it is issued, for its email). A credential kept
    # hashed, in 17 bytes where its text took 33, in the row and in its unique index.
    token = DigestField(max_length=DIGEST_BYTES, unique=True)
    created_at = models.DateTimeField(default=timezone.now)
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    hand = models.PositiveSmallIntegerField(null=True, blank=True)
    issued_seq = models.PositiveIntegerField(null=True, blank=True)
    on_turn = models.BooleanField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "id"]
        # Revoking a player's addresses in a game updates their live ones.
        indexes = [models.Index(fields=["game", "user"], name="reply_token_game_user")]

    def __str__(self) -> str:
        state = "revoked" if self.revoked_at else "active"
        return f"reply token {self.pk} of user {self.user_id} in {self.game_id} ({state})"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None


class InboundStatus(models.TextChoices):
    PROCESSED = "processed", "read and answered (moves applied or an error explained)"
    IGNORED = "ignored", "an auto-reply, a bounce or mail for no reply address"
    REFUSED = "refused", "not accepted: bad token, wrong sender, too large, malformed"


class InboundMessage(models.Model):
    """One received email. A second delivery of a mail that passed the token and sender checks
    is a no-op (`dedupe_key`); mail that did not pass them is recorded each time it comes."""

    # sha256 of the Message-ID (of the raw bytes when the mail has none): fixed length, so a
    # long or odd Message-ID cannot break an index.
    message_key = models.CharField(max_length=64, db_index=True)
    # sha256 of the player, the game and `message_key`, set only once the mail's token and
    # sender are checked: a stranger who sends a Message-ID first cannot make the player's own
    # mail with it a duplicate. NULL (no key) for mail that did not get that far.
    dedupe_key = models.CharField(max_length=64, unique=True, null=True, blank=True)
    message_id = models.CharField(max_length=255, blank=True, default="")
    from_address = models.CharField(max_length=254, blank=True, default="")
    token = models.ForeignKey(
        ReplyToken, on_delete=models.SET_NULL, null=True, blank=True, related_name="messages"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="inbound_messages",
    )
    game = models.ForeignKey(
        "games.Game",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="inbound_messages",
    )
    source = models.CharField(max_length=10, default="pipe")  # pipe, maildir, webhook
    received_at = models.DateTimeField(default=timezone.now, db_index=True)
    status = models.CharField(max_length=10, choices=InboundStatus.choices)
    # A short machine-readable reason ("applied", "auto_submitted", "from_mismatch", an
    # engine error code, ...).
    reason = models.CharField(max_length=200, blank=True, default="")
    size = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-received_at", "-id"]

    def __str__(self) -> str:
        return f"inbound {self.pk} ({self.status}: {self.reason})"


class AutoDraw(models.TextChoices):
    """When the service draws for an email player at the start of their turn. The choice may
    rest only on the public table, never on the hidden hand (docs/fair-play.md)."""

    OFF = "off", "Never: I draw or take the pile myself"
    PILE_CLOSED = "pile_closed", "When nobody may take the pile (empty, or blocked on top)"
    ALWAYS = "always", "Always, even when I could take the pile"


class MailPlayer(models.Model):
    """A user who has played by email (created by their first processed email).

    `auto_draw`: when the service draws from the stock for them as their turn starts, before
    writing the turn email, so that a turn takes one reply (games/services/moves.py). Only
    while their email mode sends every turn.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="mail_player",
    )
    auto_draw = models.CharField(
        max_length=16, choices=AutoDraw.choices, default=AutoDraw.PILE_CLOSED
    )
    first_reply_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"email player {self.user_id} (auto_draw={self.auto_draw})"
