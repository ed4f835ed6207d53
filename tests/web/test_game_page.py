"""The game page: what it shows (and never shows), the table fragment and its ETag."""

from __future__ import annotations

import re
from typing import Any

from games.models import Game, Hand
from games.services.moves import moves_submit
from tests.game_fixtures import current_table, start_game
from tests.web.tables import HIDDEN_NAMES, SHOWN_TABLE, going_out_table, set_table


def _page(client: Any, game: Game) -> str:
    response = client.get(f"/games/{game.pk}/")
    assert response.status_code == 200
    return response.content.decode()


def _hand_codes(html: str) -> list[str]:
    return sorted(re.findall(r'name="card" value="([^"]+)"', html))


def _hand_section(html: str) -> str:
    return html.split('id="hand-h"', 1)[1].split("</form>", 1)[0]


def test_it_shows_the_table_as_my_seat_sees_it(users: Any, browser_for: Any) -> None:
    game = set_table(start_game(users, turn_seconds=86400), SHOWN_TABLE)
    html = _page(browser_for("alice"), game)
    # my hand, sorted high to low and grouped by rank, wild cards last
    assert _hand_codes(html) == sorted(SHOWN_TABLE["hands"][0])
    groups = re.findall(r'class="hand-group" role="group" aria-label="([^"]+)"', html)
    assert groups == ["Kings", "Sevens", "Fives", "Fours", "Wild cards"]
    assert "King of hearts" in html and ">♥<" in html and ">h<" in html
    # melds, with canastas shown as canastas
    assert "canasta-natural" in html and "Natural canasta" in html
    assert "canasta-mixed" in html and "Mixed canasta" in html
    assert re.search(r"Tens <small>3</small>", html)
    # the pile: top card and size; not frozen for alice, whose side has melded
    assert re.search(r'class="pile-top"><span class="card suit-s" title="Jack of spades"', html)
    assert "3 cards" in html and "not frozen" in html
    assert "Stock: 3 cards" in html
    # red threes, scores, the other side's initial-meld minimum (score 1,600: 90 points)
    assert html.count('title="3 of diamonds"') == 2 and "3 of hearts" in html
    assert "Score <strong>1,200</strong>" in html and "Score <strong>1,600</strong>" in html
    assert "First meld: at least <strong>90</strong> points" in html
    # whose turn, and the deadline
    assert "Your turn" in html and "Draw from the stock, or take the discard pile." in html
    assert re.search(r'Deadline <time datetime="\d{4}-', html)
    assert "Draw from the stock</button>" in html
    # No jack in alice's hand: the engine allows no way to take the pile, so none is offered.
    assert "Take the pile</button>" not in html and 'id="stock"' in html


def test_it_never_shows_other_players_cards_or_the_current_seed(
    game: Game, browser_for: Any
) -> None:
    game = set_table(game, SHOWN_TABLE)
    seed = Hand.objects.get(game=game, number=1).seed
    for url in (f"/games/{game.pk}/", f"/games/{game.pk}/table/"):
        html = browser_for("alice").get(url).content.decode()
        for name in HIDDEN_NAMES:
            assert name not in html, name
        assert seed not in html
        assert Hand.objects.get(game=game, number=1).commitment in html


def test_a_spectator_sees_no_hand(game: Game, browser_for: Any) -> None:
    game = set_table(game, SHOWN_TABLE)
    html = _page(browser_for("eve"), game)
    assert "Your hand" not in html and 'name="card"' not in html
    assert "King of hearts" not in html  # alice's
    assert "Waiting for alice to draw." in html


def test_a_private_game_is_not_found_for_others(private_game: Game, browser_for: Any) -> None:
    eve = browser_for("eve")
    for url in ("", "table/"):
        assert eve.get(f"/games/{private_game.pk}/{url}").status_code == 404
    for url in ("move/", "resign/", "abort/"):
        assert eve.post(f"/games/{private_game.pk}/{url}", {"op": "draw"}).status_code == 404
    assert browser_for("bob").get(f"/games/{private_game.pk}/").status_code == 200


def test_the_fragment_answers_304_while_nothing_changed(game: Game, browser_for: Any) -> None:
    client = browser_for("alice")
    response = client.get(f"/games/{game.pk}/table/")
    tag = response["ETag"]
    assert response.content.decode().lstrip().startswith('<div id="table"')
    assert client.get(f"/games/{game.pk}/table/", HTTP_IF_NONE_MATCH=tag).status_code == 304
    table = current_table(game)
    seat_user = {0: "alice", 1: "carol", 2: "bob", 3: "dave"}[table.turn]
    moves_submit(
        game_id=game.pk,
        user=game.seats.get(user__username=seat_user).user,
        actions=[{"type": "draw"}],
        expected_version=game.version,
    )
    fresh = client.get(f"/games/{game.pk}/table/", HTTP_IF_NONE_MATCH=tag)
    assert fresh.status_code == 200 and fresh["ETag"] != tag


def test_the_history_and_past_hands_with_their_seeds(game: Game, browser_for: Any) -> None:
    game = set_table(game, going_out_table(0))
    alice = browser_for("alice")
    response = alice.post(
        f"/games/{game.pk}/move/", {"version": str(game.version), "op": "discard", "card": "5S"}
    )
    assert response.status_code == 302
    first, second = Hand.objects.filter(game=game).order_by("number")
    # First the score sheet of hand 1, with every hand revealed, until alice has read it.
    html = _page(alice, game)
    assert "Hand 1: the score sheet" in html
    assert "Natural canastas</th><td>1 × 500 = 500</td><td>—</td>" in html
    assert "You went out." in html and "Going out</th><td>went out: +100</td>" in html
    # every hand revealed: bob's, carol's and dave's last cards, and alice's none
    assert "no cards left" in html and html.count("3 cards left:") == 3
    assert "King of clubs" in html and "10 of diamonds" in html
    assert second.seed not in html and 'id="move-form"' not in html
    response = alice.post(f"/games/{game.pk}/scores/1/seen/")
    assert response.status_code == 302
    html = _page(alice, game)
    assert "Hand 1: the score sheet" not in html
    assert "Hand 2" in html and "Hand 1" in html
    assert first.seed in html  # revealed: the hand is over
    assert second.seed not in html and second.commitment in html
    assert "Seed revealed when the hand ends." in html
    assert "You went out: the hand is over." in html
    assert re.search(r"Hand 1 scored: your side [\d,]+, carol &amp; dave -?[\d,]+\.", html)
    assert re.search(r"Match totals: your side [\d,]+, carol &amp; dave -?[\d,]+\.", html)
    # alice deals hand 2: her own deal is told to her in the second person.
    assert current_table(game).dealer == 0
    assert "You deal hand 2." in html and "dealt by You" not in html
    # hand 2's cards are there (the hand number no longer hides them)
    shown = re.findall(r'<span class="vh">([^<]+)</span>', _hand_section(html))
    assert len(shown) == len(current_table(game).hands[0]) > 0


def test_the_history_shows_my_draws_but_only_counts_of_others(game: Game, browser_for: Any) -> None:
    table = current_table(game)
    names = {0: "alice", 1: "carol", 2: "bob", 3: "dave"}
    user = game.seats.get(user__username=names[table.turn]).user
    game = moves_submit(
        game_id=game.pk, user=user, actions=[{"type": "draw"}], expected_version=game.version
    )
    drawn = current_table(game).hands[table.turn]
    mine = _page(browser_for(names[table.turn]), game)
    other = _page(browser_for(names[(table.turn + 1) % 4]), game)
    assert re.search(r"You drew <span class=\"cards\">", mine)
    assert re.search(rf"{names[table.turn]} drew \d cards?\.", other)
    assert len(drawn) == 12


def test_tiles_tables_show_tiles(users: Any, browser_for: Any) -> None:
    from games.services import lobby

    game = lobby.game_create(
        creator=users["alice"], variant="tiles", players=4, options={"seating": "invitation"}
    )
    for name in ("carol", "bob", "dave"):
        lobby.game_join(game_id=game.pk, user=users[name])
    html = _page(browser_for("alice"), game)
    hand = current_table(game).hands[0]
    colours = {"H": "red", "D": "yellow", "S": "black", "C": "blue"}
    numbers = {"A": "1", "T": "10", "J": "11", "Q": "12", "K": "13"}
    for code in hand:
        name = "joker" if code == "JK" else f"{numbers.get(code[0], code[0])} {colours[code[1]]}"
        assert f'title="{name}"' in html
    assert "tiles</small>" in html and "♠" not in _hand_section(html)
