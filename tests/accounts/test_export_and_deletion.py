"""Leave and take your data: the export (API and page) and account deletion."""

import json

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.services import deletion
from accounts.services.deletion import account_delete
from clients.models import ApiToken, Webhook
from clients.payloads import move_entry
from clients.services.tokens import token_create
from games.models import Game, Move, Seat
from games.services.chat import chat_post
from games.services.errors import GameError
from games.services.lobby import game_create, game_join
from mailplay.models import ReplyToken
from notifications.models import Outbox
from tests.api.helpers import code_of
from tests.game_fixtures import PASSWORD, client_for, play_random, start_game


def test_the_export_holds_the_account_and_the_moves_as_the_player_saw_them(cast):
    alice = cast["alice"]
    game = play_random(start_game(cast), 12)
    _, key = token_create(owner=alice, name="my bot", scopes=["read"])
    answer = client_for(alice).get("/api/v1/me/export/")
    assert answer.status_code == 200
    assert "attachment" in answer["Content-Disposition"]
    document = answer.json()
    assert document["account"]["username"] == "alice"
    assert document["account"]["email"] == "alice@example.com"
    assert "my bot" in [t["name"] for t in document["tokens"]]
    assert key not in answer.content.decode()
    (exported,) = document["games"]
    seat = exported["my_seat"]
    moves = list(Move.objects.filter(game=game).order_by("seq"))
    assert exported["moves"] == [
        json.loads(json.dumps(move_entry(m, seat), default=str)) for m in moves
    ]
    # Others' draws from the stock were hidden from alice at the table, and stay hidden.
    raw = [e for m in moves if m.seat != seat for e in m.events]
    shown = [e for m in exported["moves"] if m["seat"] != seat for e in m["events"]]
    assert raw != shown


def test_the_settings_page_links_the_export(cast):
    browser = Client()
    browser.force_login(cast["bob"])
    assert "/account/export/" in browser.get("/settings/").content.decode()
    download = browser.get("/account/export/")
    assert download.status_code == 200 and download["Content-Type"] == "application/json"
    assert json.loads(download.content)["account"]["username"] == "bob"


def test_deletion_needs_the_password(cast):
    answer = client_for(cast["alice"]).post("/api/v1/me/delete/", {"password": "nope"})
    assert code_of(answer, 403) == "wrong_password"
    assert get_user_model().objects.get(pk=cast["alice"].pk).is_active


def test_deletion_resigns_games_in_play_and_keeps_finished_ones_for_the_others(cast):
    alice, bob = cast["alice"], cast["bob"]
    finished = start_game(cast)
    client_for(bob).post(f"/api/v1/games/{finished.pk}/resign/")
    playing = start_game(cast)
    waiting = game_create(creator=alice, variant="classic", players=2)
    answer = client_for(alice).post("/api/v1/me/delete/", {"password": PASSWORD})
    assert answer.status_code == 200
    assert answer.json() == {"resigned": 1, "left": 1, "invitations_withdrawn": 0}
    playing.refresh_from_db()
    assert (playing.status, playing.end_reason) == ("finished", "resigned")
    assert Game.objects.get(pk=waiting.pk).status == "aborted"  # nobody left: called off
    alice.refresh_from_db()
    assert not alice.is_active and alice.email == "" and alice.username.startswith("~deleted-")
    assert not ApiToken.objects.filter(owner=alice).exists()
    assert not Outbox.objects.filter(recipient=alice).exists()
    seen = client_for(bob).get(f"/api/v1/games/{finished.pk}/").json()
    assert "deleted player" in [s["username"] for s in seen["seats"]]
    # The record says so too (issue 26, item 10: it said "~deleted-<id>").
    record = client_for(bob).get(f"/api/v1/games/{finished.pk}/record/").json()
    assert "~deleted" not in json.dumps(record) and "deleted player" in json.dumps(record)
    # The username is free again.
    again = client_for(None).post(
        "/api/v1/auth/register/",
        {"username": "alice", "password": PASSWORD, "email": "alice2@example.com"},
        format="json",
    )
    assert again.status_code == 201


def test_deletion_through_the_page_signs_out(cast):
    browser = Client()
    browser.force_login(cast["carol"])
    assert "Delete your account" in browser.get("/settings/").content.decode()
    wrong = browser.post("/account/delete/", {"password": "wrong"})
    assert wrong.status_code == 400
    gone = browser.post("/account/delete/", {"password": PASSWORD}, follow=True)
    assert "Your account is deleted" in gone.content.decode()
    assert not get_user_model().objects.get(pk=cast["carol"].pk).is_active
    assert browser.get("/settings/").status_code == 302


# --- deletion closes the credentials first (issue 26, finding 3) --------------------------


def test_deletion_revokes_every_credential_before_it_touches_a_game(cast, monkeypatch):
    bob = cast["bob"]
    token_create(owner=bob, name="bot", scopes=["read", "play"])
    browser = Client()
    browser.force_login(bob)
    game = start_game(cast)
    Webhook.objects.create(owner=bob, url="https://example.com/hook", secret="s" * 40)
    ReplyToken.objects.create(game=game, user=bob, seat_number=2, token="r" * 40)
    assert browser.get("/api/v1/me/").status_code == 200
    seen = []
    real_resign = deletion.game_resign

    def resign_watched(*, game_id, user):
        # What a racing request could still use at the moment the first game is closed.
        seen.append(
            {
                "tokens": ApiToken.objects.filter(owner=bob).count(),
                "active": get_user_model().objects.get(pk=bob.pk).is_active,
                "sessions": browser.get("/api/v1/me/").status_code,
                "reply_addresses": ReplyToken.objects.filter(user=bob).count(),
                "webhooks": Webhook.objects.filter(owner=bob).count(),
            }
        )
        return real_resign(game_id=game_id, user=user)

    monkeypatch.setattr(deletion, "game_resign", resign_watched)
    account_delete(user=bob, password=PASSWORD)
    assert seen == [
        {"tokens": 0, "active": False, "sessions": 401, "reply_addresses": 0, "webhooks": 0}
    ]
    game.refresh_from_db()
    assert game.status == "finished"


def test_a_closed_account_cannot_take_a_seat_with_a_stale_request(cast):
    bob = cast["bob"]
    table = game_create(creator=cast["alice"], variant="classic", players=2)
    stale = get_user_model().objects.get(pk=bob.pk)  # authenticated before the deletion
    account_delete(user=bob, password=PASSWORD)
    with pytest.raises(GameError) as refused:
        game_join(game_id=table.pk, user=stale)
    assert refused.value.code == "account_closed"
    with pytest.raises(GameError):
        game_create(creator=stale, variant="classic", players=2)
    assert not Seat.objects.filter(user=bob).exclude(game__status__in=["finished"]).exists()


def test_the_export_holds_the_players_own_chat_lines_and_nobody_elses(cast):
    # Issue 26, item 10: the export left out what the player wrote.
    game = start_game(cast)
    chat_post(game_id=game.pk, user=cast["alice"], text="Good luck, all")
    chat_post(game_id=game.pk, user=cast["bob"], text="Thanks, partner")
    export = client_for(cast["alice"]).get("/api/v1/me/export/").json()
    assert [(line["game"], line["text"]) for line in export["chat"]] == [
        (str(game.pk), "Good luck, all")
    ]
