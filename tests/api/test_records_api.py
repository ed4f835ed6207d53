"""Ratings, profiles, leaderboards, the rating filter of the lobby and the record export
through the API (docs/ratings.md, docs/record-format.md)."""

from __future__ import annotations

import random

from django.test import Client

from games.engine.verify import verify_record
from games.models import Game, PlayerRating, RatingChange
from games.services import lobby
from games.services.moves import game_resign
from games.services.ratings import LEADERBOARD_MIN_MATCHES, rating_display
from tests.api.helpers import error_of, url
from tests.game_fixtures import (
    play_long_enough,
    play_random,
    rated_against,
    start_game,
    user_at,
)


def _table(clients, name: str, **body):
    response = clients[name].post(
        "/api/v1/games/",
        {"variant": "classic", "players": 2, "options": {"seating": "invitation"}, **body},
        format="json",
    )
    assert response.status_code == 201, response.content
    return response.json()


def test_a_table_is_rated_unless_created_casual(clients):
    assert _table(clients, "alice")["rated"] is True
    casual = _table(clients, "bob", rated=False)
    assert casual["rated"] is False
    assert Game.objects.get(pk=casual["id"]).rated is False
    assert (
        error_of(
            clients["carol"].post(
                "/api/v1/games/", {"variant": "classic", "players": 2, "rated": "x"}, format="json"
            ),
            400,
        )["code"]
        == "invalid_request"
    )


def _rate(user, display_mu: float) -> None:
    PlayerRating.objects.create(
        user=user,
        family="classic",
        mu=display_mu,
        sigma=2.0,
        display=rating_display(display_mu, 2.0),
    )


def test_open_tables_filter_by_their_creators_rating(clients, users):
    _rate(users["alice"], 40.0)  # 1000 + 40 * (40 - 6) = 2360
    _rate(users["bob"], 20.0)  # 1560
    strong = _table(clients, "alice")["id"]
    middle = _table(clients, "bob")["id"]
    newcomer = _table(clients, "carol")["id"]  # no rating: 1000

    def listed(**query) -> set[str]:
        response = clients["eve"].get("/api/v1/games/open/", query)
        assert response.status_code == 200, response.content
        return {row["id"] for row in response.json()["results"]}

    assert listed() == {strong, middle, newcomer}
    assert listed(rating_min=2000) == {strong}
    assert listed(rating_min=1200, rating_max=2000) == {middle}
    assert listed(rating_max=1000) == {newcomer}
    assert error_of(clients["eve"].get("/api/v1/games/open/", {"rating_min": "high"}), 400)


def test_the_record_of_a_finished_match_verifies(clients, users):
    game = start_game(users, options={"target": 100})
    rng = random.Random(3)
    while game.status == "active":
        game = play_random(game, 40, rng)
    response = clients["bob"].get(url(game, "record"))
    assert response.status_code == 200
    record = response.json()
    assert record["format"] == "canasta-record" and record["game"]["id"] == str(game.pk)
    assert verify_record(record).ok
    # A public table's record is anyone's to check.
    assert clients["eve"].get(url(game, "record")).status_code == 200


def test_no_record_before_the_end_and_none_for_strangers(clients, users, private_game):
    assert error_of(clients["alice"].get(url(private_game, "record")), 409)["code"] == (
        "game_not_finished"
    )
    assert error_of(clients["eve"].get(url(private_game, "record")), 404)["code"] == "not_found"
    game_resign(game_id=private_game.pk, user=users["alice"])
    assert clients["alice"].get(url(private_game, "record")).status_code == 200
    assert error_of(clients["eve"].get(url(private_game, "record")), 404)["code"] == "not_found"
    assert error_of(clients["anonymous"].get(url(private_game, "record")), 401)


def test_a_profile_shows_ratings_history_and_results(clients, confirmed_users, game):
    users = confirmed_users
    game = play_long_enough(game)
    game_resign(game_id=game.pk, user=user_at(game, 1))  # carol's side gives up
    body = clients["eve"].get("/api/v1/players/alice/").json()
    assert body["username"] == "alice" and body["played"] == 1 and body["won"] == 1
    [rating] = body["ratings"]
    change = RatingChange.objects.get(user=users["alice"], game=game)
    assert rating["family"] == "classic" and rating["matches"] == 1
    assert rating["rating"] == change.display and rating["uncertainty"] > 0
    # One match: provisional, written with a question mark (ratings.rating_label).
    assert rating["provisional"] is True and rating["label"] == f"{change.display}?"
    assert rating["history"] == [
        {
            "game": str(game.pk),
            "at": change.created_at.isoformat().replace("+00:00", "Z"),
            "mu": change.mu,
            "sigma": change.sigma,
            "rating": change.display,
            "label": f"{change.display}?",
            "change": change.display - change.display_before,
            "rank": 1,
        }
    ]
    [classic] = body["variants"]
    assert classic["played"] == 1 and classic["win_rate"] == 1.0
    carol = clients["alice"].get("/api/v1/players/carol/").json()
    assert carol["won"] == 0 and carol["variants"][0]["win_rate"] == 0.0
    assert error_of(clients["alice"].get("/api/v1/players/nobody/"), 404)["code"] == "not_found"


def test_the_leaderboard_lists_only_players_with_enough_rated_matches(clients, users):
    for index, name in enumerate(("alice", "bob", "carol")):
        PlayerRating.objects.create(
            user=users[name],
            family="party",
            mu=30.0 - index,
            sigma=3.0,
            display=rating_display(30.0 - index, 3.0),
            matches=LEADERBOARD_MIN_MATCHES if name != "bob" else LEADERBOARD_MIN_MATCHES - 1,
        )
        others = [users[other] for other in ("alice", "bob", "carol", "dave") if other != name]
        rated_against(users[name], others, "party")
    body = clients["eve"].get("/api/v1/leaderboard/party/").json()
    assert body["minimum_matches"] == LEADERBOARD_MIN_MATCHES
    assert body["minimum_opponents"] == 3
    assert body["players"][0]["label"] == str(body["players"][0]["rating"])
    assert [(r["position"], r["username"]) for r in body["players"]] == [(1, "alice"), (2, "carol")]
    assert clients["eve"].get("/api/v1/leaderboard/classic/").json()["players"] == []
    assert error_of(clients["eve"].get("/api/v1/leaderboard/poker/"), 404)["code"] == "not_found"


def test_a_three_player_table_can_be_casual(users):
    game = lobby.game_create(creator=users["alice"], variant="party", players=3, rated=False)
    assert game.rated is False


def test_the_archive_lists_finished_matches_mine_or_public(clients, users, private_game):
    public = start_game(users)
    game_resign(game_id=private_game.pk, user=users["alice"])
    game_resign(game_id=public.pk, user=users["alice"])
    mine = clients["bob"].get("/api/v1/games/archive/").json()["results"]
    assert {row["id"] for row in mine} == {str(private_game.pk), str(public.pk)}
    assert clients["eve"].get("/api/v1/games/archive/").json()["results"] == []
    open_to_all = clients["eve"].get("/api/v1/games/archive/", {"scope": "public"}).json()
    assert [row["id"] for row in open_to_all["results"]] == [str(public.pk)]
    assert error_of(clients["eve"].get("/api/v1/games/archive/", {"scope": "all"}), 400)


def test_a_profile_does_not_name_a_private_match(clients, confirmed_users, private_game):
    # Issue 26, item 10: a private match's id is its invitation link.
    game = play_long_enough(private_game)
    game_resign(game_id=game.pk, user=user_at(game, 1))
    [rating] = clients["eve"].get("/api/v1/players/alice/").json()["ratings"]
    assert [point["game"] for point in rating["history"]] == [None]
    browser = Client()
    browser.force_login(confirmed_users["eve"])
    page = browser.get("/players/alice/").content.decode()
    assert "Rating after each match" in page and str(game.pk) not in page
