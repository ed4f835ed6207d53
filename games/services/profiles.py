"""Players' profiles and the leaderboards: reads over finished matches and stored ratings
(docs/ratings.md). Shared by the API (api/views/records.py) and the pages (web/views/records.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model
from django.db.models import IntegerField, OuterRef, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils.translation import gettext as _

from games import engine
from games.models import Game, GameStatus, Hand, PlayerRating, RatingChange, Seat, SeatStatus
from games.services.errors import ErrorKind, GameError
from games.services.ratings import (
    LEADERBOARD_MIN_MATCHES,
    MODEL,
    rating_display,
    rating_margin,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import User


@dataclass
class VariantRecord:
    variant: str
    played: int = 0
    won: int = 0
    hand_points: int = 0
    hands: int = 0

    @property
    def win_rate(self) -> float | None:
        return self.won / self.played if self.played else None

    @property
    def average_hand_score(self) -> float | None:
        return self.hand_points / self.hands if self.hands else None


@dataclass
class RatingCard:
    family: str
    display: int
    margin: int
    mu: float
    sigma: float
    matches: int
    history: list[RatingChange] = field(default_factory=list)


@dataclass
class Profile:
    user: User
    ratings: list[RatingCard]
    variants: list[VariantRecord]

    @property
    def played(self) -> int:
        return sum(v.played for v in self.variants)

    @property
    def won(self) -> int:
        return sum(v.won for v in self.variants)


def player_by_name(username: str) -> Any:
    """An active user by username, or the API's 404 (one answer for unknown and inactive)."""
    model = get_user_model()
    user = model.objects.filter(**{model.USERNAME_FIELD: username}, is_active=True).first()
    if user is None:
        raise GameError(ErrorKind.NOT_FOUND, "not_found", _("No such player."))
    return user


def _variant_records(user: User) -> list[VariantRecord]:
    seats = list(
        Seat.objects.filter(
            user=user, status=SeatStatus.JOINED, game__status=GameStatus.FINISHED
        ).select_related("game")
    )
    records: dict[str, VariantRecord] = {}
    side_of: dict[Any, tuple[str, int]] = {}
    for seat in seats:
        game = seat.game
        side = seat.seated_number % game.sides
        record = records.setdefault(game.variant, VariantRecord(game.variant))
        record.played += 1
        record.won += int(game.winner_side == side)
        side_of[game.pk] = (game.variant, side)
    hands = Hand.objects.filter(game_id__in=side_of, result__isnull=False).values_list(
        "game_id", "result"
    )
    for game_id, result in hands:
        variant, side = side_of[game_id]
        # result__isnull=False above; the stub types the JSON value as Optional.
        records[variant].hand_points += int(result["scores"][side])  # type: ignore[index]
        records[variant].hands += 1
    order = list(engine.VARIANTS)
    return sorted(
        records.values(), key=lambda r: order.index(r.variant) if r.variant in order else 99
    )


def profile_of(user: User) -> Profile:
    """Ratings with their history, and per variant: matches, wins, the average hand score."""
    history: dict[str, list[RatingChange]] = {}
    for change in RatingChange.objects.filter(user=user).order_by("created_at", "id"):
        history.setdefault(change.family, []).append(change)
    cards = [
        RatingCard(
            family=row.family,
            display=row.display,
            margin=rating_margin(row.sigma),
            mu=row.mu,
            sigma=row.sigma,
            matches=row.matches,
            history=history.get(row.family, []),
        )
        for row in PlayerRating.objects.filter(user=user).order_by("family")
    ]
    return Profile(user=user, ratings=cards, variants=_variant_records(user))


def leaderboard(*, family: str, limit: int = 100) -> list[PlayerRating]:
    """The best ratings of a family among players with enough rated matches to mean something."""
    if family not in engine.VARIANTS:
        raise GameError(
            ErrorKind.NOT_FOUND,
            "not_found",
            _("No such variant."),
            {"variants": list(engine.VARIANTS)},
        )
    return list(
        PlayerRating.objects.filter(
            family=family, matches__gte=LEADERBOARD_MIN_MATCHES, user__is_active=True
        )
        .select_related("user")
        .order_by("-display", "-matches", "user_id")[:limit]
    )


def initial_display() -> int:
    """What a player without rated matches shows (and counts as in the lobby's filter)."""
    return rating_display(MODEL.mu, MODEL.sigma)


def tables_in_rating_range(
    games: QuerySet[Game], *, low: int | None = None, high: int | None = None
) -> QuerySet[Game]:
    """Open tables whose rating is within [low, high]: a table's rating is its creator's in the
    table's variant (a player without rated matches counts as a newcomer, initial_display())."""
    creator = PlayerRating.objects.filter(
        user=OuterRef("created_by"), family=OuterRef("variant")
    ).values("display")[:1]
    games = games.annotate(
        table_rating=Coalesce(
            Subquery(creator), Value(initial_display()), output_field=IntegerField()
        )
    )
    if low is not None:
        games = games.filter(table_rating__gte=low)
    if high is not None:
        games = games.filter(table_rating__lte=high)
    return games
