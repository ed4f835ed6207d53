"""What a bot remembers of a hand: only what a person at the table has seen.

The memory is fed with the engine's events as the bot's seat may see them
(`observe(event_for(event, seat))`): other players' draws arrive as a count,
everything else is public. It keeps, per seat, the cards known to be in that
hand (taken with the pile and not melded or discarded since), the cards that
seat discarded, and when it showed it held no pair of a rank (it discarded
one, or drew from the stock with one on top of the pile). It serialises to
JSON, so a service can store it next to the seat.

The pickup event names the pile's cards but not the hand cards melded with
the top card; the table shows them. `sync(view)` (called by the bots at the
start of every decision) compares the melds it expected with the view's and
forgets the known cards that went into them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .views import hand_number

Card = str
_NATURAL = "AKQJT98765" + "4"


def _natural_rank(card: Card | None) -> str | None:
    if card is None or card == "JK" or card[0] not in _NATURAL:
        return None
    return card[0]


def _sides(players: int) -> int:
    # Seats s and s + sides are partners (docs/variants.md#party); the same in every variant.
    return players if players <= 3 else players // 2


@dataclass
class BotMemory:
    seat: int
    players: int
    hand: int = 1  # the hand number these facts belong to
    known: list[list[Card]] = field(default_factory=list)
    discards: list[list[Card]] = field(default_factory=list)
    pickups: list[int] = field(default_factory=list)
    draws: list[int] = field(default_factory=list)  # cards drawn from the stock, per seat
    # Per seat, rank -> cards it had drawn when it last showed it held no pair of that rank.
    evidence: list[dict[str, int]] = field(default_factory=list)
    asked: bool = False  # a player asked "may I go out?" this hand
    top: Card | None = None  # the pile's top card, as far as the events tell
    # Melds per side at the last sync, and what the events added since (to find the
    # hand cards a pickup melded with the top card).
    melds: list[dict[str, list[Card]]] = field(default_factory=list)
    pending: list[tuple[int, str]] = field(default_factory=list)  # (seat, rank) pickups
    added: list[tuple[int, str, list[Card]]] = field(default_factory=list)  # (side, key, cards)

    def __post_init__(self) -> None:
        if not self.known:
            self.reset(self.hand)

    def reset(self, hand: int) -> None:
        n = self.players
        self.hand = hand
        self.known = [[] for _ in range(n)]
        self.discards = [[] for _ in range(n)]
        self.pickups = [0] * n
        self.draws = [0] * n
        self.evidence = [{} for _ in range(n)]
        self.asked = False
        self.top = None
        self.melds = [{} for _ in range(_sides(n))]
        self.pending = []
        self.added = []

    def sync(self, view: dict[str, Any]) -> None:
        """Line the memory up with the seat's view at the start of a decision."""
        number = hand_number(view)
        if number != self.hand:
            self.reset(number)  # created mid-match, or a hand_over was missed
        self.top = view["discard"][-1] if view["discard"] else None
        sides = len(view["melds"])
        for seat, rank in self.pending:
            side = seat % sides
            before = Counter(self.melds[side].get(rank, []))
            for s, key, cards in self.added:
                if s == side and key == rank:
                    before.update(cards)
            used = Counter(view["melds"][side].get(rank, [])) - before
            self._forget(seat, list(used.elements()))
        self.melds = [{k: list(v) for k, v in side.items()} for side in view["melds"]]
        self.pending = []
        self.added = []

    # --- events ----------------------------------------------------------------

    def observe(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        seat = event.get("seat")
        if kind == "hand_over":
            self.reset(self.hand + 1)
            return
        if not isinstance(seat, int) or not 0 <= seat < self.players:
            return
        side = seat % _sides(self.players)
        if kind == "draw":
            rank = _natural_rank(self.top)
            if rank is not None:
                self.evidence[seat][rank] = self.draws[seat]
            self.draws[seat] += int(event.get("count", len(event.get("cards", []))))
        elif kind == "pickup":
            self.pickups[seat] += 1
            cards = list(event.get("cards", []))
            # The top card (last) is melded at once with hand cards; the rest joins the
            # hand, except red threes, which are laid out (docs/rules.md#the-discard-pile).
            self.known[seat] += [c for c in cards[:-1] if c not in ("3H", "3D")]
            if cards:
                self.pending.append((seat, cards[-1][0]))
                self.added.append((side, cards[-1][0], [cards[-1]]))
            self.top = None
        elif kind == "meld":
            for meld in event.get("melds", []):
                self._forget(seat, meld)
                ranks = [c[0] for c in meld if _natural_rank(c)]
                if ranks:
                    self.added.append((side, ranks[0], list(meld)))
            for key, cards in event.get("add", {}).items():
                self._forget(seat, cards)
                self.added.append((side, key, list(cards)))
        elif kind == "discard":
            card = event.get("card")
            if isinstance(card, str):
                self._forget(seat, [card])
                self.discards[seat].append(card)
                self.top = card
                rank = _natural_rank(card)
                if rank is not None:
                    self.evidence[seat][rank] = self.draws[seat]
        elif kind == "ask_partner":
            self.asked = True

    def _forget(self, seat: int, cards: list[Card]) -> None:
        known = self.known[seat]
        for card in cards:
            if card in known:
                known.remove(card)

    # --- JSON ------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "players": self.players,
            "hand": self.hand,
            "known": [list(k) for k in self.known],
            "discards": [list(d) for d in self.discards],
            "pickups": list(self.pickups),
            "draws": list(self.draws),
            "evidence": [dict(e) for e in self.evidence],
            "asked": self.asked,
            "top": self.top,
            "melds": [{k: list(v) for k, v in side.items()} for side in self.melds],
            "pending": [[seat, rank] for seat, rank in self.pending],
            "added": [[side, key, list(cards)] for side, key, cards in self.added],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BotMemory:
        memory = cls(seat=int(data["seat"]), players=int(data["players"]))
        memory.hand = int(data.get("hand", 1))
        n = memory.players
        memory.known = [list(k) for k in data.get("known", [[]] * n)]
        memory.discards = [list(d) for d in data.get("discards", [[]] * n)]
        memory.pickups = [int(p) for p in data.get("pickups", [0] * n)]
        memory.draws = [int(d) for d in data.get("draws", [0] * n)]
        memory.evidence = [
            {str(k): int(v) for k, v in e.items()} for e in data.get("evidence", [{}] * n)
        ]
        memory.asked = bool(data.get("asked", False))
        memory.top = data.get("top")
        memory.melds = [
            {str(k): list(v) for k, v in side.items()}
            for side in data.get("melds", [{}] * _sides(n))
        ]
        memory.pending = [(int(s), str(r)) for s, r in data.get("pending", [])]
        memory.added = [(int(s), str(k), list(c)) for s, k, c in data.get("added", [])]
        return memory

    @classmethod
    def for_view(cls, view: dict[str, Any]) -> BotMemory:
        """A fresh memory for the seat of ``view`` (e.g. a bot taking over mid-hand)."""
        memory = cls(seat=int(view["seat"]), players=int(view["players"]))
        memory.sync(view)
        return memory
