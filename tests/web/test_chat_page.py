"""Table talk on the game page, with plain forms (no JavaScript): say, read (escaped), the
refreshable fragment sees new lines, mute, report, errors next to the form."""

from __future__ import annotations

from typing import Any

from games.models import ChatMessage, ChatReport, Game
from games.services.chat import RATE_LIMIT, chat_post


def test_a_player_says_something_on_the_page_and_everyone_reads_it(
    game: Game, browser_for: Any
) -> None:
    alice = browser_for("alice", csrf=False)
    page = alice.get(f"/games/{game.pk}/").content.decode()
    assert 'id="chat-text"' in page and "Table talk" in page

    sent = alice.post(f"/games/{game.pk}/chat/", {"text": "<script>alert(1)</script> hi"})
    assert sent.status_code == 302 and sent["Location"].endswith(f"/games/{game.pk}/#chat")

    carol_page = browser_for("carol").get(f"/games/{game.pk}/").content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt; hi" in carol_page
    assert "<script>alert(1)</script>" not in carol_page
    assert ChatMessage.objects.get().source == "web"


def test_the_polled_fragment_changes_when_someone_talks(
    game: Game, users: Any, browser_for: Any
) -> None:
    bob = browser_for("bob")
    first = bob.get(f"/games/{game.pk}/table/")
    tag = first["ETag"]
    assert bob.get(f"/games/{game.pk}/table/", HTTP_IF_NONE_MATCH=tag).status_code == 304

    chat_post(game_id=game.pk, user=users["dave"], text="nice weather")

    fresh = bob.get(f"/games/{game.pk}/table/", HTTP_IF_NONE_MATCH=tag)
    assert fresh.status_code == 200 and "nice weather" in fresh.content.decode()


def test_a_spectator_sees_no_chat_and_cannot_post(game: Game, browser_for: Any) -> None:
    eve = browser_for("eve")
    assert 'id="chat-text"' not in eve.get(f"/games/{game.pk}/").content.decode()
    refused = eve.post(f"/games/{game.pk}/chat/", {"text": "hello"})
    assert refused.status_code == 403
    assert not ChatMessage.objects.exists()


def test_a_refusal_is_shown_next_to_the_form_with_the_text_kept(
    game: Game, users: Any, browser_for: Any
) -> None:
    alice = browser_for("alice")
    too_long = alice.post(f"/games/{game.pk}/chat/", {"text": "z" * 501})
    assert too_long.status_code == 400
    body = too_long.content.decode()
    assert 'data-code="chat_too_long"' in body and "at most 500 characters" in body
    assert 'value="' + "z" * 501 in body

    for number in range(RATE_LIMIT):
        chat_post(game_id=game.pk, user=users["alice"], text=f"n{number}")
    fast = alice.post(f"/games/{game.pk}/chat/", {"text": "more"})
    assert fast.status_code == 409 and 'data-code="chat_rate_limited"' in fast.content.decode()


def test_the_page_in_german(game: Game, users: Any, browser_for: Any) -> None:
    from notifications.services.preferences import preference_update

    preference_update(user=users["alice"], language="de")
    page = browser_for("alice").get(f"/games/{game.pk}/").content.decode()
    assert "Tischgespräch" in page and "Schreiben Sie etwas an den Tisch" in page


def test_mute_and_report_from_the_page(game: Game, users: Any, browser_for: Any) -> None:
    line = chat_post(game_id=game.pk, user=users["carol"], text="spam spam")
    alice = browser_for("alice")
    page = alice.get(f"/games/{game.pk}/").content.decode()
    assert f"/games/{game.pk}/chat/{line.id}/report/" in page
    assert "Mute carol" in page

    reported = alice.post(f"/games/{game.pk}/chat/{line.id}/report/")
    assert reported.status_code == 302
    assert ChatReport.objects.get().reporter == users["alice"]

    muted = alice.post(f"/games/{game.pk}/chat/mute/", {"seat": "1", "muted": "1"})
    assert muted.status_code == 302
    page = alice.get(f"/games/{game.pk}/").content.decode()
    assert "spam spam" not in page and "Unmute carol" in page
    assert "spam spam" in browser_for("bob").get(f"/games/{game.pk}/").content.decode()
