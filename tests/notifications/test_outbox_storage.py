"""What an outbox row stores (docs/background-work.md, "What the outbox stores"): the game's
facts are not stored in every row but put back when it is sent, and the result of a hand that
every player gets alike is stored once per event (OutboxShared); rows written before either
still send the same email. A row that is done (sent, skipped) keeps no payload (issue 25)."""

import json
import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.core import mail

from games import engine
from notifications import tasks
from notifications.models import NotificationPreference, Outbox, OutboxShared, OutboxStatus
from notifications.payloads import game_data, outbox_payload
from notifications.services.outbox import outbox_claim, outbox_mark_skipped, outbox_sweep
from notifications.services.retention import outbox_prune, outbox_shared_prune
from notifications.services.summaries import FOLDED_REASON
from tests.game_fixtures import pinned_seeds, play_random, play_until_hand_ends, start_game


@pytest.fixture
def ended_hand(people, monkeypatch) -> Any:
    """A game whose first hand ended through the move service (its hand-over rows written)."""
    monkeypatch.setattr(engine, "new_seed", pinned_seeds("storage"))
    return play_until_hand_ends(start_game(people), random.Random(3))


def test_a_turn_email_row_stores_no_game_facts_and_its_email_shows_them(people):
    game = start_game(people)
    row = Outbox.objects.get(game=game, kind="your_turn")

    assert "game" not in row.payload
    assert outbox_payload(row)["game"] == game_data(game)
    outbox_sweep()
    [email] = mail.outbox
    assert str(game.pk)[:8] in email.subject
    assert f"/games/{game.pk}/" in email.body


def test_a_row_written_with_its_game_facts_sends_the_same_email(people):
    game = start_game(people)
    row = Outbox.objects.get(game=game, kind="your_turn")
    Outbox.objects.filter(pk=row.pk).delete()
    fields = {"recipient": row.recipient, "game": game, "move_seq": row.move_seq, "kind": row.kind}
    Outbox.objects.create(key="now", payload=row.payload, **fields)
    # As a row written before this change stored it.
    Outbox.objects.create(key="before", payload={"game": game_data(game), **row.payload}, **fields)

    assert outbox_sweep() == 2
    new, old = mail.outbox
    assert (old.subject, old.to) == (new.subject, new.to)
    assert old.body.split("HOW TO REPLY")[0] == new.body.split("HOW TO REPLY")[0]


def test_a_hands_result_is_stored_once_for_all_its_recipients(ended_hand):
    rows = list(Outbox.objects.filter(game=ended_hand, kind="hand_over").order_by("pk"))

    assert len(rows) == 4
    assert len({row.shared_id for row in rows}) == 1 and rows[0].shared_id is not None
    shared = OutboxShared.objects.get()
    assert {"hand_result", "sheet", "totals"} <= set(shared.data)
    assert [row.payload for row in rows] == [{"seat": seat} for seat in (0, 1, 2, 3)]
    whole = [outbox_payload(row) for row in rows]
    assert {json.dumps(p["sheet"], sort_keys=True) for p in whole} == {
        json.dumps(shared.data["sheet"], sort_keys=True)
    }


def test_hand_over_emails_from_a_shared_result_show_the_sheet(ended_hand):
    outbox_sweep()
    hand_overs = [m for m in mail.outbox if m.extra_headers["X-Canasta-Kind"] == "hand_over"]
    assert len(hand_overs) == 4
    for message in hand_overs:
        assert "is over" in message.body
        assert "seed" in message.body  # the shared hand_result


def test_a_hand_over_row_written_whole_still_sends(ended_hand):
    row = Outbox.objects.filter(game=ended_hand, kind="hand_over").order_by("pk").first()
    whole = outbox_payload(row)
    Outbox.objects.filter(pk=row.pk).update(payload=whole, shared=None)

    outbox_sweep()
    sent = Outbox.objects.get(pk=row.pk)
    assert sent.status == OutboxStatus.SENT


NOON = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)


def test_the_prune_deletes_a_shared_part_once_no_row_refers_to_it(ended_hand, settings):
    settings.CANASTA_OUTBOX_RETENTION_DAYS = 30
    outbox_sweep()
    later = datetime.now(UTC) + timedelta(days=31)

    pending = Outbox.objects.filter(game=ended_hand, kind="hand_over").first()
    Outbox.objects.filter(pk=pending.pk).update(status=OutboxStatus.PENDING)
    outbox_prune(days=30, now=later)
    assert outbox_shared_prune(days=30, now=later).deleted == 0  # one row still refers to it

    Outbox.objects.filter(pk=pending.pk).update(status=OutboxStatus.SENT)
    with time_machine.travel(later, tick=False):
        tasks.prune_outbox.apply()
    assert not OutboxShared.objects.exists()


def test_a_sent_turn_email_keeps_its_row_but_not_its_payload(people):
    game = start_game(people)
    row = Outbox.objects.get(game=game, kind="your_turn")
    assert row.payload  # the recipient's view and legal actions, until it is sent

    outbox_sweep()
    sent = Outbox.objects.get(pk=row.pk)
    assert sent.status == OutboxStatus.SENT and sent.payload == {}
    assert len(mail.outbox) == 1


def test_a_turn_email_written_skipped_stores_no_payload(people):
    NotificationPreference.objects.update_or_create(
        user=people["carol"], defaults={"email_mode": "digest"}
    )
    game = start_game(people)
    play_random(game, 3, random.Random(2))

    skipped = Outbox.objects.filter(recipient=people["carol"], kind="your_turn")
    assert skipped.exists()
    assert all(row.status == OutboxStatus.SKIPPED and row.payload == {} for row in skipped)


def test_a_folded_hand_over_keeps_its_payload_for_the_summary(ended_hand):
    row = Outbox.objects.filter(game=ended_hand, kind="hand_over").order_by("pk").first()
    claimed = outbox_claim(row.pk)

    outbox_mark_skipped(claimed, reason=FOLDED_REASON, keep_payload=True)
    assert Outbox.objects.get(pk=row.pk).payload == row.payload != {}
