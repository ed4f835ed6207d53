"""The learned belief: public features only, rules settle what they can, fitting works,
training is reproducible, and the strong bot uses the committed model."""

from __future__ import annotations

import io
import json
import random

import pytest
from django.core.management import CommandError, call_command

from games.bots.analysis import NATURAL, unseen_rank_counts
from games.bots.belief import (
    DANGER_FEATURES,
    HOLDING_FEATURES,
    Belief,
    danger_features,
    holding_features,
    load_belief,
    predict,
)
from games.bots.belief_training import MATCH_SCORES, TrainingConfig, brier, collect, fit_logistic
from games.bots.sampling import Sampler
from games.bots.strong import StrongBot
from games.engine import deal, player_view

from .helpers import CONFIG_IDS, CONFIGS, random_position


@pytest.mark.parametrize(("variant", "players", "options"), CONFIGS, ids=CONFIG_IDS)
def test_the_features_read_nothing_hidden(variant, players, options):
    # Two tables with the same view but other hidden cards give the same features.
    t, memories = random_position(variant, players, options, "7" * 64, 3, 60)
    seat = t.turn
    memory = memories[seat]
    sampler = Sampler(player_view(t, seat), memory)
    first, second = (sampler.sample(random.Random(k)) for k in (1, 2))
    assert first.hands[seat] == second.hands[seat]
    for a, b in ((first, second), (t, second)):
        counts_a, counts_b = unseen_rank_counts(a, seat), unseen_rank_counts(b, seat)
        for card in dict.fromkeys(t.hands[seat]):
            assert danger_features(a, seat, card, memory, counts_a) == danger_features(
                b, seat, card, memory, counts_b
            )
        for other in range(players):
            if other != seat:
                for rank in NATURAL:
                    assert holding_features(a, other, rank, memory, counts_a) == (
                        holding_features(b, other, rank, memory, counts_b)
                    )


def test_the_rules_settle_blocking_cards_without_the_model():
    t, memories = random_position("classic", 4, {}, "3" * 64, 5, 40)
    counts = unseen_rank_counts(t, t.turn)
    for card in ("2C", "JK", "3S"):
        assert danger_features(t, t.turn, card, memories[t.turn], counts) == 0.0
    features = danger_features(t, t.turn, "7H", memories[t.turn], counts)
    assert isinstance(features, list) and len(features) == len(DANGER_FEATURES)


def test_the_danger_knows_what_the_next_side_must_meld_first():
    # The next side's initial-meld minimum is a feature (a side that needs 120 takes a frozen
    # pile far less often than one that needs 50), 0 once it has melded.
    need = DANGER_FEATURES.index("their_need")
    for score, expected in ((0, 50), (1500, 90), (3000, 120), (-100, 15)):
        t = deal("classic", 4, "5" * 64, scores=[score, score])
        seat = t.turn
        for card in t.hands[seat]:
            features = danger_features(t, seat, card, None, unseen_rank_counts(t, seat))
            if isinstance(features, list):
                assert features[need] == pytest.approx(expected / 120)
                break
        else:
            pytest.fail("no natural card to ask about")


def test_a_model_fitted_on_fewer_features_predicts_as_it_was_fitted():
    # A file written before features were added leaves them out; it does not zero-weight
    # them into a different model, and a feature this code lacks is refused.
    t, memories = random_position("classic", 4, {}, "4" * 64, 6, 50)
    seat, memory = t.turn, memories[t.turn]
    counts = unseen_rank_counts(t, seat)
    card = next(c for c in t.hands[seat] if c[0] in NATURAL and c[0] != "3")
    kept = [n for n in DANGER_FEATURES if n not in ("their_need", "frozen_pair_need")]
    weights = [0.1 * (k + 1) for k in range(len(kept))]
    old = Belief(
        {
            "features": {"danger": kept, "holding": list(HOLDING_FEATURES)},
            "variants": {"classic": {"danger": weights, "one": [], "pair": []}},
        }
    )
    features = danger_features(t, seat, card, memory, counts)
    assert isinstance(features, list)
    by_name = dict(zip(DANGER_FEATURES, features, strict=True))
    assert old.danger(t, seat, card, memory, counts) == pytest.approx(
        predict(weights, [by_name[n] for n in kept])
    )
    with pytest.raises(ValueError, match="lacks"):
        Belief({"features": {"danger": ["mystery"], "holding": []}, "variants": {}})


def test_training_deals_hands_at_every_initial_meld_minimum(monkeypatch):
    # Hands are dealt at match scores spread over the variant's minimums, drawn per side.
    dealt: list[list[int]] = []
    monkeypatch.setattr(
        "games.bots.belief_training._play_hand",
        lambda data, hand, levels, config, rng: dealt.append(hand.scores),
    )
    collect(TrainingConfig(seed=2, hands=40, variants=("classic",)))
    assert len(dealt) == 40
    assert {score for scores in dealt for score in scores} == set(MATCH_SCORES["classic"])
    assert any(len(set(scores)) > 1 for scores in dealt)


def test_newtons_method_recovers_the_weights_of_a_logistic_model():
    rng = random.Random(4)
    truth = [-0.5, 2.0, -1.5]
    rows = []
    for _ in range(20000):
        x = [1.0, rng.uniform(-1, 1), float(rng.random() < 0.5)]
        rows.append((x, int(rng.random() < predict(truth, x))))
    fitted = fit_logistic(rows, ridge=0.0)
    assert all(abs(f - w) < 0.15 for f, w in zip(fitted, truth, strict=True))
    probabilities = [predict(fitted, x) for x, _ in rows]
    labels = [y for _, y in rows]
    assert brier(probabilities, labels) < brier([0.5] * len(labels), labels)


def test_the_committed_model_covers_every_variant_with_the_features_it_was_fitted_on():
    belief = load_belief()
    assert belief is not None
    assert belief.data["features"] == {
        "danger": list(DANGER_FEATURES),
        "holding": list(HOLDING_FEATURES),
    }
    for variant in ("classic", "family", "party", "tiles"):
        model = belief.models[variant]
        assert len(model["danger"]) == len(DANGER_FEATURES)
        assert len(model["one"]) == len(model["pair"]) == len(HOLDING_FEATURES)


def test_the_model_gives_probabilities_and_holding_two_implies_holding_one():
    belief = load_belief()
    assert belief is not None
    t, memories = random_position("classic", 4, {}, "9" * 64, 8, 80)
    seat, memory = t.turn, memories[t.turn]
    counts = unseen_rank_counts(t, seat)
    for card in dict.fromkeys(t.hands[seat]):
        assert 0.0 <= belief.danger(t, seat, card, memory, counts) <= 1.0
    one, two = belief.holding(t, (seat + 1) % 4, "K", memory)
    assert 0.0 <= two <= one <= 1.0


def test_the_strong_bot_plays_the_committed_model_or_the_formula():
    assert StrongBot().belief is load_belief()
    assert StrongBot(belief=None).belief is None
    own = Belief({"variants": {}})
    assert StrongBot(belief=own).belief is own


def test_training_is_reproducible_from_a_seed(tmp_path):
    paths = [tmp_path / "a.json", tmp_path / "b.json"]
    for path in paths:
        call_command(
            "train_belief",
            "--seed=3",
            "--hands=2",
            "--holdout=1",
            "--variants=family",
            f"--out={path}",
            stdout=io.StringIO(),
        )
    first, second = (json.loads(p.read_text()) for p in paths)
    assert first == second
    assert set(first["variants"]) == {"family"}
    assert "danger_brier_model" in first["meta"]["family"]["holdout"]


def test_training_refuses_an_unknown_variant(tmp_path):
    with pytest.raises(CommandError):
        call_command("train_belief", "--variants=chess", f"--out={tmp_path / 'x.json'}")


class _Feared:
    """A belief that fears one rank only (the next player takes any pile with it)."""

    def __init__(self, rank: str) -> None:
        self.rank = rank

    def covers(self, variant: str) -> bool:
        return True

    def danger(self, t, seat, card, memory, counts) -> float:
        return 1.0 if card[0] == self.rank else 0.0


def test_the_strong_bot_discards_by_the_beliefs_danger():
    for k in range(40):
        t, memories = random_position("classic", 4, {}, f"{k:064x}", k, 30 + k)
        if t.phase != "play":
            continue
        view, memory = player_view(t, t.turn), memories[t.turn]
        plain = StrongBot(belief=None).choose(view, memory, random.Random(1))
        if plain["type"] != "discard" or plain["card"][0] not in NATURAL:
            continue
        feared = StrongBot(belief=_Feared(plain["card"][0]))
        action = feared.choose(view, memory, random.Random(1))
        assert action["type"] == "discard" and action["card"][0] != plain["card"][0]
        return
    pytest.fail("no position where the strong bot discards a natural card")
