"""Twin tables for the oracle checks: games whose tables differ only in cards a player may
not see (the stock and the other players' hands), so that the same request can be sent to
each and the answers compared (fair-play.md).

A refusal may depend on what the player holds and on the public table, never on anything
else. So answers are compared per group of twins in which the player's own view after the
request is the same: inside a group, the answers must be identical. A refusal that applies
nothing leaves every twin in one group; a draw that stands puts the twins in groups by the
cards it brought, and twins that share those cards must still answer alike.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from games import engine
from games.models import GameState

# Enough of the stock's top kept alike for a draw to bring the same cards in two twins: a
# draw takes one or two cards and lays out the red threes it meets (four at most).
KEEP_TOP = 10


def twin_tables(base: dict[str, Any], seat: int, rng: random.Random) -> list[dict[str, Any]]:
    """The base table and three twins: one with the same top of the stock and every other
    hidden card dealt again, one with the whole stock and the other hands dealt again (a
    different top), and one with the stock reversed. The seat's own hand and everything
    public are left as they are."""
    bonus = engine.get_rules(base["variant"]).is_bonus_three
    twins = [json.loads(json.dumps(base))]
    for keep in (KEEP_TOP, 0):
        twin = json.loads(json.dumps(base))
        others = [s for s in range(len(twin["hands"])) if s != seat]
        pool = twin["stock"][keep:] + [c for s in others for c in twin["hands"][s]]
        rng.shuffle(pool)
        # Red threes are never held (they are laid out at once): they stay in the stock.
        held = [c for c in pool if not bonus(c)]
        for s in others:
            size = len(twin["hands"][s])
            twin["hands"][s], held = held[:size], held[size:]
        rest = held + [c for c in pool if bonus(c)]
        rng.shuffle(rest)
        if keep == 0 and rest[0] == base["stock"][0]:
            rest.append(rest.pop(0))  # a top card other than the base's
        twin["stock"] = twin["stock"][:keep] + rest
        twins.append(twin)
    reversed_stock = json.loads(json.dumps(base))
    reversed_stock["stock"] = list(reversed(reversed_stock["stock"]))
    twins.append(reversed_stock)
    for twin in twins:
        engine.from_json(twin)  # still a valid table
    return twins


def table_set(game: Any, table: dict[str, Any]) -> None:
    state = GameState.objects.get(game=game)
    state.table = table
    state.save(update_fields=["table"])


def assert_answers_alike(outcomes: Sequence[tuple[Any, Any]], what: str) -> None:
    """``outcomes``: (the player's view after the request, the answer) per twin. Twins whose
    views are the same must have had the same answer; at least two twins must share a view,
    or nothing was compared."""
    groups: dict[str, list[Any]] = defaultdict(list)
    for view, answer in outcomes:
        groups[json.dumps(view, sort_keys=True)].append(answer)
    assert any(len(answers) > 1 for answers in groups.values()), f"{what}: nothing compared"
    for answers in groups.values():
        for answer in answers[1:]:
            assert answer == answers[0], (
                f"{what}: the answer depends on cards the player does not hold:\n"
                f"{json.dumps(answers[0])[:1500]}\n!=\n{json.dumps(answer)[:1500]}"
            )
