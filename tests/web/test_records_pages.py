"""Records pages: replay viewer, record download, archive, profile with its chart, the
leaderboard, rated or casual at creation and the lobby's rating filter."""

from __future__ import annotations

import html as htmllib
import json
import random
import re
from typing import Any

import pytest

from games.engine.verify import verify_record
from games.models import Game, Hand, Move, PlayerRating
from games.services import lobby
from games.services.moves import game_resign
from games.services.ratings import LEADERBOARD_MIN_MATCHES, rating_display
from games.services.records import match_frames
from tests.game_fixtures import (
    play_long_enough,
    play_random,
    rated_against,
    start_game,
    user_at,
)


def _finish(game: Game, seed: int = 2) -> Game:
    rng = random.Random(seed)
    while game.status == "active":
        game = play_random(game, 40, rng)
    return Game.objects.get(pk=game.pk)


@pytest.fixture
def finished(users) -> Game:
    return _finish(start_game(users, public=False, options={"target": 100}))


def _text(page: str) -> str:
    return htmllib.unescape(re.sub(r"<[^>]+>", " ", page))


def test_the_replay_steps_through_every_move_with_every_hand_open(finished, browser_for):
    client = browser_for("bob")
    frames = match_frames(finished)
    url = f"/games/{finished.pk}/replay/"
    page = client.get(url)
    assert page.status_code == 200
    seen = 0
    # Follow "Next" from the deal of hand 1 to the very end: one page per step.
    while True:
        body = page.content.decode()
        frame = frames[seen]
        # Every player's hand, every meld, the pile and the stock are shown as the engine's
        # replay has them at this step.
        table = frame.table
        shown_hands = dict(re.findall(r'data-seat="(\d)" data-cards="([^"]*)"', body))
        assert shown_hands == {str(s): " ".join(sorted(h)) for s, h in enumerate(table.hands)}
        shown_melds = sorted(re.findall(r'data-meld="([^"]*)"', body))
        assert shown_melds == sorted(
            f"{key}:" + ",".join(sorted(cards))
            for side in table.melds
            for key, cards in side.items()
        )
        assert f'data-pile="{len(table.discard)}" data-stock="{len(table.stock)}"' in body
        if frame.result is not None:
            assert "Score sheet of hand" in body
            # The history line's link to the sheet is not printed as a Python dict.
            assert "{&#x27;sheet&#x27;" not in body and "{'sheet'" not in body
            totals = frame.result["totals"]
            assert all(f"<td>{t:,}</td>" in body for t in totals)
        seen += 1
        following = re.search(r'id="replay-next" rel="next" href="([^"]+)"', body)
        if following is None:
            break
        page = client.get(htmllib.unescape(following.group(1)))
        assert page.status_code == 200
    assert (
        seen
        == len(frames)
        == Hand.objects.filter(game=finished).count() + Move.objects.filter(game=finished).count()
    )
    # Back one step from the end, and the keyboard script is there.
    assert 'id="replay-prev"' in body and "replay.js" in body


def test_the_replay_and_record_are_for_players_only_on_a_private_table(
    finished, browser_for, users
):
    assert browser_for("eve").get(f"/games/{finished.pk}/replay/").status_code == 404
    assert browser_for("eve").get(f"/games/{finished.pk}/record.json").status_code == 404
    assert browser_for("alice").get(f"/games/{finished.pk}/replay/?hand=99").status_code == 404
    assert browser_for("alice").get(f"/games/{finished.pk}/replay/?step=x").status_code == 404


def test_a_public_match_is_anyones_to_replay_but_only_once_over(users, browser_for):
    game = start_game(users)
    page = browser_for("eve").get(f"/games/{game.pk}/replay/")
    assert page.status_code == 409
    assert "available once the match is over" in page.content.decode()
    game_resign(game_id=game.pk, user=users["alice"])
    assert browser_for("eve").get(f"/games/{game.pk}/replay/").status_code == 200
    archive = browser_for("eve").get("/archive/").content.decode()
    assert f"/games/{game.pk}/replay/" in archive


def test_the_record_download_verifies(finished, browser_for):
    response = browser_for("alice").get(f"/games/{finished.pk}/record.json")
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment;")
    assert verify_record(json.loads(response.content)).ok


def test_the_archive_lists_my_finished_matches(finished, browser_for):
    page = browser_for("alice").get("/archive/").content.decode()
    assert f"/games/{finished.pk}/replay/" in page
    assert f"/games/{finished.pk}/record.json" in page
    assert (
        f"/games/{finished.pk}/replay/" not in browser_for("eve").get("/archive/").content.decode()
    )
    lobby_page = browser_for("alice").get("/").content.decode()
    assert f"/games/{finished.pk}/replay/" in lobby_page


def test_a_profile_shows_the_rating_chart_and_results(confirmed_users, browser_for):
    users = confirmed_users
    for seed in (1, 2):
        game = start_game(users, options={"target": 100})
        game = play_long_enough(game, seed)
        game_resign(game_id=game.pk, user=user_at(game, 1))
    page = browser_for("eve").get("/players/alice/").content.decode()
    rating = PlayerRating.objects.get(user=users["alice"], family="classic")
    # Two matches: still provisional, and shown so.
    assert f">{rating.display}?<" in page and "±" in page
    assert "provisional" in page
    points = re.search(r'<polyline points="([^"]+)"', page).group(1).split()
    assert len(points) == 3  # the start and after each of two rated matches
    assert "2 finished matches, 2 won." in _text(page)
    assert "100 %" in page
    assert browser_for("eve").get("/players/nobody/").status_code == 404
    newcomer = browser_for("alice").get("/players/eve/").content.decode()
    assert "No rated match yet" in newcomer


def test_the_leaderboard_page(users, browser_for):
    for index, name in enumerate(("bob", "carol")):
        PlayerRating.objects.create(
            user=users[name],
            family="family",
            mu=30.0 - index,
            sigma=3.0,
            display=rating_display(30.0 - index, 3.0),
            matches=LEADERBOARD_MIN_MATCHES,
        )
        rated_against(users[name], [users["alice"], users["dave"], users["eve"]], "family")
    page = browser_for("alice").get("/leaderboard/?variant=family").content.decode()
    assert page.index("/players/bob/") < page.index("/players/carol/")
    assert "at least 5 rated matches" in page
    assert browser_for("alice").get("/leaderboard/?variant=chess").status_code == 404
    assert browser_for("alice").get("/leaderboard/").status_code == 200


def _create_form(**extra: Any) -> dict[str, Any]:
    return {
        "variant": "classic",
        "players": "2",
        "bots": "0",
        "bot_level": "basic",
        "turn_seconds": "",
        "timeout_policy": "autoplay",
        "public": "on",
        "opt_classic_seating": "invitation",
        "opt_classic_black_three": "freeze",
        "opt_classic_target": "5000",
        **extra,
    }


def test_the_create_form_chooses_rated_or_casual(users, browser_for):
    client = browser_for("alice")
    form = client.get("/games/new/").content.decode()
    assert re.search(r'name="rated"[^>]*checked', form)
    client.post("/games/new/", _create_form(rated="on"))
    client.post("/games/new/", _create_form())
    rated = list(
        Game.objects.filter(created_by=users["alice"])
        .order_by("created_at")
        .values_list("rated", flat=True)
    )
    assert rated == [True, False]


def test_the_lobby_filters_open_tables_by_rating(users, browser_for):
    PlayerRating.objects.create(
        user=users["bob"], family="classic", mu=40.0, sigma=2.0, display=rating_display(40.0, 2.0)
    )
    strong = lobby.game_create(creator=users["bob"], variant="classic", players=2)
    newcomer = lobby.game_create(creator=users["carol"], variant="classic", players=2)
    client = browser_for("alice")
    every = client.get("/").content.decode()
    assert f"/games/{strong.pk}/join/" in every and f"/games/{newcomer.pk}/join/" in every
    high = client.get("/", {"rating_min": "1500"}).content.decode()
    assert f"/games/{strong.pk}/join/" in high and f"/games/{newcomer.pk}/join/" not in high
    low = client.get("/", {"rating_max": "1200"}).content.decode()
    assert f"/games/{strong.pk}/join/" not in low and f"/games/{newcomer.pk}/join/" in low
    bad = client.get("/", {"rating_min": "lots"})
    assert bad.status_code == 200 and f"/games/{strong.pk}/join/" in bad.content.decode()


@pytest.mark.parametrize(
    ("variant", "players", "options"),
    [
        ("party", 3, {"target": 100}),
        ("tiles", 4, {"match": "one_round"}),
        ("family", 4, {"target": 100}),
    ],
)
def test_every_variant_replays_and_verifies(users, browser_for, variant, players, options):
    game = lobby.game_create(
        creator=users["alice"],
        variant=variant,
        players=players,
        options={"seating": "invitation", **options},
        is_public=False,
    )
    for name in ("bob", "carol", "dave")[: players - 1]:
        game = lobby.game_join(game_id=game.pk, user=users[name])
    game = _finish(game, seed=3)
    assert game.status == "finished"
    client = browser_for("alice")
    last_hand = Hand.objects.filter(game=game).order_by("-number").first()
    steps = Move.objects.filter(game=game, hand=last_hand.number).count()
    page = client.get(f"/games/{game.pk}/replay/?hand={last_hand.number}&step={steps}")
    assert page.status_code == 200
    body = page.content.decode()
    assert "Score sheet of hand" in body
    assert len(re.findall(r'data-seat="\d"', body)) == players
    record = json.loads(client.get(f"/games/{game.pk}/record.json").content)
    report = verify_record(record)
    assert report.ok, report.problems
    assert report.totals == last_hand.result["totals"]


def test_the_game_page_of_a_finished_match_links_its_replay_and_record(finished, browser_for):
    page = browser_for("carol").get(f"/games/{finished.pk}/").content.decode()
    assert f"/games/{finished.pk}/replay/" in page
    assert f"/games/{finished.pk}/record.json" in page
