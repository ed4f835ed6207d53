"""End to end through the real pipeline: the your_turn email from the outbox (Django's locmem
backend), a reply written from it, `manage.py receive_email`, the move, the answer."""

from games.engine.cards import sort_key
from games.fields import digest
from games.mail.commands import format_card
from games.models import Actor, Game, GameState, Move
from mailplay.models import InboundMessage, MailPlayer, ReplyToken
from mailplay.services.tokens import reply_address, reply_token_issue, token_in_address
from tests.mailplay.conftest import deliver, mails_to, receive
from tests.mailplay.helpers import a_discard, choices, html_reply, reply

ALICE = "alice@example.com"


def _turn_mail(address=ALICE):
    deliver()
    return mails_to(address)[-1]


def _moves(game):
    return list(Move.objects.filter(game=game).order_by("seq"))


def test_it_plays_a_whole_turn_by_replying_to_the_turn_emails(game, people):
    turn = _turn_mail()
    [token] = ReplyToken.objects.filter(game=game, user=people["alice"])
    [address] = turn.reply_to
    text = token_in_address(address)
    # Stored as its digest (games.fields.DigestField): the address carries the token itself.
    assert address == f"play+{text}@canasta.test" and token.token == digest(text)
    assert "HOW TO REPLY" in turn.body and "draw" in choices(turn.body)

    status = receive(reply(turn, "draw"))

    assert "processed: applied" in status
    assert text not in status
    answer = _turn_mail()
    assert answer.body.startswith("Move applied")
    assert "Applied: draw." in answer.body
    assert "You drew " in answer.body
    assert "It is still your turn" in answer.body
    # A new address of her own, for the table the answer shows.
    assert answer.reply_to != turn.reply_to and answer.reply_to[0].startswith("play+")
    assert answer.to == [ALICE]
    [draw] = _moves(game)
    assert (draw.seat, draw.actor, draw.action) == (0, Actor.PLAYER, {"type": "draw"})

    receive(reply(answer, a_discard(answer.body)))

    answer = _turn_mail()
    assert "It is now carol's turn" in answer.body
    assert "WHAT YOU CAN DO NOW" not in answer.body
    assert [m.action["type"] for m in _moves(game)] == ["draw", "discard"]
    carol = mails_to("carol@example.com")
    assert [m.extra_headers["X-Canasta-Kind"] for m in carol] == ["your_turn"]
    assert carol[0].reply_to != turn.reply_to
    assert MailPlayer.objects.filter(user=people["alice"]).exists()


def test_several_commands_in_one_email_are_one_batch(game):
    turn = _turn_mail()
    # "draw" and a discard of a card surely in hand now (the drawn card may be anything).
    card = a_discard_before_draw(turn.body)

    assert "processed: applied" in receive(reply(turn, f"draw; discard {card}"))

    assert [m.action["type"] for m in _moves(game)] == ["draw", "discard"]
    assert Game.objects.get(pk=game.pk).turn_seat == 1


def a_discard_before_draw(text):
    """A card of alice's hand (seat 0) as a command writes it."""
    hand = GameState.objects.get().table["hands"][0]
    return format_card(sorted(hand, key=sort_key)[0], "classic")


def test_a_command_error_applies_nothing_and_names_the_line(game):
    turn = _turn_mail()
    version = Game.objects.get(pk=game.pk).version

    status = receive(reply(turn, "draw\ndiscard 9z"))

    assert "processed: invalid_action" in status
    answer = _turn_mail()
    assert answer.body.startswith("Move refused")
    assert 'Line 2: "discard 9z"' in answer.body
    assert "(code: invalid_action)" in answer.body
    assert "Nothing was applied." in answer.body
    assert "WHAT YOU CAN DO NOW" in answer.body  # still her turn: the choices again
    assert _moves(game) == [] and Game.objects.get(pk=game.pk).version == version


def test_an_engine_error_applies_nothing_and_names_the_line(game):
    turn = _turn_mail()

    status = receive(reply(turn, "status\n\ndiscard 4c"))

    assert "processed: wrong_phase" in status
    answer = _turn_mail()
    assert 'Line 3: "discard 4c"' in answer.body
    assert "(code: wrong_phase)" in answer.body
    assert _moves(game) == []


def test_a_move_out_of_turn_is_refused_with_the_engines_code(game, people):
    turn = _turn_mail()
    carol = reply_token_issue(
        game=Game.objects.select_related("state").get(pk=game.pk),
        user=people["carol"],
        seat_number=1,
    )
    raw = reply(turn, "draw", sender="carol@example.com", to=reply_address(carol.token))

    assert "processed: not_your_turn" in receive(raw)
    deliver()
    answer = mails_to("carol@example.com")[-1]
    assert "(code: not_your_turn)" in answer.body and 'Line 1: "draw"' in answer.body
    assert _moves(game) == []


def test_an_empty_reply_gets_an_explanation(game):
    turn = _turn_mail()
    assert "processed: no_commands" in receive(reply(turn, ""))
    assert "we found no commands" in _turn_mail().body


def test_chatter_is_refused_not_guessed(game):
    turn = _turn_mail()
    assert "processed: invalid_action" in receive(reply(turn, "thanks, I'll draw"))
    assert _moves(game) == []


def test_an_html_only_reply_is_read(game):
    turn = _turn_mail()
    html = (
        "<div dir='ltr'>draw</div><br><div class='gmail_quote'>On Sunday Canasta wrote:"
        f"<blockquote>{turn.body[:200]}</blockquote></div>"
    )

    assert "processed: applied" in receive(html_reply(turn, html))
    assert [m.action["type"] for m in _moves(game)] == ["draw"]


def test_status_and_help_apply_nothing_and_answer_with_the_table(game):
    turn = _turn_mail()

    assert "processed: status" in receive(reply(turn, "status"))
    status = _turn_mail()
    assert status.body.startswith("The table")
    assert "It is your turn" in status.body and "WHAT YOU CAN DO NOW" in status.body

    assert "processed: help" in receive(reply(turn, "help"))
    assert "HOW TO REPLY" in _turn_mail().body
    assert _moves(game) == []


def test_resign_ends_the_match(game):
    turn = _turn_mail()

    assert "processed: resigned" in receive(reply(turn, "resign"))

    game.refresh_from_db()
    assert game.status == "finished" and game.end_reason == "resigned"
    deliver()
    assert any(
        m.extra_headers["X-Canasta-Kind"] == "match_over" for m in mails_to("dave@example.com")
    )
    assert any("You resigned" in m.body for m in mails_to(ALICE))


def test_resign_with_moves_is_refused(game):
    turn = _turn_mail()
    assert "processed: invalid_action" in receive(reply(turn, "draw\nresign"))
    game.refresh_from_db()
    assert game.status == "active" and _moves(game) == []


def test_a_finished_game_answers_but_plays_nothing(game, people):
    turn = _turn_mail()
    receive(reply(turn, "resign"))

    assert "processed: game_not_active" in receive(reply(turn, "draw"))
    assert "(code: game_not_active)" in _turn_mail().body


def test_every_processed_email_is_recorded_once(game):
    turn = _turn_mail()
    receive(reply(turn, "status"))
    row = InboundMessage.objects.get()
    assert (row.status, row.reason, row.source) == ("processed", "status", "pipe")
    assert row.user.username == "alice" and row.game_id == game.pk
