"""game_lock runs one statement compiled once per database (games.services.compiled): each
call must still get its own game's rows, with this call's parameters, as a queryset would."""

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from games.models import Seat
from games.services.common import game_lock
from notifications.models import Absence
from tests.game_fixtures import start_game


def _seen(game):
    return [
        (s.pk, s.number, s.user_id, s.user.username if s.user_id else None, s.may_be_absent)
        for s in game.seats.all()
    ]


def test_each_call_locks_its_own_game_with_its_own_moment(users):
    first, second = start_game(users), start_game(users)
    starts = timezone.now() + timedelta(days=1)
    Absence.objects.create(user=users["bob"], starts_at=starts, ends_at=starts + timedelta(days=1))

    with transaction.atomic():
        a, b = game_lock(game_id=first.pk), game_lock(game_id=second.pk)
    with transaction.atomic():
        again = game_lock(game_id=first.pk)

    assert a.pk == first.pk and b.pk == second.pk and again.pk == first.pk
    expected = list(Seat.objects.filter(game=first).values_list("pk", flat=True))
    assert [row[0] for row in _seen(a)] == expected
    assert {row[0] for row in _seen(b)}.isdisjoint(expected)
    assert all(seat.game is a for seat in a.seats.all())
    assert a.state.game_id == first.pk and a.created_by == users["alice"]
    # The absence is judged at each call's own moment: bob may be absent now...
    assert {row[3] for row in _seen(a) if row[4]} == {"bob"}
    # ...and after it has ended nobody is (a call made with a later moment).
    ended = timezone.now() - timedelta(seconds=1)
    Absence.objects.filter(user=users["bob"]).update(
        starts_at=ended - timedelta(days=1), ends_at=ended
    )
    with transaction.atomic():
        later = game_lock(game_id=first.pk)
    assert not any(row[4] for row in _seen(later))


def test_a_game_without_state_is_locked_too(users):
    game = start_game(users)
    with transaction.atomic():
        locked = game_lock(game_id=game.pk, with_state=False)
    assert locked.pk == game.pk and len(locked.seats.all()) == 4
