"""Accounts: sign up, sign in and out, password change, notification preferences, vacations."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from notifications.models import Absence, NotificationPreference
from tests.game_fixtures import PASSWORD


def _signup(client: Client, **fields: Any) -> Any:
    data = {
        "username": "zoe",
        "email": "zoe@example.com",
        "password1": PASSWORD,
        "password2": PASSWORD,
    }
    data.update(fields)
    return client.post("/signup/", data)


def test_it_signs_up_and_signs_the_new_user_in(db: Any) -> None:
    client = Client()
    response = _signup(client)
    assert response.status_code == 302
    assert response["Location"] == "/"
    user = get_user_model().objects.get(username="zoe")
    assert user.email == "zoe@example.com"
    lobby = client.get("/")
    assert b"Your games" in lobby.content
    assert b"Welcome, zoe!" in lobby.content


def test_it_refuses_a_sign_up_without_email_or_with_a_taken_name(users: Any) -> None:
    assert _signup(Client(), email="").status_code == 400
    response = _signup(Client(), username="ALICE")
    assert response.status_code == 400
    assert b"already exists" in response.content
    response = _signup(Client(), password2="something-else-entirely")
    assert response.status_code == 400
    assert not get_user_model().objects.filter(username="zoe").exists()


def test_it_signs_in_and_out(users: Any) -> None:
    client = Client()
    assert client.get("/").status_code == 200  # the welcome page
    response = client.post("/login/", {"username": "alice", "password": PASSWORD})
    assert response.status_code == 302
    assert b"Your games" in client.get("/").content
    assert client.post("/logout/").status_code == 302
    assert b"Create an account" in client.get("/").content


def test_it_refuses_a_wrong_password(users: Any) -> None:
    response = Client().post("/login/", {"username": "alice", "password": "nope"})
    assert response.status_code == 200
    assert b"Please enter a correct username and password" in response.content


def test_pages_for_players_send_strangers_to_sign_in(game: Any) -> None:
    client = Client()
    for url in ("/games/new/", "/settings/", f"/games/{game.pk}/", "/password/"):
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith("/login/?next="), url


def test_it_changes_the_password(users: Any, browser_for: Any) -> None:
    client = browser_for("alice")
    new = "another-long-password-77"
    response = client.post(
        "/password/",
        {"old_password": PASSWORD, "new_password1": new, "new_password2": new},
    )
    assert response.status_code == 302
    assert response["Location"] == "/password/done/"
    assert get_user_model().objects.get(username="alice").check_password(new)


def test_it_saves_email_and_notification_preferences(users: Any, browser_for: Any) -> None:
    client = browser_for("alice")
    page = client.get("/settings/")
    assert b"Email me" in page.content
    response = client.post(
        "/settings/", {"form": "preferences", "email_mode": "digest", "digest_hour": "18"}
    )
    assert response.status_code == 302
    preference = NotificationPreference.objects.get(user=users["alice"])
    assert (preference.email_mode, preference.digest_hour) == ("digest", 18)
    client.post("/settings/", {"form": "email", "email": "alice@example.org"})
    assert get_user_model().objects.get(username="alice").email == "alice@example.org"
    bad = client.post("/settings/", {"form": "preferences", "email_mode": "hourly"})
    assert bad.status_code == 400


def test_it_plans_and_withdraws_a_vacation(users: Any, browser_for: Any) -> None:
    client = browser_for("alice")
    today = timezone.now().astimezone(UTC).date()
    starts, returns = today + timedelta(days=3), today + timedelta(days=10)
    response = client.post(
        "/settings/",
        {"form": "absence", "starts": starts.isoformat(), "returns": returns.isoformat()},
    )
    assert response.status_code == 302
    absence = Absence.objects.get(user=users["alice"])
    assert absence.starts_at == datetime(starts.year, starts.month, starts.day, tzinfo=UTC)
    assert absence.ends_at == datetime(returns.year, returns.month, returns.day, tzinfo=UTC)
    assert b"Withdraw" in client.get("/settings/").content

    overlapping = client.post(
        "/settings/", {"form": "absence", "returns": (today + timedelta(days=5)).isoformat()}
    )
    assert overlapping.status_code == 400
    assert b"overlaps one you have already planned" in overlapping.content

    client.post("/settings/", {"form": "cancel_absence", "absence": str(absence.pk)})
    assert not Absence.objects.filter(user=users["alice"]).exists()


def test_forms_need_the_csrf_token(users: Any, browser_for: Any) -> None:
    client = browser_for("alice", csrf=True)
    refused = client.post("/settings/", {"form": "preferences", "email_mode": "none"})
    assert refused.status_code == 403
    client.get("/settings/")
    token = client.cookies["csrftoken"].value
    response = client.post(
        "/settings/",
        {"form": "preferences", "email_mode": "none", "digest_hour": "7"},
        HTTP_X_CSRFTOKEN=token,
    )
    assert response.status_code == 302
    assert NotificationPreference.objects.get(user=users["alice"]).email_mode == "none"


def test_an_email_player_switches_the_forced_draw_on_the_settings_page(
    users: Any, browser_for: Any
) -> None:
    from mailplay.services.autodraw import auto_draw_of, mail_player_set

    client = browser_for("alice")
    assert b"this setting appears once you have" in client.get("/settings/").content
    refused = client.post("/settings/", {"form": "auto_draw", "auto_draw": "always"})
    assert refused.status_code == 400 and auto_draw_of(user=users["alice"]) is None

    mail_player_set(user=users["alice"], auto_draw=True)
    assert b'value="pile_closed" checked' in client.get("/settings/").content
    assert client.post("/settings/", {"form": "auto_draw", "auto_draw": "off"}).status_code == 302
    assert auto_draw_of(user=users["alice"]) == "off"
    client.post("/settings/", {"form": "auto_draw", "auto_draw": "always"})
    assert auto_draw_of(user=users["alice"]) == "always"
    assert b'value="always" checked' in client.get("/settings/").content
    refused = client.post("/settings/", {"form": "auto_draw", "auto_draw": "sometimes"})
    assert refused.status_code == 400 and auto_draw_of(user=users["alice"]) == "always"
