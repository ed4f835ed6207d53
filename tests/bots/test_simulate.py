"""The simulator: whole matches bot against bot, reproducible from a seed."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from games.bots.simulate import SimulationConfig, simulate, wilson

TINY = {"target": 600}


def test_it_gives_the_same_results_for_the_same_seed_whatever_the_workers():
    config = SimulationConfig(
        variant="classic", players=4, bots=("basic", "random"), matches=3, seed=42, options=TINY
    )
    first = simulate(config).to_json(timing=False)
    again = simulate(config).to_json(timing=False)
    parallel = simulate(SimulationConfig(**{**config.__dict__, "workers": 2})).to_json(timing=False)
    assert first == again == parallel
    other = simulate(SimulationConfig(**{**config.__dict__, "seed": 43})).to_json(timing=False)
    assert other["totals"] != first["totals"]


def test_the_strong_bot_replays_the_same_match_from_a_seed():
    config = SimulationConfig(
        variant="tiles",
        players=4,
        bots=("strong", "basic"),
        matches=1,
        seed=5,
        options={"match": "one_round"},
    )
    assert simulate(config).to_json(timing=False) == simulate(config).to_json(timing=False)


def test_basic_beats_random():
    summary = simulate(
        SimulationConfig(
            variant="classic", players=4, bots=("basic", "random"), matches=4, seed=1, options=TINY
        )
    )
    basic, rand = summary.levels
    assert (basic.level, rand.level) == ("basic", "random")
    assert basic.wins == 4 and rand.wins == 0
    assert basic.average_hand_score > rand.average_hand_score


def test_it_reports_every_level_with_a_wilson_interval():
    summary = simulate(
        SimulationConfig(variant="party", players=3, bots=("basic", "random"), matches=2, seed=3)
    )
    data = summary.to_json()
    assert [lv["level"] for lv in data["levels"]] == ["basic", "random"]
    for lv in data["levels"]:
        low, high = lv["ci95"]
        assert 0 <= low <= lv["win_rate"] <= high <= 1
        assert lv["actions"] > 0 and lv["hands_per_match"] >= 1


def test_wilson_interval():
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(50, 100)
    assert round(low, 3) == 0.404 and round(high, 3) == 0.596
    low, high = wilson(10, 10)
    assert round(low, 3) == 0.722 and high == 1.0


def test_the_command_prints_a_table_and_a_progress_bar():
    out, err = io.StringIO(), io.StringIO()
    call_command(
        "simulate",
        "--variant=family",
        "--players=2",
        "--bots=basic,random",
        "--matches=2",
        "--seed=7",
        "--target=300",
        stdout=out,
        stderr=err,
    )
    text = out.getvalue()
    assert "basic" in text and "random" in text and "95% CI" in text
    assert "2/2 matches" in err.getvalue()


def test_the_command_refuses_unknown_levels_and_a_tiles_target():
    with pytest.raises(CommandError):
        call_command("simulate", "--bots=genius", "--matches=1", stdout=io.StringIO())
    with pytest.raises(CommandError):
        call_command("simulate", "--variant=tiles", "--target=500", stdout=io.StringIO())
