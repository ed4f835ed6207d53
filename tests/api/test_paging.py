"""One paging convention for every list (issue 29): `cursor` and `limit` in, `results` and
`next_cursor` out. Paging through a list with its cursors gives each item once, in order,
even when items are added between two pages; a cursor that cannot be read is 400
invalid_cursor; the old forms give the same items, with the Deprecation, Sunset and Link
headers."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from email.utils import format_datetime
from typing import Any
from uuid import UUID, uuid4

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from api.deprecation import PAGING_DEPRECATED, PAGING_SUNSET
from api.paging import Keyset, invalid_cursor
from api.views import lobby as lobby_views
from clients import selectors as feed
from clients.models import Webhook, WebhookDelivery
from clients.services.tokens import token_create
from games.models import Game, GameStatus
from games.services import lobby
from games.services.chat import chat_post
from tests.api.helpers import code_of, url
from tests.clients.helpers import whole_turn
from tests.game_fixtures import play_random, user_at

pytestmark = pytest.mark.django_db

# Every way a cursor can be wrong: not base64, not JSON, not a list, too long, another
# list's, the wrong types, a naive time, a negative or boolean position.
BAD_CURSORS = [
    "x",
    "%%%",
    "!!!!",
    base64.urlsafe_b64encode(b"not json").decode(),
    base64.urlsafe_b64encode(b'{"a": 1}').decode(),
    "A" * 600,
    Keyset("other", ("id",), (int,)).encode([1]),
    base64.urlsafe_b64encode(b'["moves","x"]').decode(),
    base64.urlsafe_b64encode(b'["moves",-1]').decode(),
    base64.urlsafe_b64encode(b'["moves",true]').decode(),
    base64.urlsafe_b64encode(b'["games","2026-01-01T00:00:00","nope"]').decode(),
    base64.urlsafe_b64encode(b'["moves"]').decode(),
    base64.urlsafe_b64encode(
        b'["games","9999-12-31T23:59:59-23:59","' + b"0" * 32 + b'"]'
    ).decode(),
    base64.urlsafe_b64encode(b"\xff\xfe").decode(),
]


@pytest.fixture(autouse=True)
def fresh_throttles() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


def _walk(
    client: Any, path: str, params: dict[str, Any], between: Callable[[], None] | None = None
) -> list[dict[str, Any]]:
    """Every item of a list, page by page with its cursors; `between` runs after each page."""
    seen: list[dict[str, Any]] = []
    cursor = None
    for _ in range(200):
        response = client.get(path, {**params, **({"cursor": cursor} if cursor else {})})
        assert response.status_code == 200, response.content[:300]
        body = response.json()
        if cursor:
            # The new form: no old field, and so no deprecation header.
            assert "Deprecation" not in response and set(body) >= {"results", "next_cursor"}
        seen += body["results"]
        if between is not None:
            between()
        cursor = body["next_cursor"]
        if cursor is None or not body["results"]:
            return seen
    raise AssertionError("the list did not end")


def _times(count: int, action: Callable[[], object]) -> Callable[[], None]:
    """`action` after each of the first `count` pages only: a growing list then ends."""
    left = [count]

    def between() -> None:
        if left[0] > 0:
            left[0] -= 1
            action()

    return between


def _deprecated(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.content[:300]
    assert response["Deprecation"] == f"@{int(PAGING_DEPRECATED.timestamp())}"
    assert response["Sunset"] == "Wed, 02 Jun 2027 00:00:00 GMT" == _http_date(PAGING_SUNSET)
    assert 'rel="deprecation"' in response["Link"]
    return response.json()


def _http_date(moment: datetime) -> str:
    return format_datetime(moment, usegmt=True)


def _refuses_bad_cursors(client: Any, path: str, params: dict[str, Any] | None = None) -> None:
    for bad in BAD_CURSORS:
        response = client.get(path, {**(params or {}), "cursor": bad})
        assert code_of(response, 400) == "invalid_cursor", bad


def test_a_cursor_names_a_position_of_its_own_list_only():
    keyset = Keyset("games", ("-created_at", "id"), (datetime, UUID))
    game_id = uuid4()
    moment = timezone.now()
    cursor = keyset.encode([moment, game_id])
    assert "=" not in cursor and keyset.decode(cursor) == (moment, game_id)
    assert json.loads(base64.urlsafe_b64decode(cursor + "=="))[0] == "games"
    with pytest.raises(type(invalid_cursor())):
        Keyset("archive", keyset.order, keyset.types).decode(cursor)


# -- the games lists ---------------------------------------------------------------------------


def _tables(users: dict[str, Any], count: int) -> list[Game]:
    return [
        Game.objects.get(
            pk=lobby.game_create(creator=users["alice"], variant="classic", players=2).pk
        )
        for _ in range(count)
    ]


def test_my_games_page_by_cursor_once_each_while_tables_are_created(clients, users, game):
    tables = _tables(users, 6)
    # Two tables made in the same microsecond: the id keeps them apart.
    Game.objects.filter(pk__in=[tables[2].pk, tables[3].pk]).update(created_at=tables[2].created_at)
    expected = [
        str(pk) for pk in Game.objects.order_by("-created_at", "id").values_list("pk", flat=True)
    ]
    seen = _walk(
        clients["alice"], "/api/v1/games/", {"limit": 2}, lambda: _tables(users, 1) and None
    )
    assert [g["id"] for g in seen] == expected


def test_the_archive_pages_by_cursor(clients, users):
    tables = _tables(users, 5)
    now = timezone.now()
    for n, table in enumerate(tables):
        Game.objects.filter(pk=table.pk).update(
            status=GameStatus.FINISHED, finished_at=now - timedelta(minutes=n % 3)
        )
    expected = [
        str(pk)
        for pk in Game.objects.filter(status=GameStatus.FINISHED)
        .order_by("-finished_at", "id")
        .values_list("pk", flat=True)
    ]
    seen = _walk(clients["alice"], "/api/v1/games/archive/", {"limit": 2})
    assert [g["id"] for g in seen] == expected


def test_the_games_lists_old_page_numbers_still_work_and_say_they_are_deprecated(clients, users):
    _tables(users, 5)
    first = clients["alice"].get("/api/v1/games/", {"limit": 2}).json()
    second = clients["alice"].get("/api/v1/games/", {"limit": 2, "cursor": first["next_cursor"]})
    old = _deprecated(clients["alice"].get("/api/v1/games/", {"page": 2, "page_size": 2}))
    assert old["results"] == second.json()["results"]
    assert old["count"] == 5 and "page=3" in old["next"] and old["previous"]
    assert old["next_cursor"] == second.json()["next_cursor"]
    # A bare first page is the old form's first page too (an old client follows `next`).
    bare = _deprecated(clients["alice"].get("/api/v1/games/"))
    assert bare["count"] == 5 and bare["next"] is None and bare["next_cursor"] is None


def test_the_old_form_counts_only_as_far_as_it_reaches(clients, users, monkeypatch):
    """The old form's `count` and page numbers reach OLD_FORM_REACH games (the public archive
    grows with every match: counting it all on every first page would cost what exists);
    `next_cursor` goes on past them, and a page number beyond is 404."""
    monkeypatch.setattr(lobby_views, "OLD_FORM_REACH", 3)
    _tables(users, 5)
    alice = clients["alice"]
    first = _deprecated(alice.get("/api/v1/games/", {"page_size": 2}))
    assert first["count"] == 3 and "page=2" in first["next"]
    last = _deprecated(alice.get("/api/v1/games/", {"page": 2, "page_size": 2}))
    assert len(last["results"]) == 1 and last["next"] is None
    assert last["next_cursor"] is not None  # more games than the old form reaches
    rest = _walk(alice, "/api/v1/games/", {"limit": 2, "cursor": last["next_cursor"]})
    everything = first["results"] + last["results"] + rest
    assert len({g["id"] for g in everything}) == len(everything) == 5
    assert code_of(alice.get("/api/v1/games/", {"page": 3, "page_size": 2}), 404)
    with CaptureQueriesContext(connection) as queries:
        alice.get("/api/v1/games/archive/")
    counts = [q["sql"] for q in queries if "COUNT(" in q["sql"].upper()]
    assert counts and all("LIMIT 4" in sql for sql in counts), counts


def test_the_old_form_within_its_reach_ends_where_the_list_ends(clients, users, monkeypatch):
    monkeypatch.setattr(lobby_views, "OLD_FORM_REACH", 5)
    _tables(users, 5)
    last = _deprecated(clients["alice"].get("/api/v1/games/", {"page": 3, "page_size": 2}))
    assert last["count"] == 5 and last["next"] is None and last["next_cursor"] is None


@pytest.mark.parametrize(
    "path", ["/api/v1/games/", "/api/v1/games/open/", "/api/v1/games/archive/"]
)
def test_the_games_lists_refuse_a_bad_cursor(clients, path):
    _refuses_bad_cursors(clients["alice"], path)


# -- the move log -------------------------------------------------------------------------------


def test_the_move_log_pages_by_cursor_while_moves_are_played(clients, game):
    game = whole_turn(whole_turn(whole_turn(game)))
    played = {"game": game}

    def more() -> None:
        played["game"] = whole_turn(played["game"])

    seen = _walk(clients["alice"], url(game, "moves"), {"limit": 2}, _times(3, more))
    last = Game.objects.get(pk=game.pk).last_seq
    assert [m["seq"] for m in seen] == list(range(1, last + 1))
    assert last >= 12


def test_the_move_log_old_after_still_works(clients, game):
    play_random(game, 5)
    first = clients["alice"].get(url(game, "moves"), {"limit": 2}).json()
    new = clients["alice"].get(url(game, "moves"), {"cursor": first["next_cursor"]}).json()
    old = _deprecated(clients["alice"].get(url(game, "moves"), {"after": 2}))
    assert old["moves"] == old["results"] == new["results"] and old["has_more"] is False
    assert set(new) == {"results", "next_cursor", "version", "last_seq"}
    _refuses_bad_cursors(clients["alice"], url(game, "moves"))


# -- the event feed -----------------------------------------------------------------------------


def test_the_event_feed_pages_by_cursor_while_events_come(clients, users, game):
    played = {"game": whole_turn(whole_turn(game))}

    def more() -> None:
        played["game"] = whole_turn(played["game"])

    seen = _walk(clients["alice"], "/api/v1/events/", {"limit": 2, "wait": 0}, _times(3, more))
    assert [e["id"] for e in seen] == [
        e.pk for e in feed.events_after(user=users["alice"], after=0)
    ]
    assert len(seen) >= 4


def test_the_event_feed_after_and_last_id_still_work(clients, users, game):
    whole_turn(whole_turn(game))
    old = _deprecated(clients["alice"].get("/api/v1/events/", {"after": 0, "wait": 0}))
    assert old["events"] == old["results"] and old["last_id"] == old["results"][-1]["id"]
    new = clients["alice"].get("/api/v1/events/", {"cursor": old["next_cursor"], "wait": 0})
    assert new.json()["results"] == [] and new.json()["last_id"] == old["last_id"]
    _refuses_bad_cursors(clients["alice"], "/api/v1/events/", {"wait": 0})


# -- chat ---------------------------------------------------------------------------------------


def test_chat_pages_by_cursor_while_lines_are_said(clients, game):
    def say(text: str) -> None:
        chat_post(game_id=game.pk, user=user_at(game, 1), text=text, source="api")

    for n in range(3):
        say(f"line {n}")
    said = iter(range(3, 6))
    seen = _walk(
        clients["alice"],
        url(game, "chat"),
        {"limit": 2},
        _times(3, lambda: say(f"line {next(said)}")),
    )
    # The first page is the latest lines; then each later line once, in order.
    assert [line["text"] for line in seen] == [f"line {n}" for n in range(1, 6)]


def test_chat_old_after_still_works(clients, game):
    for n in range(3):
        chat_post(game_id=game.pk, user=user_at(game, 1), text=f"line {n}", source="api")
    first = clients["alice"].get(url(game, "chat")).json()
    old = _deprecated(clients["alice"].get(url(game, "chat"), {"after": first["results"][0]["id"]}))
    assert (
        [line["text"] for line in old["lines"]]
        == ["line 1", "line 2"]
        == [line["text"] for line in old["results"]]
    )
    _refuses_bad_cursors(clients["alice"], url(game, "chat"))


# -- webhook deliveries and tokens --------------------------------------------------------------


def _deliveries(hook: Webhook, count: int) -> None:
    WebhookDelivery.objects.bulk_create(
        WebhookDelivery(
            webhook=hook, attempt=1, status_code=200, ok=True, created_at=timezone.now()
        )
        for _ in range(count)
    )


def test_webhook_deliveries_page_by_cursor_while_attempts_are_logged(clients, users):
    hook = Webhook.objects.create(owner=users["alice"], url="https://example.com/", secret="s")
    _deliveries(hook, 5)
    expected = list(WebhookDelivery.objects.order_by("-id").values_list("id", flat=True))
    path = f"/api/v1/webhooks/{hook.pk}/deliveries/"
    seen = _walk(clients["alice"], path, {"limit": 2}, lambda: _deliveries(hook, 1))
    assert [d["id"] for d in seen] == expected

    old = _deprecated(clients["alice"].get(path, {"before": expected[1], "limit": 2}))
    assert (
        [d["id"] for d in old["deliveries"]] == expected[2:4] == [d["id"] for d in old["results"]]
    )
    assert old["next_before"] == expected[3]
    _refuses_bad_cursors(clients["alice"], path)


def test_tokens_page_by_cursor_while_tokens_are_made(clients, users):
    for n in range(4):
        token_create(owner=users["alice"], name=f"t{n}", scopes=["read"])

    def more() -> None:
        token_create(owner=users["alice"], name="later", scopes=["read"])

    before = {t["id"] for t in clients["alice"].get("/api/v1/tokens/").json()["results"]}
    seen = _walk(clients["alice"], "/api/v1/tokens/", {"limit": 2}, more)
    ids = [t["id"] for t in seen]
    assert len(ids) == len(set(ids)) and before <= set(ids)
    old = _deprecated(clients["alice"].get("/api/v1/tokens/"))
    assert old["tokens"] == old["results"]
    _refuses_bad_cursors(clients["alice"], "/api/v1/tokens/")


def test_no_list_answers_500_to_any_cursor(clients, game):
    paths = ["/api/v1/games/", url(game, "moves"), url(game, "chat"), "/api/v1/tokens/"]
    for path in paths:
        for cursor in ("", " ", "\u00e9", "W10", "WyJtb3ZlcyIsMS41XQ"):
            assert clients["alice"].get(path, {"cursor": cursor}).status_code < 500, (path, cursor)


def test_a_bad_cursor_is_refused_in_the_callers_language(clients):
    response = clients["alice"].get("/api/v1/tokens/", {"cursor": "x"}, HTTP_ACCEPT_LANGUAGE="de")
    assert code_of(response, 400) == "invalid_cursor"
    assert response.json()["error"]["message"].startswith("Dieser Cursor ist nicht lesbar")


def test_the_open_tables_page_by_cursor_with_a_rating_filter(clients, users):
    tables = _tables(users, 5)
    seen = _walk(clients["bob"], "/api/v1/games/open/", {"limit": 2, "rating_min": 0})
    expected = sorted(tables, key=lambda g: (-g.created_at.timestamp(), str(g.pk)))
    assert [g["id"] for g in seen] == [str(g.pk) for g in expected]
