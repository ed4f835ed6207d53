"""The game domain's tables: a game, its seats, its hands, the append-only move log, the state
snapshot and idempotency records (docs/architecture.md, "Game services").

Writes go through games/services/, reads through games/selectors.py: nothing here holds
business rules beyond what the database itself enforces.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext

from games.fields import (
    DIGEST_BYTES,
    CompactJSONField,
    DigestField,
    MoveEventsField,
    events_unpacked,
)
from games.players import player_name


class GameStatus(models.TextChoices):
    OPEN = "open", "waiting for players"
    ACTIVE = "active", "in play"
    FINISHED = "finished", "finished"
    ABORTED = "aborted", "aborted"


class TimeoutPolicy(models.TextChoices):
    AUTOPLAY = "autoplay", "the system plays a draw and a discard"
    FORFEIT = "forfeit", "the side whose clock ran out loses the match"


class EndReason(models.TextChoices):
    MATCH_OVER = "match_over", "the match was played to its end"
    RESIGNED = "resigned", "a side resigned"
    ABORTED = "aborted", "aborted before the first move"
    CANCELLED = "cancelled", "every player left before the start"
    FORFEIT = "forfeit", "a side ran out of time (timeout policy forfeit)"


class Game(models.Model):
    # A UUID4 key is also the private link to a game: it cannot be guessed or enumerated.
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    variant = models.CharField(max_length=20)
    players = models.PositiveSmallIntegerField()
    options = models.JSONField(default=dict, blank=True)
    is_public = models.BooleanField(default=True)
    # Rated or casual, chosen at creation: a rated match moves its players' ratings when it
    # ends (games.services.ratings, docs/ratings.md); a casual one never does.
    # The database default too: rows written by code that predates the column (a rolling
    # deploy, a migration test's historical models) are rated like new ones.
    rated = models.BooleanField(default=True, db_default=True)
    # Indexed by the leading column of (status, is_public, -created_at) in Meta.
    status = models.CharField(max_length=10, choices=GameStatus.choices, default=GameStatus.OPEN)
    # +1 for every committed change players can see; clients send it back as expected_version.
    version = models.PositiveIntegerField(default=1)
    # seq of the last Move row (0 before the first move): the next move is last_seq + 1.
    last_seq = models.PositiveIntegerField(default=0)
    # The seat that must act now (None unless active): makes "my turn" a plain indexed join.
    turn_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    turn_seconds = models.PositiveIntegerField(null=True, blank=True)
    # Indexed because the background sweep claims due deadlines with a conditional UPDATE.
    deadline = models.DateTimeField(null=True, blank=True, db_index=True)
    timeout_policy = models.CharField(
        max_length=10, choices=TimeoutPolicy.choices, default=TimeoutPolicy.AUTOPLAY
    )
    # The clock stops from Saturday 00:00 to Monday 00:00 UTC (games/timecontrol.py).
    weekend_pause = models.BooleanField(default=False)
    # When the current turn began: the deadline is recomputed from it when an absence changes.
    turn_started_at = models.DateTimeField(null=True, blank=True)
    # A reminder goes out at 80% of the turn's time (lichess); swept like the deadline.
    reminder_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # The seat to act is a bot (or a bot standing in): the bot sweep finds lost bot turns.
    bot_turn = models.BooleanField(default=False, db_index=True)
    # Seating by the draw (docs/rules.md, seats) is dealt from its own seed, kept so anyone can check it.
    seating_seed = models.CharField(max_length=64, blank=True, default="")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="created_games"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # When what the game needed only while it was played (reply addresses, inbound mail,
    # presence, invitations, the bots' memory) was deleted, CANASTA_FINISHED_GAME_GRACE_DAYS
    # after its end (games.services.retention.games_retire). Its record stays.
    retired_at = models.DateTimeField(null=True, blank=True)
    # When its move log was packed into one MoveArchive row and its Move rows deleted,
    # CANASTA_MOVE_ARCHIVE_DAYS after its end (games.services.archive.moves_archive); read
    # through games.movelog either way.
    moves_archived_at = models.DateTimeField(null=True, blank=True)
    # When the oldest move still logged as a row was written (None: none is): a day later the
    # hourly archive task packs the game's older rows into a MoveChunk
    # (games.services.coldmoves), along game_cold_moves_idx. Set with the first move after
    # a packing (games.services.moves.moves_logged_mark).
    moves_cold_since = models.DateTimeField(null=True, blank=True)
    end_reason = models.CharField(max_length=10, choices=EndReason.choices, blank=True, default="")
    winner_side = models.PositiveSmallIntegerField(null=True, blank=True)
    # The finished match this table replays (a rematch: same seats, options and clocks).
    rematch_of = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="rematches"
    )

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["status", "is_public", "-created_at"]),
            # The games to retire, oldest end first: only ended games not retired yet, so the
            # retention reads what is due, never the history.
            models.Index(
                fields=["finished_at"],
                condition=Q(finished_at__isnull=False, retired_at__isnull=True),
                name="game_to_retire_idx",
            ),
            # The games whose move log is to be archived, oldest end first: only ended games
            # not archived yet (games.services.archive.moves_archive walks it).
            models.Index(
                fields=["finished_at"],
                condition=Q(finished_at__isnull=False, moves_archived_at__isnull=True),
                name="game_to_archive_idx",
            ),
            # The games with moves to pack (games.services.coldmoves), oldest first.
            models.Index(
                fields=["moves_cold_since"],
                condition=Q(moves_cold_since__isnull=False),
                name="game_cold_moves_idx",
            ),
            # The public archive, newest end first, paged by (finished_at, id)
            # (games.services.records.archive_public, api/views/records.py): a range of this
            # index per page, not a sort of every finished game.
            models.Index(
                "is_public",
                models.F("finished_at").desc(),
                "id",
                condition=Q(status="finished"),
                name="game_archive_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.variant} for {self.players} ({self.status}) {self.id}"

    @property
    def sides(self) -> int:
        # Same rule as the engine's RuleSet.sides: seats s and s + sides are partners.
        return self.players if self.players <= 3 else self.players // 2


class SeatKind(models.TextChoices):
    HUMAN = "human", "a person"
    BOT = "bot", "a bot"


class SeatStatus(models.TextChoices):
    INVITED = "invited", "invited, has not joined yet"
    JOINED = "joined", "joined"


class Seat(models.Model):
    """A place at the table. `number` is None until the game starts and seating is decided."""

    # Indexed by seat_number_unique, whose leading column it is.
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats", db_index=False)
    number = models.PositiveSmallIntegerField(null=True, blank=True)
    # Nullable: a bot's seat has no user (`kind` says which it is).
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="seats",
    )
    kind = models.CharField(max_length=5, choices=SeatKind.choices, default=SeatKind.HUMAN)
    status = models.CharField(max_length=7, choices=SeatStatus.choices, default=SeatStatus.JOINED)
    joined_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # The card drawn for seating (docs/rules.md, seats) when the game's seating option is "draw".
    drew = models.CharField(max_length=2, blank=True, default="")
    # A bot seat's level; for a human seat, the level of the bot standing in while `away`.
    bot_level = models.CharField(max_length=10, blank=True, default="")
    # After too many timeouts in a row a bot stands in until the player reclaims the seat.
    away = models.BooleanField(default=False)
    timeouts_in_a_row = models.PositiveSmallIntegerField(default=0)
    # What the seat's bot remembers of the hand (games.bots.BotMemory) and the last move seen.
    bot_memory = models.JSONField(null=True, blank=True)
    # The last hand whose score sheet the seat's player acknowledged on the game page: the
    # page shows a finished hand's sheet until then, while the game goes on for the others.
    sheet_seen = models.PositiveSmallIntegerField(default=0)
    # The seat's last move among the game's packed moves (games.services.coldmoves; None: none
    # packed): "since your last move" reads it when the seat's moves are no longer rows.
    last_packed_seq = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["number", "joined_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="seat_number_unique"),
            models.UniqueConstraint(
                fields=["game", "user"], condition=Q(user__isnull=False), name="seat_user_unique"
            ),
        ]

    def __str__(self) -> str:
        who = self.user.get_username() if self.user is not None else self.kind
        return f"seat {self.number} of {self.game_id}: {who}"

    @property
    def seated_number(self) -> int:
        """`number` where the seat is known to be seated (a started game): an int, never None.

        A seat without a number here is a bug, and it says so rather than playing as seat 0."""
        if self.number is None:
            raise ValueError(f"seat {self.pk} of game {self.game_id} has no number yet")
        return self.number

    @property
    def display_name(self) -> str:
        """The seat's one name on every page and in every email: the player's username, or
        the bot's name ("Bot 2")."""
        if self.user_id is not None:
            return player_name(self.user)  # "deleted player" for a closed account
        return bot_name(self.number)

    @property
    def played_by_bot(self) -> bool:
        return self.kind == SeatKind.BOT or self.away

    @property
    def status_label(self) -> str:
        """human, away (a bot stands in), or bot: what partners and opponents see."""
        if self.kind == SeatKind.BOT:
            return "bot"
        return "away" if self.away else "human"


def bot_name(number: int | None) -> str:
    """A bot's name, the same everywhere: "Bot 2" in seat 1 (seats count from 1 for people)."""
    if number is None:
        return gettext("Bot")
    return gettext("Bot %(number)d") % {"number": number + 1}


class InvitationStatus(models.TextChoices):
    PENDING = "pending", "waiting for an answer"
    ACCEPTED = "accepted", "accepted: the seat is taken"
    WITHDRAWN = "withdrawn", "withdrawn by the table"
    DECLINED = "declined", "declined"


class Invitation(models.Model):
    """A seat kept for someone invited by email address (docs/accounts.md).

    The seat is a human Seat without a user (status invited) until the link is opened by a
    signed-in player, who then takes it. `token` is the link's secret: whoever holds the mail
    may take the seat, as with a private table's link.
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="invitations")
    seat = models.OneToOneField(
        Seat, on_delete=models.SET_NULL, null=True, blank=True, related_name="invitation"
    )
    # Indexed by invitation_inviter_idx, whose leading column it is.
    inviter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="invitations_sent",
        db_index=False,
    )
    # Lowercased address the invitation was mailed to.
    email = models.CharField(max_length=254)
    token = models.CharField(max_length=64, unique=True)
    status = models.CharField(
        max_length=9, choices=InvitationStatus.choices, default=InvitationStatus.PENDING
    )
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="invitations_accepted",
    )
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [
            models.Index(fields=["inviter", "-created_at"], name="invitation_inviter_idx"),
            # The invitee's lobby: pending invitations to a confirmed address.
            models.Index(fields=["email", "status"], name="invitation_email_idx"),
        ]

    def __str__(self) -> str:
        return f"invitation {self.pk} to {self.game_id} ({self.status})"


class GameState(models.Model):
    """The snapshot: a cache of replaying the log, written in the same transaction as each move.

    `table` is the engine's Table JSON of the current hand (secret: hands and stock); it never
    leaves the server except through engine.player_view.
    """

    game = models.OneToOneField(
        Game, on_delete=models.CASCADE, primary_key=True, related_name="state"
    )
    table = models.JSONField()
    totals = models.JSONField(default=list)
    hand_commitment = models.CharField(max_length=64)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"state of {self.game_id}"


class Hand(models.Model):
    """One deal: its seed stays secret until `finished_at` is set (docs/fair-shuffle.md)."""

    # Indexed by hand_number_unique, whose leading column it is.
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="hands", db_index=False)
    number = models.PositiveSmallIntegerField()
    seed = models.CharField(max_length=64)
    commitment = models.CharField(max_length=64)
    dealer = models.PositiveSmallIntegerField()
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    # How it ended: the engine's reasons (went_out, stock_exhausted, red_three_last), or the
    # match's (resigned, aborted) for a hand cut short.
    end_reason = models.CharField(max_length=20, blank=True, default="")
    # engine HandResult.to_json() when the hand was played out, else None.
    result = models.JSONField(null=True, blank=True)
    # The engine's Table JSON as the hand ended (secret until then, like the snapshot: every
    # hand and the stock): the score sheet's final melds and hands (games/scoresheet.py).
    # Replaying the hand from its seed reproduces it (games.services.replay checks).
    final_table = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="hand_number_unique")
        ]

    def __str__(self) -> str:
        return f"hand {self.number} of {self.game_id}"

    @property
    def is_over(self) -> bool:
        return self.finished_at is not None


class Actor(models.TextChoices):
    PLAYER = "player", "the player in the seat"
    SYSTEM = "system", "the system on the seat's behalf (timeouts)"
    BOT = "bot", "a bot in the seat"


class Move(models.Model):
    """One accepted action. Append-only: rows are never updated; a day after it was logged the
    row is packed into a MoveChunk of its game (games.services.coldmoves), a month after the
    game's end the game's chunks and rows into its MoveArchive (games.services.archive). Read
    through games.movelog."""

    # Indexed by move_seq_unique, whose leading column it is.
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves", db_index=False)
    seq = models.PositiveIntegerField()
    hand = models.PositiveSmallIntegerField()
    seat = models.PositiveSmallIntegerField()
    actor = models.CharField(max_length=6, choices=Actor.choices, default=Actor.PLAYER)
    # Canonical engine JSON (action_to_json); {"type": "resign"} for a resignation. Compact
    # JSON text, not jsonb: the log is kept for good (games.fields).
    action = CompactJSONField()
    # Engine events as produced, private draws included: the database is the server's own.
    # Every output path filters them through engine.event_for. Stored without the type and
    # seat an event repeats from its move (games.fields.MoveEventsField), rebuilt in from_db.
    events = MoveEventsField(default=list)
    created_at = models.DateTimeField(default=timezone.now)

    @classmethod
    def from_db(cls, db: str | None, field_names: Any, values: Any, **kwargs: Any) -> Move:
        move = super().from_db(db, field_names, values, **kwargs)
        # Loaded events rebuilt against the move's action and seat (loaded too, unless the
        # query deferred them: then read on access).
        if "events" in move.__dict__:
            move.events = events_unpacked(move.events, move.action, move.seat)
        return move

    class Meta:
        ordering = ["game", "seq"]
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="move_seq_unique")]

    def __str__(self) -> str:
        return f"move {self.seq} of {self.game_id}"


class MoveArchive(models.Model):
    """A finished game's whole move log packed into one value (games.movearchive): written
    CANASTA_MOVE_ARCHIVE_DAYS after the game's end, in the transaction that deletes its Move
    rows. About 10-15 bytes a move where a Move row and its two indexes took 220-240; read back
    as the same moves, every field, by games.movelog."""

    game = models.OneToOneField(
        Game, on_delete=models.CASCADE, primary_key=True, related_name="move_archive"
    )
    # A format byte, then the packed log (games.movearchive.moves_packed).
    packed = models.BinaryField()
    # How many moves it holds: the figure a check needs without unpacking.
    moves = models.PositiveIntegerField()

    def __str__(self) -> str:
        return f"move archive of {self.game_id} ({self.moves} moves)"


class MoveChunk(models.Model):
    """Moves of a game, packed a day after they were logged while the game goes on (issue
    25): first_seq..last_seq of its log, in the format of a MoveArchive (games.movearchive),
    their rows deleted. A game's chunks and rows together are its log (games.movelog reads
    both); when the game is archived its chunks go into its MoveArchive."""

    # Indexed by move_chunk_unique, whose leading column it is.
    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="move_chunks", db_index=False
    )
    first_seq = models.PositiveIntegerField()
    last_seq = models.PositiveIntegerField()
    # The hands of its first and last move: a reader of one hand unpacks only its chunks.
    first_hand = models.PositiveSmallIntegerField()
    last_hand = models.PositiveSmallIntegerField()
    packed = models.BinaryField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "first_seq"], name="move_chunk_unique")
        ]

    def __str__(self) -> str:
        return f"moves {self.first_seq}-{self.last_seq} of {self.game_id}"


class IdempotencyRecord(models.Model):
    """The first response to a request carrying an Idempotency-Key, per user and key.

    `response_status` is None while the first request is still being processed.
    """

    # Indexed by idempotency_user_key_unique, whose leading column it is.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="idempotency_records",
        db_index=False,
    )
    # The client's key as its 16-byte digest (games.fields.DigestField): a lookup or INSERT
    # by the key's text compares digests. 17 bytes in the row and in the (user, key) index
    # where the text of a UUID took 37.
    key = DigestField(max_length=DIGEST_BYTES)
    # The first 16 bytes of the SHA-256 of the request's method, path, body and If-Match
    # (api.idempotency): a retry with the same key and another request is refused.
    fingerprint = DigestField(max_length=DIGEST_BYTES)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    # Records written before issue 25 hold the body here (a JSON string); later ones hold it
    # in `response_packed` and leave this None (games.services.idempotency.record_body).
    response_body = models.JSONField(null=True, blank=True)
    # The body's JSON text deflated against a dictionary of the API's answers, behind a
    # format byte (games.services.idempotency.body_pack): a move's 1.9-2.9 KB answer in
    # 200-400 bytes, for every request of a day. From format 2 on, the kept headers (ETag,
    # Location) are packed in front of the body and `response_headers` is None.
    response_packed = models.BinaryField(null=True, blank=True)
    response_headers = models.JSONField(null=True, blank=True)
    # No index: the prune walks the primary key, whose order is the records' (a day's
    # records are due together; games.services.retention.idempotency_prune).
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="idempotency_user_key_unique")
        ]

    def __str__(self) -> str:
        return f"idempotency record {self.pk} of user {self.user_id}"


class PlayerRating(models.Model):
    """A player's current rating in one variant family (docs/ratings.md).

    ``mu`` and ``sigma`` are the rating library's (openskill, Weng-Lin); ``display`` is the
    conservative figure players see (games.services.ratings.rating_display), kept as a column
    so the lobby can filter tables by it and the leaderboard can sort by it.
    """

    # Indexed by rating_user_family_unique, whose leading column it is.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings", db_index=False
    )
    family = models.CharField(max_length=20)
    mu = models.FloatField()
    sigma = models.FloatField()
    display = models.IntegerField(db_index=True)
    matches = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["family", "-display"]
        constraints = [
            models.UniqueConstraint(fields=["user", "family"], name="rating_user_family_unique")
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.family}: {self.display}"


class RatingChange(models.Model):
    """One rated match's effect on one player: the history a profile draws as a chart."""

    # Indexed by rating_change_user_game_unique, whose leading column it is.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="rating_changes",
        db_index=False,
    )
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rating_changes")
    family = models.CharField(max_length=20)
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu = models.FloatField()
    sigma = models.FloatField()
    display_before = models.IntegerField()
    display = models.IntegerField()
    # 1 for the best side, equal for tied sides (the ranks given to the rating library).
    rank = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "game"], name="rating_change_user_game_unique")
        ]
        indexes = [models.Index(fields=["user", "family", "created_at"])]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.game_id}: {self.display_before} -> {self.display}"


class ChatMessage(models.Model):
    """One line of table talk (docs/table-talk.md): a seated player's own words, as written
    (normalised, never rewritten). The service never writes a line itself, so nothing the
    service knows to be hidden can reach the chat."""

    # Indexed by the leading column of (game, user, created_at) in Meta.
    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="chat_messages", db_index=False
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_messages"
    )
    seat = models.PositiveSmallIntegerField()
    text = models.TextField()
    # The game's last move when the line was said: the turn email shows the lines said since
    # the player's previous turn.
    after_seq = models.PositiveIntegerField(default=0)
    source = models.CharField(max_length=5, default="web")  # "web", "api" or "email"
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["game", "created_at", "id"]
        indexes = [models.Index(fields=["game", "user", "created_at"])]

    def __str__(self) -> str:
        return f"chat {self.pk} in {self.game_id}"


class ChatMute(models.Model):
    """A player who does not want to read another player's lines (any table)."""

    # Indexed by chat_mute_unique, whose leading column it is.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="chat_mutes",
        db_index=False,
    )
    muted = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_muted_by"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "muted"], name="chat_mute_unique")]

    def __str__(self) -> str:
        return f"{self.user_id} mutes {self.muted_id}"


class ChatReport(models.Model):
    """A player's report of a line, for the operators (shown in the admin, view-only)."""

    # Indexed by chat_report_unique, whose leading column it is.
    message = models.ForeignKey(
        ChatMessage, on_delete=models.CASCADE, related_name="reports", db_index=False
    )
    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_reports"
    )
    reason = models.CharField(max_length=500, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["message", "reporter"], name="chat_report_unique")
        ]

    def __str__(self) -> str:
        return f"report of chat {self.message_id} by {self.reporter_id}"
