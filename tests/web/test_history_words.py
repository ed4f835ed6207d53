"""The history in words (issue 18): a forced draw says it was drawn for the player, "time ran
out" only when it did, and counts agree with their noun ("1 card", "2 cards")."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone

from games.models import Move
from web.history import describe_move, move_how


def _move(seq: int, seat: int, actor: str, action: dict[str, Any], at: Any) -> Move:
    return Move(seq=seq, hand=1, seat=seat, actor=actor, action=action, created_at=at)


def test_a_forced_draw_alone_is_told_apart_from_a_timeout_batch() -> None:
    now = timezone.now()
    forced = _move(5, 2, "system", {"type": "draw"}, now)
    next_player = _move(6, 2, "player", {"type": "discard", "card": "5S"}, now + timedelta(hours=3))
    assert move_how(forced, next_player) == "forced"
    assert move_how(forced, None) == "forced"
    # A timeout plays draw and discard in one batch (one moment); both are the timeout's.
    drawn = _move(7, 3, "system", {"type": "draw"}, now)
    discarded = _move(8, 3, "system", {"type": "discard", "card": "4H"}, now)
    assert move_how(drawn, discarded) == "timeout"
    assert move_how(discarded, None) == "timeout"
    assert move_how(_move(9, 1, "system", {"type": "timeout"}, now), None) == "timeout"
    assert move_how(_move(10, 1, "bot", {"type": "draw"}, now), None) == "bot"
    assert move_how(_move(11, 1, "player", {"type": "draw"}, now), None) == "player"


def _entry(seat: int, events: list[dict[str, Any]], action: dict[str, Any]) -> dict[str, Any]:
    return {"seat": seat, "events": events, "action": action}


def _text(lines: list[list[Any]]) -> str:
    return " | ".join(
        "".join(p if isinstance(p, str) else "[cards]" for p in line) for line in lines
    )


def test_forced_draws_and_counts_in_words() -> None:
    names = {0: "You", 1: "carol", 2: "bob"}
    mine = describe_move(
        _entry(0, [{"type": "draw", "seat": 0, "cards": ["7H"]}], {"type": "draw"}),
        names,
        "classic",
        how="forced",
    )
    assert _text(mine) == "We drew for you (a forced draw): [cards]"
    theirs = describe_move(
        _entry(1, [{"type": "draw", "seat": 1, "count": 1}], {"type": "draw"}),
        names,
        "classic",
        how="forced",
    )
    assert _text(theirs) == "A card was drawn for carol (a forced draw)."
    one = describe_move(
        _entry(2, [{"type": "draw", "seat": 2, "count": 1}], {"type": "draw"}), names, "classic"
    )
    two = describe_move(
        _entry(2, [{"type": "draw", "seat": 2, "count": 2}], {"type": "draw"}), names, "classic"
    )
    assert _text(one) == "bob drew 1 card." and _text(two) == "bob drew 2 cards."
    tiles = describe_move(
        _entry(2, [{"type": "draw", "seat": 2, "count": 1}], {"type": "draw"}), names, "tiles"
    )
    assert _text(tiles) == "bob drew 1 tile."
    pile = describe_move(
        _entry(2, [{"type": "pickup", "seat": 2, "cards": ["7H"]}], {"type": "pickup"}),
        names,
        "classic",
    )
    assert _text(pile) == "bob took the discard pile (1 card): [cards]"
