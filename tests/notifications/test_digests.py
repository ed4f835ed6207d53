from datetime import UTC, datetime, timedelta

import time_machine
from django.contrib.auth import get_user_model
from django.core import mail

from games.fields import digest
from games.models import Game, Seat
from notifications.models import NotificationPreference, Outbox
from notifications.selectors import games_waiting_for
from notifications.services.digests import digest_send_due
from notifications.services.outbox import outbox_sweep
from notifications.services.preferences import preference_update
from tests.game_fixtures import start_game

MORNING = datetime(2026, 11, 24, 7, 30, tzinfo=UTC)


def _waiting_for(user, game, deadline):
    """Make it `user`'s turn in `game`, with this deadline."""
    seat = Seat.objects.get(game=game, user=user)
    Game.objects.filter(pk=game.pk).update(turn_seat=seat.number, deadline=deadline)


def test_it_lists_the_games_waiting_for_the_user_most_urgent_first(people):
    alice = people["alice"]
    later, sooner, no_deadline = (start_game(people) for _ in range(3))
    other_turn = start_game(people)
    _waiting_for(alice, later, MORNING + timedelta(days=3))
    _waiting_for(alice, sooner, MORNING + timedelta(hours=2))
    _waiting_for(alice, no_deadline, None)
    _waiting_for(people["bob"], other_turn, MORNING)

    assert list(games_waiting_for(user=alice)) == [sooner, later, no_deadline]


def test_a_seat_a_bot_plays_for_the_user_is_not_waiting_for_them(people, table_game):
    alice = people["alice"]
    _waiting_for(alice, table_game, MORNING)
    assert list(games_waiting_for(user=alice)) == [table_game]
    Seat.objects.filter(game=table_game, user=alice).update(away=True)
    assert list(games_waiting_for(user=alice)) == []
    Seat.objects.filter(game=table_game, user=alice).update(away=False, kind="bot")
    assert list(games_waiting_for(user=alice)) == []


def test_a_digest_user_gets_one_digest_a_day_after_their_hour(people):
    alice = people["alice"]
    preference_update(user=alice, email_mode="digest", digest_hour=7)
    urgent, relaxed = start_game(people), start_game(people)
    _waiting_for(alice, relaxed, MORNING + timedelta(days=2))
    _waiting_for(alice, urgent, MORNING + timedelta(hours=5))

    with time_machine.travel(MORNING.replace(hour=6, minute=59), tick=False) as clock:
        assert digest_send_due() == 0
        clock.move_to(MORNING)
        assert digest_send_due() == 1
        assert digest_send_due() == 0
        clock.shift(timedelta(hours=10))
        assert digest_send_due() == 0
        outbox_sweep()
        clock.move_to(MORNING + timedelta(days=1))
        assert digest_send_due() == 1

    assert Outbox.objects.filter(recipient=alice, kind="digest").count() == 2
    # (The sweep also sends the "your turn" mails of the other players at these tables.)
    digests = [m for m in mail.outbox if "waiting for your move" in m.subject]
    assert len(digests) == 1
    assert digests[0].to == ["alice@example.com"]
    assert "2 games waiting" in digests[0].subject
    body = digests[0].body
    assert body.index(str(urgent.pk)) < body.index(str(relaxed.pk))


def test_nothing_waiting_means_no_digest_and_the_user_stays_due(people, table_game):
    bob = people["bob"]
    preference_update(user=bob, email_mode="digest", digest_hour=7)
    with time_machine.travel(MORNING, tick=False) as clock:
        _waiting_for(people["alice"], table_game, None)
        assert digest_send_due() == 0
        clock.shift(timedelta(hours=3))
        _waiting_for(bob, table_game, None)
        assert digest_send_due() == 1


def test_users_who_chose_every_turn_or_none_get_no_digest(people, table_game):
    carol = people["carol"]
    _waiting_for(carol, table_game, None)
    with time_machine.travel(MORNING, tick=False):
        assert digest_send_due() == 0
        preference_update(user=carol, email_mode="none")
        assert digest_send_due() == 0
    assert not Outbox.objects.filter(kind="digest").exists()


def test_the_digest_hour_is_the_players_own_hour_summer_and_winter(people):
    """7:00 in Berlin is 06:00 UTC in winter and 05:00 UTC in summer; in Reykjavik it is 07:00
    UTC all year. The day (one digest a day) also starts at the player's own midnight."""
    alice, bob = people["alice"], people["bob"]
    preference_update(user=alice, email_mode="digest", digest_hour=7, time_zone="Europe/Berlin")
    preference_update(user=bob, email_mode="digest", digest_hour=7, time_zone="Atlantic/Reykjavik")
    for user in (alice, bob):
        _waiting_for(user, start_game(people), None)

    winter = datetime(2026, 12, 1, 5, 59, tzinfo=UTC)
    with time_machine.travel(winter, tick=False) as clock:
        assert digest_send_due() == 0
        clock.move_to(winter.replace(hour=6, minute=0))
        assert digest_send_due() == 1  # alice: 07:00 in Berlin
        clock.move_to(winter.replace(hour=7, minute=0))
        assert digest_send_due() == 1  # bob: 07:00 in Reykjavik
        # 23:30 UTC is already the next day in Berlin, but before 7:00 there: nothing yet.
        clock.move_to(winter.replace(hour=23, minute=30))
        assert digest_send_due() == 0
    summer = datetime(2027, 7, 1, 4, 59, tzinfo=UTC)
    with time_machine.travel(summer, tick=False) as clock:
        assert digest_send_due() == 0
        clock.move_to(summer.replace(hour=5, minute=0))
        assert digest_send_due() == 1  # alice: 07:00 in Berlin (CEST)
    keys = Outbox.objects.filter(kind="digest").order_by("id").values_list("key", flat=True)
    assert list(keys) == [
        digest(f"digest:{alice.pk}:2026-12-01"),
        digest(f"digest:{bob.pk}:2026-12-01"),
        digest(f"digest:{alice.pk}:2027-07-01"),
    ]


def _idle_digest_readers(count: int) -> list[int]:
    """`count` digest readers with nothing waiting, older (lower ids) than the cast's."""
    users = get_user_model().objects.bulk_create(
        get_user_model()(username=f"idle{n}", email=f"idle{n}@example.com") for n in range(count)
    )
    NotificationPreference.objects.bulk_create(
        NotificationPreference(user=user, email_mode="digest", digest_hour=7) for user in users
    )
    return [user.pk for user in users]


def _newest_player_at(game, user):
    """A new account (the highest id) takes `user`'s seat at `game`."""
    newest = get_user_model().objects.create_user(username="newest", email="newest@example.com")
    Seat.objects.filter(game=game, user=user).update(user=newest)
    return newest


def test_users_with_nothing_waiting_never_starve_those_with_a_game_waiting(people, table_game):
    """The finding of issue 25: the first batch by id held only users with nothing waiting,
    who stayed due and were read again every run; those with a game never came up."""
    idle = _idle_digest_readers(25)
    alice = _newest_player_at(table_game, people["alice"])
    preference_update(user=alice, email_mode="digest", digest_hour=7)
    _waiting_for(alice, table_game, None)
    assert alice.pk > max(idle)

    with time_machine.travel(MORNING, tick=False):
        assert digest_send_due(limit=10) == 1

    assert Outbox.objects.filter(kind="digest").get().recipient == alice
    # Every user looked at moved on: the idle ones to a recheck within the day, alice to
    # tomorrow's hour.
    due = dict(NotificationPreference.objects.values_list("user_id", "digest_due_at"))
    assert {due[pk] for pk in idle} == {MORNING + timedelta(minutes=60)}
    assert due[alice.pk] == MORNING.replace(hour=7, minute=0) + timedelta(days=1)


def test_a_sweep_out_of_time_leaves_the_rest_for_the_next_one_which_starts_after_it(
    people, table_game, monkeypatch
):
    from notifications.services import digests

    idle = _idle_digest_readers(20)
    alice = _newest_player_at(table_game, people["alice"])
    preference_update(user=alice, email_mode="digest", digest_hour=7)
    _waiting_for(alice, table_game, None)
    # Each look at the clock is a second later: a 1.5 s budget allows one batch per sweep.
    clock = iter(range(1000))
    monkeypatch.setattr(digests.monotonic_clock, "monotonic", lambda: float(next(clock)))
    seen = []
    visit = digests._visit
    monkeypatch.setattr(digests, "_visit", lambda pk, now: seen.append(pk) or visit(pk, now))

    with time_machine.travel(MORNING, tick=False):
        runs = [digest_send_due(limit=10, seconds=1.5) for _ in range(4)]

    assert runs == [0, 0, 1, 0]
    assert seen == [*idle, alice.pk]  # each user once, in order, none read twice


def test_a_digest_reader_is_looked_at_again_at_the_recheck_and_after_a_digest_tomorrow(
    people, table_game, settings
):
    settings.CANASTA_DIGEST_RECHECK_MINUTES = 30
    bob = people["bob"]
    preference_update(user=bob, email_mode="digest", digest_hour=7)
    with time_machine.travel(MORNING.replace(hour=3), tick=False) as clock:
        assert digest_send_due() == 0  # before the hour: due at 7:00
        assert NotificationPreference.objects.get(user=bob).digest_due_at == MORNING.replace(
            hour=7, minute=0
        )
        clock.move_to(MORNING)
        assert digest_send_due() == 0  # nothing waiting
        _waiting_for(bob, table_game, None)
        clock.shift(timedelta(minutes=29))
        assert digest_send_due() == 0  # not rechecked yet
        clock.shift(timedelta(minutes=1))
        assert digest_send_due() == 1
        clock.shift(timedelta(hours=10))
        assert digest_send_due() == 0
    preference = NotificationPreference.objects.get(user=bob)
    assert preference.digest_due_at == MORNING.replace(hour=7, minute=0) + timedelta(days=1)


def test_changing_the_hour_or_the_zone_makes_the_next_sweep_look_again(people, table_game):
    carol = people["carol"]
    preference_update(user=carol, email_mode="digest", digest_hour=20)
    _waiting_for(carol, table_game, None)
    with time_machine.travel(MORNING, tick=False):
        assert digest_send_due() == 0  # due at 20:00
        preference_update(user=carol, digest_hour=7)
        assert NotificationPreference.objects.get(user=carol).digest_due_at is None
        assert digest_send_due() == 1
