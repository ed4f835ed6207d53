"""A game's move log, or a run of it, packed into one value (issue 25), as
games.models.MoveArchive (a finished game's whole log) and games.models.MoveChunk (an active
game's moves a day old) store it.

A Move row and its two indexes take 220-240 bytes; the same move packed with the rest of its
game takes 10-17, with a day of its moves 12-25. The packed text is a header line of the moves' small columns as
lists (their `seq` and `created_at` as differences from the move before: 1, 1, 1 ... and a few
digits), then one line a move of its action and its events as the move log stores them
(compact JSON, the events without what repeats the move, games.fields.events_packed), all
raw-deflated at level 9 against a dictionary of typical moves (games.packing). A format byte
goes first, so another packing can be added without rewriting what was archived.

What comes back is the list the log held, every field as it was: seq, hand, seat, actor,
action, events (as the engine wrote them), created_at to the microsecond. The row ids are not
kept: nothing reads them.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from games.fields import compact_json, events_packed, events_unpacked
from games.models import Move
from games.packing import deflated, dictionary_checked, inflated

FORMAT_1 = 1
# The lines of four games of random legal play (classic, family, party and tiles for four),
# each distinct line once, the most frequent last: against it a log of 600 moves packs about
# 6 % smaller, one of 80 about 15 % (docs/benchmarks.md). Never change the file: its
# digest is checked; a new dictionary is a new format.
_DICTIONARY_1_FILE = Path(__file__).with_name("move_archive_dictionary_1.txt")
_DICTIONARY_1_SHA256 = "aa5bd0ce1d12dde40b828d2eb9cb2b0b8b364ce82639de6c49d1b409506441e2"
# One letter for each value of games.models.Actor.
_ACTOR_LETTERS = {"player": "p", "system": "s", "bot": "b"}
_ACTORS = {letter: actor for actor, letter in _ACTOR_LETTERS.items()}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def _dictionary_1() -> bytes:
    return dictionary_checked(_DICTIONARY_1_FILE, _DICTIONARY_1_SHA256)


def _differences(values: list[int]) -> list[int]:
    return [value - before for before, value in zip([0, *values], values, strict=False)]


def moves_packed(moves: Sequence[Move]) -> bytes:
    """The moves (a game's whole log, or a run of it, in seq order) as MoveArchive.packed and
    MoveChunk.packed store them."""
    header = {
        "seq": _differences([move.seq for move in moves]),
        "hand": [move.hand for move in moves],
        "seat": [move.seat for move in moves],
        "actor": "".join(_ACTOR_LETTERS[move.actor] for move in moves),
        "at": _differences([(move.created_at - _EPOCH) // _MICROSECOND for move in moves]),
    }
    lines = [compact_json(header)] + [
        f"{compact_json(move.action)}\t{compact_json(events_packed(move.events, move.action, move.seat))}"
        for move in moves
    ]
    return bytes([FORMAT_1]) + deflated("\n".join(lines).encode(), _dictionary_1())


def moves_unpacked(game_id: Any, packed: bytes | memoryview) -> list[Move]:
    """The moves moves_packed was given, as unsaved Move objects of the game `game_id`."""
    data = bytes(packed)  # PostgreSQL hands back a memoryview
    if not data or data[0] != FORMAT_1:
        raise ValueError(f"move archive of {game_id}: unknown format {data[:1]!r}")
    head, *lines = inflated(data[1:], _dictionary_1()).decode().split("\n")
    header = json.loads(head)
    if not header["seq"]:
        return []
    columns = zip(
        itertools.accumulate(header["seq"]),
        header["hand"],
        header["seat"],
        header["actor"],
        itertools.accumulate(header["at"]),
        lines,
        strict=True,
    )
    return [_move(game_id, *column) for column in columns]


def _move(game_id: Any, seq: int, hand: int, seat: int, actor: str, at: int, line: str) -> Move:
    action_text, events_text = line.split("\t")
    action = json.loads(action_text)
    return Move(
        game_id=game_id,
        seq=seq,
        hand=hand,
        seat=seat,
        actor=_ACTORS[actor],
        action=action,
        events=events_unpacked(json.loads(events_text), action, seat),
        created_at=_EPOCH + at * _MICROSECOND,
    )
