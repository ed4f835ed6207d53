"""Players' profiles and the leaderboards: reads over finished matches and stored ratings
(docs/ratings.md). Shared by the API (api/views/records.py) and the pages (web/views/records.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model
from django.db.models import FloatField, IntegerField, OuterRef, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce

from games import engine
from games.models import Game, GameStatus, Hand, PlayerRating, RatingChange, Seat, SeatStatus
from games.services.errors import ErrorKind, refused
from games.services.ratings import (
    LEADERBOARD_MIN_MATCHES,
    LEADERBOARD_MIN_OPPONENTS,
    MODEL,
    PROVISIONAL_SIGMA,
    rating_display,
    rating_label,
    rating_margin,
    rating_provisional,
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

    @property
    def label(self) -> str:
        """The rating as written everywhere ("1000?" while provisional)."""
        return rating_label(self.display, self.sigma)

    @property
    def provisional(self) -> bool:
        return rating_provisional(self.sigma)


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


def shown_game_id(change: RatingChange) -> str | None:
    """The match of a rating change as a profile shows it to anyone: a private match's id is
    its invitation link, so only a public match is named."""
    return str(change.game_id) if change.game.is_public else None


def player_by_name(username: str) -> Any:
    """An active user by username, or the API's 404 (one answer for unknown and inactive)."""
    model = get_user_model()
    user = model.objects.filter(**{model.USERNAME_FIELD: username}, is_active=True).first()
    if user is None:
        raise refused(ErrorKind.NOT_FOUND, "no_such_player")
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
    changes = RatingChange.objects.filter(user=user).select_related("game")
    for change in changes.order_by("created_at", "id"):
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


def opponents_of(*, user_ids: list[Any], family: str) -> dict[Any, int]:
    """Per player: how many different people they met on another side in rated matches of
    the family (two queries)."""
    games: dict[Any, set[Any]] = {}
    for user_id, game_id in RatingChange.objects.filter(
        user_id__in=user_ids, family=family
    ).values_list("user_id", "game_id"):
        games.setdefault(game_id, set()).add(user_id)
    seats = Seat.objects.filter(
        game_id__in=games, status=SeatStatus.JOINED, user__isnull=False, number__isnull=False
    ).values_list("game_id", "user_id", "number", "game__players")
    side: dict[tuple[Any, Any], int] = {}
    for game_id, user_id, number, players in seats:
        # number__isnull=False above; the stub types the column as Optional.
        side[(game_id, user_id)] = int(number or 0) % (players if players <= 3 else players // 2)
    met: dict[Any, set[Any]] = {user_id: set() for user_id in user_ids}
    for (game_id, other), other_side in side.items():
        for user_id in games[game_id]:
            if other != user_id and side.get((game_id, user_id)) != other_side:
                met[user_id].add(other)
    return {user_id: len(people) for user_id, people in met.items()}


def leaderboard(*, family: str, limit: int = 100) -> list[PlayerRating]:
    """The best ratings of a family among players whose rating means something: enough
    rated matches, against enough different people, and no longer provisional."""
    if family not in engine.VARIANTS:
        raise refused(ErrorKind.NOT_FOUND, "no_such_variant", {"variants": list(engine.VARIANTS)})
    candidates = (
        PlayerRating.objects.filter(
            family=family,
            matches__gte=LEADERBOARD_MIN_MATCHES,
            sigma__lte=PROVISIONAL_SIGMA,
            user__is_active=True,
        )
        .select_related("user")
        .order_by("-display", "-matches", "user_id")
    )
    listed: list[PlayerRating] = []
    # In pages of candidates, best first: the opponents are counted for those read only.
    for start in range(0, candidates.count(), limit):
        page = list(candidates[start : start + limit])
        met = opponents_of(user_ids=[row.user_id for row in page], family=family)
        listed += [row for row in page if met[row.user_id] >= LEADERBOARD_MIN_OPPONENTS]
        if len(listed) >= limit:
            break
    return listed[:limit]


def table_rating_label(game: Game) -> str:
    """The rating of an open table read through tables_in_rating_range, as it is shown."""
    return rating_label(game.table_rating, game.table_sigma)  # type: ignore[attr-defined]


def initial_display() -> int:
    """What a player without rated matches shows (and counts as in the lobby's filter)."""
    return rating_display(MODEL.mu, MODEL.sigma)


def tables_in_rating_range(
    games: QuerySet[Game], *, low: int | None = None, high: int | None = None
) -> QuerySet[Game]:
    """Open tables whose rating is within [low, high]: a table's rating is its creator's in the
    table's variant (a player without rated matches counts as a newcomer, initial_display())."""
    creator = PlayerRating.objects.filter(user=OuterRef("created_by"), family=OuterRef("variant"))
    games = games.annotate(
        table_rating=Coalesce(
            Subquery(creator.values("display")[:1]),
            Value(initial_display()),
            output_field=IntegerField(),
        ),
        # With the rating, its uncertainty: a provisional one is shown as such (rating_label).
        table_sigma=Coalesce(
            Subquery(creator.values("sigma")[:1]), Value(MODEL.sigma), output_field=FloatField()
        ),
    )
    if low is not None:
        games = games.filter(table_rating__gte=low)
    if high is not None:
        games = games.filter(table_rating__lte=high)
    return games
