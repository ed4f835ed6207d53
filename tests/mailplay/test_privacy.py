"""A reply address is a credential: it reaches its own player's mailbox and nothing else."""

import logging

from django.core import mail
from rest_framework.test import APIClient

from games.fields import digest
from games.models import Game
from mailplay.models import ReplyToken
from mailplay.services.autodraw import mail_player_set
from mailplay.services.tokens import token_in_address
from tests.mailplay.conftest import deliver, receive
from tests.mailplay.helpers import a_discard, choices, reply

NAMES = ("alice", "carol", "bob", "dave")  # by seat


def _play_some_turns_by_email(game, turns):
    """Each player in turn answers their newest mail: draw when asked, then discard."""
    statuses = []
    for _ in range(turns * 2):
        deliver()
        seat = Game.objects.get(pk=game.pk).turn_seat
        address = f"{NAMES[seat]}@example.com"
        last = [m for m in mail.outbox if m.to == [address] and m.reply_to][-1]
        options = choices(last.body)
        command = "draw" if "draw" in options else a_discard(last.body)
        statuses.append(receive(reply(last, command, sender=address)))
    deliver()
    return statuses


def _texts() -> set[str]:
    """The tokens the emails sent so far carry (stored, they are digests)."""
    found = {token_in_address(a) for m in mail.outbox for a in (m.reply_to or [])}
    return {text for text in found if text}


def test_the_token_reaches_its_player_only(game, people, caplog):
    caplog.set_level(logging.DEBUG)
    mail_player_set(user=people["bob"], auto_draw=True)  # forced draws too

    statuses = _play_some_turns_by_email(game, turns=4)

    tokens = list(ReplyToken.objects.select_related("user"))
    assert {t.user.username for t in tokens} == set(NAMES)
    # The tokens are stored as their digests: their texts are in the emails' reply addresses.
    texts = {token_in_address(m.reply_to[0]) for m in mail.outbox if m.reply_to}
    assert {digest(text) for text in texts} <= {token.token for token in tokens}
    for text in texts:
        [token] = [t for t in tokens if t.token == digest(text)]
        mine = f"{token.user.username}@example.com"
        # Every email that carries the token is its own player's.
        carrying = [m for m in mail.outbox if text in m.message().as_string()]
        assert all(m.to == [mine] for m in carrying)
        assert text not in caplog.text
        assert not any(text in status for status in statuses)
    # And every email with a reply address carries one of its recipient's own tokens.
    for message in mail.outbox:
        if message.reply_to:
            owner = ReplyToken.objects.get(token=message.reply_to[0].split("+")[1].split("@")[0])
            assert message.to == [owner.user.email]


def test_no_api_response_or_page_shows_a_token(game, people):
    _play_some_turns_by_email(game, turns=2)
    tokens = _texts()
    assert tokens
    for name in (*NAMES, "eve"):
        api = APIClient()
        api.force_authenticate(people[name])
        paths = [f"/api/v1/games/{game.pk}/{p}" for p in ("", "moves/?after=0", "hands/")]
        if name != "eve":  # a spectator has no legal moves to ask for
            paths.append(f"/api/v1/games/{game.pk}/legal/")
        for path in (*paths, "/api/v1/games/", "/api/v1/me/preferences/"):
            response = api.get(path)
            assert response.status_code == 200, (name, path, response.content)
            assert not any(token in response.content.decode() for token in tokens)


def test_the_web_game_page_shows_no_token(game, people, client):
    _play_some_turns_by_email(game, turns=1)
    tokens = _texts()
    assert tokens
    for name in NAMES:
        client.force_login(people[name])
        body = client.get(f"/games/{game.pk}/").content.decode()
        assert not any(token in body for token in tokens)


def test_the_admin_never_shows_a_token(game, people, client):
    _play_some_turns_by_email(game, turns=1)
    admin = people["eve"]
    admin.is_staff = admin.is_superuser = True
    admin.save()
    client.force_login(admin)
    text = sorted(_texts())[0]
    token = ReplyToken.objects.get(token=text)
    for url in (
        "/admin/mailplay/replytoken/",
        f"/admin/mailplay/replytoken/{token.pk}/change/",
        "/admin/mailplay/inboundmessage/",
    ):
        response = client.get(url)
        assert response.status_code == 200
        assert text not in response.content.decode()
    assert text not in str(token) and text not in repr(token)
