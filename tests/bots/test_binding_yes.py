"""After a partner's binding "yes" (docs/rules.md, "May I go out?"), every bot goes out legally.

The engine accepts "may I go out?" only when a way out exists and, after a yes,
refuses any meld that would leave none (laying.py), so `find_going_out` on the
table the bot rebuilds from its view always finds one. The partner who answers
cannot see the asker's hand: a deal of the hidden cards for its look-ahead must
give the asker a hand that can go out, or a simulated "yes" binds the asker to
the impossible (the assertion "a binding yes always leaves a way out" failed
that way). These positions are rare in random play, so the test steers into
them: it asks whenever it may and the partner always says yes.
"""

from __future__ import annotations

import random

import pytest

from games.bots import BotMemory
from games.bots.sampling import NoConsistentDeal, Sampler, asker_can_go_out
from games.engine import Table, apply, deal, find_going_out, is_legal, player_view
from games.engine.randomplay import random_action

from .helpers import all_bots, feed

OPTIONS = {"ask_partner": True, "black_three": "stop"}


def binding_yes_positions(
    seed: int, limit: int = 4, phase: str = "play"
) -> list[tuple[Table, list[BotMemory]]]:
    """Positions in one classic hand where the player to move was told "yes"
    (``phase="play"``) or is asked "may I go out?" (``phase="answer"``)."""
    rng = random.Random(seed)
    t = deal("classic", 4, f"{seed:064x}", options=OPTIONS)
    memories = [BotMemory(seat=s, players=4) for s in range(4)]
    found: list[tuple[Table, list[BotMemory]]] = []
    while not t.over and len(found) < limit:
        seat = t.turn
        if t.phase == phase and (phase == "answer" or t.go_out is True):
            found.append((t, [BotMemory.from_json(m.to_json()) for m in memories]))
        if t.phase == "answer":
            action = {"type": "answer", "yes": True}
        elif (
            t.phase == "play"
            and t.go_out is None
            and len(t.hands[seat]) >= 2
            and find_going_out(t) is not None
        ):
            action = {"type": "ask_partner"}
        else:
            action = random_action(t, rng)
        outcome = apply(t, seat, action)
        feed(memories, outcome.events)
        t = outcome.table
    return found


@pytest.mark.parametrize("seed", range(12))
def test_every_bot_goes_out_after_a_binding_yes(seed):
    for t, memories in binding_yes_positions(seed):
        view = player_view(t, t.turn)
        for bot in all_bots():
            for memory in (memories[t.turn], None):
                action = bot.choose(view, memory, random.Random(seed))
                assert is_legal(t, t.turn, action), (bot.name, action)
                assert action["type"] in ("meld", "discard")


@pytest.mark.parametrize("seed", range(8))
def test_a_deal_for_the_answering_partner_lets_the_asker_go_out(seed):
    positions = binding_yes_positions(seed, phase="answer")
    for t, memories in positions:
        sampler = Sampler(player_view(t, t.turn), memories[t.turn])
        rng = random.Random(seed)
        for _ in range(5):
            try:
                dealt = sampler.sample(rng, pairs=1.0)
            except NoConsistentDeal:
                continue
            assert asker_can_go_out(dealt)
            assert dealt.hands[t.turn] == t.hands[t.turn]


@pytest.mark.parametrize("seed", range(8))
def test_every_bot_answers_may_i_go_out_legally(seed):
    for t, memories in binding_yes_positions(seed, phase="answer"):
        view = player_view(t, t.turn)
        for bot in all_bots():
            for memory in (memories[t.turn], None):
                action = bot.choose(view, memory, random.Random(seed))
                assert is_legal(t, t.turn, action), (bot.name, action)
                assert action["type"] == "answer"
