"""Ratings (docs/ratings.md): the library's result for partnerships and three sides, and the
policy for casual tables, bots, stand-ins, resignations, timeouts and aborted matches."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.utils import timezone
from openskill.models import PlackettLuce

from games.models import (
    Actor,
    EndReason,
    Game,
    Hand,
    Move,
    PlayerRating,
    RatingChange,
    Seat,
)
from games.services import lobby, profiles
from games.services.common import game_mark_over
from games.services.moves import game_resign
from games.services.ratings import (
    LEADERBOARD_MIN_MATCHES,
    LEADERBOARD_MIN_OPPONENTS,
    MODEL,
    PAIR_MATCHES_PER_DAY,
    PROVISIONAL_SIGMA,
    STAND_IN_TURNS,
    UNRATED_BOT,
    UNRATED_CALLED_OFF,
    UNRATED_CASUAL,
    UNRATED_REPEATED,
    UNRATED_TOO_SHORT,
    UNRATED_UNCONFIRMED,
    ranks_from_totals,
    rating_display,
    rating_label,
    rating_plan,
)
from games.services.rematch import rematch_offer
from games.services.timeouts import timeout_apply
from notifications.models import NotificationPreference
from tests.game_fixtures import (
    make_user,
    play_long_enough,
    play_random,
    rated_against,
    start_game,
    user_at,
)


@pytest.fixture
def users(confirmed_users):
    """Rated matches need confirmed addresses (tests of the rule itself make their own)."""
    return confirmed_users


def _finish(game: Game, seed: int = 2) -> Game:
    rng = random.Random(seed)
    while game.status == "active":
        game = play_random(game, 40, rng)
    return game


def _rating(user, family="classic") -> PlayerRating:
    return PlayerRating.objects.get(user=user, family=family)


def test_ranks_come_from_the_totals_with_ties_and_a_resigning_side_last():
    assert ranks_from_totals([5200, 3100]) == [1, 2]
    assert ranks_from_totals([900, 1400, 900]) == [2, 1, 2]
    assert ranks_from_totals([5000, 5000, 100]) == [1, 1, 3]
    # The side that gave up is last whatever its score.
    assert ranks_from_totals([4000, 1000], loser=0) == [2, 1]
    assert ranks_from_totals([4000, 1000, 2000], loser=0) == [3, 2, 1]


def test_a_two_against_two_match_moves_ratings_as_the_library_says(users):
    # Earlier results, so the four do not start equal and the check means something.
    start = {"alice": (28.0, 6.0), "bob": (24.0, 7.5), "carol": (25.0, 8.0), "dave": (21.0, 5.0)}
    for name, (mu, sigma) in start.items():
        PlayerRating.objects.create(
            user=users[name],
            family="classic",
            mu=mu,
            sigma=sigma,
            display=rating_display(mu, sigma),
            matches=3,
        )
    game = _finish(start_game(users, options={"target": 100}))
    assert game.status == "finished" and game.end_reason == EndReason.MATCH_OVER
    totals = Hand.objects.filter(game=game).exclude(result=None).last().result["totals"]

    # The library's own answer for the same teams (partners 0+2 vs 1+3) and ranks.
    library = PlackettLuce()
    seats = {s.number: s.user.username for s in game.seats.all()}
    teams = [[seats[0], seats[2]], [seats[1], seats[3]]]
    ranks = [1 if totals[0] > totals[1] else 2, 1 if totals[1] > totals[0] else 2]
    if totals[0] == totals[1]:
        ranks = [1, 1]
    expected = library.rate(
        [[library.rating(mu=start[n][0], sigma=start[n][1]) for n in team] for team in teams],
        ranks=ranks,
    )
    for team, after in zip(teams, expected, strict=True):
        for name, rating in zip(team, after, strict=True):
            row = _rating(users[name])
            assert row.mu == pytest.approx(rating.mu, abs=1e-9)
            assert row.sigma == pytest.approx(rating.sigma, abs=1e-9)
            assert row.matches == 4
            assert row.display == rating_display(rating.mu, rating.sigma)
    # Partners move together; the winners go up, the losers down.
    winners = teams[0] if totals[0] > totals[1] else teams[1]
    losers = teams[1] if winners is teams[0] else teams[0]
    for name in winners:
        assert _rating(users[name]).mu > start[name][0]
    for name in losers:
        assert _rating(users[name]).mu < start[name][0]
    history = RatingChange.objects.filter(game=game)
    assert history.count() == 4
    change = history.get(user=users[winners[0]])
    assert (change.mu_before, change.sigma_before, change.rank) == (*start[winners[0]], 1)


def test_a_three_sided_party_match_ranks_each_side(users):
    game = lobby.game_create(
        creator=users["alice"],
        variant="party",
        players=3,
        options={"seating": "invitation", "target": 100},
    )
    for name in ("bob", "carol"):
        game = lobby.game_join(game_id=game.pk, user=users[name])
    game = _finish(game, seed=5)
    totals = Hand.objects.filter(game=game).exclude(result=None).last().result["totals"]
    names = {s.number: s.user.username for s in game.seats.all()}
    ranks = ranks_from_totals(totals)
    library = PlackettLuce()
    expected = library.rate([[library.rating()] for _ in range(3)], ranks=ranks)
    for seat in range(3):
        row = _rating(users[names[seat]], "party")
        assert row.mu == pytest.approx(expected[seat][0].mu, abs=1e-9)
    assert RatingChange.objects.filter(game=game, family="party").count() == 3
    assert not PlayerRating.objects.filter(family="classic").exists()


def test_a_casual_table_and_a_table_with_a_bot_are_unrated(users):
    casual = _finish(start_game(users, options={"target": 100}, rated=False))
    assert rating_plan(casual).unrated == UNRATED_CASUAL

    botted = lobby.game_create(
        creator=users["alice"],
        variant="classic",
        players=2,
        options={"target": 100},
        bots=["basic"],
    )
    assert botted.status == "active"
    assert botted.rated is False  # a table with a bot is casual from the start
    game_resign(game_id=botted.pk, user=users["alice"])
    botted.refresh_from_db()
    botted.rated = True  # and even if it were not, the policy leaves it unrated
    assert rating_plan(botted).unrated == UNRATED_BOT
    assert not RatingChange.objects.exists()
    assert not PlayerRating.objects.exists()


def test_an_aborted_match_is_unrated(users):
    game = lobby.game_create(
        creator=users["alice"], variant="classic", players=2, options={"seating": "invitation"}
    )
    game = lobby.game_join(game_id=game.pk, user=users["bob"])
    lobby.game_abort(game_id=game.pk, user=users["alice"])
    game.refresh_from_db()
    assert game.status == "aborted"
    assert rating_plan(game).unrated == UNRATED_CALLED_OFF
    assert not RatingChange.objects.exists()


def test_resigning_is_a_rated_loss_for_the_whole_side(users, game):
    game = play_long_enough(game)
    resigner = user_at(game, 1)  # carol: with dave against alice and bob
    game_resign(game_id=game.pk, user=resigner)
    game.refresh_from_db()
    ranks = {c.user.username: c.rank for c in RatingChange.objects.filter(game=game)}
    assert ranks == {"alice": 1, "bob": 1, "carol": 2, "dave": 2}
    assert _rating(users["carol"]).mu < MODEL.mu < _rating(users["alice"]).mu


def test_a_timeout_forfeit_is_a_rated_loss_for_the_side_that_ran_out(users):
    game = play_long_enough(start_game(users, turn_seconds=3600, timeout_policy="forfeit"))
    late = game.turn_seat
    timeout_apply(game_id=game.pk, now=timezone.now() + timedelta(hours=2))
    game.refresh_from_db()
    assert game.end_reason == EndReason.FORFEIT
    loser_side = late % 2
    assert rating_plan(game).unrated == ""
    assert RatingChange.objects.filter(game=game).count() == 4
    for change in RatingChange.objects.filter(game=game):
        seat = Seat.objects.get(game=game, user=change.user)
        assert change.rank == (2 if seat.number % 2 == loser_side else 1)


def _mark_stand_in(game: Game, seat: int, turns: int) -> None:
    """Pretend a stand-in bot played ``turns`` of the seat's turns (the log's actor column)."""
    seqs = list(
        Move.objects.filter(game=game, seat=seat).order_by("seq").values_list("seq", flat=True)
    )
    starts = [s for i, s in enumerate(seqs) if i == 0 or seqs[i - 1] != s - 1]
    assert len(starts) >= turns
    Move.objects.filter(game=game, seq__in=starts[:turns]).update(actor=Actor.BOT)


def test_a_stand_in_for_more_than_a_few_turns_takes_the_win_but_not_the_loss(users, game):
    game = play_random(game, 60, random.Random(4))
    assert game.status == "active"
    away_seat = 1  # carol
    _mark_stand_in(game, away_seat, STAND_IN_TURNS + 1)
    game = Game.objects.get(pk=game.pk)
    # carol's side wins (alice's side resigns): the win was the bot's, carol keeps her rating.
    game_resign(game_id=game.pk, user=user_at(game, 0))
    game.refresh_from_db()
    rated = {c.user.username for c in RatingChange.objects.filter(game=game)}
    assert rated == {"alice", "bob", "dave"}


def test_a_stand_in_player_still_takes_a_loss(users, game):
    game = play_random(game, 60, random.Random(4))
    _mark_stand_in(game, 1, STAND_IN_TURNS + 1)
    game_resign(game_id=game.pk, user=user_at(game, 1))
    game.refresh_from_db()
    rated = {c.user.username for c in RatingChange.objects.filter(game=game)}
    assert rated == {"alice", "bob", "carol", "dave"}


def test_a_few_stand_in_turns_do_not_matter(users, game):
    game = play_random(game, 60, random.Random(4))
    _mark_stand_in(game, 1, STAND_IN_TURNS)
    game_resign(game_id=game.pk, user=user_at(game, 0))
    assert RatingChange.objects.filter(game=game).count() == 4


def test_a_match_is_rated_once(users, game):
    game = play_long_enough(game)
    game_resign(game_id=game.pk, user=user_at(game, 0))
    game = Game.objects.prefetch_related("seats").get(pk=game.pk)
    game_mark_over(game=game, reason=EndReason.RESIGNED, winner_side=1, now=timezone.now())
    assert RatingChange.objects.filter(game=game).count() == 4
    assert all(r.matches == 1 for r in PlayerRating.objects.all())


def test_the_leaderboard_threshold_is_positive():
    assert LEADERBOARD_MIN_MATCHES >= 1


# --- what only play can move (issue 26, findings 1 and 8) ---------------------------------


def _duel(users, first="alice", second="bob", **kw) -> Game:
    """A rated two-player classic table of ``first`` and ``second``, started."""
    game = lobby.game_create(
        creator=users[first],
        variant="classic",
        players=2,
        options={"seating": "invitation", "target": 100},
        **kw,
    )
    return lobby.game_join(game_id=game.pk, user=users[second])


def test_resigning_a_rated_match_at_once_rates_nobody(users):
    game = _duel(users)
    game_resign(game_id=game.pk, user=users["bob"])
    game.refresh_from_db()
    # The match is over (a rematch can be offered, the record exported), but unrated.
    assert (game.status, game.end_reason) == ("finished", "resigned")
    assert rating_plan(game).unrated == UNRATED_TOO_SHORT
    assert not RatingChange.objects.exists() and not PlayerRating.objects.exists()


def test_a_match_where_one_side_barely_played_is_not_rated(users):
    game = _duel(users, turn_seconds=3600, timeout_policy="forfeit")
    game = play_random(game, 3, random.Random(1))  # alice drew and discarded; bob drew
    timeout_apply(game_id=game.pk, now=timezone.now() + timedelta(hours=2))
    game.refresh_from_db()
    assert game.end_reason == EndReason.FORFEIT
    assert rating_plan(game).unrated == UNRATED_TOO_SHORT
    assert not RatingChange.objects.exists()


def test_the_rating_farm_of_two_unconfirmed_accounts_moves_nothing(users):
    farm = {name: make_user(name) for name in ("farm1", "farm2")}  # addresses not confirmed
    for _ in range(5):
        game = play_long_enough(_duel(farm, "farm1", "farm2"))
        game_resign(game_id=game.pk, user=farm["farm2"])
        game.refresh_from_db()
        assert game.status == "finished"
        assert rating_plan(game).unrated == UNRATED_UNCONFIRMED
    assert not PlayerRating.objects.exists()
    assert profiles.leaderboard(family="classic") == []


def test_a_player_whose_address_is_pending_plays_unrated(users):
    NotificationPreference.objects.filter(user=users["bob"]).update(email_pending=True)
    game = play_long_enough(_duel(users))
    game_resign(game_id=game.pk, user=users["bob"])
    game.refresh_from_db()
    assert rating_plan(game).unrated == UNRATED_UNCONFIRMED
    assert not RatingChange.objects.exists()


def test_the_same_two_players_count_a_few_rated_matches_a_day(users):
    for number in range(PAIR_MATCHES_PER_DAY + 1):
        game = play_long_enough(_duel(users), seed=number)
        game_resign(game_id=game.pk, user=users["bob"])
    assert RatingChange.objects.filter(user=users["alice"]).count() == PAIR_MATCHES_PER_DAY
    assert _rating(users["alice"]).matches == PAIR_MATCHES_PER_DAY
    last = Game.objects.filter(status="finished").order_by("-finished_at").first()
    assert rating_plan(last).unrated == UNRATED_REPEATED
    # A day later the pair counts again; another opponent counts at once.
    assert rating_plan(last, timezone.now() + timedelta(days=1, minutes=1)).unrated == ""
    other = play_long_enough(_duel(users, "alice", "carol"))
    game_resign(game_id=other.pk, user=users["carol"])
    assert RatingChange.objects.filter(game=other).count() == 2


def test_a_provisional_rating_is_written_with_a_question_mark():
    assert rating_label(rating_display(MODEL.mu, MODEL.sigma), MODEL.sigma) == "1000?"
    assert rating_label(1400, PROVISIONAL_SIGMA) == "1400"
    assert rating_label(1400, PROVISIONAL_SIGMA + 0.01) == "1400?"


def test_the_leaderboard_lists_no_provisional_player_and_needs_several_opponents(users):
    def rate(name: str, sigma: float) -> None:
        PlayerRating.objects.create(
            user=users[name],
            family="classic",
            mu=30.0,
            sigma=sigma,
            display=rating_display(30.0, sigma),
            matches=LEADERBOARD_MIN_MATCHES + 5,
        )

    rate("alice", 5.0)  # many matches, all against bob: not listed
    rated_against(users["alice"], [users["bob"]] * 10)
    rate("carol", 5.0)  # against three different people: listed
    rated_against(users["carol"], [users["alice"], users["bob"], users["dave"]])
    rate("dave", PROVISIONAL_SIGMA + 0.5)  # enough opponents, still provisional
    rated_against(users["dave"], [users["alice"], users["bob"], users["eve"]])
    assert LEADERBOARD_MIN_OPPONENTS == 3
    assert [row.user.username for row in profiles.leaderboard(family="classic")] == ["carol"]


def test_a_rematch_keeps_the_table_rated_or_casual(users):
    for rated in (False, True):
        game = play_long_enough(_duel(users, rated=rated))
        game_resign(game_id=game.pk, user=users["bob"])
        again = rematch_offer(game_id=game.pk, user=users["alice"])
        assert again.rated is rated
