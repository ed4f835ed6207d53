"""Duplicate deals and several seeds: the luck of the deal cancels out, a seed replays."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from games.bots.duplicate import DuplicateConfig, mean_interval, run_duplicate


def test_it_gives_the_same_figures_for_the_same_seed_whatever_the_workers():
    config = DuplicateConfig(
        variant="classic", players=4, bots=("basic", "random"), deals=3, seed=9
    )
    first = run_duplicate(config).to_json(timing=False)
    again = run_duplicate(config).to_json(timing=False)
    parallel = run_duplicate(DuplicateConfig(**{**config.__dict__, "workers": 2}))
    assert first == again == parallel.to_json(timing=False)
    other = run_duplicate(DuplicateConfig(**{**config.__dict__, "seed": 10}))
    assert other.to_json(timing=False)["edges"] != first["edges"]


def test_a_level_against_itself_scores_exactly_nothing_on_every_deal():
    # The same cards and the same players in both seatings: each side's luck is
    # played once from each chair, so the two seatings cancel deal by deal.
    summary = run_duplicate(
        DuplicateConfig(variant="classic", players=2, bots=("basic", "basic"), deals=3, seed=4)
    )
    assert [r.edges[0] for r in summary.results] == [-r.edges[1] for r in summary.results]
    assert summary.edges == [0.0, 0.0, 0.0]


def test_every_side_gets_a_seating_with_three_sides():
    summary = run_duplicate(
        DuplicateConfig(variant="party", players=3, bots=("basic", "random"), deals=2, seed=2)
    )
    assert all(len(r.edges) == 3 for r in summary.results)


def test_basic_beats_random_on_duplicate_deals():
    summary = run_duplicate(
        DuplicateConfig(variant="classic", players=4, bots=("basic", "random"), deals=4, seed=1)
    )
    data = summary.to_json()
    low, high = data["ci95"]
    assert data["points_a_hand"] > 200 and low <= data["points_a_hand"] <= high


def test_the_interval_is_a_normal_one_over_deals():
    mean, low, high = mean_interval([10.0, 20.0, 30.0])
    assert mean == 20.0
    assert round(high - mean, 2) == round(1.96 * 10 / 3**0.5, 2)
    assert round(mean - low, 9) == round(high - mean, 9)


def test_the_command_runs_duplicate_deals_over_several_seeds():
    out, err = io.StringIO(), io.StringIO()
    call_command(
        "simulate",
        "--duplicate",
        "--variant=classic",
        "--players=2",
        "--bots=basic,random",
        "--deals=2",
        "--seeds=3,4",
        stdout=out,
        stderr=err,
    )
    text = out.getvalue()
    assert "points a hand" in text and "all" in text and "95% CI" in text
    assert "2/2 deals" in err.getvalue()
    out = io.StringIO()
    call_command(
        "simulate",
        "--duplicate",
        "--players=2",
        "--bots=basic,random",
        "--deals=2",
        "--seeds=3,4",
        "--json",
        "--no-progress",
        stdout=out,
    )
    data = json.loads(out.getvalue())
    assert [d["seed"] for d in data] == [3, 4] and all(len(d["edges"]) == 2 for d in data)


def test_the_command_pools_matches_over_several_seeds():
    out = io.StringIO()
    call_command(
        "simulate",
        "--players=2",
        "--bots=basic,random",
        "--matches=2",
        "--seeds=1,2",
        "--target=300",
        "--no-progress",
        stdout=out,
    )
    text = out.getvalue()
    assert "seed 1" in text and "seed 2" in text and "all seeds together" in text


def test_the_command_refuses_bad_seeds_and_a_third_level_in_duplicate():
    with pytest.raises(CommandError):
        call_command("simulate", "--seeds=1,x", "--no-progress", stdout=io.StringIO())
    with pytest.raises(CommandError):
        call_command("simulate", "--seeds=1", "--seed=2", stdout=io.StringIO())
    with pytest.raises(CommandError):
        call_command(
            "simulate",
            "--duplicate",
            "--bots=basic,random,strong",
            "--no-progress",
            stdout=io.StringIO(),
        )
