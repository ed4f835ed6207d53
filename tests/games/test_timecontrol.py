from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.timecontrol import deadline_after, running_seconds

MONDAY = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)  # a Monday
FRIDAY = datetime(2026, 11, 27, 20, 0, tzinfo=UTC)


def test_it_adds_plain_seconds_without_pauses():
    assert deadline_after(MONDAY, 3600) == MONDAY + timedelta(hours=1)


def test_it_stops_the_clock_over_the_weekend():
    # Friday 20:00 + 6 h: 4 h until Saturday 00:00, the rest on Monday.
    assert deadline_after(FRIDAY, 6 * 3600, weekend_pause=True) == datetime(
        2026, 11, 30, 2, 0, tzinfo=UTC
    )
    assert deadline_after(FRIDAY, 6 * 3600) == FRIDAY + timedelta(hours=6)


def test_a_turn_starting_on_a_weekend_starts_counting_on_monday():
    saturday = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
    assert deadline_after(saturday, 60, weekend_pause=True) == datetime(
        2026, 11, 30, 0, 1, tzinfo=UTC
    )


def test_an_absence_pauses_the_clock():
    absence = (MONDAY + timedelta(hours=1), MONDAY + timedelta(days=3))
    assert deadline_after(MONDAY, 2 * 3600, absences=[absence]) == absence[1] + timedelta(hours=1)


def test_overlapping_absences_and_weekends_count_once():
    absences = [
        (FRIDAY, FRIDAY + timedelta(days=2)),
        (FRIDAY + timedelta(hours=1), FRIDAY + timedelta(hours=3)),
    ]
    # Friday 20:00 to Sunday 20:00 absent, weekend until Monday 00:00.
    assert deadline_after(FRIDAY, 3600, weekend_pause=True, absences=absences) == datetime(
        2026, 11, 30, 1, 0, tzinfo=UTC
    )


def test_it_needs_aware_datetimes():
    with pytest.raises(ValueError):
        deadline_after(datetime(2026, 1, 1), 10)


@given(
    offset=st.integers(0, 14 * 86400),
    seconds=st.integers(1, 14 * 86400),
    weekend=st.booleans(),
    absences=st.lists(
        st.tuples(st.integers(0, 30 * 86400), st.integers(0, 10 * 86400)), max_size=3
    ),
)
def test_the_running_time_until_the_deadline_is_exactly_the_turn_time(
    offset, seconds, weekend, absences
):
    start = MONDAY + timedelta(seconds=offset)
    pauses = [
        (MONDAY + timedelta(seconds=a), MONDAY + timedelta(seconds=a + b)) for a, b in absences
    ]
    deadline = deadline_after(start, seconds, weekend_pause=weekend, absences=pauses)
    assert deadline >= start + timedelta(seconds=seconds)
    assert running_seconds(
        start, deadline, weekend_pause=weekend, absences=pauses
    ) == pytest.approx(seconds)
