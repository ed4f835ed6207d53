from datetime import UTC, datetime

from django.core import mail

from games import engine
from games.models import GameState
from notifications.emails import render
from notifications.payloads import (
    hand_over_payload,
    match_over_payload,
    timeout_payload,
    turn_payload,
)
from notifications.services.outbox import outbox_deliver
from tests.notifications.helpers import enqueue, payload


def _table(game):
    return engine.from_json(GameState.objects.get(game=game).table)


def test_a_turn_payload_holds_only_what_the_seat_may_see(table_game):
    table = _table(table_game)
    seat = table.turn
    built = turn_payload(game=table_game, table=table, seat=seat)

    assert built["view"] == engine.player_view(table, seat)
    assert built["legal"] == engine.legal_actions(table, seat).to_json()
    assert not {"hands", "stock", "seed"} & set(built["view"])
    assert built["view"]["hand"] == engine.player_view(table, seat)["hand"]
    assert built["game"]["url"] == f"http://127.0.0.1:8000/games/{table_game.pk}/"
    assert built["names"] == ["alice", "carol", "bob", "dave"]


def test_the_your_turn_email_shows_the_table_the_choices_the_deadline_and_the_link(table_game):
    table = _table(table_game)
    table_game.deadline = datetime(2026, 12, 1, 18, 30, tzinfo=UTC)
    email = render(
        kind="your_turn",
        payload=turn_payload(game=table_game, table=table, seat=0),
        reply_to="play+abc@canasta.test",
    )

    assert email.subject == f"Canasta: alice, carol, bob, dave (game {str(table_game.pk)[:8]})"
    assert email.text.startswith("It is your turn in classic game")
    assert "Tue, Dec 1, 2026, 18:30 UTC" in email.text
    assert "WHAT YOU CAN DO NOW" in email.text
    assert f"/games/{table_game.pk}/" in email.text
    assert f'href="http://127.0.0.1:8000/games/{table_game.pk}/"' in email.html
    # Play by email (mailplay/): the reply address the sender passes, and the command help.
    assert email.reply_to == "play+abc@canasta.test"
    assert "HOW TO REPLY" in email.text
    without = render(kind="your_turn", payload=turn_payload(game=table_game, table=table, seat=0))
    assert without.reply_to is None and "HOW TO REPLY" not in without.text


def test_the_turn_payload_holds_no_reply_address(table_game):
    # It also feeds the event feed and webhooks: the address is added only to the email.
    built = turn_payload(game=table_game, table=_table(table_game), seat=0)
    assert "reply_to" not in built and "play+" not in str(built)


def test_a_reply_to_in_a_stored_payload_is_ignored(people):
    row = enqueue(
        people["alice"], kind="match_over", payload=payload(reply_to="game+abc@example.com")
    )
    outbox_deliver(row.pk)
    assert mail.outbox[0].reply_to == []
    assert "game+abc" not in mail.outbox[0].message().as_string()


def test_the_other_kinds_render(table_game):
    table = _table(table_game)
    hand_result = {
        "type": "hand_result",
        "hand": 1,
        "reason": "went_out",
        "seed": "ab" * 32,
        "commitment": "cd" * 32,
        "result": {"scores": [500, -20]},
    }
    timeout = render(
        kind="timeout",
        payload=timeout_payload(
            game=table_game,
            table=table,
            seat=1,
            timed_out_seat=0,
            policy="autoplay",
            handed_to_bot=True,
        ),
    )
    hand = render(
        kind="hand_over",
        payload=hand_over_payload(
            game=table_game, seat=0, hand_result=hand_result, totals=[500, -20]
        ),
    )
    over = render(
        kind="match_over",
        payload=match_over_payload(
            game=table_game, seat=2, totals=[5100, 3000], winner_side=0, reason="match_over"
        ),
    )
    assert "Time ran out on alice's turn" in timeout.text
    assert "a bot now plays that seat" in timeout.text
    assert "ab" * 32 in hand.text and "cd" * 32 in hand.text
    assert "Your side won." in over.text  # seat 2 is side 0 at a 4-player table


def test_html_bodies_escape_what_they_show():
    email = render(kind="email_reply", payload={"subject": "s", "text": "<script>x</script>"})
    assert "<script>" not in email.html
    assert "&lt;script&gt;" in email.html


def test_a_url_in_table_talk_is_not_made_a_link_in_the_html_turn_email(table_game):
    # Issue 26, item 10: the service's own mail made a player's URL a clickable link.
    payload = turn_payload(game=table_game, table=_table(table_game), seat=0)
    payload["chat"] = [{"name": "mallory", "text": "free cards at https://evil.example/x?a=1&b=2"}]
    rendered = render(kind="your_turn", payload=payload)
    assert "https://evil.example/x" in rendered.text
    assert 'href="https://evil.example' not in rendered.html
    assert "https://evil.example/x?a=1&amp;b=2" in rendered.html
