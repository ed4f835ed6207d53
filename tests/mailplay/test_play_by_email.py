"""Done when: a script that reads the turn emails from the file backend and pipes replies into
`manage.py receive_email` plays a complete hand by email alone.

The script is examples/email_player.py itself; here its replies go through call_command and
the outbox is delivered in-process, instead of subprocesses and a worker.
"""

import random

import pytest

from games import engine
from games.models import Actor, Game, Hand, Move
from mailplay.models import InboundMessage, MailPlayer
from tests.game_fixtures import pinned_seeds, start_game
from tests.mailplay.conftest import deliver, receive
from tests.mailplay.helpers import load_email_player


@pytest.fixture
def game(people, monkeypatch) -> Game:
    """alice's started 4-player table, dealt the same cards every run: whether a player's
    turn opens on a closed pile (so the service draws for them) depends on the cards."""
    monkeypatch.setattr(engine, "new_seed", pinned_seeds("whole-hand-by-email"))
    return start_game(people)


def test_four_players_play_a_whole_hand_by_email(game, settings, tmp_path):
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = str(tmp_path)
    player = load_email_player()
    statuses = []

    summary = player.play(
        tmp_path,
        send=lambda raw: statuses.append(receive(raw)),
        deliver=deliver,
        rng=random.Random(7),
        max_replies=600,
    )

    assert summary.finished, summary.log[-5:]
    hand = Hand.objects.get(game=game, number=1)
    assert hand.finished_at is not None and hand.end_reason
    moves = Move.objects.filter(game=game, hand=1)
    # Every move of the hand came from an email, or is a forced draw written for one.
    assert set(moves.values_list("actor", flat=True)) <= {Actor.PLAYER, Actor.SYSTEM}
    assert moves.filter(actor=Actor.SYSTEM).exclude(action={"type": "draw"}).count() == 0
    assert moves.filter(actor=Actor.SYSTEM).exists()  # email players got forced draws
    assert MailPlayer.objects.count() == 4
    assert all("processed" in s for s in statuses)
    assert InboundMessage.objects.filter(status="processed").count() == summary.replies
    # Everybody got the end of the hand by email.
    mails = player.read_mailbox(tmp_path)
    over = [m for m in mails if str(m["X-Canasta-Kind"]) in {"hand_over", "match_over"}]
    assert {str(m["To"]) for m in over} == {f"{n}@example.com" for n in CAST4}


CAST4 = ("alice", "bob", "carol", "dave")
