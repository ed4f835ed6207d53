"""What an email costs in SQL statements (docs/background-work.md, "What an email costs"):
a "your turn" email with its reply address, sent by its own delivery task and in a drained
batch. Issue 25 measured 13 statements per email before the claim loaded the recipient's
preferences and the game with the row, 6 before it loaded the recipient's seat too."""

from typing import Any

from django.core import mail
from django.db import connection
from django.test.utils import CaptureQueriesContext

from notifications.models import Outbox, OutboxStatus
from notifications.services.outbox import outbox_deliver, outbox_drain
from tests.game_fixtures import start_game


def _turn_emails(game: Any, count: int) -> list[Outbox]:
    """`count` copies of the game's first "your turn" email (a reply address each)."""
    row = Outbox.objects.get(game=game, kind="your_turn", status=OutboxStatus.PENDING)
    Outbox.objects.filter(pk=row.pk).delete()
    return Outbox.objects.bulk_create(
        Outbox(
            key=f"copy:{n}",
            recipient=row.recipient,
            game=game,
            move_seq=row.move_seq,
            kind=row.kind,
            payload=row.payload,
            created_at=row.created_at,
            next_attempt_at=row.next_attempt_at,
        )
        for n in range(count)
    )


def test_a_turn_email_sent_by_its_task_costs_five_statements(people):
    [row] = _turn_emails(start_game(people), 1)

    with CaptureQueriesContext(connection) as statements:
        assert outbox_deliver(row.pk) == OutboxStatus.SENT

    # claim, row (+ recipient, preferences, game, presence, the recipient's seat), reply
    # token, thread, sent
    assert len(statements) == 5, [q["sql"][:80] for q in statements.captured_queries]
    assert mail.outbox[0].reply_to  # the reply address was issued


def test_a_drained_batch_costs_about_three_statements_an_email(people, settings):
    settings.CANASTA_OUTBOX_SWEEP_BATCH = 50
    _turn_emails(start_game(people), 50)

    with CaptureQueriesContext(connection) as statements:
        assert outbox_drain() == 50

    # 3 per email (reply token, thread, sent) and 4 per batch (its claim in a
    # transaction, the rows; a last claim that finds nothing).
    assert len(statements) <= 50 * 3 + 8
    assert len(mail.outbox) == 50
