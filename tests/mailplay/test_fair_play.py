"""Fair play by email (issue "Fair play", items 6 to 8): a From that two parsers read as two
people is refused; a stranger cannot spend a player's Message-ID in advance; a reply plays only
on the turn its email showed (docs/play-by-email-replies.md). Each attack below was played by
the old code."""

import random
from datetime import timedelta

import pytest
from django.core import mail

from games import engine
from games.mail.commands import format_card
from games.models import Game, GameState, Move
from games.services.timeouts import reminder_send, timeout_apply
from mailplay.models import InboundMessage, ReplyToken
from mailplay.services.tokens import new_token, reply_address
from tests.game_fixtures import current_table, play_random, play_until_hand_ends, start_game
from tests.mailplay.conftest import deliver, mails_to, receive
from tests.mailplay.helpers import a_discard, choices, reply, sample

ALICE = "alice@example.com"
BOB = "bob@example.com"
NAMES = ("alice", "carol", "bob", "dave")  # by seat


def _turn_mail(address: str = ALICE):
    deliver()
    return mails_to(address)[-1]


def _mark() -> int:
    """How many emails were sent so far, everything pending delivered first."""
    deliver()
    return len(mail.outbox)


def _sent_after(before: int) -> list:
    deliver()
    return mail.outbox[before:]


def _moves(game: Game) -> int:
    return Move.objects.filter(game=game).count()


def _others_play_until_the_turn_of(game: Game, seat: int, rng: random.Random) -> Game:
    """Random legal moves by whoever is on turn (through the service), until ``seat``'s turn."""
    game = Game.objects.get(pk=game.pk)
    while current_table(game).turn != seat:
        assert game.status == "active"
        game = play_random(game, 1, rng)
    return game


def _with_from(raw: bytes, value: bytes) -> bytes:
    """``raw`` (written by helpers.reply for alice) with its From line replaced."""
    old = b"From: Player <alice@example.com>"
    assert old in raw
    return raw.replace(old, b"From: " + value)


def _end_alices_turn_by_email(turn) -> None:
    """alice draws by replying to ``turn``, then discards by replying to the answer."""
    assert "processed: applied" in receive(reply(turn, "draw"))
    answer = _turn_mail()
    assert "processed: applied" in receive(reply(answer, a_discard(answer.body)))


# --- the sender: one clear address ---------------------------------------------------------

UNCLEAR_FROMS = [
    # The attack: lenient parsers read the victim, others the attacker.
    b"alice@example.com)<eve@evil.example>",
    b"alice@example.com <eve@evil.example>",
    b"alice@example.com, eve@evil.example",
    b"Alice <alice@example.com>, Eve <eve@evil.example>",
    b"players: alice@example.com;",
    b"Alice <alice@example.com>\r\nFrom: eve@evil.example",  # two From headers
    b"alice@example.com;",
]


@pytest.mark.parametrize("value", UNCLEAR_FROMS)
def test_a_from_that_is_not_one_clear_address_is_refused_without_an_answer(game, value):
    turn = _turn_mail()
    before = _mark()

    assert "refused: from_invalid" in receive(_with_from(reply(turn, "draw"), value))

    assert _sent_after(before) == [] and _moves(game) == 0
    row = InboundMessage.objects.get()
    assert row.dedupe_key is None  # and it spends no Message-ID of the player's
    assert "eve@evil.example" in row.from_address or "alice@example.com" in row.from_address


@pytest.mark.parametrize("value", UNCLEAR_FROMS[:2])
def test_an_unclear_from_is_refused_even_with_the_from_check_relaxed(game, settings, value):
    settings.CANASTA_MAIL_REQUIRE_FROM_MATCH = False
    turn = _turn_mail()

    assert "refused: from_invalid" in receive(_with_from(reply(turn, "draw"), value))
    assert _moves(game) == 0


@pytest.mark.parametrize(
    "value",
    [
        b"John Q. Alice <alice@example.com>",  # obsolete syntax, one clear address
        b"=?utf-8?q?Al=C3=AFce?= <ALICE@example.com>",
        b"alice@example.com (Alice at home)",
    ],
)
def test_real_clients_from_lines_still_play(game, value):
    turn = _turn_mail()
    assert "processed: applied" in receive(_with_from(reply(turn, "draw"), value))


# --- Message-IDs: deduplicated per player, after the checks ---------------------------------


def test_a_stranger_cannot_spend_a_players_message_id_in_advance(game):
    turn = _turn_mail()
    message_id = "<2026-12-01-alice-draw@mail.example.com>"
    for raw in (
        reply(turn, "draw", sender="eve@evil.example", message_id=message_id),
        reply(turn, "draw", to="play+" + "a" * 32 + "@canasta.test", message_id=message_id),
        reply(turn, "draw", to="someone@canasta.test", message_id=message_id),
        _with_from(reply(turn, "draw", message_id=message_id), b"alice@example.com)<eve@x.org>"),
    ):
        assert "duplicate" not in receive(raw)
    assert _moves(game) == 0

    assert "processed: applied" in receive(reply(turn, "draw", message_id=message_id))

    assert _moves(game) == 1
    assert "duplicate" in receive(reply(turn, "draw", message_id=message_id))


def test_the_same_mail_to_two_of_a_players_addresses_is_played_once(game):
    turn = _turn_mail()
    message_id = "<one-mail@mail.example.com>"
    assert "processed: applied" in receive(reply(turn, "draw", message_id=message_id))
    answer = _turn_mail()
    assert answer.reply_to != turn.reply_to

    assert "duplicate" in receive(reply(answer, "draw", message_id=message_id))
    assert _moves(game) == 1


def test_another_players_message_id_is_theirs_alone(game, people):
    """carol's mail with alice's Message-ID (a reused ID) is carol's own: both are read."""
    turn = _turn_mail()
    message_id = "<reused@mail.example.com>"
    assert "processed: applied" in receive(reply(turn, "draw", message_id=message_id))
    carol = ReplyToken.objects.create(
        game=game,
        user=people["carol"],
        seat_number=1,
        token=new_token(),
        hand=1,
        issued_seq=Game.objects.get(pk=game.pk).last_seq,
        on_turn=False,
    )
    raw = reply(
        turn,
        "status",
        sender="carol@example.com",
        to=reply_address(carol.token),
        message_id=message_id,
    )
    assert "processed: status" in receive(raw)


# --- which turn a reply answers ----------------------------------------------------------


def test_every_email_has_its_own_address_that_fits_and_survives_case(game):
    turn = _turn_mail()
    receive(reply(turn, "draw"))
    answer = _turn_mail()
    addresses = [turn.reply_to[0], answer.reply_to[0]]
    assert len(set(addresses)) == 2
    for address in addresses:
        local = address.split("@")[0]
        assert len(local) <= 64 and local == local.lower()
    # Lowercased or uppercased on the way back, the address still plays.
    assert "processed: applied" in receive(
        reply(answer, a_discard(answer.body), to=answer.reply_to[0].upper())
    )


def test_a_reply_to_an_earlier_turn_in_the_same_hand_is_refused_and_shows_the_table(game):
    rng = random.Random(4)
    turn = _turn_mail()
    _end_alices_turn_by_email(turn)
    _others_play_until_the_turn_of(game, 0, rng)
    moves, before = _moves(game), _mark()

    assert "refused: earlier_turn" in receive(reply(turn, "draw"))

    assert _moves(game) == moves
    [answer] = _sent_after(before)
    assert answer.to == [ALICE]
    assert answer.body.startswith("Email for an earlier turn")
    assert "earlier turn" in answer.body and "Nothing was applied." in answer.body
    assert "It is your turn now" in answer.body
    assert "YOUR HAND" in answer.body and "WHAT YOU CAN DO NOW" in answer.body
    # The answer's own address is for the turn it shows: replying to it plays.
    assert answer.reply_to and answer.reply_to != turn.reply_to
    command = "draw" if "draw" in choices(answer.body) else a_discard(answer.body)
    assert "processed: applied" in receive(reply(answer, command))
    assert _moves(game) == moves + 1


def test_a_reply_to_a_turn_that_is_over_is_refused_while_others_play(game):
    turn = _turn_mail()
    _end_alices_turn_by_email(turn)
    before = _mark()

    assert "refused: earlier_turn" in receive(reply(turn, "draw"))

    [answer] = _sent_after(before)
    assert "It is now carol's turn" in answer.body
    assert "WHAT YOU CAN DO NOW" not in answer.body
    assert _moves(game) == 2


def test_a_late_reply_to_a_timed_out_turn_is_refused_then_and_in_the_next_turn(people):
    """Sample 037: an iPhone reply to a turn that timed out (the system drew and discarded)."""
    game = start_game(people, turn_seconds=3600)
    turn = _turn_mail()
    game = Game.objects.get(pk=game.pk)
    assert timeout_apply(game_id=game.pk, now=game.deadline + timedelta(seconds=1))
    moves = _moves(game)

    late = sample("037-iphone-late-reply-to-timed-out-turn-alice.eml", to=turn.reply_to[0])
    assert "refused: earlier_turn" in receive(late)
    assert _moves(game) == moves

    game = _others_play_until_the_turn_of(game, 0, random.Random(8))
    moves, before = _moves(game), _mark()
    later = sample(
        "037-iphone-late-reply-to-timed-out-turn-alice.eml",
        to=turn.reply_to[0],
        replace={b"F63F06E2-7B34": b"F63F06E2-7B35"},  # a second send: a new Message-ID
    )
    assert "refused: earlier_turn" in receive(later)

    assert _moves(game) == moves
    [answer] = _sent_after(before)
    assert "It is your turn now" in answer.body and "YOUR HAND" in answer.body


def test_a_late_reply_to_a_turn_email_of_an_earlier_hand_is_refused(game):
    """Sample 015: Gmail, a reply to bob's hand-1 turn email, arriving in hand 2."""
    rng = random.Random(2)
    game = _others_play_until_the_turn_of(game, 2, rng)
    turn = _turn_mail(BOB)
    assert turn.extra_headers["X-Canasta-Kind"] == "your_turn"
    game = play_until_hand_ends(game, rng)
    assert game.status == "active" and current_table(game).hand == 2
    game = _others_play_until_the_turn_of(game, 2, rng)
    moves, before = _moves(game), _mark()

    raw = sample("015-gmail-late-reply-to-hand1-email-bob.eml", to=turn.reply_to[0])
    assert "refused: earlier_turn" in receive(raw)

    assert _moves(game) == moves
    [answer] = [m for m in _sent_after(before) if m.to == [BOB]]
    assert "hand 1" in answer.body and "now in hand 2" in answer.body
    assert "It is your turn now" in answer.body and "YOUR HAND" in answer.body


def test_a_new_hand_on_the_same_players_turn_is_another_turn(game):
    """The seat that ended a hand may start the next: no other seat moved in between, and the
    hand number alone tells the turns apart."""
    turn = _turn_mail()
    state = GameState.objects.get(game=game)
    state.table = {**state.table, "hand_number": 2}
    state.save()

    assert "refused: earlier_turn" in receive(reply(turn, "draw"))
    assert _moves(game) == 0


def test_a_reply_to_the_reminder_of_the_current_turn_plays(people):
    """Sample 038: Outlook on the web, a reply to the reminder."""
    game = start_game(people, turn_seconds=3600)
    turn = _turn_mail()
    game = Game.objects.get(pk=game.pk)
    assert reminder_send(game_id=game.pk, now=game.reminder_at)
    reminder = _turn_mail()
    assert reminder.extra_headers["X-Canasta-Kind"] == "reminder"
    assert reminder.reply_to != turn.reply_to

    raw = sample(
        "038-owa-reply-to-reminder-alice.eml",
        to=reminder.reply_to[0],
        replace={b"\r\ndiscard 2s\r\n": b"\r\ndraw\r\n"},  # a command that fits this table
    )
    assert "processed: applied" in receive(raw)
    assert _moves(game) == 1

    # The turn email of the same turn still plays too.
    answer = _turn_mail()
    assert "processed: applied" in receive(reply(turn, a_discard(answer.body)))
    assert _moves(game) == 2


def test_a_reply_to_the_answer_of_the_current_turn_plays(game):
    turn = _turn_mail()
    assert "processed: applied" in receive(reply(turn, "draw"))
    answer = _turn_mail()
    assert "It is still your turn" in answer.body

    assert "processed: applied" in receive(reply(answer, a_discard(answer.body)))
    assert Game.objects.get(pk=game.pk).turn_seat == 1


def test_the_turn_survives_the_players_own_moves_through_the_web(game, people):
    from games.services.moves import moves_submit

    turn = _turn_mail()
    game = Game.objects.get(pk=game.pk)
    moves_submit(
        game_id=game.pk,
        user=people["alice"],
        actions=[{"type": "draw"}],
        expected_version=game.version,
    )
    card = engine.legal_actions(current_table(game), 0).discards[0]

    assert "processed: applied" in receive(reply(turn, f"discard {format_card(card, 'classic')}"))


def test_an_address_from_before_turns_were_recorded_answers_as_an_earlier_turn(game, people):
    _turn_mail()
    old = ReplyToken.objects.create(
        game=game, user=people["alice"], seat_number=0, token=new_token()
    )
    message = mail.outbox[-1]

    assert "refused: earlier_turn" in receive(reply(message, "draw", to=reply_address(old.token)))
    assert _moves(game) == 0
