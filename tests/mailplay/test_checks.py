"""Each check on inbound mail, from both sides: what passes, what is refused or ignored, and
who (if anyone) gets an answer."""

import io
import mailbox
from email import policy
from email.message import EmailMessage

import pytest
from django.core import mail
from django.core.management import call_command
from django.db import DatabaseError

from games.models import Move
from games.services import moves as move_service
from mailplay.models import InboundMessage
from mailplay.services import inbound
from mailplay.services.inbound import process_message
from mailplay.services.reply_to import reply_address_for_row
from mailplay.services.tokens import reply_token_revoke
from notifications.models import Outbox
from tests.mailplay.conftest import deliver, mails_to, receive
from tests.mailplay.helpers import reply

ALICE = "alice@example.com"


@pytest.fixture
def turn(game):
    deliver()
    return mails_to(ALICE)[-1]


def _sent_after(before):
    deliver()
    return mail.outbox[before:]


def _count():
    return len(mail.outbox)


def _last():
    return InboundMessage.objects.order_by("-id").first()


# --- the reply address ---------------------------------------------------------------------


def test_an_unknown_token_is_refused_without_an_answer(turn):
    before = _count()
    raw = reply(turn, "draw", to="play+" + "a" * 32 + "@canasta.test")

    assert "refused: unknown_token" in receive(raw)
    assert _sent_after(before) == [] and Move.objects.count() == 0


def test_mail_to_no_reply_address_is_ignored(turn):
    before = _count()
    for to in ("someone@canasta.test", "play+short@canasta.test", turn.reply_to[0] + ".org"):
        receive(reply(turn, "draw", to=to))
    assert [r.reason for r in InboundMessage.objects.order_by("id")] == ["no_reply_address"] * 3
    assert _sent_after(before) == [] and Move.objects.count() == 0


def test_the_token_is_found_in_delivered_to_and_in_any_case(turn):
    address = turn.reply_to[0]
    raw = reply(
        turn, "status", to="canasta-players@example.org", headers=[("Delivered-To", address)]
    )
    assert "processed: status" in receive(raw)
    assert "processed: status" in receive(reply(turn, "status", to=address.upper()))


def test_a_revoked_token_is_refused_and_the_player_told(game, people, turn):
    reply_token_revoke(game=game, user=people["alice"])
    before = _count()

    assert "refused: revoked_token" in receive(reply(turn, "draw"))

    [answer] = _sent_after(before)
    assert answer.to == [ALICE]
    assert "no longer valid" in answer.body and "Nothing was applied." in answer.body
    assert answer.reply_to == []  # the dead address is not offered again
    assert Move.objects.count() == 0


def test_after_a_revocation_the_next_turn_mail_carries_a_new_address(game, people):
    # Her turn email as it waits to be sent (a sent row keeps no payload).
    row = Outbox.objects.filter(recipient=people["alice"], kind="your_turn").last()
    deliver()
    turn = mails_to(ALICE)[-1]
    reply_token_revoke(game=game, user=people["alice"])

    # The Reply-To that email gets when it is sent now.
    new_address = reply_address_for_row(row)

    assert new_address != turn.reply_to[0]
    assert "processed: status" in receive(reply(turn, "status", to=new_address))
    assert "refused: revoked_token" in receive(reply(turn, "status"))


# --- the sender ------------------------------------------------------------------------------


def test_a_reply_from_another_address_is_refused_without_an_answer(turn):
    before = _count()

    assert "refused: from_mismatch" in receive(reply(turn, "draw", sender="eve@example.com"))

    assert _sent_after(before) == [] and Move.objects.count() == 0


def test_the_from_check_ignores_case_and_display_names(turn):
    raw = reply(turn, "status", sender='"Alice A." <ALICE@Example.COM>')
    assert "processed: status" in receive(raw)


def test_with_the_from_check_relaxed_any_sender_with_the_token_plays(turn, settings):
    settings.CANASTA_MAIL_REQUIRE_FROM_MATCH = False
    before = _count()

    assert "processed: applied" in receive(reply(turn, "draw", sender="eve@example.com"))

    [answer] = _sent_after(before)
    assert answer.to == [ALICE]  # the account's address, never the From of the mail
    assert Move.objects.count() == 1


# --- duplicates and machines ---------------------------------------------------------------


def test_a_duplicate_message_id_does_nothing(turn):
    raw = reply(turn, "draw", message_id="<same-id@example.com>")
    before = _count()

    assert "processed: applied" in receive(raw)
    assert "duplicate" in receive(raw)
    assert "duplicate" in receive(
        reply(turn, "draw\ndiscard 9z", message_id="<same-id@example.com>")
    )

    assert Move.objects.count() == 1 and InboundMessage.objects.count() == 1
    assert len(_sent_after(before)) == 1


def test_a_mail_without_message_id_is_deduplicated_by_its_bytes(turn):
    raw = reply(turn, "status").replace(b"Message-ID:", b"X-Old-Message-ID:")
    assert "processed: status" in receive(raw)
    assert "duplicate" in receive(raw)


@pytest.mark.parametrize(
    ("headers", "reason"),
    [
        ([("Auto-Submitted", "auto-replied")], "auto_submitted"),
        ([("Auto-Submitted", "auto-generated; owner-email=x@example.com")], "auto_submitted"),
        ([("Return-Path", "<>")], "bounce"),
        ([("Precedence", "bulk")], "precedence"),
        ([("X-Autoreply", "yes")], "auto_reply"),
    ],
)
def test_auto_replies_and_bounces_are_ignored(turn, headers, reason):
    before = _count()

    assert f"ignored: {reason}" in receive(reply(turn, "draw", headers=headers))

    assert _sent_after(before) == [] and Move.objects.count() == 0


def test_auto_submitted_no_is_a_person(turn):
    assert "processed: applied" in receive(reply(turn, "draw", headers=[("Auto-Submitted", "no")]))


def test_mail_from_the_mailer_daemon_is_ignored(turn, settings):
    settings.CANASTA_MAIL_REQUIRE_FROM_MATCH = False
    raw = reply(turn, "draw", sender="MAILER-DAEMON@mx.example.com")
    assert "ignored: bounce" in receive(raw)


def test_a_delivery_status_report_is_ignored(turn):
    report = EmailMessage(policy=policy.SMTP)
    report["From"] = ALICE
    report["To"] = turn.reply_to[0]
    report["Subject"] = "Undelivered Mail Returned to Sender"
    report["Message-ID"] = "<dsn-1@mx.example.com>"
    report.set_content("draw")
    status = EmailMessage(policy=policy.SMTP)
    status.set_content("Reporting-MTA: dns; mx.example.com\n\nStatus: 5.1.1\nAction: failed\n")
    report.add_attachment(status)
    report.replace_header(
        "Content-Type",
        report["Content-Type"].replace("multipart/mixed", "multipart/report")
        + "; report-type=delivery-status",
    )
    before = _count()

    assert "ignored: delivery_report" in receive(report.as_bytes())
    assert _sent_after(before) == [] and Move.objects.count() == 0


def test_an_envelope_null_sender_from_a_webhook_is_a_bounce(turn):
    result = process_message(reply(turn, "draw"), envelope_sender="")
    assert (result.status, result.reason) == ("ignored", "bounce")


# --- size and shape --------------------------------------------------------------------------


def test_an_oversized_mail_is_refused_with_an_explanation(turn, settings):
    settings.CANASTA_MAIL_MAX_BYTES = 4000
    raw = reply(turn, "draw\n" + "x" * 10_000, quote=False)
    before = _count()

    assert "refused: too_large" in receive(raw)

    [answer] = _sent_after(before)
    assert "too large" in answer.body and "Nothing was applied." in answer.body
    assert _last().size == len(raw) and Move.objects.count() == 0


def test_an_oversized_mail_from_a_stranger_gets_no_answer(turn, settings):
    settings.CANASTA_MAIL_MAX_BYTES = 4000
    before = _count()
    raw = reply(turn, "draw\n" + "x" * 10_000, sender="eve@example.com")
    assert "refused: from_mismatch" in receive(raw)
    assert _sent_after(before) == []


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"\x00\xff\xfe garbage \x80\x81" * 50,
        b"From: \xff\xfe\r\nTo: <<<@>>>\r\nSubject: =?utf-8?q?broken\r\n\r\n\xff",
        b"Content-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\nContent-Type: text/plain\r\n",
    ],
)
def test_malformed_bytes_never_crash(db, raw):
    status = receive(raw)
    assert status.startswith("receive_email: stdin: ")
    assert InboundMessage.objects.count() == 1


def test_unreadable_text_is_refused_with_an_explanation(turn):
    raw = reply(turn, "draw", quote=False).replace(b'charset="utf-8"', b'charset="x-no-such"')
    raw = raw.replace(b"charset=utf-8", b"charset=x-no-such")
    before = _count()

    assert "refused: malformed" in receive(raw)
    [answer] = _sent_after(before)
    assert "could not be read" in answer.body


def test_a_mail_with_only_an_attachment_is_refused(turn):
    message = EmailMessage(policy=policy.SMTP)
    message["From"] = ALICE
    message["To"] = turn.reply_to[0]
    message["Subject"] = "Re: your turn"
    message["Message-ID"] = "<only-attachment@example.com>"
    message.add_attachment(b"\x89PNG...", maintype="image", subtype="png", filename="hand.png")

    assert "refused: malformed" in receive(message.as_bytes())


# --- failures inside -------------------------------------------------------------------------


def test_an_unexpected_error_is_recorded_the_player_told_and_the_token_not_logged(
    turn, monkeypatch, caplog
):
    token = turn.reply_to[0].split("+")[1].split("@")[0]

    def boom(**kwargs):
        raise RuntimeError(f"kaboom while reading {turn.reply_to[0]}")

    monkeypatch.setattr(inbound, "run_commands", boom)
    before = _count()

    assert "refused: internal_error" in receive(reply(turn, "draw"))

    [answer] = _sent_after(before)
    assert "Something went wrong" in answer.body
    assert "kaboom" in caplog.text and token not in caplog.text


def test_when_nothing_can_be_recorded_the_mta_is_told_to_retry(turn, monkeypatch):
    def down(*args, **kwargs):
        raise DatabaseError("the database is down")

    monkeypatch.setattr(InboundMessage.objects, "create", down)

    with pytest.raises(SystemExit) as exit_info:
        call_command("receive_email", stdin=io.BytesIO(reply(turn, "draw")), stderr=io.StringIO())
    assert exit_info.value.code == 75


# --- Maildir ---------------------------------------------------------------------------------


def test_a_maildir_is_processed_and_filed(turn, tmp_path):
    box = mailbox.Maildir(tmp_path / "Maildir", create=True)
    first = box.add(reply(turn, "status"))
    second = box.add(reply(turn, "draw", sender="eve@example.com"))
    err = io.StringIO()

    call_command("receive_email", maildir=str(tmp_path / "Maildir"), stderr=err)

    assert "processed: status" in err.getvalue() and "refused: from_mismatch" in err.getvalue()
    assert list((tmp_path / "Maildir" / "new").iterdir()) == []
    filed = sorted(p.name for p in (tmp_path / "Maildir" / "cur").iterdir())
    assert filed == sorted([f"{first}:2,S", f"{second}:2,S"])
    assert mailbox.Maildir(tmp_path / "Maildir").get_message(first).get_flags() == "S"

    call_command("receive_email", maildir=str(tmp_path / "Maildir"), stderr=err)  # nothing new
    assert InboundMessage.objects.count() == 2


def test_a_path_that_is_no_maildir_is_an_error(db, tmp_path):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError):
        call_command("receive_email", maildir=str(tmp_path), stderr=io.StringIO())


# --- one read of the game ----------------------------------------------------------------------


def test_an_emailed_move_reads_the_game_once(turn, monkeypatch):
    # The inbound service locks the game to decide which turn the email answers and hands that
    # game to the move: the move does not lock (read) it again, so no other move can land in
    # between and there is no stale version to retry.
    locks = []
    real_lock = inbound.game_lock

    def counted(**kwargs):
        locks.append(kwargs)
        return real_lock(**kwargs)

    def no_second_read(**kwargs):
        raise AssertionError("the move read the game again")

    monkeypatch.setattr(inbound, "game_lock", counted)
    monkeypatch.setattr(move_service, "game_lock", no_second_read)
    before = Move.objects.count()

    assert "processed" in receive(reply(turn, "draw"))

    assert len(locks) == 1
    assert Move.objects.count() > before
