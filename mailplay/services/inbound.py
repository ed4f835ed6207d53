"""One received email, from raw bytes to an applied move and an answer
(docs/play-by-email.md).

The checks, in order: mail sent by machines (auto-replies, bounces, delivery reports) is
ignored; the reply address must hold a known token; the From must be one clear address
(strict parsing, mailplay.mime.sender) and the player's (CANASTA_MAIL_REQUIRE_FROM_MATCH);
then the Message-ID, per player and game (a mail of theirs seen before does nothing; a
stranger's mail cannot spend a Message-ID in advance); the token must not be revoked; the size;
the text must be readable; the reply must answer the player's current turn
(mailplay.services.turns: checked under the game's lock, so no move lands in between). Only
then are the player's own words (quotes and signature stripped) read as commands.

Who gets an answer: only a mail whose token is known and whose sender passed the From checks,
and the answer goes to the player's account address, never to the mail's From. Mail from
strangers and machines, and mail whose From is unclear, is recorded and never answered (no
backscatter, no mail loops, and no way to make us mail a player at will).

Every outcome is an `InboundMessage` row; the move, the row and the answer are written in one
transaction. Nothing raises: an unexpected error is logged (tokens redacted), recorded as
refused, and the player is told nothing was applied.
"""

from __future__ import annotations

import hashlib
import logging
import traceback
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from games.mail.body import extract_reply_text, is_out_of_office
from games.models import Game
from games.services.common import game_lock
from mailplay import mime
from mailplay.models import InboundMessage, InboundStatus, MailPlayer, ReplyToken
from mailplay.services.answers import Answer, answer_enqueue, nothing_applied
from mailplay.services.play import run_commands
from mailplay.services.tokens import redact, token_in_address
from mailplay.services.turns import earlier_turn_answer, reply_is_current
from notifications.services.confirmations import address_confirmation_enqueue
from notifications.services.preferences import email_confirmed, language_of

logger = logging.getLogger(__name__)

# A mail over CANASTA_MAIL_MAX_BYTES is not parsed whole: its headers are read from the start.
HEADER_BYTES = 64 * 1024
DUPLICATE = "duplicate"


@dataclass(frozen=True)
class Result:
    status: str  # processed, ignored, refused (InboundStatus), duplicate, or failed
    reason: str
    inbound_id: int | None = None
    answered: bool = False
    # Nothing could be recorded (the database is down): an MTA should try again later.
    temporary: bool = False

    def summary(self) -> str:
        where = f" inbound={self.inbound_id}" if self.inbound_id else ""
        answered = " answered" if self.answered else ""
        return f"{self.status}: {self.reason}{where}{answered}"


@dataclass
class _Mail:
    raw: bytes
    source: str
    size: int = 0  # of the whole mail: a reader may stop reading past the limit
    key: str = ""
    message_id: str = ""
    sender: str | None = None
    from_text: str = ""  # the From as written, recorded when it is no clear address
    token: ReplyToken | None = None
    # Set once the token and the sender passed their checks (dedupe_key).
    dedupe_key: str | None = None

    def fields(self) -> dict[str, object]:
        token = self.token
        return {
            "message_key": self.key,
            "dedupe_key": self.dedupe_key,
            "message_id": self.message_id[:255],
            "from_address": (self.sender or self.from_text)[:254],
            "token": token,
            "user_id": token.user_id if token else None,
            "game_id": token.game_id if token else None,
            "source": self.source,
            "size": self.size,
        }


def process_message(
    raw: bytes,
    *,
    source: str = "pipe",
    envelope_sender: str | None = None,
    envelope_recipient: str | None = None,
    size: int | None = None,
) -> Result:
    """Process one RFC 822 message (see the module docstring). Never raises.

    ``size``: the size of the whole mail when ``raw`` is only its first bytes (a reader stops
    at CANASTA_MAIL_MAX_BYTES + 1); ``envelope_*``: the SMTP envelope, when known.
    """
    mail = _Mail(raw=bytes(raw), source=source, size=max(size or 0, len(raw)))
    try:
        return _process(mail, envelope_sender, envelope_recipient)
    except Exception as error:
        details = redact("".join(traceback.format_exception(error)))
        logger.error("inbound mail from %s: unexpected error\n%s", source, details)
        return _record_failure(mail)


def _process(mail: _Mail, envelope_sender: str | None, envelope_recipient: str | None) -> Result:
    too_large = mail.size > settings.CANASTA_MAIL_MAX_BYTES
    try:
        message = mime.parse_headers(mail.raw[:HEADER_BYTES]) if too_large else mime.parse(mail.raw)
    except Exception:
        mail.key = mime.message_key_of_bytes(mail.raw)
        return _record(mail, InboundStatus.REFUSED, "malformed")
    mail.key, mail.message_id = mime.message_key(message, mail.raw)
    mail.sender = mime.sender(message)
    automatic = mime.automatic_reason(message, envelope_sender)
    if automatic:
        return _record(mail, InboundStatus.IGNORED, automatic)
    tokens = [t for t in map(token_in_address, mime.recipients(message, envelope_recipient)) if t]
    if not tokens:
        return _record(mail, InboundStatus.IGNORED, "no_reply_address")
    mail.token = (
        ReplyToken.objects.select_related("user").filter(token__in=tokens).order_by("id").first()
    )
    if mail.token is None:
        return _record(mail, InboundStatus.REFUSED, "unknown_token")
    if mail.sender is None:
        # No answer: who sent it is unclear, and answering the account would let anyone who
        # learnt an address make us mail the player at will.
        mail.from_text = mime.from_text(message)
        return _record(mail, InboundStatus.REFUSED, "from_invalid")
    if not _sender_matches(mail):
        return _record(mail, InboundStatus.REFUSED, "from_mismatch")
    # From here on the sender may be answered (at the account's own address), and a second
    # delivery of this mail does nothing.
    mail.dedupe_key = dedupe_key(mail.token, mail.key)
    if InboundMessage.objects.filter(dedupe_key=mail.dedupe_key).exists():
        return Result(DUPLICATE, "this Message-ID was processed before")
    if not email_confirmed(user=mail.token.user):
        return _refuse_unconfirmed(mail)
    # Everything the player reads from here on is in their language.
    with translation.override(language_of(user=mail.token.user)):
        return _answer_player(mail, message, too_large=too_large)


def _answer_player(mail: _Mail, message: Any, *, too_large: bool) -> Result:
    assert mail.token is not None
    if mail.token.revoked_at is not None:
        return _refuse(
            mail,
            "revoked_token",
            _("This reply address is no longer valid. Reply to your latest turn email instead."),
            with_table=False,
        )
    if too_large:
        limit = settings.CANASTA_MAIL_MAX_BYTES // 1024
        return _refuse(
            mail,
            "too_large",
            _(
                "Your email is too large (%(size)d KB; at most %(limit)d KB). "
                "Reply with your commands only, without attachments."
            )
            % {"size": mail.size // 1024, "limit": limit},
        )
    try:
        text = mime.body_text(message)
    except mime.UnreadableBody as error:
        return _refuse(
            mail,
            "malformed",
            _("Your email could not be read: %(error)s. Reply in plain text.") % {"error": error},
        )
    own = extract_reply_text(text)
    if is_out_of_office(own):
        # An auto-reply without its headers (an Outlook rule): never answer a machine.
        return _record(mail, InboundStatus.IGNORED, "auto_reply_text")
    return _play(mail, own)


def _refuse_unconfirmed(mail: _Mail) -> Result:
    """The account's address is not confirmed (docs/accounts.md): nothing is played, and the
    explanation comes with a new confirmation link (the one mail such an address may get; at
    most one an hour however many moves are mailed)."""
    assert mail.token is not None
    result = _record(mail, InboundStatus.REFUSED, "address_unconfirmed")
    address_confirmation_enqueue(
        user=mail.token.user, reason="mail_play", unless_within_seconds=3600
    )
    return result


def dedupe_key(token: ReplyToken, message_key: str) -> str:
    """Per player and game: the same mail reaching two of their reply addresses is played once,
    and nobody else's mail can take its key. (mailplay/migrations/0002 copies this formula.)"""
    return hashlib.sha256(f"{token.game_id}:{token.user_id}:{message_key}".encode()).hexdigest()


def _sender_matches(mail: _Mail) -> bool:
    if not settings.CANASTA_MAIL_REQUIRE_FROM_MATCH:
        return True
    assert mail.token is not None
    expected = (mail.token.user.email or "").strip().lower()
    return bool(expected) and mail.sender is not None and mail.sender == expected


def _record(
    mail: _Mail, status: str, reason: str, answer: Answer | None = None, with_table: bool = True
) -> Result:
    """Write the InboundMessage row (and the answer, when there is one) in one transaction."""
    try:
        with transaction.atomic():
            row = InboundMessage.objects.create(**mail.fields(), status=status, reason=reason)
            if answer is not None and mail.token is not None:
                answer_enqueue(
                    answer=answer,
                    token=mail.token,
                    inbound_id=row.pk,
                    in_reply_to=mail.message_id,
                    with_table=with_table,
                )
    except IntegrityError:
        if _seen(mail):
            return Result(DUPLICATE, "this Message-ID was processed before")
        raise
    _log(mail, row)
    return Result(status, reason, row.pk, answered=answer is not None)


def _refuse(mail: _Mail, reason: str, message: str, *, with_table: bool = True) -> Result:
    answer = Answer(reason, _("Email refused"), [message, nothing_applied()], ok=False)
    return _record(mail, InboundStatus.REFUSED, reason, answer, with_table=with_table)


def _play(mail: _Mail, text: str) -> Result:
    token = mail.token
    assert token is not None
    try:
        with transaction.atomic():
            # First, so a second copy of this mail arriving at the same moment waits on the
            # unique key and then finds it taken.
            row = InboundMessage.objects.create(
                **mail.fields(), status=InboundStatus.PROCESSED, reason="reading"
            )
            # Locked until the commit: no move lands between deciding which turn the email
            # answers and applying its commands.
            game = game_lock(game_id=token.game_id)
            if reply_is_current(token=token, game=game):
                answer = run_commands(token=token, text=text, game=game)
                ReplyToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
                MailPlayer.objects.get_or_create(user_id=token.user_id)
                current: Game | None = None  # the answer reads the game after the move
            else:
                answer = earlier_turn_answer(token=token, game=game)
                row.status = InboundStatus.REFUSED
                current = game
            row.reason = answer.reason[:200]
            row.save(update_fields=["status", "reason"])
            answer_enqueue(
                answer=answer,
                token=token,
                inbound_id=row.pk,
                in_reply_to=mail.message_id,
                game=current,
            )
    except IntegrityError:
        if _seen(mail):
            return Result(DUPLICATE, "this Message-ID was processed before")
        raise
    _log(mail, row)
    return Result(row.status, row.reason, row.pk, answered=True)


def _seen(mail: _Mail) -> bool:
    """After an IntegrityError: whether a copy of this mail got its key first."""
    if mail.dedupe_key is None:
        return False
    return InboundMessage.objects.filter(dedupe_key=mail.dedupe_key).exists()


def _record_failure(mail: _Mail) -> Result:
    """After an unexpected error: record it and tell an authenticated player; never raise."""
    try:
        if not mail.key:
            mail.key = mime.message_key_of_bytes(mail.raw)
        if mail.token is None or mail.sender is None or not _sender_matches(mail):
            return _record(mail, InboundStatus.REFUSED, "internal_error")
        with translation.override(language_of(user=mail.token.user)):
            return _refuse(
                mail,
                "internal_error",
                _(
                    "Something went wrong on our side while reading your email. "
                    "Please send it again."
                ),
                with_table=False,
            )
    except Exception as error:
        logger.error(
            "inbound mail from %s: could not record the failure: %s",
            mail.source,
            redact(f"{type(error).__name__}: {error}"),
        )
        return Result("failed", "internal_error", temporary=True)


def _log(mail: _Mail, row: InboundMessage) -> None:
    # Token ids only: a reply address is a credential and never goes to the logs.
    logger.info(
        "inbound %s from %s: %s (%s), token %s, user %s",
        row.pk,
        mail.source,
        row.status,
        row.reason,
        mail.token.pk if mail.token else "-",
        mail.token.user_id if mail.token else "-",
    )
