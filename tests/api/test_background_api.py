"""The API of the background work: tables with bots, time controls, seat presence (human, away,
bot), absences, email preferences and taking a seat back from a stand-in bot.

Time is moved, never slept: deadlines_sweep(now=...) applies the timeouts a beat sweep would.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import engine
from games.models import Actor, Game, Move, Seat
from games.services.bots import bot_take_turn
from games.services.moves import moves_submit
from games.services.timeouts import deadlines_sweep
from notifications.models import Absence, NotificationPreference
from tests.api.helpers import code_of, error_of, url
from tests.game_fixtures import current_table, start_game, user_at

pytestmark = pytest.mark.django_db

HOUR = 3600
ME = "/api/v1/me/"


def _when(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text is not None else None


def _iso(moment: datetime) -> str:
    return moment.isoformat()


def _create(client: Any, **body: Any) -> Any:
    body = {"variant": "classic", "players": 4, "options": {"seating": "invitation"}, **body}
    return client.post("/api/v1/games/", body, format="json")


def _seat(body: dict[str, Any], number: int) -> dict[str, Any]:
    return next(s for s in body["seats"] if s["seat"] == number)


def _timed_game(users: dict[str, Any], **kw: Any) -> Game:
    return start_game(users, turn_seconds=HOUR, **kw)


def _whole_turn(game: Game) -> Game:
    """The player to move draws and discards (through the service, as the API would)."""
    table = current_table(game)
    seat = table.turn
    after = engine.apply(table, seat, {"type": "draw"}).table
    assert not after.over and after.turn == seat
    return moves_submit(
        game_id=game.pk,
        user=user_at(game, seat),
        actions=[{"type": "draw"}, {"type": "discard", "card": after.hands[seat][0]}],
        expected_version=game.version,
    )


# --- creating tables: bots, weekend pause, the turn-time floor ---------------------------------


def test_a_table_with_bots_in_every_free_seat_is_active_at_once(clients, users):
    response = _create(clients["alice"], bots=["basic", "random", "strong"], turn_seconds=HOUR)
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "active" and body["started_at"] is not None
    bots = [s for s in body["seats"] if s["kind"] == "bot"]
    assert sorted(s["bot_level"] for s in bots) == ["basic", "random", "strong"]
    assert all(s["presence"] == "bot" and s["username"] is None for s in bots)
    assert all(s["stand_in"] is None and s["absent"] == [] for s in bots)
    mine = _seat(body, body["my_seat"])
    assert mine["presence"] == "human" and mine["bot_level"] is None
    assert mine["username"] == "alice" and mine["timeouts_in_a_row"] == 0
    assert body["turn_started_at"] is not None
    # A bot's turn has no deadline; the player's has the table's time.
    if body["my_turn"]:
        assert _when(body["deadline"]) - _when(body["turn_started_at"]) == timedelta(hours=1)
    else:
        assert body["deadline"] is None


def test_a_table_with_one_bot_waits_for_the_other_players(clients, users):
    body = _create(clients["alice"], bots=["basic"], invite=["bob"]).json()
    assert body["status"] == "open"
    kinds = sorted((s["kind"], s["presence"], s["status"]) for s in body["seats"])
    assert kinds == [
        ("bot", "bot", "joined"),
        ("human", "human", "invited"),
        ("human", "human", "joined"),
    ]
    game = clients["carol"].post(url(body["id"], "join")).json()
    assert game["status"] == "open"
    game = clients["bob"].post(url(body["id"], "join")).json()
    assert game["status"] == "active"


def test_bot_levels_are_validated(clients, users):
    response = _create(clients["alice"], bots=["genius"])
    assert "bots" in error_of(response, 400)["details"]["fields"]
    assert code_of(_create(clients["alice"], bots=["basic"] * 4), 400) == "invalid_bots"
    assert code_of(_create(clients["alice"], bots="basic"), 400) == "invalid_request"
    assert not Game.objects.exists()


def test_weekend_pause_is_stored_and_shown(clients, users):
    body = _create(clients["alice"], weekend_pause=True, public=False).json()
    assert body["weekend_pause"] is True
    assert Game.objects.get(pk=body["id"]).weekend_pause is True
    assert clients["alice"].get(url(body["id"])).json()["weekend_pause"] is True
    assert _create(clients["alice"]).json()["weekend_pause"] is False


def test_the_shortest_turn_is_the_setting_not_a_fixed_minute(clients, users, settings):
    settings.CANASTA_MIN_TURN_SECONDS = 60
    error = error_of(_create(clients["alice"], turn_seconds=3), 400)
    assert error["code"] == "invalid_time_control" and "60" in error["message"]
    settings.CANASTA_MIN_TURN_SECONDS = 2
    body = _create(clients["alice"], turn_seconds=3).json()
    assert body["turn_seconds"] == 3
    too_long = 14 * 24 * HOUR + 1
    assert code_of(_create(clients["alice"], turn_seconds=too_long), 400) == (
        "invalid_time_control"
    )


# --- presence: away after timeouts, and taking the seat back -----------------------------------


def test_a_seat_is_away_after_its_timeouts_and_everyone_sees_the_stand_in(clients, users, settings):
    settings.CANASTA_TIMEOUTS_BEFORE_BOT = 1
    game = _timed_game(users)
    silent = game.turn_seat
    name = user_at(game, silent).username
    body = clients["alice"].get(url(game)).json()
    assert _seat(body, silent)["presence"] == "human"

    assert deadlines_sweep(now=game.deadline + timedelta(seconds=1))["timeouts"] == 1

    for viewer in ("alice", "carol", "eve"):  # partners, opponents, spectators of a public game
        seat = _seat(clients[viewer].get(url(game)).json(), silent)
        assert (seat["username"], seat["presence"]) == (name, "away")
        assert (seat["stand_in"], seat["bot_level"], seat["timeouts_in_a_row"]) == (
            "basic",
            None,
            1,
        )
    log = clients["alice"].get(url(game, "moves")).json()["results"]
    assert [(m["seat"], m["actor"]) for m in log][:2] == [(silent, "system")] * 2
    assert [m["action"]["type"] for m in log][:2] == ["draw", "discard"]


def test_timeouts_in_a_row_count_up_before_a_bot_stands_in(clients, users, settings):
    settings.CANASTA_TIMEOUTS_BEFORE_BOT = 3
    game = _timed_game(users)
    silent = game.turn_seat
    deadlines_sweep(now=game.deadline + timedelta(seconds=1))
    seat = _seat(clients["alice"].get(url(game)).json(), silent)
    assert (seat["presence"], seat["timeouts_in_a_row"], seat["stand_in"]) == ("human", 1, None)


def test_a_player_takes_the_seat_back_from_the_bot_on_their_turn(clients, users, settings):
    settings.CANASTA_TIMEOUTS_BEFORE_BOT = 1
    game = _timed_game(users)
    silent = game.turn_seat
    player = user_at(game, silent)
    deadlines_sweep(now=game.deadline + timedelta(seconds=1))
    game = Game.objects.get(pk=game.pk)
    while game.turn_seat != silent:  # the others play their turns
        game = _whole_turn(game)
    assert game.bot_turn and game.deadline is None  # the bot is about to play for them
    before = clients[player.username].get(url(game)).json()
    assert before["my_turn"] and before["deadline"] is None

    response = clients[player.username].post(url(game, "reclaim"))

    assert response.status_code == 200, response.content
    body = response.json()
    seat = _seat(body, silent)
    assert (seat["presence"], seat["stand_in"], seat["timeouts_in_a_row"]) == ("human", None, 0)
    assert body["version"] == before["version"] + 1
    started, deadline = _when(body["turn_started_at"]), _when(body["deadline"])
    assert deadline - started == timedelta(hours=1)
    assert abs(timezone.now() - started) < timedelta(minutes=1)  # a fresh turn, from now
    game.refresh_from_db()
    assert not game.bot_turn
    assert bot_take_turn(game_id=game.pk) is False  # the bot has nothing left to play


def test_reclaiming_before_ones_turn_keeps_the_other_players_clock(clients, users, settings):
    settings.CANASTA_TIMEOUTS_BEFORE_BOT = 1
    game = _timed_game(users)
    silent = game.turn_seat
    player = user_at(game, silent)
    deadlines_sweep(now=game.deadline + timedelta(seconds=1))
    game.refresh_from_db()
    deadline = game.deadline

    body = clients[player.username].post(url(game, "reclaim")).json()

    assert _seat(body, silent)["presence"] == "human"
    assert body["turn"] != silent and _when(body["deadline"]) == deadline
    assert not Seat.objects.get(game=game, number=silent).away


def test_reclaiming_a_seat_nobody_stands_in_for_changes_nothing(clients, users):
    game = _timed_game(users)
    response = clients["alice"].post(url(game, "reclaim"))
    assert response.status_code == 200
    assert response.json()["version"] == game.version
    assert _seat(response.json(), response.json()["my_seat"])["presence"] == "human"


def test_only_players_of_a_game_in_play_can_reclaim(clients, users, game, private_game):
    assert code_of(clients["eve"].post(url(game, "reclaim")), 403) == "not_seated"
    assert code_of(clients["eve"].post(url(private_game, "reclaim")), 404) == "not_found"
    assert code_of(clients["anonymous"].post(url(game, "reclaim")), 401) == "not_authenticated"
    clients["alice"].post(url(game, "resign"))
    assert code_of(clients["bob"].post(url(game, "reclaim")), 409) == "game_not_active"


def test_a_forfeit_shows_as_the_result(clients, users):
    game = _timed_game(users, timeout_policy="forfeit")
    loser = game.turn_seat % 2
    deadlines_sweep(now=game.deadline + timedelta(seconds=1))
    body = clients["alice"].get(url(game)).json()
    assert body["status"] == "finished" and body["deadline"] is None
    assert body["result"] == {"reason": "forfeit", "winner": 1 - loser}
    last = clients["alice"].get(url(game, "moves")).json()["results"][-1]
    assert (last["actor"], last["action"]) == ("system", {"type": "timeout", "policy": "forfeit"})


# --- email preferences ---------------------------------------------------------------------


def test_preferences_have_defaults_and_change_field_by_field(clients, users):
    assert clients["alice"].get(ME + "preferences/").json() == {
        "email_mode": "every_turn",
        "digest_hour": 7,
        "turn_email_delay_minutes": 0,  # the site's default (tests/conftest.py)
        "auto_draw": None,  # alice has never played by email
        "language": "en",
        "time_zone": "UTC",
    }
    same = {
        "auto_draw": None,
        "language": "en",
        "time_zone": "UTC",
        "turn_email_delay_minutes": 0,
    }
    response = clients["alice"].patch(ME + "preferences/", {"email_mode": "digest"}, format="json")
    assert response.json() == {"email_mode": "digest", "digest_hour": 7, **same}
    response = clients["alice"].patch(ME + "preferences/", {"digest_hour": 20}, format="json")
    assert response.json() == {"email_mode": "digest", "digest_hour": 20, **same}
    stored = NotificationPreference.objects.get(user=users["alice"])
    assert (stored.email_mode, stored.digest_hour) == ("digest", 20)
    assert clients["bob"].get(ME + "preferences/").json()["email_mode"] == "every_turn"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"email_mode": "hourly"}, "email_mode"),
        ({"digest_hour": 24}, "digest_hour"),
        ({"turn_email_delay_minutes": -1}, "turn_email_delay_minutes"),
        ({"turn_email_delay_minutes": 121}, "turn_email_delay_minutes"),
    ],
)
def test_bad_preferences_are_refused(clients, users, body, field):
    response = clients["alice"].patch(ME + "preferences/", body, format="json")
    assert field in error_of(response, 400)["details"]["fields"]
    assert not NotificationPreference.objects.exists()


def test_an_email_player_turns_the_forced_draw_off_and_on(clients, users):
    from mailplay.services.autodraw import auto_draw_wanted, mail_player_set

    # Not an email player yet: refused, and nothing else in the request is applied either.
    refused = clients["bob"].patch(
        ME + "preferences/", {"auto_draw": False, "digest_hour": 9}, format="json"
    )
    assert code_of(refused, 400) == "not_an_email_player"
    assert not NotificationPreference.objects.filter(user=users["bob"]).exists()

    mail_player_set(user=users["bob"], auto_draw=True)
    assert clients["bob"].get(ME + "preferences/").json()["auto_draw"] == "pile_closed"
    off = clients["bob"].patch(ME + "preferences/", {"auto_draw": "off"}, format="json")
    assert off.json()["auto_draw"] == "off"
    assert not auto_draw_wanted(user_id=users["bob"].pk, pile_closed=True)
    on = clients["bob"].patch(ME + "preferences/", {"auto_draw": "always"}, format="json")
    assert on.json()["auto_draw"] == "always"
    assert auto_draw_wanted(user_id=users["bob"].pk, pile_closed=False)
    # The old switch still works: true is pile_closed, false is off.
    switch = clients["bob"].patch(ME + "preferences/", {"auto_draw": True}, format="json")
    assert switch.json()["auto_draw"] == "pile_closed"
    assert auto_draw_wanted(user_id=users["bob"].pk, pile_closed=True)
    assert not auto_draw_wanted(user_id=users["bob"].pk, pile_closed=False)
    bad = clients["bob"].patch(ME + "preferences/", {"auto_draw": "sometimes"}, format="json")
    assert code_of(bad, 400) == "invalid_request"


def test_preferences_need_a_signed_in_user(clients):
    anonymous = clients["anonymous"]
    assert code_of(anonymous.get(ME + "preferences/"), 401) == "not_authenticated"
    response = anonymous.patch(ME + "preferences/", {"email_mode": "none"}, format="json")
    assert code_of(response, 401) == "not_authenticated"


# --- absences -----------------------------------------------------------------------------


def _declare(client: Any, **body: Any) -> Any:
    return client.post(ME + "absences/", body, format="json")


def test_an_absence_is_declared_listed_and_counted(clients, users):
    now = timezone.now()
    response = _declare(clients["alice"], ends_at=_iso(now + timedelta(days=2)))
    assert response.status_code == 201, response.content
    current = response.json()
    assert current["state"] == "current"
    coming = _declare(
        clients["alice"],
        starts_at=_iso(now + timedelta(days=10)),
        ends_at=_iso(now + timedelta(days=11)),
    ).json()
    assert coming["state"] == "upcoming"

    listed = clients["alice"].get(ME + "absences/").json()
    assert [a["id"] for a in listed["absences"]] == [current["id"], coming["id"]]
    assert listed["year"] == now.year and listed["days_per_year"] == 30
    assert 0 < listed["days_used"] <= 3
    assert clients["bob"].get(ME + "absences/").json()["absences"] == []


def test_an_absence_moves_the_deadline_and_the_table_sees_it(clients, users):
    game = _timed_game(users)
    player = user_at(game, game.turn_seat)
    partner = next(n for n in ("alice", "bob", "carol", "dave") if n != player.username)
    before = clients[partner].get(url(game)).json()
    starts = timezone.now() + timedelta(minutes=10)
    ends = starts + timedelta(days=1)

    _declare(clients[player.username], starts_at=_iso(starts), ends_at=_iso(ends))

    after = clients[partner].get(url(game)).json()
    assert after["version"] == before["version"] + 1  # a new ETag: clients see the change
    assert _when(after["deadline"]) == _when(before["deadline"]) + timedelta(days=1)
    shown = _seat(after, game.turn_seat)["absent"]
    assert [(_when(a["starts_at"]), _when(a["ends_at"])) for a in shown] == [(starts, ends)]
    assert all(s["absent"] == [] for s in after["seats"] if s["seat"] != game.turn_seat)


def test_a_finished_game_shows_no_absences(clients, users, game):
    _declare(clients["bob"], ends_at=_iso(timezone.now() + timedelta(days=1)))
    assert any(s["absent"] for s in clients["alice"].get(url(game)).json()["seats"])
    clients["alice"].post(url(game, "resign"))
    assert all(s["absent"] == [] for s in clients["alice"].get(url(game)).json()["seats"])


@pytest.mark.parametrize(
    ("starts", "ends", "code"),
    [
        (timedelta(days=2), timedelta(days=1), "invalid_absence"),
        (timedelta(days=-2), timedelta(days=1), "absence_in_the_past"),
        (timedelta(days=1), timedelta(days=40), "absence_limit"),
    ],
)
def test_a_bad_absence_is_refused_in_the_error_shape(clients, users, starts, ends, code):
    # Mid-year, so the 39-day absence lies in one calendar year: from about 1 to 21 December
    # it would span New Year, and neither year alone would pass the 30-day bound.
    with time_machine.travel(datetime(2026, 6, 1, 12, tzinfo=UTC), tick=True):
        now = timezone.now()
        response = _declare(
            clients["alice"], starts_at=_iso(now + starts), ends_at=_iso(now + ends)
        )
    assert code_of(response, 400) == code
    assert not Absence.objects.exists()


def test_overlapping_absences_are_refused(clients, users):
    now = timezone.now()
    first = _declare(clients["alice"], ends_at=_iso(now + timedelta(days=3))).json()
    response = _declare(
        clients["alice"],
        starts_at=_iso(now + timedelta(days=2)),
        ends_at=_iso(now + timedelta(days=4)),
    )
    error = error_of(response, 400)
    assert error["code"] == "absence_overlaps" and error["details"]["absence"]["id"] == first["id"]


def test_a_malformed_absence_is_an_invalid_request(clients, users):
    assert code_of(_declare(clients["alice"], ends_at="next tuesday"), 400) == "invalid_request"
    assert code_of(_declare(clients["alice"]), 400) == "invalid_request"


def test_declaring_an_absence_is_idempotent_with_a_key(clients, users):
    body = {"ends_at": _iso(timezone.now() + timedelta(days=1))}
    first = clients["alice"].post(
        ME + "absences/", body, format="json", HTTP_IDEMPOTENCY_KEY="vacation-1"
    )
    again = clients["alice"].post(
        ME + "absences/", body, format="json", HTTP_IDEMPOTENCY_KEY="vacation-1"
    )
    assert first.status_code == again.status_code == 201
    assert again["Idempotent-Replayed"] == "true" and again.json() == first.json()
    assert Absence.objects.count() == 1


def test_cancelling_a_coming_absence_removes_it(clients, users):
    game = _timed_game(users)
    player = user_at(game, game.turn_seat)
    deadline = game.deadline
    starts = timezone.now() + timedelta(minutes=10)
    absence = _declare(
        clients[player.username], starts_at=_iso(starts), ends_at=_iso(starts + timedelta(days=1))
    ).json()
    game.refresh_from_db()
    assert game.deadline > deadline

    response = clients[player.username].delete(ME + f"absences/{absence['id']}/")

    assert response.status_code == 204
    assert not Absence.objects.exists()
    game.refresh_from_db()
    assert game.deadline == deadline


def test_cancelling_an_absence_under_way_ends_it_now(clients, users):
    absence = _declare(clients["alice"], ends_at=_iso(timezone.now() + timedelta(days=1))).json()
    response = clients["alice"].delete(ME + f"absences/{absence['id']}/")
    assert response.status_code == 200
    ended = response.json()
    assert ended["id"] == absence["id"] and ended["state"] == "over"
    assert _when(ended["ends_at"]) <= timezone.now()


def test_other_peoples_absences_are_invisible_and_past_ones_stay(clients, users):
    absence = _declare(clients["alice"], ends_at=_iso(timezone.now() + timedelta(days=1))).json()
    assert code_of(clients["bob"].delete(ME + f"absences/{absence['id']}/"), 404) == "not_found"
    assert code_of(clients["bob"].delete(ME + "absences/999999/"), 404) == "not_found"
    assert Absence.objects.filter(pk=absence["id"]).exists()

    over = Absence.objects.create(
        user=users["alice"],
        starts_at=timezone.now() - timedelta(days=3),
        ends_at=timezone.now() - timedelta(days=2),
    )
    assert code_of(clients["alice"].delete(ME + f"absences/{over.pk}/"), 409) == "absence_over"


def test_absences_need_a_signed_in_user(clients, users):
    anonymous = clients["anonymous"]
    assert code_of(anonymous.get(ME + "absences/"), 401) == "not_authenticated"
    future = _iso(timezone.now() + timedelta(days=1))
    assert code_of(_declare(anonymous, ends_at=future), 401) == "not_authenticated"
    assert code_of(anonymous.delete(ME + "absences/1/"), 401) == "not_authenticated"


# --- query counts --------------------------------------------------------------------------


def _queries(call: Any) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert call().status_code == 200
    return len(queries.captured_queries)


def test_a_page_of_games_reads_every_players_absences_in_one_query(clients, users):
    list_games = lambda: clients["alice"].get("/api/v1/games/")  # noqa: E731
    _timed_game(users)
    for name in ("alice", "bob", "carol", "dave"):
        _declare(clients[name], ends_at=_iso(timezone.now() + timedelta(days=1)))
    one = _queries(list_games)
    for _ in range(3):
        _timed_game(users)
    _create(clients["alice"], bots=["basic", "basic", "basic"])
    assert len(clients["alice"].get("/api/v1/games/").json()["results"]) == 5
    assert _queries(list_games) == one
    rows = clients["alice"].get("/api/v1/games/").json()["results"]
    assert all(len(s["absent"]) == 1 for g in rows for s in g["seats"] if s["kind"] == "human")


def test_a_bot_game_is_played_by_the_bots_between_the_players_turns(clients, users):
    body = _create(clients["alice"], bots=["basic", "basic", "basic"]).json()
    game = Game.objects.get(pk=body["id"])
    for _ in range(10):
        game.refresh_from_db()
        if not game.bot_turn:
            break
        assert bot_take_turn(game_id=game.pk)
    assert clients["alice"].get(url(game)).json()["my_turn"]
    bots = {s.number for s in game.seats.all() if s.kind == "bot"}
    assert {m.seat for m in Move.objects.filter(game=game, actor=Actor.BOT)} <= bots
