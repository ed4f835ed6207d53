"""Records: the replay of a finished match equals the engine's, and the export is re-verified
by the standalone verifier (python -m games.engine.verify) in a separate process."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from games import engine
from games.engine.match import Match
from games.engine.verify import verify_record
from games.models import Game, Hand, Move
from games.services import lobby
from games.services.errors import GameError
from games.services.moves import game_resign
from games.services.records import (
    archive_of,
    archive_public,
    finished_match,
    hand_steps,
    match_frames,
    record_export,
    replay_frame,
)
from tests.game_fixtures import play_random, start_game, user_at

ROOT = Path(settings.BASE_DIR)


def _finish(game: Game, seed: int = 2) -> Game:
    rng = random.Random(seed)
    while game.status == "active":
        game = play_random(game, 40, rng)
    return Game.objects.get(pk=game.pk)


@pytest.fixture
def finished(users) -> Game:
    # Seating by the draw, so the export carries a seating seed to check too.
    game = lobby.game_create(
        creator=users["alice"], variant="classic", players=4, options={"target": 100}
    )
    for name in ("carol", "bob", "dave"):
        game = lobby.game_join(game_id=game.pk, user=users[name])
    return _finish(game)


def _verify(tmp_path: Path, record: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "games.engine.verify", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_every_table_of_the_replay_equals_the_engines_replay(finished):
    hands = list(Hand.objects.filter(game=finished).order_by("number"))
    assert len(hands) >= 1
    frames = match_frames(finished)
    moves = list(Move.objects.filter(game=finished).order_by("seq"))
    assert len(frames) == len(hands) + len(moves)

    # The engine's own match driver, fed the same seeds and moves.
    match = Match("classic", 4, iter([h.seed for h in hands]), options=finished.options)
    expected = [match.table.to_json()]
    for move in moves:
        outcome = match.act(move.seat, move.action)
        expected.append(outcome.table.to_json())
        if outcome.table.over and not match.over:
            expected.append(match.table.to_json())  # the next hand's deal
    assert match.over and match.winner == finished.winner_side
    assert [f.table.to_json() for f in frames] == expected
    # Each hand's last step carries the engine's score, the one stored for the hand.
    ends = [f for f in frames if f.result is not None]
    assert [f.result for f in ends] == [h.result for h in hands]
    # A single step, as the viewer asks for it, is the same table.
    steps = hand_steps(finished)
    last_hand = max(steps)
    frame = replay_frame(finished, last_hand, steps[last_hand])
    assert frame.table.to_json() == frames[-1].table.to_json()


def test_an_export_is_verified_by_the_standalone_verifier(tmp_path, finished):
    record = json.loads(json.dumps(record_export(game=finished)))
    assert record["seating"]["method"] == "draw" and len(record["seating"]["drawn"]) == 4
    assert [h["commitment"] for h in record["hands"]] == list(
        Hand.objects.filter(game=finished).values_list("commitment", flat=True)
    )
    done = _verify(tmp_path, record)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("VERIFIED: classic match")
    assert f"{len(record['moves'])} move(s)" in done.stdout


def _swap_discard(record: dict[str, Any]) -> None:
    """Make the first discard one of a card the player does not hold then (one still in the
    stock): a change the replay always catches. A swap for another held card could lead, by
    chance, to the same tables and scores, a record as consistent as the true one."""
    table = engine.from_json(record["hands"][0]["deal"])
    for move in record["moves"]:
        if move["action"]["type"] == "discard":
            held = set(table.hands[move["seat"]])
            move["action"]["card"] = next(c for c in table.stock if c not in held)
            return
        table = engine.apply(table, move["seat"], move["action"]).table


TAMPERS = {
    "seed": (
        lambda r: r["hands"][0].update(seed="0" * 64),
        "the seed does not match its commitment",
    ),
    "totals": (
        lambda r: r["final"].update(totals=[t + 50 for t in r["final"]["totals"]]),
        "final totals",
    ),
    "winner": (
        lambda r: r["final"].update(winner_side=1 - (r["final"]["winner_side"] or 0)),
        "recorded result",
    ),
    "move": (_swap_discard, "is not legal on replay"),
    "dropped move": (lambda r: r["moves"].pop(3), "where move 4 belongs"),
    "score": (
        lambda r: r["hands"][0]["result"]["scores"].__setitem__(0, 9999),
        "recorded score differs",
    ),
    "seating": (
        lambda r: r["seating"].update(seats=list(reversed(r["seating"]["seats"]))),
        "seating draw",
    ),
}


@pytest.mark.parametrize("name", sorted(TAMPERS))
def test_a_tampered_export_fails_verification(tmp_path, finished, name):
    tamper, problem = TAMPERS[name]
    record = json.loads(json.dumps(record_export(game=finished)))
    tamper(record)
    done = _verify(tmp_path, record)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.startswith("NOT VERIFIED")
    assert problem in done.stdout


def test_the_verifier_needs_nothing_but_the_engine(tmp_path, finished):
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record_export(game=finished)), encoding="utf-8")
    # Django and everything of the service made unimportable: the verifier still runs.
    code = (
        "import sys, runpy\n"
        "for name in ('django', 'rest_framework', 'openskill', 'games.models', 'games.services'):\n"
        "    sys.modules[name] = None\n"
        f"sys.argv = ['verify', {str(path)!r}]\n"
        "runpy.run_module('games.engine.verify', run_name='__main__')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "VERIFIED" in done.stdout


def test_a_resigned_match_exports_and_verifies(users, game):
    game = play_random(game, 30, random.Random(7))
    game_resign(game_id=game.pk, user=user_at(game, 1))
    game = Game.objects.get(pk=game.pk)
    record = json.loads(json.dumps(record_export(game=game)))
    report = verify_record(record)
    assert report.ok, report.problems
    assert (report.reason, report.winner) == ("resigned", 0)
    record["final"]["winner_side"] = 1
    assert not verify_record(record).ok


def test_unreadable_input_is_not_a_verdict(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('{"format": "something else"}', encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "games.engine.verify", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and done.stdout.startswith("CANNOT VERIFY")


def test_only_finished_matches_have_a_record_and_only_for_those_who_may_see_them(users):
    game = start_game(users, public=False)
    with pytest.raises(GameError) as refused:
        finished_match(game_id=game.pk, user=users["alice"])
    assert (refused.value.code, refused.value.kind.value) == ("game_not_finished", "conflict")
    game_resign(game_id=game.pk, user=users["alice"])
    assert finished_match(game_id=game.pk, user=users["bob"]).pk == game.pk
    with pytest.raises(GameError) as hidden:
        finished_match(game_id=game.pk, user=users["eve"])
    assert hidden.value.code == "not_found"
    assert list(archive_of(user=users["alice"])) == [Game.objects.get(pk=game.pk)]
    assert not archive_of(user=users["eve"]).exists()
    assert not archive_public().exists()
