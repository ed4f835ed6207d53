"""Table talk by email: a `say` line (German `sagen`, Icelandic `segja`) in a reply is said to
the table, never played; moves and say lines mix; a refused move posts nothing; the turn email
carries what was said since the player's last turn, escaped in its HTML part."""

from __future__ import annotations

import pytest

from games.models import ChatMessage, Move
from games.services.chat import chat_post
from notifications.services.preferences import preference_update
from tests.mailplay.conftest import deliver, mails_to, receive
from tests.mailplay.helpers import a_discard, reply

ALICE = "alice@example.com"


def _last(address=ALICE):
    deliver()
    return mails_to(address)[-1]


@pytest.mark.parametrize(
    ("lang", "line", "said", "answer"),
    [
        ("en", "say Good luck, partner & all!", "Good luck, partner & all!", "Your message was"),
        ("de", "sagen: Viel Glück und gut Blatt", "Viel Glück und gut Blatt", "Ihre Nachricht"),
        ("is", "segja Gangi ykkur vel", "Gangi ykkur vel", "Skilaboðin þín"),
    ],
)
def test_a_say_line_is_posted_and_nothing_is_played(game, people, lang, line, said, answer):
    preference_update(user=people["alice"], language=lang)
    turn = _last()

    status = receive(reply(turn, line))

    assert "processed: said" in status
    message = ChatMessage.objects.get()
    assert (message.user, message.text, message.source) == (people["alice"], said, "email")
    assert not Move.objects.filter(game=game).exists()
    assert answer in _last().body


def test_moves_and_a_say_line_in_one_reply(game, people):
    turn = _last()
    receive(reply(turn, "draw\nsay thinking..."))
    answer = _last()
    assert "Applied: draw." in answer.body and "Your message was posted" in answer.body
    receive(reply(answer, f"{a_discard(answer.body)}\nsay your turn, carol"))

    assert [m.action["type"] for m in Move.objects.filter(game=game)] == ["draw", "discard"]
    assert list(ChatMessage.objects.values_list("text", flat=True)) == [
        "thinking...",
        "your turn, carol",
    ]


def test_a_refused_move_posts_nothing(game):
    turn = _last()
    assert "processed: wrong_phase" in receive(reply(turn, "say oops\ndiscard 4c"))
    assert not ChatMessage.objects.exists()


def test_the_turn_email_shows_the_talk_since_the_last_turn(game, people):
    chat_post(game_id=game.pk, user=people["bob"], text="<b>before</b> alice's turn")
    turn = _last()
    receive(reply(turn, "draw"))
    answer = _last()
    receive(reply(answer, a_discard(answer.body)))
    chat_post(game_id=game.pk, user=people["dave"], text="Hi <carol> & co")
    deliver()

    # carol's turn email came with alice's discard; a new line shows on her next one.
    carol_turn = mails_to("carol@example.com")[-1]
    assert "Table talk since your last turn:" in carol_turn.body
    assert "bob: <b>before</b> alice's turn" in carol_turn.body
    html = carol_turn.alternatives[0][0]
    assert "&lt;b&gt;before&lt;/b&gt;" in html and "<b>before</b>" not in html
    assert "write a line starting with say" in carol_turn.body


def test_a_chat_limit_after_the_moves_is_named_in_the_answer(game, people):
    for number in range(10):
        chat_post(game_id=game.pk, user=people["alice"], text=f"n{number}")
    turn = _last()
    receive(reply(turn, "draw\nsay one more"))
    answer = _last()
    assert "Applied: draw." in answer.body
    assert "Your message was not posted: You can send at most 10 messages" in answer.body
