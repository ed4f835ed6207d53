"""The recipients' lock and the token lookup run statements compiled once per database
(games.services.compiled): each call must still get its own rows, with this call's
parameters, as the querysets they were built from would."""

from django.db import transaction
from django.utils import timezone

from clients.models import Event, EventKind, Webhook
from clients.services.events import _lock_recipients
from clients.services.tokens import token_authenticate, token_create, token_revoke
from tests.game_fixtures import start_game


def test_each_lock_gets_its_own_recipients_webhooks_and_game(users):
    first, second = start_game(users), start_game(users)
    Event.objects.create(
        game=first, kind=EventKind.MOVE, seq=7, first_seq=7, facts={}, created_at=timezone.now()
    )
    Webhook.objects.create(owner=users["bob"], url="https://example.com/hook", secret="s")
    alice, bob, carol, dave = (users[name].pk for name in ("alice", "bob", "carol", "dave"))

    with transaction.atomic():
        one = _lock_recipients([alice, bob], announced_in=first)
        two = _lock_recipients([dave, carol], announced_in=second)
        three = _lock_recipients([bob, carol, dave])
        four = _lock_recipients([carol, alice, dave])

    assert one == ({bob}, 7)
    assert two == (set(), 0)
    assert three == ({bob}, None)
    assert four == (set(), None)
    assert _lock_recipients([]) == (set(), None)


def test_each_token_lookup_finds_its_own_live_token(users):
    alice_token, alice_key = token_create(owner=users["alice"], name="a")
    bob_token, bob_key = token_create(owner=users["bob"], name="b")

    found = token_authenticate(alice_key)
    assert found is not None and found.pk == alice_token.pk and found.owner == users["alice"]
    found = token_authenticate(bob_key)
    assert found is not None and found.pk == bob_token.pk and found.owner.username == "bob"
    assert token_authenticate(bob_key + "x") is None

    token_revoke(owner=users["bob"], token_id=bob_token.pk)
    assert token_authenticate(bob_key) is None
    assert token_authenticate(alice_key) is not None
