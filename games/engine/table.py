"""The state of one hand: Table JSON (docs/formats.md) in and out, and its checks."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .cards import Card, is_red_three, parse_card
from .errors import EngineError, InvalidTableError
from .events import PHASES, Phase
from .melds import check_meld, meld_key, parse_meld_key
from .rules import RuleSet
from .variants import get_rules

# Whether this module runs compiled (mypyc, games/engine/compiled.py): `Table.fork` differs.
COMPILED = not __file__.endswith(".py")

END_REASONS = ("went_out", "stock_exhausted", "red_three_last")
_KEYS = {
    "variant",
    "players",
    "options",
    "dealer",
    "turn",
    "phase",
    "scores",
    "hands",
    "stock",
    "discard",
    "melds",
    "red_threes",
    "melded",
    # engine extensions (docs/formats.md, "Table JSON: one hand, everything in it")
    "hand_number",
    "asked_by",
    "go_out",
    "concealed_melds",
    "ended",
}


@dataclass
class Table:
    """One hand in progress (or just over). Treated as a value: `play.apply` copies it."""

    rules: RuleSet
    players: int
    options: dict[str, Any]  # as given; `settings` holds them with defaults filled in
    dealer: int
    turn: int
    phase: Phase
    scores: list[int]
    hands: list[list[Card]]
    stock: list[Card]
    discard: list[Card]
    melds: list[dict[str, list[Card]]]
    red_threes: list[list[Card]]
    melded: list[bool]
    hand: int = 1
    asked_by: int | None = None
    go_out: bool | None = None
    concealed_melds: list[str] | None = None
    ended: dict[str, Any] | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    # Optional keys that were written out in the input, so that output equals input.
    explicit: frozenset[str] = frozenset()
    # rules.sides(players), asked for on every move (not part of the state).
    nsides: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.nsides = self.rules.sides(self.players)

    # --- derived -------------------------------------------------------------

    @property
    def variant(self) -> str:
        return self.rules.name

    @property
    def sides(self) -> int:
        return self.rules.sides(self.players)

    def side_of(self, seat: int) -> int:
        return seat % self.nsides

    def partners(self, seat: int) -> list[int]:
        """The other seats of ``seat``'s side."""
        return [
            s for s in range(self.players) if s != seat and self.side_of(s) == self.side_of(seat)
        ]

    @property
    def over(self) -> bool:
        return self.phase == "over"

    def copy(self) -> Table:
        return Table(
            rules=self.rules,
            players=self.players,
            options=dict(self.options),
            dealer=self.dealer,
            turn=self.turn,
            phase=self.phase,
            scores=list(self.scores),
            hands=[list(h) for h in self.hands],
            stock=list(self.stock),
            discard=list(self.discard),
            melds=[{k: list(v) for k, v in side.items()} for side in self.melds],
            red_threes=[list(r) for r in self.red_threes],
            melded=list(self.melded),
            hand=self.hand,
            asked_by=self.asked_by,
            go_out=self.go_out,
            concealed_melds=None if self.concealed_melds is None else list(self.concealed_melds),
            ended=None if self.ended is None else dict(self.ended),
            settings=self.settings,
            explicit=self.explicit,
        )

    def fork(self) -> Table:
        """A copy for `play.apply` that shares what an action does not change in place.

        Copied: the list of hands and the hand of the seat to act, the list of sides' melds,
        ``melded``. Shared until an action replaces them: the stock, the pile, the other
        hands, each side's meld dict and meld lists, red threes, scores and options. The
        action code replaces a shared list instead of changing it (see play.py), so the
        table given to `apply` never changes. Callers that want to change a table in place
        use `copy`.
        """
        new = self._shallow() if COMPILED else object.__new__(Table)
        if not COMPILED:
            new.__dict__.update(self.__dict__)
        hands = list(self.hands)
        hands[self.turn] = list(hands[self.turn])
        new.hands = hands
        new.melds = list(self.melds)
        new.melded = list(self.melded)
        return new

    def _shallow(self) -> Table:
        # The compiled build's Table (mypyc) has no __dict__ and refuses object.__new__.
        return Table(
            rules=self.rules,
            players=self.players,
            options=self.options,
            dealer=self.dealer,
            turn=self.turn,
            phase=self.phase,
            scores=self.scores,
            hands=self.hands,
            stock=self.stock,
            discard=self.discard,
            melds=self.melds,
            red_threes=self.red_threes,
            melded=self.melded,
            hand=self.hand,
            asked_by=self.asked_by,
            go_out=self.go_out,
            concealed_melds=self.concealed_melds,
            ended=self.ended,
            settings=self.settings,
            explicit=self.explicit,
        )

    def all_cards(self) -> Counter[Card]:
        """Every card on the table (hands, stock, pile, melds, red threes)."""
        total: Counter[Card] = Counter()
        for hand in self.hands:
            total.update(hand)
        total.update(self.stock)
        total.update(self.discard)
        for side in self.melds:
            for cards in side.values():
                total.update(cards)
        for reds in self.red_threes:
            total.update(reds)
        return total

    # --- JSON ----------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"variant": self.rules.name, "players": self.players}
        if self.options or "options" in self.explicit:
            out["options"] = dict(self.options)
        out.update(
            {
                "dealer": self.dealer,
                "turn": self.turn,
                "phase": self.phase,
                "scores": list(self.scores),
                "hands": [list(h) for h in self.hands],
                "stock": list(self.stock),
                "discard": list(self.discard),
                "melds": [{k: list(v) for k, v in side.items()} for side in self.melds],
                "red_threes": [list(r) for r in self.red_threes],
            }
        )
        if any(self.melded) or "melded" in self.explicit:
            out["melded"] = list(self.melded)
        if self.hand != 1 or "hand_number" in self.explicit:
            out["hand_number"] = self.hand
        if self.asked_by is not None:
            out["asked_by"] = self.asked_by
        if self.go_out is not None:
            out["go_out"] = self.go_out
        if self.concealed_melds is not None:
            out["concealed_melds"] = list(self.concealed_melds)
        if self.ended is not None:
            out["ended"] = dict(self.ended)
        return out


def to_json(table: Table) -> dict[str, Any]:
    return table.to_json()


# --- reading Table JSON ------------------------------------------------------


def _int(data: Mapping[str, Any], key: str, low: int, high: int) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidTableError(f"{key} must be an integer from {low} to {high}, got {value!r}")
    return value


def _card_list(value: Any, where: str) -> list[Card]:
    if not isinstance(value, list):
        raise InvalidTableError(f"{where} must be a list of card codes")
    try:
        return [parse_card(v) for v in value]
    except EngineError as exc:
        raise InvalidTableError(f"{where}: {exc.message}") from None


def _per(value: Any, count: int, where: str) -> list[Any]:
    if not isinstance(value, list) or len(value) != count:
        raise InvalidTableError(f"{where} must be a list of {count} entries")
    return value


def from_json(data: Any) -> Table:
    """Parse and check Table JSON; raises InvalidTableError (code invalid_table)."""
    if not isinstance(data, Mapping):
        raise InvalidTableError("a table must be a JSON object")
    unknown = set(data) - _KEYS
    if unknown:
        raise InvalidTableError(f"unknown table keys: {', '.join(sorted(unknown))}")
    rules = get_rules(data.get("variant"))
    players = data.get("players")
    if players not in rules.player_counts or isinstance(players, bool):
        counts = ", ".join(map(str, rules.player_counts))
        raise InvalidTableError(f"{rules.name} is played by {counts} players, not {players!r}")
    options_given = data.get("options", {})
    settings = rules.resolve_options(options_given)
    sides = rules.sides(players)
    phase = _read_phase(data, rules, settings)
    # Read in this order, so that a table with several faults reports the first of them.
    scores = _read_scores(data, sides)
    hands = _read_hands(data, players)
    stock = _card_list(data.get("stock"), "stock")
    discard = _card_list(data.get("discard"), "discard")
    melds = [
        _read_side_melds(rules, i, side)
        for i, side in enumerate(_per(data.get("melds"), sides, "melds"))
    ]
    red_threes = _read_red_threes(data, sides)
    explicit = {key for key in ("options", "melded", "hand_number") if key in data}
    melded = _per(data.get("melded", [False] * players), players, "melded")
    if not all(isinstance(m, bool) for m in melded):
        raise InvalidTableError("melded must be a list of booleans")

    table = Table(
        rules=rules,
        players=players,
        options=dict(options_given),
        dealer=_int(data, "dealer", 0, players - 1),
        turn=_int(data, "turn", 0, players - 1),
        phase=phase,
        scores=scores,
        hands=hands,
        stock=stock,
        discard=discard,
        melds=melds,
        red_threes=red_threes,
        melded=list(melded),
        hand=_int(data, "hand_number", 1, 10**6) if "hand_number" in data else 1,
        settings=settings,
        explicit=frozenset(explicit),
    )
    _read_extensions(table, data)
    _check_deck(table)
    return table


def _read_phase(data: Mapping[str, Any], rules: RuleSet, settings: Mapping[str, Any]) -> Phase:
    phase = data.get("phase")
    if not isinstance(phase, str) or phase not in PHASES:
        raise InvalidTableError(f"phase must be one of {', '.join(PHASES)}, got {phase!r}")
    if phase == "discard" and not rules.first_player_extra_card:
        raise InvalidTableError(f"phase discard does not exist in {rules.name}")
    if phase == "answer" and not settings.get("ask_partner"):
        raise InvalidTableError("phase answer needs the ask_partner option")
    return next(known for known in PHASES if known == phase)  # as the Phase literal


def _read_scores(data: Mapping[str, Any], sides: int) -> list[int]:
    scores = _per(data.get("scores"), sides, "scores")
    for s in scores:
        if isinstance(s, bool) or not isinstance(s, int):
            raise InvalidTableError(f"scores must be integers, got {s!r}")
    return list(scores)


def _read_hands(data: Mapping[str, Any], players: int) -> list[list[Card]]:
    hands = [
        _card_list(h, f"hands[{i}]")
        for i, h in enumerate(_per(data.get("hands"), players, "hands"))
    ]
    for i, hand in enumerate(hands):
        if any(is_red_three(c) for c in hand):
            raise InvalidTableError(
                f"hands[{i}] holds a red three; red threes are laid out at once"
            )
    return hands


def _read_side_melds(rules: RuleSet, i: int, side: Any) -> dict[str, list[Card]]:
    """melds[i]: one side's melds, each a legal meld of its key."""
    if not isinstance(side, Mapping):
        raise InvalidTableError(f"melds[{i}] must be an object keyed by rank")
    parsed: dict[str, list[Card]] = {}
    for raw_key, raw_cards in side.items():
        try:
            key = parse_meld_key(raw_key)
        except EngineError as exc:
            raise InvalidTableError(f"melds[{i}]: {exc.message}") from None
        cards = _card_list(raw_cards, f"melds[{i}][{raw_key}]")
        try:
            if meld_key(rules, cards) != key:
                raise InvalidTableError(f"melds[{i}][{raw_key}] holds cards of another meld")
            check_meld(rules, key, cards, going_out=True)
        except InvalidTableError:
            raise
        except EngineError as exc:
            raise InvalidTableError(f"melds[{i}][{raw_key}]: {exc.message}") from None
        if key in parsed:
            raise InvalidTableError(f"melds[{i}] has two {key} melds")
        parsed[key] = cards
    return parsed


def _read_red_threes(data: Mapping[str, Any], sides: int) -> list[list[Card]]:
    red_threes = [
        _card_list(r, f"red_threes[{i}]")
        for i, r in enumerate(_per(data.get("red_threes"), sides, "red_threes"))
    ]
    for i, reds in enumerate(red_threes):
        if not all(is_red_three(c) for c in reds):
            raise InvalidTableError(f"red_threes[{i}] holds a card that is not a red three")
    return red_threes


def _read_extensions(table: Table, data: Mapping[str, Any]) -> None:
    if "asked_by" in data:
        if table.phase != "answer":
            raise InvalidTableError("asked_by belongs to phase answer")
        table.asked_by = _int(data, "asked_by", 0, table.players - 1)
        if table.asked_by not in table.partners(table.turn):
            raise InvalidTableError("asked_by must be the partner of the seat to answer")
    elif table.phase == "answer":
        raise InvalidTableError("phase answer needs asked_by")
    if "go_out" in data:
        if not isinstance(data["go_out"], bool) or table.phase not in ("play", "over"):
            raise InvalidTableError("go_out must be a boolean, in phase play")
        table.go_out = data["go_out"]
    if "concealed_melds" in data:
        value = data["concealed_melds"]
        side = table.melds[table.side_of(table.turn)]
        if not isinstance(value, list) or not all(isinstance(k, str) and k in side for k in value):
            raise InvalidTableError("concealed_melds must list ranks of the current side's melds")
        table.concealed_melds = list(value)
    if "ended" in data:
        ended = data["ended"]
        if (
            table.phase != "over"
            or not isinstance(ended, Mapping)
            or ended.get("reason") not in END_REASONS
            or not isinstance(ended.get("concealed", False), bool)
            or set(ended) - {"reason", "went_out", "concealed"}
        ):
            raise InvalidTableError("ended must be {reason, went_out, concealed} with phase over")
        went_out = ended.get("went_out")
        if went_out is not None and (
            isinstance(went_out, bool)
            or not isinstance(went_out, int)
            or not 0 <= went_out < table.players
        ):
            raise InvalidTableError("ended.went_out must be a seat or null")
        table.ended = {
            "reason": ended["reason"],
            "went_out": went_out,
            "concealed": bool(ended.get("concealed", False)),
        }
    elif table.phase == "over":
        table.ended = {"reason": "stock_exhausted", "went_out": None, "concealed": False}


def _check_deck(table: Table) -> None:
    deck = Counter(table.rules.deck())
    for card, n in table.all_cards().items():
        if n > deck[card]:
            raise InvalidTableError(
                f"{card} appears {n} times; the {table.rules.name} deck has {deck[card]}"
            )
