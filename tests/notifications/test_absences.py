from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from games.services.errors import GameError
from games.timecontrol import deadline_after
from notifications.models import Absence
from notifications.selectors import absence_intervals, absences_of
from notifications.services.absences import absence_cancel, absence_days_used, absence_declare
from tests.game_fixtures import start_game

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # a Monday


@pytest.fixture(autouse=True)
def frozen():
    with time_machine.travel(NOW, tick=False) as clock:
        yield clock


def _days(n: float) -> timedelta:
    return timedelta(days=n)


def test_it_declares_an_absence_starting_now_by_default(people):
    absence = absence_declare(user=people["alice"], ends_at=NOW + _days(7))
    assert (absence.starts_at, absence.ends_at) == (NOW, NOW + _days(7))


def test_the_days_per_year_are_bounded(people, settings):
    settings.CANASTA_MAX_ABSENCE_DAYS_PER_YEAR = 10
    alice = people["alice"]
    absence_declare(user=alice, starts_at=NOW + _days(1), ends_at=NOW + _days(7))
    with pytest.raises(GameError) as error:
        absence_declare(user=alice, starts_at=NOW + _days(20), ends_at=NOW + _days(25))
    assert error.value.code == "absence_limit"
    assert error.value.details["used_days"] == 6
    absence_declare(user=alice, starts_at=NOW + _days(20), ends_at=NOW + _days(24))
    assert absence_days_used(user=alice, year=2026) == 10


def test_an_absence_across_new_year_counts_in_each_year(people, settings):
    settings.CANASTA_MAX_ABSENCE_DAYS_PER_YEAR = 5
    bob = people["bob"]
    new_year = datetime(2027, 1, 1, tzinfo=UTC)
    absence_declare(user=bob, starts_at=new_year - _days(4), ends_at=new_year + _days(4))
    assert absence_days_used(user=bob, year=2026) == 4
    assert absence_days_used(user=bob, year=2027) == 4
    with pytest.raises(GameError):
        absence_declare(user=bob, starts_at=new_year + _days(10), ends_at=new_year + _days(12))


def test_overlapping_absences_are_refused(people):
    alice = people["alice"]
    absence_declare(user=alice, starts_at=NOW + _days(2), ends_at=NOW + _days(5))
    with pytest.raises(GameError) as error:
        absence_declare(user=alice, starts_at=NOW + _days(4), ends_at=NOW + _days(6))
    assert error.value.code == "absence_overlaps"
    # Back to back is fine, and another user's absences do not matter.
    absence_declare(user=alice, starts_at=NOW + _days(5), ends_at=NOW + _days(6))
    absence_declare(user=people["bob"], starts_at=NOW + _days(2), ends_at=NOW + _days(5))


def test_an_absence_cannot_start_in_the_past_or_end_before_it_starts(people):
    alice = people["alice"]
    with pytest.raises(GameError) as past:
        absence_declare(user=alice, starts_at=NOW - _days(1), ends_at=NOW + _days(1))
    with pytest.raises(GameError) as backwards:
        absence_declare(user=alice, starts_at=NOW + _days(2), ends_at=NOW + _days(1))
    assert past.value.code == "absence_in_the_past"
    assert backwards.value.code == "invalid_absence"
    # A start a moment ago (the request took a while) is now.
    absence = absence_declare(
        user=alice, starts_at=NOW - timedelta(seconds=30), ends_at=NOW + _days(1)
    )
    assert absence.starts_at == NOW


def test_cancelling_a_future_absence_removes_it(people):
    alice = people["alice"]
    absence = absence_declare(user=alice, starts_at=NOW + _days(3), ends_at=NOW + _days(4))
    assert absence_cancel(user=alice, absence_id=absence.pk) is None
    assert not Absence.objects.exists()


def test_cancelling_an_absence_under_way_ends_it_now(people, frozen):
    alice = people["alice"]
    absence = absence_declare(user=alice, ends_at=NOW + _days(4))
    frozen.shift(_days(1))
    ended = absence_cancel(user=alice, absence_id=absence.pk)
    assert ended is not None
    assert ended.ends_at == NOW + _days(1)
    frozen.shift(_days(1))
    with pytest.raises(GameError) as error:
        absence_cancel(user=alice, absence_id=absence.pk)
    assert error.value.code == "absence_over"


def test_only_the_owner_can_cancel(people):
    absence = absence_declare(user=people["alice"], ends_at=NOW + _days(1))
    with pytest.raises(GameError) as error:
        absence_cancel(user=people["bob"], absence_id=absence.pk)
    assert error.value.code == "not_found"


def test_absences_pause_the_turn_clock_and_are_visible_to_others(people):
    alice = people["alice"]
    absence_declare(user=alice, starts_at=NOW + timedelta(hours=1), ends_at=NOW + _days(2))
    intervals = absence_intervals(user=alice, after=NOW)
    # A 3-hour turn starting now: 1 hour before the absence, 2 after it.
    assert deadline_after(NOW, 3 * 3600, absences=intervals) == NOW + _days(2) + timedelta(hours=2)
    shown = absences_of(user_ids=[alice.pk, people["bob"].pk], now=NOW)
    assert [a.user_id for a in shown] == [alice.pk]


def test_declaring_and_cancelling_an_absence_moves_the_deadline_of_a_waiting_game(people):
    game = start_game(people, turn_seconds=3 * 3600)
    player = next(s.user for s in game.seats.all() if s.number == game.turn_seat)
    assert game.deadline == NOW + timedelta(hours=3)

    absence = absence_declare(
        user=player, starts_at=NOW + timedelta(hours=1), ends_at=NOW + _days(2)
    )
    game.refresh_from_db()
    assert game.deadline == NOW + _days(2) + timedelta(hours=2)

    absence_cancel(user=player, absence_id=absence.pk)
    game.refresh_from_db()
    assert game.deadline == NOW + timedelta(hours=3)


def test_an_absence_must_end_within_two_years(people):
    for far in (NOW + _days(800), datetime(9999, 12, 31, tzinfo=UTC)):
        with pytest.raises(GameError) as refused:
            absence_declare(user=people["alice"], ends_at=far)
        assert refused.value.code == "invalid_absence"
        assert "latest" in refused.value.details
    planned = absence_declare(
        user=people["alice"], starts_at=NOW + _days(700), ends_at=NOW + _days(710)
    )
    assert planned.ends_at == NOW + _days(710)
