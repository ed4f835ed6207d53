"""The engine's verifiable shuffle against an independent reference.

``reference_shuffle`` is written straight from ``docs/fair-shuffle.md``
and imports nothing of ours; ``shuffle_vectors.json`` are the published
reference vectors. The engine is exercised through its command line,
``python -m games.engine.shuffle SEED --variant V`` run from the repository root.

Plain pytest: no Django, no database, no fixtures from pytest-django.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.engine import reference_shuffle as ref

REPO_ROOT = Path(__file__).resolve().parents[2]
VECTORS_PATH = Path(__file__).with_name("shuffle_vectors.json")
ENGINE_MODULE = "games.engine.shuffle"
DECK_SIZES = {"classic": 108, "family": 108, "party": 110, "tiles": 106}

# (c) The engine's Python API for the shuffle: docs/fair-shuffle.md fixes the
# algorithm, and this names (module, attribute) of a callable
# taking (seed_hex: str, variant: str) and returning the deck, top card first,
# as card codes (or objects whose str() is the card code). Names are not guessed.
ENGINE_API: tuple[str, str] | None = ("games.engine.shuffle", "shuffled_deck")


def _load_vectors() -> list[dict[str, Any]]:
    data = json.loads(VECTORS_PATH.read_text(encoding="utf-8"))
    vectors: list[dict[str, Any]] = data["vectors"]
    return vectors


VECTORS = _load_vectors()


def _vector_id(vector: dict[str, Any]) -> str:
    return f"{vector['seed'][:8]}-{vector['variant']}"


def run_engine(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", ENGINE_MODULE, *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def engine_deck(seed_hex: str, variant: str) -> str:
    """The command's stdout for a valid seed, asserting success."""
    proc = run_engine(seed_hex, "--variant", variant)
    assert proc.returncode == 0, f"exit {proc.returncode} for {variant}; stderr:\n{proc.stderr}"
    return proc.stdout


def assert_one_line(stdout: str, expected_deck: list[str]) -> None:
    expected = " ".join(expected_deck)
    # exactly the cards separated by single spaces; at most one trailing newline
    assert stdout in (expected, expected + "\n"), f"expected {expected!r}\n     got {stdout!r}"


# --- the reference itself --------------------------------------------------


@pytest.mark.parametrize("variant", sorted(DECK_SIZES))
def test_canonical_deck_order(variant: str) -> None:
    deck = ref.canonical_deck(variant)
    assert len(deck) == DECK_SIZES[variant]
    assert deck[:13] == [
        "AS",
        "2S",
        "3S",
        "4S",
        "5S",
        "6S",
        "7S",
        "8S",
        "9S",
        "TS",
        "JS",
        "QS",
        "KS",
    ]
    assert deck[13] == "AH"
    assert deck[26] == "AD"
    assert deck[39:52] == [r + "C" for r in "A23456789TJQK"]
    assert deck[52:104] == deck[:52]
    assert deck[104:] == ["JK"] * (DECK_SIZES[variant] - 104)


def test_vectors_cover_every_variant_and_required_seeds() -> None:
    pairs = {(v["seed"], v["variant"]) for v in VECTORS}
    seeds = {v["seed"] for v in VECTORS}
    assert {"00" * 32, "ff" * 32} <= seeds
    assert len(seeds) >= 3
    for seed in seeds:
        for variant in DECK_SIZES:
            assert (seed, variant) in pairs


# (a) the vectors file matches the reference implementation
@pytest.mark.parametrize("vector", VECTORS, ids=_vector_id)
def test_vector_matches_reference(vector: dict[str, Any]) -> None:
    assert set(vector) == {"seed", "variant", "commitment", "deck"}
    assert vector["commitment"] == ref.commitment(vector["seed"])
    assert vector["deck"] == ref.shuffle(vector["seed"], vector["variant"])


# (f) a shuffled deck is a permutation of the canonical deck
@pytest.mark.parametrize("vector", VECTORS, ids=_vector_id)
def test_vector_deck_is_permutation_of_canonical(vector: dict[str, Any]) -> None:
    canonical = ref.canonical_deck(vector["variant"])
    assert len(vector["deck"]) == len(canonical)
    assert Counter(vector["deck"]) == Counter(canonical)
    assert vector["deck"] != canonical


# --- the engine's command line -----------------------------------------------


# (b) the command prints exactly the reference deck
@pytest.mark.parametrize("vector", VECTORS, ids=_vector_id)
def test_engine_command_matches_vector(vector: dict[str, Any]) -> None:
    stdout = engine_deck(vector["seed"], vector["variant"])
    assert_one_line(stdout, vector["deck"])


# (c) the engine's Python API, when its name is known
@pytest.mark.parametrize("vector", VECTORS, ids=_vector_id)
def test_engine_api_matches_vector(vector: dict[str, Any]) -> None:
    if ENGINE_API is None:
        pytest.skip("engine's Python shuffle API is not documented; set ENGINE_API")
    module_name, attr = ENGINE_API
    func: Callable[[str, str], Any] = getattr(importlib.import_module(module_name), attr)
    deck = [str(card) for card in func(vector["seed"], vector["variant"])]
    assert deck == vector["deck"]


# (d) + (f) random seeds: the command agrees with the reference
@pytest.mark.parametrize("variant", sorted(DECK_SIZES))
@settings(max_examples=25, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32))
def test_engine_command_matches_reference_for_random_seeds(variant: str, seed: bytes) -> None:
    seed_hex = seed.hex()
    expected = ref.shuffle(seed_hex, variant)
    assert Counter(expected) == Counter(ref.canonical_deck(variant))
    stdout = engine_deck(seed_hex, variant)
    assert_one_line(stdout, expected)
    assert Counter(stdout.split()) == Counter(ref.canonical_deck(variant))


# (e) bad input: non-zero exit, a message on stderr, nothing on stdout
BAD_SEEDS = {
    "empty": "",
    "63-hex": "0" * 63,
    "65-hex": "0" * 65,
    "32-hex": "ab" * 16,
    "128-hex": "ab" * 64,
    "non-hex-char": "g" + "0" * 63,
    "0x-prefix": "0x" + "0" * 62,
    # 64 characters that bytes.fromhex / int(_, 16) would still accept:
    "inner-spaces": "00" * 15 + "  " + "00" * 16,
    "underscores": "0" + "_0" * 31 + "0",
    "non-ascii-digits": "\u0660" * 64,
}


def assert_rejected(proc: subprocess.CompletedProcess[str]) -> None:
    assert proc.returncode != 0, f"accepted; stdout={proc.stdout!r}"
    assert proc.stdout == "", f"stdout not empty: {proc.stdout!r}"
    assert proc.stderr.strip() != "", "no message on stderr"


@pytest.mark.parametrize("seed", list(BAD_SEEDS.values()), ids=list(BAD_SEEDS))
def test_engine_command_rejects_bad_seed(seed: str) -> None:
    assert_rejected(run_engine(seed, "--variant", "classic"))


@pytest.mark.parametrize("variant", ["poker", "", "tile", "classic-2"])
def test_engine_command_rejects_unknown_variant(variant: str) -> None:
    assert_rejected(run_engine("00" * 32, "--variant", variant))
