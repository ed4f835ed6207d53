"""Table talk through the API: GET/POST /api/v1/games/{id}/chat/, mute, report; errors in the
one error shape."""

from __future__ import annotations

from games.models import ChatReport
from games.services.chat import RATE_LIMIT
from tests.api.helpers import code_of, error_of


def _url(game, tail=""):
    return f"/api/v1/games/{game.pk}/chat/{tail}"


def test_a_player_says_something_and_the_table_reads_it(game, clients):
    said = clients["carol"].post(_url(game), {"text": "Hello <b>table</b>\r\nhi"}, format="json")
    assert said.status_code == 201, said.content
    assert said.json()["text"] == "Hello <b>table</b> hi"  # plain text: the reader escapes it
    assert (said.json()["seat"], said.json()["name"], said.json()["mine"]) == (1, "carol", True)

    read = clients["alice"].get(_url(game))
    assert read.status_code == 200
    [line] = read.json()["results"]
    assert line["text"] == "Hello <b>table</b> hi" and line["mine"] is False
    assert read.json()["muted_seats"] == []


def test_spectators_get_the_error_shape(game, clients):
    response = clients["eve"].get(_url(game))
    assert code_of(response, 403) == "not_seated"
    assert code_of(clients["anonymous"].get(_url(game)), 401) == "not_authenticated"


def test_too_long_and_too_fast_are_clear_errors(game, clients):
    long = clients["alice"].post(_url(game), {"text": "y" * 501}, format="json")
    body = error_of(long, 400)
    assert body["code"] == "chat_too_long"
    assert "500" in body["message"] and "501" in body["message"]

    for number in range(RATE_LIMIT):
        ok = clients["alice"].post(_url(game), {"text": f"n{number}"}, format="json")
        assert ok.status_code == 201
    fast = clients["alice"].post(_url(game), {"text": "again"}, format="json")
    assert error_of(fast, 409)["code"] == "chat_rate_limited"
    assert error_of(fast, 409)["details"]["limit"] == RATE_LIMIT


def test_a_refusal_is_in_the_callers_language(game, clients):
    response = clients["alice"].post(
        _url(game), {"text": ""}, format="json", HTTP_ACCEPT_LANGUAGE="de"
    )
    error = error_of(response, 400)
    assert error["code"] == "chat_empty"
    assert error["message"] == "Schreiben Sie etwas, das Sie der Runde sagen möchten."


def test_mute_and_report(game, clients):
    line = clients["carol"].post(_url(game), {"text": "nonsense"}, format="json").json()
    muted = clients["alice"].post(_url(game, "mute/"), {"seat": 1}, format="json")
    assert muted.status_code == 200
    assert muted.json()["results"] == [] and muted.json()["muted_seats"] == [1]

    reported = clients["alice"].post(
        _url(game, f"{line['id']}/report/"), {"reason": "spam"}, format="json"
    )
    assert reported.status_code == 200 and reported.json() == {"reported": True}
    assert ChatReport.objects.get().reason == "spam"

    unmuted = clients["alice"].post(_url(game, "mute/"), {"seat": 1, "muted": False}, format="json")
    assert [x["text"] for x in unmuted.json()["results"]] == ["nonsense"]

    self_mute = clients["alice"].post(_url(game, "mute/"), {"seat": 0}, format="json")
    assert code_of(self_mute, 400) == "chat_mute_self"
    missing = clients["alice"].post(_url(game, "999999/report/"), {}, format="json")
    assert code_of(missing, 404) == "not_found"


def test_a_client_catches_up_from_the_last_line_it_got(game, clients):
    said = [
        clients[name].post(_url(game), {"text": f"line {n}"}, format="json").json()["id"]
        for n, name in enumerate(["alice", "carol", "bob", "dave", "alice"])
    ]
    first = clients["bob"].get(_url(game), {"after": said[0], "limit": 2}).json()["lines"]
    assert [line["text"] for line in first] == ["line 1", "line 2"]
    rest = clients["bob"].get(_url(game), {"after": first[-1]["id"], "limit": 2}).json()["lines"]
    assert [line["text"] for line in rest] == ["line 3", "line 4"]
    assert clients["bob"].get(_url(game), {"after": said[-1]}).json()["lines"] == []

    for bad in ("x", "-1", "1.5", "9" * 40):
        body = error_of(clients["bob"].get(_url(game), {"after": bad}), 400)
        assert body["code"] == "invalid_request" and "after" in body["details"]["fields"]
