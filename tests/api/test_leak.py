"""Plays whole hands through the API and checks that no response ever holds a card its caller
could not see at the table, nor the seed of a hand that is not over.

The server-side table is read here only to CHOOSE actions (engine.randomplay) and to know
what each caller may see; every action goes through the API and only API output is checked.
"""

import json
import random
import re
from collections import Counter
from typing import Any

from games import engine
from games.engine.randomplay import random_action
from games.models import Hand
from tests.api.helpers import url
from tests.game_fixtures import current_table, start_game

CARD = re.compile(r"^(?:[A2-9TJQK][SHDC]|JK)$")
VIEWERS = {"alice": 0, "carol": 1, "bob": 2, "dave": 3, "eve": None}


def cards_in(value: Any) -> list[str]:
    """Every card code among the values (not the keys) of a JSON document."""
    if isinstance(value, str):
        return [value] if CARD.match(value) else []
    if isinstance(value, dict):
        return [card for item in value.values() for card in cards_in(item)]
    if isinstance(value, list):
        return [card for item in value for card in cards_in(item)]
    return []


def public_cards(table: engine.Table) -> Counter:
    seen = Counter(table.discard)
    for side in table.melds:
        for cards in side.values():
            seen.update(cards)
    for reds in table.red_threes:
        seen.update(reds)
    return seen


def visible_to(table: engine.Table, seat: int | None) -> Counter:
    seen = public_cards(table)
    if seat is not None:
        seen.update(table.hands[seat])
    return seen


class LeakChecker:
    def __init__(self, game) -> None:
        self.game = game
        self.checked = 0
        self.refresh()

    def refresh(self) -> None:
        """Read the server's truth once per change of the game (every check until the next
        change compares against it)."""
        self.table = current_table(self.game)
        self.seeds = self.secret_seeds()

    def secret_seeds(self) -> list[str]:
        return list(
            Hand.objects.filter(game=self.game, finished_at__isnull=True).values_list(
                "seed", flat=True
            )
        )

    def check(self, response, seat: int | None) -> dict:
        assert response.status_code == 200, response.content
        text = response.content.decode()
        for seed in self.seeds:
            assert seed not in text, "the seed of a hand in progress left the server"
        body = json.loads(text)
        table = self.table
        if body.get("table"):
            assert not {"stock", "hands"} & set(body["table"])
            shown = Counter(cards_in(body["table"]))
            assert not shown - visible_to(table, seat), (seat, shown - visible_to(table, seat))
        if "legal" in body:
            allowed = set(visible_to(table, seat))
            assert set(cards_in(body)) <= allowed
        moves = body.get("moves")
        for move in moves if isinstance(moves, list) else []:
            for event in move["events"]:
                assert "private" not in event
                if event["type"] == "draw" and event["seat"] != seat:
                    assert "cards" not in event, event
        for hand in body.get("hands", []):
            assert (hand["seed"] is None) == (hand["finished_at"] is None)
        self.checked += 1
        return body


def test_no_response_leaks_a_hidden_card_or_an_unrevealed_seed(clients, users):
    game = start_game(users)
    checker = LeakChecker(game)
    rng = random.Random(20261129)
    names = list(VIEWERS)
    last_seen = dict.fromkeys(names, 0)
    hands_done = 0
    step = 0
    while hands_done < 2 and step < 2000:
        table = current_table(game)
        seat = table.turn
        name = next(n for n, s in VIEWERS.items() if s == seat)
        version = clients[name].get(url(game)).json()["version"]
        response = clients[name].post(
            url(game, "actions"),
            {"actions": [random_action(table, rng)], "expected_version": version},
            format="json",
        )
        checker.refresh()
        body = checker.check(response, seat)
        if body["current_hand"]["number"] != table.hand or body["status"] != "active":
            hands_done += 1
        step += 1
        if body["status"] != "active":
            break
        if step % 3:
            continue
        # Every third step one watcher, in turn, reads everything it may read.
        watcher = names[(step // 3) % len(names)]
        watcher_seat = VIEWERS[watcher]
        client = clients[watcher]
        checker.check(client.get(url(game)), watcher_seat)
        if watcher_seat is not None:
            checker.check(client.get(url(game, "legal")), watcher_seat)
        log = checker.check(
            client.get(url(game, "moves"), {"after": last_seen[watcher]}), watcher_seat
        )
        if log["results"]:
            last_seen[watcher] = log["results"][-1]["seq"]
        checker.check(client.get(url(game, "hands")), watcher_seat)

    assert hands_done >= 1 and checker.checked > 100
    # An error names only what the caller sent: a refused action is no oracle for hidden cards.
    table = current_table(game)
    waiting = next(n for n, s in VIEWERS.items() if s is not None and s != table.turn)
    hidden = table.hands[table.turn][0]
    refused = clients[waiting].post(
        url(game, "actions"),
        {"actions": [{"type": "discard", "card": hidden}], "expected_version": body["version"]},
        format="json",
    )
    assert refused.status_code == 422
    assert Counter(cards_in(refused.json())) <= Counter([hidden])
