"""Oracle checks (issue 14, fair-play.md): a refusal tells a player nothing about a card
they do not hold. The same refused request goes to twin tables that differ only in hidden
cards (twins.py); answers of twins in which the player ends up seeing the same table must be
identical, through the API and by email.

Each attack here worked before "a draw from the stock stands": the refusal described the
table inside the rolled-back batch, so its message (or its index) named cards still in the
stock, and the player could then take the pile instead.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from rest_framework.authtoken.models import Token

from games import engine
from games.engine.cards import is_wild
from games.models import Game, Move
from games.services import lobby
from notifications import tasks
from notifications.models import Outbox
from notifications.services.outbox import outbox_sweep
from tests.api.helpers import url
from tests.game_fixtures import client_for, current_table
from tests.leaks.twins import assert_answers_alike, table_set, twin_tables
from tests.mailplay.conftest import receive
from tests.mailplay.helpers import reply

CONFIGS = [
    (variant["name"], players)
    for variant in engine.list_variants()
    for players in variant["players"]
]


@pytest.fixture(autouse=True)
def _no_broker(monkeypatch: pytest.MonkeyPatch, settings: Any) -> None:
    monkeypatch.setattr(tasks.deliver_outbox, "delay", lambda *_: None)
    settings.CANASTA_MAIL_DOMAIN = "canasta.test"
    settings.CANASTA_MAIL_REQUIRE_FROM_MATCH = True
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def _people(players: int, prefix: str = "player") -> list[Any]:
    people = []
    for n in range(players):
        user = get_user_model().objects.create_user(
            username=f"{prefix}{n}", email=f"{prefix}{n}@example.com", password="x" * 20
        )
        Token.objects.create(user=user)
        people.append(user)
    return people


def _game(variant: str, players: int, people: list[Any]) -> Game:
    game = lobby.game_create(
        creator=people[0], variant=variant, players=players, options={"seating": "invitation"}
    )
    for user in people[1:]:
        game = lobby.game_join(game_id=game.pk, user=user)
    return Game.objects.get(pk=game.pk)


def _at_a_draw(table: dict[str, Any]) -> dict[str, Any]:
    """The table at the start of a turn (tiles deals the first player 15 cards to discard
    from: that discard is made here, by hand)."""
    if table["phase"] == "draw":
        return table
    seat = table["turn"]
    table["discard"].append(table["hands"][seat].pop())
    table["turn"] = (seat + 1) % table["players"]
    table["phase"] = "draw"
    return table


def _twin_games(
    variant: str, players: int, prefix: str = "player"
) -> tuple[list[Game], list[Any], int]:
    """Four started games of the same people, their tables twins of the first one's."""
    people = _people(players, prefix)
    games = [_game(variant, players, people) for _ in range(4)]
    base = _at_a_draw(current_table(games[0]).to_json())
    seat = base["turn"]
    for game, table in zip(games, twin_tables(base, seat, random.Random(variant)), strict=True):
        table_set(game, table)
    return games, people, seat


def _post_everywhere(games: list[Game], user: Any, actions: list[Any]) -> list[tuple[Any, Any]]:
    """The same request to every twin: (the player's table after it, the answer)."""
    client = client_for(user)
    outcomes = []
    for game in games:
        response = client.post(
            url(game, "actions"),
            {"actions": actions, "expected_version": game.version},
            format="json",
        )
        assert response.status_code == 422, response.content[:500]
        view = client.get(url(game)).json()["table"]
        outcomes.append((view, response.json()))
    return outcomes


def _all_cards(variant: str) -> list[str]:
    return engine.get_rules(variant).deck()


@pytest.mark.parametrize(("variant", "players"), CONFIGS, ids=[f"{v}-{p}" for v, p in CONFIGS])
def test_a_refused_meld_after_a_draw_names_no_card_of_the_stock(
    db: Any, variant: str, players: int
) -> None:
    """[draw, meld <every card>]: the refusal lists what the hand lacks after the draw."""
    games, people, seat = _twin_games(variant, players)
    actions = [{"type": "draw"}, {"type": "meld", "melds": [_all_cards(variant)]}]

    outcomes = _post_everywhere(games, people[seat], actions)

    assert_answers_alike(outcomes, f"draw then meld everything ({variant}, {players})")
    for view, answer in outcomes:  # and the draw stands: the player holds what it brought
        assert answer["error"]["details"]["applied"] == 1
        assert view["phase"] == "play"
        assert set(answer["error"]["details"]["drawn"]) <= set(view["hand"])


@pytest.mark.parametrize(("variant", "players"), [("classic", 2), ("classic", 4), ("tiles", 4)])
def test_the_refused_index_does_not_tell_what_the_draw_brought(
    db: Any, variant: str, players: int
) -> None:
    """[draw, discard X, draw]: refused at 1 when X was not drawn, at 2 when it was."""
    games, people, seat = _twin_games(variant, players)
    base = current_table(games[0])
    rules = base.rules
    hand = set(base.hands[seat])
    target = next(c for c in base.stock if not rules.is_bonus_three(c) and c not in hand)
    actions = [{"type": "draw"}, {"type": "discard", "card": target}, {"type": "draw"}]

    outcomes = _post_everywhere(games, people[seat], actions)

    assert_answers_alike(outcomes, f"draw, discard a stock card, draw ({variant}, {players})")


def test_a_refusal_without_a_draw_is_the_same_whatever_the_stock(db: Any) -> None:
    """Refusals that apply nothing leave every twin in one group: one answer for all."""
    games, people, seat = _twin_games("classic", 4)
    held = current_table(games[0]).hands[seat][0]
    for actions in (
        [{"type": "meld", "melds": [_all_cards("classic")]}],  # wrong phase
        [{"type": "discard", "card": held}],
        [{"type": "pickup", "cards": _all_cards("classic")[:2]}],
        [{"type": "draw"}, {"type": "bogus"}],  # malformed: refused before anything is played
    ):
        outcomes = _post_everywhere(games, people[seat], actions)
        assert_answers_alike(outcomes, f"{actions[0]['type']} first")
        assert {answer["error"]["details"].get("applied") for _, answer in outcomes} == {0}
        assert Move.objects.filter(game__in=games).count() == 0


# --- by email -------------------------------------------------------------------------------


def _turn_email(game: Game, user: Any) -> Any:
    outbox_sweep()
    mine = [m for m in mail.outbox if m.to == [user.email] and m.reply_to]
    assert mine, "no turn email"
    return mine[-1]


def _answer(game: Game, user: Any) -> dict[str, Any]:
    row = Outbox.objects.filter(game=game, recipient=user, kind="email_reply").latest("pk")
    payload = row.payload
    subject = re.sub(r"game [0-9a-f]{8}", "game <id>", payload["subject"])
    return {"subject": subject, "paragraphs": payload["paragraphs"]}


def test_an_emailed_draw_and_meld_lists_no_card_of_the_stock(db: Any) -> None:
    """By email: "draw; meld 4c 4c ..." answered with the cards the hand lacks."""
    people = _people(4)
    games = []
    turn_emails = []
    for _ in range(4):
        game = _game("classic", 4, people)
        games.append(game)
        turn_emails.append(_turn_email(game, people[current_table(game).turn]))
    base = current_table(games[0]).to_json()
    seat = base["turn"]
    assert all(current_table(g).turn == seat for g in games)
    for game, table in zip(games, twin_tables(base, seat, random.Random(4)), strict=True):
        table_set(game, table)
    player = people[seat]
    # No wild cards: the email grammar splits natural cards into melds by rank by itself.
    naturals = [c for c in _all_cards("classic") if not is_wild(c)]
    text = "draw; meld " + " ".join(c.lower() for c in naturals)

    outcomes = []
    for game, turn in zip(games, turn_emails, strict=True):
        status = receive(reply(turn, text, sender=player.email))
        assert "processed" in status, status
        view = client_for(player).get(url(game)).json()["table"]
        outcomes.append((view, _answer(game, player)))

    assert_answers_alike(outcomes, "draw; meld every card, by email")
    for view, answer in outcomes:  # the draw stands, and the answer says so
        assert view["phase"] == "play"
        assert answer["paragraphs"][0].startswith("You drew "), answer
        assert "that draw stands" in answer["paragraphs"][0]
        assert not any("Nothing was applied" in p for p in answer["paragraphs"]), answer


# --- a sweep: many refused batches, each against fresh twins --------------------------------

BOGUS: list[dict[str, Any]] = [
    {"type": "draw"},
    {"type": "discard", "card": "JK"},
    {"type": "pickup"},
    {"type": "meld", "melds": [["AS", "AH", "AD"]]},
    {"type": "meld", "add": {"K": ["KS"]}},
    {"type": "answer", "yes": True},
    {"type": "ask_partner"},
    {"type": "discard", "card": "7H"},
    {"type": "meld", "melds": [["7H", "7D", "7S"], ["KH", "KD", "JK"]]},
]
SWEEP = [
    *[[action] for action in BOGUS],
    *[[{"type": "draw"}, action] for action in BOGUS],
    [{"type": "draw"}, {"type": "discard", "card": "9C"}, {"type": "draw"}],
    [{"type": "draw"}, {"type": "meld", "melds": [["9C", "9D", "9H"]]}, {"type": "draw"}],
]


def _answer_of(response: Any) -> Any:
    """A refusal's whole body; of a success, only that it succeeded (its body names the
    game, and what it shows is compared through the player's view)."""
    return response.json() if response.status_code >= 400 else response.status_code


@pytest.mark.parametrize("players", [2, 4])
def test_a_sweep_of_batches_gets_the_same_answers_whatever_the_hidden_cards(
    db: Any, players: int
) -> None:
    compared = 0
    for number, actions in enumerate(SWEEP):
        games, people, seat = _twin_games("classic", players, prefix=f"p{number}x")
        client = client_for(people[seat])
        outcomes = []
        for game in games:
            response = client.post(
                url(game, "actions"),
                {"actions": actions, "expected_version": game.version},
                format="json",
            )
            assert response.status_code < 500, response.content[:300]
            outcomes.append((client.get(url(game)).json()["table"], _answer_of(response)))
        assert_answers_alike(outcomes, f"{actions} ({players} players)")
        compared += 1
    assert compared == len(SWEEP)


EMAIL_SWEEP = [
    "draw; discard 9c; draw",
    "draw\nmeld 9c 9d 9h\ndiscard 9s",
    "draw; add 5c to fives",
    "draw; take",
    "take; draw",
    "draw; meld 4c 4d 4h 4s 4c 4d",
]


def test_a_sweep_of_email_replies_gets_the_same_answers_whatever_the_hidden_cards(
    db: Any,
) -> None:
    for number, text in enumerate(EMAIL_SWEEP):
        people = _people(4, prefix=f"p{number}x")
        games, turns = [], []
        for _ in range(4):
            game = _game("classic", 4, people)
            games.append(game)
            turns.append(_turn_email(game, people[current_table(game).turn]))
        base = current_table(games[0]).to_json()
        seat = base["turn"]
        for game, table in zip(games, twin_tables(base, seat, random.Random(text)), strict=True):
            table_set(game, table)
        player = people[seat]
        outcomes = []
        for game, turn in zip(games, turns, strict=True):
            assert "processed" in receive(reply(turn, text, sender=player.email))
            view = client_for(player).get(url(game)).json()["table"]
            outcomes.append((view, _answer(game, player)))
        assert_answers_alike(outcomes, repr(text))
