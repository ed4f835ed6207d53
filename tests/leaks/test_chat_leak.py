"""The leak check for table talk (docs/table-talk.md): a hand played with the players talking
after every move; everything the chat shows (the API for each seat, the game page, the turn
emails' payloads and bodies) is exactly the players' own words, never a line the service made
up and never a card the reader could not see at the table."""

from __future__ import annotations

import random
import re

from django.core import mail

from games.models import ChatMessage
from games.services.chat import chat_post
from notifications.models import Outbox
from notifications.services.outbox import outbox_sweep
from tests.game_fixtures import (  # noqa: F401
    client_for,
    current_table,
    fast_password_hashing,
    play_random,
    start_game,
    user_at,
    users,
)

# Words without a card code: whatever the chat shows that is not one of these was made up.
SAID = ["hello all", "hmm", "well played", "tea time?", "good luck", "ouch"]
_CODE = re.compile(r"\b(?:10|[2-9TJQKA])[SHDC]\b|\bJK\b")


def test_the_chat_shows_only_what_players_said(users):  # noqa: F811
    for user in users.values():
        user.email = f"{user.username}@example.com"
        user.save(update_fields=["email"])
    game = start_game(users)
    rng = random.Random(7)
    said: list[str] = []
    # The payloads as they wait to be sent (a sent row keeps none).
    stored: dict[int, dict] = {}
    for number in range(24):
        table = current_table(game)
        if table.over:
            break
        talker = user_at(game, number % 4)  # 6 lines each: under the rate limit
        text = rng.choice(SAID)
        chat_post(game_id=game.pk, user=talker, text=text)
        said.append(text)
        game = play_random(game, 1, rng)
        stored.update(Outbox.objects.filter(status="pending").values_list("pk", "payload"))
        outbox_sweep()  # each turn email now, while its turn is on (a later one is skipped)
        if game.status != "active":
            break

    assert sorted(ChatMessage.objects.values_list("text", flat=True)) == sorted(said)
    for seat in range(4):
        user = user_at(game, seat)
        body = client_for(user).get(f"/api/v1/games/{game.pk}/chat/?limit=200").json()
        texts = [line["text"] for line in body["results"]]
        assert texts == said[-len(texts) :] and set(texts) <= set(SAID)
        assert not _CODE.search(" ".join(texts))

    stored.update(Outbox.objects.filter(status="pending").values_list("pk", "payload"))
    carried = [payload for payload in stored.values() if payload.get("chat")]
    assert carried, "no turn email carried table talk: the check below would prove nothing"
    for payload in carried:
        for line in payload["chat"]:
            assert set(line) == {"name", "text"} and line["text"] in SAID
    outbox_sweep()
    shown = 0
    for message in mail.outbox:
        talk = message.body.split("Table talk since your last turn:", 1)
        if len(talk) == 2:
            for paragraph in talk[1].split("\n\n")[1:11]:
                name, _, text = paragraph.partition(": ")
                if name in users:
                    assert text in SAID
                    shown += 1
    assert shown, list(Outbox.objects.values_list("status", "kind", "last_error")[:20])
