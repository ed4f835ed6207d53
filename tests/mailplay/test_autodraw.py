"""The forced draw: for an email player who asks for it (always, or when the table shows that
nobody may take the pile), the service draws before writing the turn email, so a whole turn
takes one reply."""

import pytest

from games.models import Actor, Game, GameState, Move
from games.services import lobby
from games.services.moves import moves_submit
from mailplay.services.autodraw import mail_player_set
from notifications.models import NotificationPreference, Outbox
from tests.mailplay.conftest import deliver, mails_to, receive
from tests.mailplay.helpers import a_discard, reply

BLACK_THREES = ("3S", "3C")


def _give_black_three(game, seat):
    """Swap a black three into the seat's hand (the pile cannot be taken over one)."""
    state = GameState.objects.get(game=game)
    table = state.table
    hand = table["hands"][seat]
    held = [c for c in hand if c in BLACK_THREES]
    if held:
        return held[0]
    places = [table["stock"], *[h for s, h in enumerate(table["hands"]) if s != seat]]
    for place in places:
        for i, card in enumerate(place):
            if card in BLACK_THREES:
                place[i], hand[0] = hand[0], card
                state.save()
                return card
    raise AssertionError("no black three outside the pile")


def _alice_blocks_the_pile(game, people):
    """alice (seat 0) draws and discards a black three: carol (seat 1) cannot take the pile."""
    three = _give_black_three(game, 0)
    game = Game.objects.get(pk=game.pk)
    return moves_submit(
        game_id=game.pk,
        user=people["alice"],
        actions=[{"type": "draw"}, {"type": "discard", "card": three}],
        expected_version=game.version,
    )


def _carols_turn_payload():
    return Outbox.objects.filter(kind="your_turn", recipient__username="carol").get().payload


def test_it_draws_for_an_email_player_when_the_pile_is_blocked(game, people):
    mail_player_set(user=people["carol"], auto_draw=True)

    game = _alice_blocks_the_pile(game, people)

    moves = list(Move.objects.filter(game=game).order_by("seq"))
    assert [(m.seat, m.actor, m.action["type"]) for m in moves] == [
        (0, Actor.PLAYER, "draw"),
        (0, Actor.PLAYER, "discard"),
        (1, Actor.SYSTEM, "draw"),  # once, in the same transaction
    ]
    assert game.last_seq == 3 and game.turn_seat == 1
    payload = _carols_turn_payload()
    assert payload["view"]["phase"] == "play"
    drawn = moves[2].events[-1]["cards"]
    assert payload["auto_drew"] == drawn
    deliver()
    [turn] = mails_to("carol@example.com")
    assert "We drew " in turn.body and " for you" in turn.body
    assert "meld if you like, then discard" in turn.body

    # The whole turn in one reply.
    assert "processed: applied" in receive(
        reply(turn, a_discard(turn.body), sender="carol@example.com")
    )
    assert Game.objects.get(pk=game.pk).turn_seat == 2
    # bob has never played by email: his turn starts with the choice.
    assert not Move.objects.filter(game=game, seat=2).exists()


def test_a_player_who_never_played_by_email_draws_for_themselves(game, people):
    game = _alice_blocks_the_pile(game, people)

    assert not Move.objects.filter(game=game, seat=1).exists()
    assert _carols_turn_payload()["view"]["phase"] == "draw"
    assert "auto_drew" not in _carols_turn_payload()


@pytest.mark.parametrize("how", ["auto_draw_off", "digest", "setting_off"])
def test_the_forced_draw_can_be_turned_off(game, people, settings, how):
    mail_player_set(user=people["carol"], auto_draw=how != "auto_draw_off")
    if how == "digest":
        NotificationPreference.objects.create(user=people["carol"], email_mode="digest")
    if how == "setting_off":
        settings.CANASTA_MAIL_AUTO_DRAW = False

    game = _alice_blocks_the_pile(game, people)

    assert not Move.objects.filter(game=game, seat=1).exists()


def test_always_draws_even_when_the_pile_is_open(game, people):
    mail_player_set(user=people["carol"], auto_draw="always")
    table = GameState.objects.get(game=game).table
    # alice discards a natural card: nothing on the table says carol cannot take the pile.
    natural = next(c for c in table["hands"][0] if c[0] not in "23" and c != "JK")

    moves_submit(
        game_id=game.pk,
        user=people["alice"],
        actions=[{"type": "draw"}, {"type": "discard", "card": natural}],
        expected_version=game.version,
    )

    [move] = Move.objects.filter(game=game, seat=1)
    assert (move.actor, move.action) == (Actor.SYSTEM, {"type": "draw"})


def test_pile_closed_does_not_draw_while_the_pile_is_open(game, people):
    mail_player_set(user=people["carol"], auto_draw="pile_closed")
    table = GameState.objects.get(game=game).table
    natural = next(c for c in table["hands"][0] if c[0] not in "23" and c != "JK")

    moves_submit(
        game_id=game.pk,
        user=people["alice"],
        actions=[{"type": "draw"}, {"type": "discard", "card": natural}],
        expected_version=game.version,
    )

    assert not Move.objects.filter(game=game, seat=1).exists()


def test_bots_never_get_a_forced_draw(people):
    game = lobby.game_create(
        creator=people["alice"],
        variant="classic",
        players=2,
        bots=["basic"],
        options={"seating": "invitation"},
    )
    mail_player_set(user=people["alice"], auto_draw=True)
    assert game.status == "active"
    table = GameState.objects.get(game=game).table
    bot_seat = next(s.number for s in game.seats.all() if s.kind == "bot")
    if table["turn"] == bot_seat:
        pytest.skip("the bot plays first in this deal")
    three = _give_black_three(game, table["turn"])
    game = Game.objects.get(pk=game.pk)
    moves_submit(
        game_id=game.pk,
        user=people["alice"],
        actions=[{"type": "draw"}, {"type": "discard", "card": three}],
        expected_version=game.version,
    )
    assert not Move.objects.filter(game=game, seat=bot_seat).exists()


def test_an_email_player_who_starts_a_new_game_gets_the_forced_draw_too(people, monkeypatch):
    import games.services.moves as moves
    from games.services.replay import game_verify
    from tests.game_fixtures import start_game

    for name in ("alice", "bob", "carol", "dave"):
        mail_player_set(user=people[name], auto_draw=True)
    # The deal decides whether the upcard closes the pile; here it does.
    monkeypatch.setattr(moves, "pile_closed", lambda *a, **k: True)

    game = start_game(people)

    [move] = Move.objects.filter(game=game)
    first = game.turn_seat
    assert (move.seq, move.seat, move.actor, move.action) == (
        1,
        first,
        Actor.SYSTEM,
        {"type": "draw"},
    )
    assert game.last_seq == 1
    table = GameState.objects.get(game=game).table
    assert table["phase"] == "play" and table["turn"] == first
    [row] = Outbox.objects.filter(kind="your_turn")
    drawn = move.events[-1]["cards"]
    assert row.payload["auto_drew"] == drawn and row.payload["view"]["phase"] == "play"
    deliver()
    name = row.recipient.username
    [turn] = mails_to(f"{name}@example.com")
    assert "We drew " in turn.body
    # The whole first turn in one reply, and the log replays to the snapshot.
    assert "processed: applied" in receive(
        reply(turn, a_discard(turn.body), sender=f"{name}@example.com")
    )
    assert game_verify(game=Game.objects.get(pk=game.pk)).ok
