"""The API in the caller's language: preferences (language, time zone) and error messages.
Codes and details never change with the language; only `message` does (docs/i18n.md)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.utils import translation

from games.engine.errors import EngineError
from games.messages import cards_text, error_message, general_message
from games.refusals import refusal_text
from games.services.errors import ErrorKind, GameError
from notifications.models import NotificationPreference
from notifications.services.preferences import preference_update
from tests.api.helpers import error_of, url
from tests.game_fixtures import client_for, current_table

pytestmark = pytest.mark.django_db
ME = "/api/v1/me/preferences/"


@pytest.fixture
def clients(users: dict[str, Any]) -> dict[str, Any]:
    out = {name: client_for(user) for name, user in users.items()}
    out["anonymous"] = client_for(None)
    return out


def test_preferences_carry_language_and_time_zone(clients: Any, users: Any) -> None:
    body = clients["alice"].get(ME).json()
    assert (body["language"], body["time_zone"]) == ("en", "UTC")
    changed = clients["alice"].patch(
        ME, {"language": "is", "time_zone": "Atlantic/Reykjavik"}, format="json"
    )
    assert changed.status_code == 200
    assert (changed.json()["language"], changed.json()["time_zone"]) == (
        "is",
        "Atlantic/Reykjavik",
    )
    stored = NotificationPreference.objects.get(user=users["alice"])
    assert (stored.language, stored.time_zone) == ("is", "Atlantic/Reykjavik")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"language": "fr"}, "language"),
        ({"time_zone": "Mars/Base"}, "time_zone"),
        ({"time_zone": "../../etc/passwd"}, "time_zone"),
        ({"time_zone": "x" * 65}, "time_zone"),
        ({"language": "de", "time_zone": "Europe/Nowhere"}, "time_zone"),
    ],
)
def test_bad_language_or_zone_is_refused_and_nothing_saved(
    clients: Any, body: dict[str, str], field: str
) -> None:
    error = error_of(clients["alice"].patch(ME, body, format="json"), 400)
    assert error["code"] == "invalid_request" and field in error["details"]["fields"]
    assert not NotificationPreference.objects.exists()


def test_the_schema_documents_language_and_time_zone() -> None:
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema["components"]["schemas"]
    assert "language" in components["Preferences"]["properties"]
    assert components["LanguageEnum"]["enum"] == ["en", "de", "is"]
    patch = components["PatchedPreferencesPatchInRequest"]["properties"]
    assert "time_zone" in patch and "language" in patch


@pytest.mark.parametrize(
    ("accept", "message"),
    [
        ("de-DE,de;q=0.9", "Bitte melden Sie sich an: Es wurden keine Anmeldedaten gesendet."),
        ("is", "Skráðu þig inn: engin auðkenni voru send."),
        ("", "Please sign in: no credentials were given."),
    ],
)
def test_a_visitors_error_follows_accept_language(accept: str, message: str) -> None:
    response = Client(HTTP_ACCEPT_LANGUAGE=accept).get("/api/v1/games/")
    error = error_of(response, 401)
    assert error["code"] == "not_authenticated"  # codes stay English
    assert error["message"] == message


def test_a_programs_errors_follow_its_users_preference_unless_it_asks(
    clients: Any, users: Any, game: Any
) -> None:
    preference_update(user=users["eve"], language="de")
    refused = clients["eve"].post(
        url(game, "actions"),
        {"actions": [{"type": "draw"}], "expected_version": game.version},
        format="json",
    )
    error = error_of(refused, 403)
    assert error["message"] == "Sie spielen in dieser Partie nicht mit."
    assert refused["Content-Language"] == "de"
    asked = clients["eve"].post(
        url(game, "actions"),
        {"actions": [{"type": "draw"}], "expected_version": game.version},
        format="json",
        HTTP_ACCEPT_LANGUAGE="is",
    )
    assert error_of(asked, 403)["message"] == "Þú spilar ekki í þessum leik."


def test_an_engine_refusal_names_the_cards_in_the_callers_language(
    clients: Any, users: Any, game: Any
) -> None:
    table = current_table(game)
    seat = table.turn
    name = {0: "alice", 1: "carol", 2: "bob", 3: "dave"}[seat]
    preference_update(user=users[name], language="de")
    client = clients[name]
    version = client.get(url(game)).json()["version"]
    drawn = client.post(
        url(game, "actions"),
        {"actions": [{"type": "draw"}], "expected_version": version},
        format="json",
    )
    assert drawn.status_code == 200, drawn.content.decode()
    hand = current_table(game).hands[seat]
    two = [c for c in hand if c[0] not in "23" and c != "JK"][:1] * 2
    body = {"actions": [{"type": "meld", "melds": [two]}], "expected_version": version + 1}
    error = error_of(client.post(url(game, "actions"), body, format="json"), 422)
    assert error["code"] in ("invalid_meld", "card_not_in_hand")
    assert (
        "♠" in error["message"]
        or "♥" in error["message"]
        or "♦" in error["message"]
        or ("♣" in error["message"])
    )
    assert two[0] not in error["message"].split()  # "QS" is not how people name a card


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", "The Q♠ and Q♦ are only two cards: a meld needs at least three."),
        ("de", "Die Karten D♠ und D♦ sind nur zwei: Eine Meldung braucht mindestens drei."),
        ("is", "Spilin D♠ og D♦ eru aðeins tvö: sögn þarf að minnsta kosti þrjú spil."),
    ],
)
def test_refusals_are_sentences_for_people(lang: str, expected: str) -> None:
    with translation.override(lang):
        message = refusal_text("too_few_cards", {"cards": ["QS", "QD"]})
    assert message == expected


def test_a_refusal_after_a_draw_keeps_both_parts() -> None:
    refused = EngineError("pile_empty")
    error = GameError(
        ErrorKind.ILLEGAL,
        refused.code,
        refused.message,
        {"applied": 1, "drawn": ["7H"]},
        reason=refused.reason,
        params=refused.params,
    )
    with translation.override("de"):
        message = error_message(error)
    assert message.startswith("Ihr Zug vom Vorratsstapel bleibt bestehen")
    assert message.endswith("Der Ablagestapel ist leer.")


def test_an_unknown_message_stays_english_or_becomes_the_codes_sentence() -> None:
    with translation.override("en"):
        assert refusal_text("unknown_action_type", {"kind": "fly"}) == "Unknown action type 'fly'."
    with translation.override("is"):
        assert refusal_text("unknown_action_type", {"kind": "fly"}) == (
            "Ekki tókst að lesa þennan leik."
        )
        assert general_message("brand_new", "Something new.", ErrorKind.CONFLICT) == (
            "Þetta er ekki hægt eins og leikurinn stendur núna."
        )


def test_cards_are_joined_as_people_list_them() -> None:
    with translation.override("de"):
        assert cards_text(["QS", "QD", "2C"]) == "D♠, D♦ und 2♣"
    with translation.override("en"):
        assert cards_text(["TH"]) == "10♥"


def test_an_account_made_through_the_api_takes_the_requests_language() -> None:
    anonymous = Client(HTTP_ACCEPT_LANGUAGE="is-IS,is;q=0.9")
    body = {"username": "gudrun", "password": "kanasta-spil-2026"}
    assert (
        anonymous.post("/api/v1/auth/register/", body, content_type="application/json").status_code
        == 201
    )
    preference = NotificationPreference.objects.get(user__username="gudrun")
    assert (preference.language, preference.time_zone) == ("is", "UTC")
    chosen = {
        "username": "jorg",
        "password": "kanasta-spiel-2026",
        "language": "de",
        "time_zone": "Europe/Vienna",
    }
    assert (
        anonymous.post(
            "/api/v1/auth/register/", chosen, content_type="application/json"
        ).status_code
        == 201
    )
    preference = NotificationPreference.objects.get(user__username="jorg")
    assert (preference.language, preference.time_zone) == ("de", "Europe/Vienna")
