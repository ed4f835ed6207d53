"""Turn clocks: when a turn's time runs out (pure functions, no Django).

A turn has ``seconds`` of *running* time. The clock stops during paused
intervals: weekends (Saturday 00:00 to Monday 00:00 UTC) when the game pauses
them, and the absences (vacations) of the player whose turn it is. The
deadline is the moment the running time is used up; it is stored in an indexed
database column and swept by Celery beat (docs/background-work.md, "The sweep").
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import UTC, datetime, timedelta

Interval = tuple[datetime, datetime]

_WEEK = timedelta(days=7)


def _weekends_from(moment: datetime) -> Iterator[Interval]:
    """Weekend intervals that end after ``moment``, in order."""
    day = moment.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    saturday = day - timedelta(days=(day.weekday() - 5) % 7)
    while True:
        yield saturday, saturday + timedelta(days=2)
        saturday += _WEEK


def _merged(intervals: Iterable[Interval]) -> list[Interval]:
    out: list[Interval] = []
    for start, end in sorted(i for i in intervals if i[1] > i[0]):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def deadline_after(
    start: datetime,
    seconds: int,
    *,
    weekend_pause: bool = False,
    absences: Iterable[Interval] = (),
) -> datetime:
    """The moment ``seconds`` of running time have passed since ``start``."""
    if start.tzinfo is None:
        raise ValueError("start must be timezone-aware")
    remaining = timedelta(seconds=seconds)
    now = start
    pauses = _merged(absences)
    weekends = _weekends_from(start) if weekend_pause else iter(())
    next_weekend = next(weekends, None)
    while True:
        # The earliest pause that has not ended yet.
        while pauses and pauses[0][1] <= now:
            pauses.pop(0)
        while next_weekend is not None and next_weekend[1] <= now:
            next_weekend = next(weekends, None)
        candidates = [p for p in (pauses[0] if pauses else None, next_weekend) if p is not None]
        if not candidates:
            return now + remaining
        pause = min(candidates)
        if pause[0] <= now:
            now = pause[1]  # inside a pause: the clock waits for its end
            continue
        run = pause[0] - now
        if remaining <= run:
            return now + remaining
        remaining -= run
        now = pause[1]


def running_seconds(
    start: datetime,
    end: datetime,
    *,
    weekend_pause: bool = False,
    absences: Iterable[Interval] = (),
) -> float:
    """Running (unpaused) time between two moments, in seconds."""
    if end <= start:
        return 0.0
    paused = list(absences)
    if weekend_pause:
        for weekend in _weekends_from(start):
            if weekend[0] >= end:
                break
            paused.append(weekend)
    total = (end - start).total_seconds()
    for p_start, p_end in _merged(paused):
        overlap = (min(end, p_end) - max(start, p_start)).total_seconds()
        total -= max(0.0, overlap)
    return total
