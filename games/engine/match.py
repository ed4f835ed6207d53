"""The match driver: hand after hand until the match is over (docs/rules.md#the-match).

The driver deals each hand from a seed it is given (the engine never makes
randomness of its own), carries the cumulative scores, rotates the dealer and
records every action, so that seeds plus actions replay the match exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .actions import action_to_json, parse_action
from .dealing import deal
from .play import Outcome, apply
from .scoring import HandResult, score_hand
from .shuffle import commitment
from .table import Table
from .variants import get_rules


@dataclass
class HandRecord:
    number: int
    seed: str
    commitment: str
    actions: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    result: HandResult | None = None


class MatchOverError(ValueError):
    pass


class Match:
    """A whole match of one variant. ``seeds`` supplies one 64-hex seed per hand."""

    def __init__(
        self,
        variant: str,
        players: int,
        seeds: Callable[[], str] | Iterable[str],
        *,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        self.rules = get_rules(variant)
        if players not in self.rules.player_counts:
            raise ValueError(f"{variant} is played by {self.rules.player_counts} players")
        self.players = players
        self.options = dict(options or {})
        self.settings = self.rules.resolve_options(self.options)
        self._next_seed: Callable[[], str] = seeds if callable(seeds) else iter(seeds).__next__
        self.totals = [0] * self.rules.sides(players)
        self.hands: list[HandRecord] = []
        self.table: Table | None = None
        self.over = False
        self.winner: int | None = None
        self.start_hand()

    @property
    def current(self) -> HandRecord:
        return self.hands[-1]

    def start_hand(self) -> Table:
        if self.over:
            raise MatchOverError("the match is over")
        number = len(self.hands) + 1
        try:
            seed = self._next_seed()
        except StopIteration:
            raise ValueError(f"no seed was given for hand {number}") from None
        self.hands.append(HandRecord(number=number, seed=seed, commitment=commitment(seed)))
        self.table = deal(
            self.rules.name,
            self.players,
            seed,
            hand_number=number,
            scores=self.totals,
            options=self.options,
        )
        return self.table

    def act(self, seat: int, action: Any) -> Outcome:
        """Apply one action; when it ends the hand, score it and deal the next one."""
        if self.over or self.table is None:
            raise MatchOverError("the match is over")
        parsed = parse_action(action)
        outcome = apply(self.table, seat, parsed)
        self.current.actions.append((seat, action_to_json(parsed)))
        self.table = outcome.table
        if self.table.over:
            result = score_hand(self.table)
            self.current.result = result
            self.totals = list(result.totals)
            if result.match_over:
                self.over = True
                self.winner = result.winner
            else:
                self.start_hand()
        return outcome

    @property
    def finished_table(self) -> Table | None:
        return self.table

    @classmethod
    def replay(
        cls,
        variant: str,
        players: int,
        hands: Sequence[tuple[str, Sequence[tuple[int, Any]]]],
        *,
        options: Mapping[str, Any] | None = None,
    ) -> Match:
        """Rebuild a match from its hand seeds and actions (the move log)."""
        seeds = [seed for seed, _ in hands]
        match = cls(variant, players, iter(seeds), options=options)
        for index, (_, actions) in enumerate(hands):
            for seat, action in actions:
                if len(match.hands) != index + 1:
                    raise ValueError(f"hand {index + 1} ended before all its actions were replayed")
                match.act(seat, action)
        return match
