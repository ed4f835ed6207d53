"""The leak harness (issue 10): complete hands in every variant and player count, played
through the API, with every seat also receiving emails (as a play-by-email player, so its
reply address is in them), client events and signed webhooks. After every action it reads
everything that left the server because of it and checks, per recipient:

- no card the recipient could not see at the table, before or after that action (a multiset
  check: classic deals two decks, so "7H" may be in my hand and in yours);
- no seed of a hand in progress (the shuffle commitment is public, the seed only once the hand
  is over, docs/fair-shuffle.md);
- no reply token but the recipient's own (a reply address is a credential, mailplay/);
- and the log records hold no seed and no token at all.

The server's table is read here only to choose actions (the `basic` bot, from the player
view) and to know what each recipient may see.
"""

from __future__ import annotations

import html
import json
import logging
import random
import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from rest_framework.throttling import SimpleRateThrottle

from clients.models import Event, Webhook
from clients.payloads import events_render
from clients.services import webhook_delivery
from clients.services.webhook_delivery import webhook_run
from clients.services.webhooks import webhook_create
from games import engine
from games.bots import get_bot
from games.models import Game, Hand
from games.services import lobby
from mailplay.models import ReplyToken
from mailplay.services.autodraw import mail_player_set
from mailplay.services.tokens import reply_address, reply_token_issue
from notifications import payloads as notification_payloads
from notifications import tasks
from notifications.models import Outbox
from notifications.services import delivery
from notifications.services.outbox import outbox_sweep
from tests.api.helpers import url
from tests.api.test_leak import cards_in, public_cards, visible_to
from tests.clients.helpers import FakeReceiver, fake_dns
from tests.game_fixtures import client_for, current_table
from tests.leaks.conftest import reply_tokens
from web.views import game as game_views

CONFIGS = [
    (variant["name"], players)
    for variant in engine.list_variants()
    for players in variant["players"]
]
HOOK_URL = "https://hooks.example/canasta"
# Enough actions to finish the first hand (the bot melds and goes out) and play into the next.
MAX_ACTIONS = 1500
ACTIONS_INTO_NEXT_HAND = 12
# The game page (web/templates/web/_table.html): hand cards to pick, the "Go out" action's
# steps, and score sheets by hand number.
PICKED = re.compile(r'<input type="checkbox" name="card" value="([^"]+)"')
STEPS = re.compile(r'data-steps="([^"]*)"')
SHEET = re.compile(r'class="panel sheet" id="hand-(\d+)"')


@pytest.fixture(autouse=True)
def _outside_world(monkeypatch: pytest.MonkeyPatch, settings: Any) -> FakeReceiver:
    """No broker (rows are delivered by the sweep), a public name for the webhook receiver."""
    monkeypatch.setattr(tasks.deliver_outbox, "delay", lambda *_: None)
    # The harness reads every seat's game page after every action; those reads are checks, not
    # a player looking, so they must not hold back the turn emails it checks as well
    # (notifications/services/presence.py).
    monkeypatch.setattr(game_views, "presence_record", lambda **_: None)
    # Rate limits are tested elsewhere (tests/clients/test_rate_limits.py); a hand is hundreds
    # of requests within a second here.
    rates = {scope: "1000000/min" for scope in SimpleRateThrottle.THROTTLE_RATES}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    fake_dns(monkeypatch, {"hooks.example": ["93.184.215.14"]})
    receiver = FakeReceiver()
    monkeypatch.setattr(webhook_delivery, "transport", receiver)
    settings.CANASTA_MAIL_DOMAIN = "canasta.test"
    settings.CANASTA_MAIL_AUTO_DRAW = True
    return receiver


def _people(players: int) -> list[Any]:
    """One user per seat, each reachable by every channel."""
    people = []
    for n in range(players):
        user = get_user_model().objects.create_user(
            username=f"player{n}", email=f"player{n}@example.com", password="x" * 20
        )
        mail_player_set(user=user, auto_draw=n % 2 == 0)  # forced draws for half of them
        webhook_create(owner=user, url=HOOK_URL)  # every kind
        people.append(user)
    return people


def _start(variant: str, players: int, people: list[Any]) -> Game:
    game = lobby.game_create(
        creator=people[0],
        variant=variant,
        players=players,
        options={"seating": "invitation"},
        is_public=True,
    )
    for user in people[1:]:
        game = lobby.game_join(game_id=game.pk, user=user)
    return game


CHOICES = frozenset({"legal", "actions"})  # where the API and payloads list legal actions
# Counted apart: a player view (the table as the recipient sees it now), the action of a log
# entry, and each of its events (a meld shows its cards in all three).
VIEWS = frozenset({"table", "view", "action"})
LOGS = frozenset({"moves", "events"})


def _sections(document: Any) -> tuple[list[Any], list[Any], Any]:
    """Split a document into the parts whose cards are counted separately: (views and log
    entries, lists of legal actions, the rest). A view and the log entry of the move that made
    it show the same meld twice, and a list of legal actions names one card in many actions."""
    if isinstance(document, dict):
        units: list[Any] = []
        choices: list[Any] = []
        rest = {}
        for key, value in document.items():
            if key in CHOICES:
                choices.append(value)
            elif key in VIEWS and isinstance(value, dict):
                units.append(value)
            elif key in LOGS and isinstance(value, list):
                units += value
            else:
                inner_units, inner_choices, rest[key] = _sections(value)
                units += inner_units
                choices += inner_choices
        return units, choices, rest
    if isinstance(document, list):
        parts = [_sections(item) for item in document]
        return (
            [u for units, _, _ in parts for u in units],
            [c for _, choices, _ in parts for c in choices],
            [rest for _, _, rest in parts],
        )
    return [], [], document


def _full(table: engine.Table) -> Counter:
    """Every card of a hand: once the hand is over its seed is public, so all of it is."""
    everything = public_cards(table)
    everything.update(table.stock)
    for cards in table.hands:
        everything.update(cards)
    return everything


class Harness:
    def __init__(self, game: Game, people: list[Any], receiver: FakeReceiver) -> None:
        self.game = game
        self.people = people
        self.seat_of = {user.pk: seat for seat, user in enumerate(people)}
        self.email_seat = {user.email: seat for seat, user in enumerate(people)}
        self.receiver = receiver
        self.clients = [client_for(user) for user in people]
        self.last_outbox = self.last_event = 0
        self.mails_seen = self.calls_seen = 0
        self.checked = Counter[str]()

    # What each recipient may see -------------------------------------------------------------

    def allowed(self, before: engine.Table, after: engine.Table, seat: int | None) -> Counter:
        """Cards `seat` could see just before or just after the action (multiset maximum); when
        the action ended the hand, every card of that hand (it is revealed)."""
        earlier = _full(before) if after.hand != before.hand else visible_to(before, seat)
        return earlier | visible_to(after, seat)

    def secrets_hidden_from(self, seat: int | None) -> list[str]:
        seeds = list(
            Hand.objects.filter(game=self.game, finished_at__isnull=True).values_list(
                "seed", flat=True
            )
        )
        tokens = [
            token
            for token, user_id in reply_tokens().items()
            if self.seat_of.get(user_id) != seat or seat is None
        ]
        return seeds + tokens

    def assert_no_secret(self, text: str, seat: int | None, where: str) -> None:
        for secret in self.secrets_hidden_from(seat):
            assert secret not in text, f"{where}: a seed or a reply token it may not hold"

    def assert_cards(self, document: Any, allowed: Counter, where: str) -> None:
        """Each card shown no more often than the recipient could see it (per view, per log
        entry and in the rest); cards named by legal actions only among those it sees."""
        pending, choices, rest = _sections(document)
        parts = [rest]
        while pending:  # a log entry holds an action and events: each is counted apart
            inner, more_choices, own = _sections(pending.pop())
            pending += inner
            choices += more_choices
            parts.append(own)
        for part in parts:
            extra = Counter(cards_in(part)) - allowed
            assert not extra, (
                f"{where}: cards its recipient could not see: {dict(extra)} in {json.dumps(part)[:1500]}"
            )
        unseen = set(cards_in(choices)) - set(allowed)
        assert not unseen, f"{where}: legal actions name cards it could not see: {unseen}"

    def assert_view(self, view: dict[str, Any], table: engine.Table, seat: int | None, where: str):
        """A player view shows exactly what the seat sees now: no more."""
        assert not {"stock", "hands"} & set(view), where
        self.assert_cards(view, visible_to(table, seat), where)

    # Every channel ---------------------------------------------------------------------------

    def check_round(self, before: engine.Table, after: engine.Table) -> None:
        for row in Outbox.objects.filter(pk__gt=self.last_outbox).order_by("pk"):
            self.last_outbox = row.pk
            seat = self.seat_of[row.recipient_id]
            where = f"outbox {row.kind}/{row.channel} to seat {seat}"
            self.assert_cards(row.payload, self.allowed(before, after, seat), where)
            view = row.payload.get("view")
            if view and view.get("hand_number", 1) == after.hand:
                self.assert_view(view, after, seat, where)
            legal = row.payload.get("legal")
            if legal:
                self.assert_cards({"legal": legal}, visible_to(after, seat), where)
            # No reply token at all, not even the recipient's: payloads feed other channels.
            self.assert_no_secret(json.dumps(row.payload), None, where)
            self.checked["outbox"] += 1
        for event in Event.objects.filter(pk__gt=self.last_event).order_by("pk"):
            self.last_event = event.pk
            # Stored: public facts only, the same for every reader.
            self.assert_cards(event.facts, self.allowed(before, after, None), "event facts")
            self.assert_no_secret(json.dumps(event.facts), None, "event facts")
            readers = [event.recipient_id] if event.recipient_id else list(self.seat_of)
            for user_id in readers:
                # What this reader gets, built for their seat as the feed and webhooks do.
                (shown,) = events_render([event], user_id=user_id)
                seat = self.seat_of[user_id]
                where = f"event {event.kind} to seat {seat}"
                self.assert_cards(shown.payload, self.allowed(before, after, seat), where)
                # No reply address at all, not even the reader's own: it lives in their mail only.
                self.assert_no_secret(json.dumps(shown.payload), None, where)
                if event.kind in ("your_turn", "timeout"):
                    # Rebuilt for the reader from the table of its moment: exactly their view.
                    assert shown.payload["view"] == engine.player_view(after, seat), where
                self.checked["event"] += 1

        outbox_sweep()  # emails through Django's backend
        for hook_id in Webhook.objects.values_list("pk", flat=True):
            webhook_run(hook_id)  # webhooks through the fake receiver, from each hook's cursor
        for message in mail.outbox[self.mails_seen :]:
            (address,) = message.to
            seat = self.email_seat[address]
            self.assert_no_secret(message.message().as_string(), seat, f"email to seat {seat}")
            self.checked["email"] += 1
        self.mails_seen = len(mail.outbox)
        for call in self.receiver.calls[self.calls_seen :]:
            body = json.loads(call["body"])
            seat = self.seat_of[body["recipient"]] if "recipient" in body else None
            if seat is None:  # the hook's owner: the one whose event this is
                hook_id = int(call["headers"]["X-Canasta-Webhook-Id"])
                owner_id = Webhook.objects.get(pk=hook_id).owner_id
                seat = self.seat_of[owner_id]
            where = f"webhook to seat {seat}"
            self.assert_cards(body, self.allowed(before, after, seat), where)
            self.assert_no_secret(call["body"].decode(), None, where)
            self.checked["webhook"] += 1
        self.calls_seen = len(self.receiver.calls)

    def check_reads(self, table: engine.Table) -> None:
        """Everything each player may read about the game, and a stranger's view."""
        for seat, client in enumerate(self.clients):
            for path in (url(self.game), url(self.game, "legal"), url(self.game, "hands")):
                response = client.get(path)
                assert response.status_code == 200, (path, response.content[:300])
                body = response.json()
                self.assert_no_secret(response.content.decode(), seat, path)
                if body.get("table"):
                    self.assert_view(body["table"], table, seat, path)
                else:
                    self.assert_cards(body, visible_to(table, seat), path)
            events = client.get("/api/v1/events/", {"after": 0, "wait": 0})
            assert events.status_code == 200, events.content[:300]
            self.assert_no_secret(events.content.decode(), seat, "event feed")
            self.checked["read"] += 4
            self.check_pages(seat, table)

    def check_pages(self, seat: int, table: engine.Table) -> None:
        """The game page, its table fragment and the score sheets page, as the seat's player
        sees them: the cards it may pick (and the engine's way out) are its own, and only
        hands that are over have a score sheet."""
        client = Client()
        client.force_login(self.people[seat])
        finished = set(
            Hand.objects.filter(game=self.game, finished_at__isnull=False).values_list(
                "number", flat=True
            )
        )
        base = f"/games/{self.game.pk}/"
        for path in (base, base + "table/", base + "scores/"):
            response = client.get(path)
            assert response.status_code == 200, (path, response.content[:300])
            page = response.content.decode()
            self.assert_no_secret(page, seat, path)
            picks = Counter(PICKED.findall(page))
            extra = picks - Counter(table.hands[seat])
            assert not extra, f"{path}: cards to pick that seat {seat} does not hold: {extra}"
            for steps in STEPS.findall(page):
                named = set(cards_in(json.loads(html.unescape(steps))))
                assert named <= set(table.hands[seat]), f"{path}: a way out with others' cards"
            sheets = {int(n) for n in SHEET.findall(page)}
            assert sheets <= finished, f"{path}: a score sheet of a hand in play: {sheets}"
            self.checked["page"] += 1

    def act(self, rng: random.Random) -> tuple[engine.Table, engine.Table]:
        before = current_table(self.game)
        seat = before.turn
        view = engine.player_view(before, seat)
        action = get_bot("basic").choose(view, None, rng)
        version = Game.objects.get(pk=self.game.pk).version
        response = self.clients[seat].post(
            url(self.game, "actions"),
            {"actions": [action], "expected_version": version},
            format="json",
        )
        assert response.status_code == 200, response.content[:500]
        after = current_table(self.game)
        body = response.json()
        self.assert_cards(body, self.allowed(before, after, seat), "action response")
        self.assert_no_secret(response.content.decode(), seat, "action response")
        self.checked["response"] += 1
        return before, after


def _log_text(records: Iterable[logging.LogRecord]) -> str:
    return "\n".join(f"{r.getMessage()} {r.args!r} {getattr(r, '__dict__', {})!r}" for r in records)


def _play_a_hand_and_check(
    variant: str, players: int, receiver: FakeReceiver, caplog: Any
) -> Counter:
    """Plays the first hand to its end and a few actions into the next, checking every channel
    after every action; returns how many outputs of each kind were checked."""
    caplog.set_level(logging.DEBUG)
    people = _people(players)
    game = _start(variant, players, people)
    harness = Harness(game, people, receiver)
    rng = random.Random(f"{variant}-{players}")
    harness.check_round(current_table(game), current_table(game))  # the deal's notifications

    first_hand = current_table(game).hand
    into_next = 0
    for step in range(MAX_ACTIONS):
        before, after = harness.act(rng)
        harness.check_round(before, after)
        if step % 10 == 0 or after.hand != before.hand:
            harness.check_reads(after)
        if after.hand != first_hand or Game.objects.get(pk=game.pk).status != "active":
            into_next += 1
            if (
                into_next > ACTIONS_INTO_NEXT_HAND
                or Game.objects.get(pk=game.pk).status != "active"
            ):
                break
    else:
        pytest.fail(f"the first hand did not end in {MAX_ACTIONS} actions")
    harness.assert_no_secret(_log_text(caplog.records), None, "log records")
    return harness.checked


@pytest.mark.parametrize(("variant", "players"), CONFIGS, ids=[f"{v}-{p}" for v, p in CONFIGS])
def test_no_channel_shows_a_card_a_seed_or_a_token_its_recipient_may_not_see(
    db: Any, variant: str, players: int, _outside_world: FakeReceiver, caplog: Any
) -> None:
    checked = _play_a_hand_and_check(variant, players, _outside_world, caplog)

    # Every channel was exercised (and the first hand was played to its end, or it fails).
    for kind in ("response", "read", "outbox", "event", "email", "webhook", "page"):
        assert checked[kind] > 0, (kind, checked)
    assert checked["response"] > 2 * players
    assert ReplyToken.objects.values("user").distinct().count() == players


# The harness itself: a leak put in on purpose is caught.


def test_the_harness_catches_a_hidden_card_in_a_notification(
    db: Any, _outside_world: FakeReceiver, caplog: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    honest = engine.player_view

    def leaky(table: engine.Table, seat: int | None) -> dict[str, Any]:
        view = honest(table, seat)
        if seat is not None:  # the next player's hand, under an innocent key
            view["hint"] = list(table.hands[(seat + 1) % len(table.hands)])
        return view

    monkeypatch.setattr(notification_payloads.engine, "player_view", leaky)
    with pytest.raises(AssertionError, match="could not see"):
        _play_a_hand_and_check("classic", 2, _outside_world, caplog)


def _address_of_seat(game: Any, seat: int) -> str:
    user = game.seats.get(number=seat).user
    return reply_address(reply_token_issue(game=game, user=user, seat_number=seat).token)


def test_the_harness_catches_another_players_reply_address(
    db: Any, _outside_world: FakeReceiver, caplog: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def crossed(row: Outbox) -> str | None:  # the next player's address on the email
        if row.game_id is None or not isinstance(row.payload.get("seat"), int):
            return None
        game = Game.objects.get(pk=row.game_id)
        return _address_of_seat(game, (row.payload["seat"] + 1) % game.players)

    monkeypatch.setattr(delivery, "_reply_address_hooks", [crossed])
    with pytest.raises(AssertionError, match="reply token"):
        _play_a_hand_and_check("family", 2, _outside_world, caplog)


def test_the_harness_catches_a_reply_address_in_a_payload(
    db: Any, _outside_world: FakeReceiver, caplog: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The leak issue 14 found: the player's own address in the turn payload, which is also
    # their `your_turn` event and webhook body.
    honest = notification_payloads.turn_payload

    def with_address(*, game: Any, table: engine.Table, seat: int) -> dict[str, Any]:
        return {
            **honest(game=game, table=table, seat=seat),
            "reply_to": _address_of_seat(game, seat),
        }

    monkeypatch.setattr(notification_payloads, "turn_payload", with_address)
    with pytest.raises(AssertionError, match="reply token"):
        _play_a_hand_and_check("family", 2, _outside_world, caplog)
