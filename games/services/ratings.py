"""Ratings: one per player and variant family, moved by every rated match (docs/ratings.md).

The arithmetic is the openskill library's (Weng-Lin, Plackett-Luce model), made for teams:
a side of the table is a team (two partners at a 4- or 6-player table, one player at a 2- or
3-player one), and the sides are ranked by their final match totals, tied sides sharing a rank.
Nothing here computes a rating itself; this module decides *whether* and *for whom* a match is
rated (the policy) and stores what the library answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import combinations
from typing import Any

from django.db import transaction
from django.utils import timezone
from openskill.models import PlackettLuce, PlackettLuceRating

from games import hooks
from games.events import is_action, is_event
from games.models import (
    Actor,
    EndReason,
    Game,
    GameStatus,
    Hand,
    PlayerRating,
    RatingChange,
    Seat,
    SeatKind,
    SeatStatus,
)
from games.movelog import game_moves

# The library's own defaults (mu 25, sigma 25/3); one model for every family.
MODEL = PlackettLuce()
# More turns than this played for a person by a stand-in bot or the timeout autoplay, and the
# match no longer counts as that person's own (docs/ratings.md, "Stand-in bots").
STAND_IN_TURNS = 3
# The displayed rating: the conservative estimate mu - 3 sigma, scaled so that a new player
# starts at 1000 and a point of mu is worth 40 (openskill's ordinal with alpha and target).
DISPLAY_ALPHA = 40.0
DISPLAY_TARGET = 1000.0
# The leaderboard lists players with at least this many rated matches in the family, against
# at least this many different people, whose rating is no longer provisional.
LEADERBOARD_MIN_MATCHES = 5
LEADERBOARD_MIN_OPPONENTS = 3
# A rating is provisional ("1000?") while sigma is above this: about five balanced two-player
# matches, eight four-player ones (docs/ratings.md, "Provisional ratings").
PROVISIONAL_SIGMA = 7.2
# A match is rated only when every side played at least this many turns of its own (not a
# stand-in's); one resigned or forfeited before that ends unrated, as if aborted.
MIN_OWN_TURNS = 3
# Rated matches of one pair of players (at the same table) that count per rolling day; the
# next ones are unrated, so two accounts cannot farm points off each other.
PAIR_MATCHES_PER_DAY = 3

# Why a finished or ended match did not move ratings; the keys are stable (API), the texts
# are shown on pages through games.services.ratings_text (translated there).
UNRATED_CASUAL = "casual"
UNRATED_BOT = "bot_seat"
UNRATED_CALLED_OFF = "called_off"
UNRATED_NO_PLAYER = "no_player"
UNRATED_NOT_OVER = "not_over"
UNRATED_UNCONFIRMED = "unconfirmed"
UNRATED_TOO_SHORT = "too_short"
UNRATED_REPEATED = "repeated_opponents"


def rating_family(variant: str) -> str:
    """The family a variant's ratings belong to: each of the four rule sets is its own."""
    return variant


def rating_display(mu: float, sigma: float) -> int:
    """The figure players see: conservative, so a new player does not top the table."""
    return round(
        PlackettLuceRating(mu, sigma).ordinal(z=3.0, alpha=DISPLAY_ALPHA, target=DISPLAY_TARGET)
    )


def rating_margin(sigma: float) -> int:
    """The uncertainty shown beside a rating (± 3 sigma in display points)."""
    return round(3 * sigma * DISPLAY_ALPHA)


def rating_provisional(sigma: float) -> bool:
    """Whether a rating is still too uncertain to be taken at its word (and to be listed)."""
    return sigma > PROVISIONAL_SIGMA


def rating_label(display: int, sigma: float) -> str:
    """How a rating is written everywhere (API, pages, emails, leaderboards, lobby): the
    figure, with a "?" while it is provisional ("1000?")."""
    return f"{display}?" if rating_provisional(sigma) else str(display)


@dataclass
class RatingPlan:
    """What the policy decided for one match: unrated (with a reason), or the teams, ranks
    and the players whose ratings are written."""

    unrated: str = ""
    teams: list[list[Seat]] = field(default_factory=list)
    ranks: list[int] = field(default_factory=list)
    updated: set[int] = field(default_factory=set)  # user ids


def match_totals(game: Game) -> list[int]:
    """The match totals after the last hand played out (a hand cut short scores nothing)."""
    last = (
        Hand.objects.filter(game=game, result__isnull=False).order_by("-number").values("result")
    ).first()
    if last is None:
        return [0] * game.sides
    # result__isnull=False above; the stub types the JSON value as Optional.
    return [int(total) for total in last["result"]["totals"]]  # type: ignore[index]


def ranks_from_totals(totals: Sequence[int], loser: int | None = None) -> list[int]:
    """1 for the best side, tied sides equal; a side that resigned or forfeited is last."""
    ranks = []
    for side, total in enumerate(totals):
        if side == loser:
            ranks.append(len(totals))
            continue
        better = sum(1 for other, value in enumerate(totals) if other != loser and value > total)
        ranks.append(1 + better)
    return ranks


def _losing_side(game: Game) -> int | None:
    """The side that resigned or ran out of time, from the match's last logged move."""
    if game.end_reason not in (EndReason.RESIGNED, EndReason.FORFEIT):
        return None
    found = game_moves(game, latest_first=True, limit=1)
    if not found:
        return None
    last = found[0]
    for event in last.events:
        if is_event(event, "resign"):
            return int(event["side"])
        if is_event(event, "timeout"):
            return int(event["seat"]) % game.sides
    return int(last.seat) % game.sides


@dataclass
class TurnCounts:
    """Per seat: the turns its person played (``own``) and those a bot or the system played
    for them (``stood_in``)."""

    own: dict[int, int] = field(default_factory=dict)
    stood_in: dict[int, int] = field(default_factory=dict)


def turn_counts(game: Game) -> TurnCounts:
    """Count the turns of each seat from the log.

    A turn is a run of consecutive moves by one seat; it is a stand-in turn when any of its
    moves was not the player's own (a stand-in bot, a timeout's autoplay), else the player's
    own. A resignation is no turn (it may come at any time, and is no play).
    """
    counts = TurnCounts()
    turns: list[tuple[int, bool]] = []  # (seat, whether every move was the player's)
    previous: int | None = None
    for move in game_moves(game):
        seat, actor, action = move.seat, move.actor, move.action
        if is_action(action, "resign"):
            continue
        if seat != previous:
            turns.append((seat, True))
            previous = seat
        if actor != Actor.PLAYER:
            turns[-1] = (seat, False)
    for seat, own in turns:
        bucket = counts.own if own else counts.stood_in
        bucket[seat] = bucket.get(seat, 0) + 1
    return counts


def match_long_enough(game: Game, counts: TurnCounts | None = None) -> bool:
    """Whether every side has played MIN_OWN_TURNS turns of its own: before that a match is
    too short to say anything of its players (docs/ratings.md)."""
    counts = counts or turn_counts(game)
    per_side = [0] * game.sides
    for seat, turns in counts.own.items():
        per_side[seat % game.sides] += turns
    return all(turns >= MIN_OWN_TURNS for turns in per_side)


def _pairs_over_limit(user_ids: Sequence[int], family: str, now: datetime) -> bool:
    """Whether two of these players already had PAIR_MATCHES_PER_DAY rated matches of the
    family together in the last day (one query over their recent rating changes)."""
    recent: dict[Any, set[int]] = {}
    rows = RatingChange.objects.filter(
        user_id__in=user_ids, family=family, created_at__gt=now - timedelta(days=1)
    ).values_list("game_id", "user_id")
    for game_id, user_id in rows:
        recent.setdefault(game_id, set()).add(user_id)
    for first, second in combinations(sorted(set(user_ids)), 2):
        together = sum(1 for people in recent.values() if {first, second} <= people)
        if together >= PAIR_MATCHES_PER_DAY:
            return True
    return False


def _rated_user(seat: Seat) -> int:
    """The person of a rated seat: rating_plan rates no match with a seat without one."""
    if seat.user_id is None:
        raise ValueError(f"seat {seat.pk} has no player to rate")
    return seat.user_id


def _unrated_reason(game: Game, seats: list[Seat], counts: TurnCounts, now: datetime) -> str:
    """Why a finished match with these seats is not rated, or "" when it is."""
    if any(s.kind == SeatKind.BOT for s in seats):
        return UNRATED_BOT
    if any(s.user_id is None for s in seats):
        return UNRATED_NO_PLAYER
    user_ids = [_rated_user(s) for s in seats]
    if hooks.users_confirmed(user_ids=user_ids) != set(user_ids):
        return UNRATED_UNCONFIRMED
    if not match_long_enough(game, counts):
        return UNRATED_TOO_SHORT
    if _pairs_over_limit(user_ids, rating_family(game.variant), now):
        return UNRATED_REPEATED
    return ""


def rating_plan(game: Game, now: datetime | None = None) -> RatingPlan:
    """The policy of docs/ratings.md applied to a match that has ended at ``now``."""
    if not game.rated:
        return RatingPlan(unrated=UNRATED_CASUAL)
    if game.status != GameStatus.FINISHED:
        reason = UNRATED_CALLED_OFF if game.status == GameStatus.ABORTED else UNRATED_NOT_OVER
        return RatingPlan(unrated=reason)
    seats = sorted(
        (s for s in game.seats.all() if s.status == SeatStatus.JOINED and s.number is not None),
        key=lambda s: s.seated_number,
    )
    counts = turn_counts(game)
    unrated = _unrated_reason(game, seats, counts, now or timezone.now())
    if unrated:
        return RatingPlan(unrated=unrated)
    loser = _losing_side(game)
    ranks = ranks_from_totals(match_totals(game), loser)
    teams = [
        [s for s in seats if s.seated_number % game.sides == side] for side in range(game.sides)
    ]
    updated: set[int] = set()
    for seat in seats:
        away = counts.stood_in.get(seat.seated_number, 0) > STAND_IN_TURNS
        # A stand-in's win is not the absent player's; a loss still is theirs, so walking
        # away from a losing match does not protect a rating.
        if seat.user_id is not None and (not away or ranks[seat.seated_number % game.sides] != 1):
            updated.add(seat.user_id)
    return RatingPlan(teams=teams, ranks=ranks, updated=updated)


def _current(users: Sequence[Any], family: str, now: datetime) -> dict[int, PlayerRating]:
    rows = {
        row.user_id: row
        # Locked in one order, so two matches of the same players ending at once cannot
        # deadlock on each other's rows.
        for row in PlayerRating.objects.select_for_update()
        .filter(user_id__in=users, family=family)
        .order_by("user_id")
    }
    for user_id in users:
        if user_id not in rows:
            mu, sigma = MODEL.mu, MODEL.sigma
            rows[user_id], _ = PlayerRating.objects.get_or_create(
                user_id=user_id,
                family=family,
                defaults={
                    "mu": mu,
                    "sigma": sigma,
                    "display": rating_display(mu, sigma),
                    "updated_at": now,
                },
            )
    return rows


def rating_update_for_match(*, game: Game, now: datetime) -> list[RatingChange]:
    """Move the ratings of a match that has just ended, once; [] when it is unrated.

    Called from games.services.common.game_mark_over inside the match's transaction, so the
    ratings change exactly when the result is committed.
    """
    plan = rating_plan(game, now)
    if plan.unrated or RatingChange.objects.filter(game=game).exists():
        return []
    family = rating_family(game.variant)
    with transaction.atomic():
        users = [_rated_user(seat) for team in plan.teams for seat in team]
        current = _current(users, family, now)
        teams = [
            [
                MODEL.rating(mu=current[_rated_user(s)].mu, sigma=current[_rated_user(s)].sigma)
                for s in team
            ]
            for team in plan.teams
        ]
        rated = MODEL.rate(teams, ranks=[float(rank) for rank in plan.ranks])
        changes = []
        for side, team in enumerate(plan.teams):
            for seat, after in zip(team, rated[side], strict=True):
                if seat.user_id in plan.updated:
                    changes.append(
                        _store(current[seat.user_id], after, game, plan.ranks[side], now)
                    )
        return changes


def _store(
    row: PlayerRating, after: PlackettLuceRating, game: Game, rank: int, now: datetime
) -> RatingChange:
    change = RatingChange.objects.create(
        user_id=row.user_id,
        game=game,
        family=row.family,
        mu_before=row.mu,
        sigma_before=row.sigma,
        display_before=row.display,
        mu=after.mu,
        sigma=after.sigma,
        display=rating_display(after.mu, after.sigma),
        rank=rank,
        created_at=now,
    )
    row.mu, row.sigma, row.display = after.mu, after.sigma, change.display
    row.matches += 1
    row.updated_at = now
    row.save(update_fields=["mu", "sigma", "display", "matches", "updated_at"])
    return change
