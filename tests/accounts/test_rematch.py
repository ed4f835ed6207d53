"""Rematch: one click after a match offers the same table to the same players."""

from django.test import Client

from games.models import Game, Seat
from games.services.lobby import game_create, game_join
from games.services.moves import game_resign
from games.services.rematch import swapped_number
from tests.accounts.conftest import mails_to
from tests.api.helpers import code_of
from tests.game_fixtures import client_for, start_game


def _finished(cast, **kw):
    game = start_game(cast, turn_seconds=86400, **kw)
    game_resign(game_id=game.pk, user=cast["dave"])
    return Game.objects.get(pk=game.pk)


def _numbers(game):
    return {
        (s.user.username if s.user else s.bot_level): s.number
        for s in Seat.objects.filter(game=game).select_related("user")
    }


def test_a_rematch_offers_the_same_table_to_the_same_players(cast):
    old = _finished(cast, options={"seating": "invitation"})
    answer = client_for(cast["bob"]).post(f"/api/v1/games/{old.pk}/rematch/", {}, format="json")
    assert answer.status_code == 201, answer.content
    new = Game.objects.get(pk=answer.json()["id"])
    assert new.rematch_of_id == old.pk and new.created_by == cast["bob"]
    assert (new.variant, new.players, new.options) == (old.variant, old.players, old.options)
    assert (new.turn_seconds, new.timeout_policy) == (old.turn_seconds, old.timeout_policy)
    assert _numbers(new) == _numbers(old)
    statuses = {s.user.username: s.status for s in Seat.objects.filter(game=new)}
    assert statuses == {"bob": "joined", "alice": "invited", "carol": "invited", "dave": "invited"}
    offer = [m for m in mails_to("alice@example.com") if "rematch" in m.subject]
    assert [m.subject for m in offer] == ["[Canasta] bob offers a rematch"]
    assert f"/games/{new.pk}/join/" in offer[0].body
    # A second click returns the same offer.
    again = client_for(cast["alice"]).post(f"/api/v1/games/{old.pk}/rematch/", {}, format="json")
    assert again.status_code == 200 and again.json()["id"] == str(new.pk)
    for name in ("alice", "carol", "dave"):
        game_join(game_id=new.pk, user=cast[name])
    new.refresh_from_db()
    assert new.status == "active"
    assert _numbers(new) == _numbers(old)


def test_partners_swapped(cast):
    old = _finished(cast, options={"seating": "invitation"})
    answer = client_for(cast["alice"]).post(
        f"/api/v1/games/{old.pk}/rematch/", {"swap_partners": True}, format="json"
    )
    new = Game.objects.get(pk=answer.json()["id"])
    before, after = _numbers(old), _numbers(new)
    assert after == {name: swapped_number(n, players=4, sides=2) for name, n in before.items()}
    partners = {frozenset(n for n, s in after.items() if s % 2 == side) for side in (0, 1)}
    old_partners = {frozenset(n for n, s in before.items() if s % 2 == side) for side in (0, 1)}
    assert partners.isdisjoint(old_partners)


def test_bots_are_seated_at_once_and_the_game_starts(cast):
    alice = cast["alice"]
    game = game_create(creator=alice, variant="classic", players=2, bots=["random"])
    game_resign(game_id=game.pk, user=alice)
    answer = client_for(alice).post(f"/api/v1/games/{game.pk}/rematch/", {}, format="json")
    new = Game.objects.get(pk=answer.json()["id"])
    assert new.status == "active"
    assert _numbers(new) == _numbers(game)


def test_only_after_the_match_and_only_its_players(cast):
    game = start_game(cast)
    assert (
        code_of(
            client_for(cast["alice"]).post(f"/api/v1/games/{game.pk}/rematch/", {}, format="json"),
            409,
        )
        == "game_not_finished"
    )
    game_resign(game_id=game.pk, user=cast["alice"])
    assert (
        code_of(
            client_for(cast["eve"]).post(f"/api/v1/games/{game.pk}/rematch/", {}, format="json"),
            403,
        )
        == "not_seated"
    )
    two = game_create(creator=cast["alice"], variant="classic", players=2, bots=["random"])
    game_resign(game_id=two.pk, user=cast["alice"])
    no_partners = client_for(cast["alice"]).post(
        f"/api/v1/games/{two.pk}/rematch/", {"swap_partners": True}, format="json"
    )
    assert code_of(no_partners, 400) == "no_partners"


def test_the_lobby_button_offers_a_rematch(cast):
    old = _finished(cast)
    browser = Client()
    browser.force_login(cast["carol"])
    assert f"/games/{old.pk}/rematch/" in browser.get("/").content.decode()
    offered = browser.post(f"/games/{old.pk}/rematch/")
    new = Game.objects.get(rematch_of=old)
    assert offered.status_code == 302 and offered["Location"] == f"/games/{new.pk}/"
