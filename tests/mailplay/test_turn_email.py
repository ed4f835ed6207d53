"""The turn email as the real pipeline writes it: the table in plain text that stands on its
own, an HTML part, the deadline, the reply address and how to reply."""

import json
import re

import pytest

from games import engine
from games.models import Game, GameState
from games.services import lobby
from games.services.notify import notify_turn
from mailplay.services.tokens import TOKEN_LENGTH, new_token, reply_address, token_in_address
from notifications.models import Outbox
from tests.game_fixtures import start_game
from tests.mailplay.conftest import deliver, mails_to


def _take(table, rank, count):
    """Move ``count`` cards of ``rank`` into a list (a meld) from the stock and from the hands
    of seats 1 to 3 (alice, seat 0, keeps her 11 cards)."""
    taken = []
    for place in (table["stock"], *table["hands"][1:]):
        for card in list(place):
            # "JK"[0] is "J": a joker is no jack (it made the canasta mixed, now and then).
            if len(taken) < count and card[0] == rank and card != "JK":
                place.remove(card)
                taken.append(card)
    return taken if len(taken) == count else None


def _two_melds(table):
    """A meld of three for alice's side and a natural canasta for the other side."""
    ranks = "KQJT987654"
    canasta_rank = next(r for r in ranks if _take(json.loads(json.dumps(table)), r, 7))
    canasta = _take(table, canasta_rank, 7)
    meld_rank = next(
        r for r in ranks if r != canasta_rank and _take(json.loads(json.dumps(table)), r, 3)
    )
    table["melds"] = [{meld_rank: _take(table, meld_rank, 3)}, {canasta_rank: canasta}]
    table["melded"] = [True, True, True, True]
    return meld_rank, canasta_rank


def _label(rank):
    return "10" if rank == "T" else rank


def test_the_turn_email_shows_the_whole_table_and_how_to_reply(people):
    game = start_game(people, turn_seconds=3 * 86400)
    # Melds on both sides, one of them a canasta, so the email has them to show.
    table = GameState.objects.get(game=game).table
    meld_rank, canasta_rank = _two_melds(table)
    GameState.objects.filter(game=game).update(table=table)
    Outbox.objects.all().delete()
    game = Game.objects.prefetch_related("seats__user").get(pk=game.pk)
    notify_turn(game=game, table=engine.from_json(table), move_seq=0)
    deliver()

    [turn] = mails_to("alice@example.com")
    text = turn.body
    assert turn.reply_to == [turn.reply_to[0]] and turn.reply_to[0].startswith("play+")
    for needle in (
        "It is your turn",
        "Deadline: ",
        "YOUR HAND (11 cards)",
        "DISCARD PILE AND STOCK",
        "top: ",
        "Stock: ",
        "MELDS AND SCORES",
        "Your side (you & bob): score 0",
        f"    {_label(meld_rank)}: {_label(meld_rank)}",
        f"    {_label(canasta_rank)}: {_label(canasta_rank)}",
        "CANASTA (natural), 7 cards",
        "PLAYERS",
        "WHAT YOU CAN DO NOW",
        "HOW TO REPLY",
        "one per line or separated by ;",
        "Open the game: http://",
    ):
        assert needle in text, needle
    assert re.search(r"FROZEN|not frozen", text)
    # The hand is grouped by rank with " | ".
    hand_line = text.split("YOUR HAND (11 cards)\n", 1)[1].splitlines()[0]
    assert " | " in hand_line
    html = turn.alternatives[0][0]
    assert turn.alternatives[0][1] == "text/html"
    assert "CANASTA (natural)" in html and "HOW TO REPLY" in html


def test_a_tiles_table_shows_tiles(people):
    game = lobby.game_create(
        creator=people["alice"], variant="tiles", players=4, options={"seating": "invitation"}
    )
    for name in ("carol", "bob", "dave"):
        lobby.game_join(game_id=game.pk, user=people[name])
    deliver()
    [turn] = mails_to("alice@example.com")
    hand_line = turn.body.split("YOUR HAND (", 1)[1].splitlines()[1]
    assert "tiles" in turn.body.split("YOUR HAND (", 1)[1].splitlines()[0]
    assert re.search(r"\d+ (red|blue|black|yellow)|joker", hand_line)
    assert "♠" not in hand_line and "♥" not in hand_line
    assert "a number 1-13 and a colour" in turn.body  # the tiles help


def test_reply_tokens_are_long_random_and_fit_an_address():
    tokens = {new_token() for _ in range(200)}
    assert len(tokens) == 200
    for token in tokens:
        assert len(token) == TOKEN_LENGTH and re.fullmatch("[a-z2-7]+", token)
        local = reply_address(token).split("@")[0]
        assert len(local) <= 64 and ":" not in local
        assert token_in_address(reply_address(token)) == token
        assert token_in_address(reply_address(token).upper()) == token
    # 32 base32 characters carry 160 bits (at least 128 are required).
    assert TOKEN_LENGTH * 5 >= 128


def test_every_email_gets_its_own_token_and_revoking_kills_them_all(game, people):
    from mailplay.models import ReplyToken
    from mailplay.services.tokens import reply_token_issue, reply_token_revoke

    game = Game.objects.select_related("state").get(pk=game.pk)
    first = reply_token_issue(game=game, user=people["bob"], seat_number=2)
    second = reply_token_issue(game=game, user=people["bob"], seat_number=2)
    assert first.token != second.token
    # What each email showed: hand 1, no move yet, not bob's turn (alice plays first).
    assert (first.hand, first.issued_seq, first.on_turn) == (1, 0, False)
    assert reply_token_revoke(game=game, user=people["bob"]) == 2
    live = ReplyToken.objects.filter(game=game, user=people["bob"], revoked_at__isnull=True)
    assert not live.exists()
    third = reply_token_issue(game=game, user=people["bob"], seat_number=2)
    assert third.is_active and third.token not in (first.token, second.token)


def test_a_token_read_back_has_only_its_digest(game, people):
    from games.fields import digest
    from mailplay.models import ReplyToken
    from mailplay.services.tokens import reply_token_issue, token_issued

    issued = reply_token_issue(
        game=Game.objects.select_related("state").get(pk=game.pk),
        user=people["bob"],
        seat_number=2,
    )
    text = token_issued(issued)
    stored = ReplyToken.objects.get(token=text)
    assert stored.token == digest(text)
    with pytest.raises(ValueError, match="only its digest"):
        token_issued(stored)
