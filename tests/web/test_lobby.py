"""The lobby: my games with my turn first, open tables, creating and joining tables."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games import engine
from games.models import Game, GameStatus, SeatStatus
from games.services import lobby
from tests.game_fixtures import start_game
from web.views.lobby import bots_supported


def _positions(html: str, *needles: str) -> list[int]:
    return [html.index(n) for n in needles]


def test_it_lists_my_games_with_my_turn_first(users: Any, browser_for: Any) -> None:
    # alice's turn in `waiting`; carol's turn in `other` (carol is seat 1, alice seat 0).
    other = start_game(users, turn_seconds=86400)
    waiting = start_game(users, turn_seconds=3 * 86400)
    Game.objects.filter(pk=other.pk).update(turn_seat=1)
    Game.objects.filter(pk=waiting.pk).update(turn_seat=0)
    html = browser_for("alice").get("/").content.decode()
    first, second = _positions(html, f"/games/{waiting.pk}/", f"/games/{other.pk}/")
    assert first < second
    assert "1 waiting for you" in html
    assert "Waiting for carol" in html
    assert "your side 0, carol &amp; dave 0" in html
    assert re.search(r"deadline <time datetime=", html)


def test_it_orders_my_turns_by_deadline(users: Any, browser_for: Any) -> None:
    later = start_game(users, turn_seconds=86400)
    sooner = start_game(users, turn_seconds=86400)
    now = timezone.now()
    Game.objects.filter(pk=later.pk).update(turn_seat=0, deadline=now + timedelta(days=2))
    Game.objects.filter(pk=sooner.pk).update(turn_seat=0, deadline=now + timedelta(hours=3))
    html = browser_for("alice").get("/").content.decode()
    first, second = _positions(html, f"/games/{sooner.pk}/", f"/games/{later.pk}/")
    assert first < second


def test_it_lists_open_tables_and_invitations(users: Any, browser_for: Any) -> None:
    public = lobby.game_create(creator=users["bob"], variant="classic", players=4)
    invitation = lobby.game_create(
        creator=users["carol"], variant="party", players=3, is_public=False, invite=["alice"]
    )
    private = lobby.game_create(
        creator=users["dave"], variant="classic", players=2, is_public=False
    )
    html = browser_for("alice").get("/").content.decode()
    assert f"/games/{public.pk}/join/" in html
    assert f"/games/{invitation.pk}/join/" in html
    assert "Invitation" in html and "Accept" in html and "Decline" in html
    assert str(private.pk) not in html


def test_it_joins_from_the_lobby_and_starts_a_full_table(users: Any, browser_for: Any) -> None:
    game = lobby.game_create(
        creator=users["bob"], variant="classic", players=2, options={"seating": "invitation"}
    )
    response = browser_for("alice").post(f"/games/{game.pk}/join/")
    assert response.status_code == 302
    assert response["Location"] == f"/games/{game.pk}/"
    assert Game.objects.get(pk=game.pk).status == GameStatus.ACTIVE


def test_a_private_tables_link_offers_a_seat(users: Any, browser_for: Any) -> None:
    game = lobby.game_create(creator=users["bob"], variant="classic", players=2, is_public=False)
    client = browser_for("eve")
    assert client.get(f"/games/{game.pk}/").status_code == 404
    page = client.get(f"/games/{game.pk}/join/")
    assert page.status_code == 200
    assert b"Take a seat" in page.content
    client.post(f"/games/{game.pk}/join/")
    assert client.get(f"/games/{game.pk}/").status_code == 200


def test_leaving_and_calling_off_an_open_table(users: Any, browser_for: Any) -> None:
    game = lobby.game_create(creator=users["alice"], variant="classic", players=4)
    lobby.game_join(game_id=game.pk, user=users["bob"])
    assert browser_for("bob").post(f"/games/{game.pk}/leave/")["Location"] == "/"
    assert not game.seats.filter(user=users["bob"]).exists()
    browser_for("alice").post(f"/games/{game.pk}/abort/")
    assert Game.objects.get(pk=game.pk).status == GameStatus.ABORTED


def test_the_create_form_offers_every_variant_with_its_defaults(
    users: Any, browser_for: Any
) -> None:
    html = browser_for("alice").get("/games/new/").content.decode()
    for variant in engine.list_variants():
        assert f'<option value="{variant["name"]}"' in html
        assert f'data-variant="{variant["name"]}"' in html
        for option in variant["options"]:
            name = f"opt_{variant['name']}_{option['name']}"
            assert f'name="{name}"' in html
            if option["type"] == "choice":
                assert re.search(rf'<option value="{option["default"]}" selected>', html)
            elif option["type"] == "int":
                assert f'name="{name}" value="{option["default"]}"' in html
    assert 'name="bots"' in html and 'name="bot_level"' in html
    assert 'name="turn_seconds"' in html and 'name="invite"' in html


def _create(client: Any, **fields: Any) -> Any:
    data = {
        "variant": "classic",
        "players": "4",
        "public": "on",
        "bots": "0",
        "bot_level": "basic",
        "invite": "",
        "turn_seconds": "86400",
        "timeout_policy": "autoplay",
    }
    data.update(fields)
    return client.post("/games/new/", data)


def test_it_creates_a_table_with_options_time_control_and_invitations(
    users: Any, browser_for: Any
) -> None:
    response = _create(
        browser_for("alice"),
        invite="bob, carol",
        opt_classic_target="3000",
        opt_classic_black_three="stop",
        opt_classic_seating="random",
        opt_party_target="77",  # another variant's options are not read
    )
    assert response.status_code == 302
    game = Game.objects.get(created_by=users["alice"])
    assert response["Location"] == f"/games/{game.pk}/"
    assert game.options == {
        "seating": "random",
        "black_three": "stop",
        "target": 3000,
        "ask_partner": False,
    }
    assert game.turn_seconds == 86400 and game.is_public
    invited = {s.user.username for s in game.seats.filter(status=SeatStatus.INVITED)}
    assert invited == {"bob", "carol"}


def test_options_left_out_take_their_defaults(users: Any, browser_for: Any) -> None:
    response = _create(browser_for("alice"), variant="tiles", turn_seconds="", public="")
    assert response.status_code == 302
    game = Game.objects.get(created_by=users["alice"])
    assert game.options == {"seating": "draw", "match": "to_10000"}
    assert game.turn_seconds is None and not game.is_public


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"variant": "tiles", "players": "2"}, "Canasta with tiles is played by 4 players."),
        ({"invite": "nobody"}, "There is no player with the username nobody"),
        ({"invite": "alice"}, "do not invite yourself"),
        ({"opt_classic_target": "5"}, "greater than or equal to 100"),
        ({"players": "2", "invite": "bob carol"}, "fill at most 1"),
        ({"variant": "whist"}, "Select a valid choice"),
    ],
)
def test_it_explains_a_table_it_cannot_create(
    users: Any, browser_for: Any, fields: dict[str, str], message: str
) -> None:
    response = _create(browser_for("alice"), **fields)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Game.objects.exists()


def test_bot_seats_go_to_the_service(users: Any, browser_for: Any) -> None:
    response = _create(browser_for("alice"), bots="3", bot_level="basic")
    if not bots_supported():
        assert response.status_code == 400
        assert b"Bot seats are not available yet." in response.content
        return
    assert response.status_code == 302
    game = Game.objects.get(created_by=users["alice"])
    assert game.seats.filter(kind="bot").count() == 3


def test_an_invitation_by_address_is_a_person_on_the_table_and_in_the_invitees_lobby(
    users: Any, browser_for: Any
) -> None:
    from games.services import invitations

    table = lobby.game_create(creator=users["bob"], variant="classic", players=2)
    invitations.invitation_add(game_id=table.pk, inviter=users["bob"], email="Carol@Example.com")
    # The waiting table: the address to its players, a person to others, never "Bot".
    mine = browser_for("bob").get(f"/games/{table.pk}/").content.decode()
    assert "carol@example.com" in mine and ">Bot<" not in mine and "Bot " not in mine
    assert "Waiting for 1 invited person to answer" in mine
    other = browser_for("dave").get(f"/games/{table.pk}/").content.decode()
    assert "carol@example.com" not in other and "A person invited by email" in other
    # The invitee's lobby offers it, to the account that confirmed the address only.
    users["carol"].email = "carol@example.com"
    users["carol"].save()
    carol = browser_for("carol")
    html = carol.get("/").content.decode()
    assert "Invitations for you" in html and "bob invites you to a table" in html
    token = invitations.invitations_of_game(game=table)[0].token
    assert f"/invitations/{token}/" in html
    assert "Invitations for you" not in browser_for("alice").get("/").content.decode()
    taken = carol.post(f"/invitations/{token}/", {"action": "accept"})
    assert taken.status_code == 302 and taken["Location"] == f"/games/{table.pk}/"
    assert "Invitations for you" not in carol.get("/").content.decode()


def test_an_unconfirmed_address_sees_no_invitation(users: Any, browser_for: Any) -> None:
    from games.services import invitations
    from notifications.models import NotificationPreference

    table = lobby.game_create(creator=users["bob"], variant="classic", players=2)
    invitations.invitation_add(game_id=table.pk, inviter=users["bob"], email="carol@example.com")
    users["carol"].email = "carol@example.com"
    users["carol"].save()
    NotificationPreference.objects.update_or_create(
        user=users["carol"], defaults={"email_pending": True}
    )
    assert "Invitations for you" not in browser_for("carol").get("/").content.decode()
