"""What a notification carries: built when the event happens, from the recipient's player view
only, so a payload (stored, rendered, logged) can never show a card the recipient could not
see at the table. The move service builds payloads with these and hands them to
notifications.services.outbox.outbox_enqueue; notifications/emails.py renders them.

Every payload has `game` (id, url, variant, players), `seat` (the recipient's, or None) and
`names` (player names by seat); each kind adds its own keys, documented on its builder. An
outbox row stores its payload without the `game` block, which is the row's game's facts, and
gets it back when it is sent (payload_stored, payload_with_facts).

No payload holds a credential: the same payload feeds the event feed, webhooks and the admin,
so the Reply-To of play by email is added only when the email is sent
(notifications/services/delivery.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.db.models import Exists, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce

from games import engine
from games.engine import Table
from games.models import ChatMessage, Hand, Move
from games.scoresheet import scoresheet_hand
from games.services.chat import chat_lines


def game_url(game_id: Any) -> str:
    return f"{settings.CANASTA_SITE_URL}/games/{game_id}/"


def game_data(game: Any) -> dict[str, Any]:
    return {
        "id": str(game.pk),
        "url": game_url(game.pk),
        "variant": game.variant,
        "players": game.players,
    }


def payload_stored(payload: dict[str, Any], game: Any) -> dict[str, Any]:
    """The payload as an outbox row stores it: without its `game` block when that is the row's
    game's facts (id, url, variant, players: the game row and the site's address hold them),
    which payload_with_facts puts back when the row is sent. About 160 bytes of the 1.2 KB of
    a turn email's payload, in every row about a game."""
    if game is not None and payload.get("game") == game_data(game):
        return {key: value for key, value in payload.items() if key != "game"}
    return payload


def payload_with_facts(payload: dict[str, Any], game: Any) -> dict[str, Any]:
    """The payload as it was built: the game's facts put back (a row written before
    payload_stored, or about no game, has them or none)."""
    if game is None or "game" in payload:
        return payload
    return {"game": game_data(game), **payload}


def payload_joined(row: Any) -> dict[str, Any]:
    """An outbox row's payload with its event's shared part (OutboxShared), without the game's
    facts: for readers that need neither the game nor a query for it."""
    if row.shared_id is None:
        return dict(row.payload)
    return {**row.shared.data, **row.payload}


def outbox_payload(row: Any) -> dict[str, Any]:
    """An outbox row's payload as it was built: the event's shared part, the row's own, and
    the game's facts (row.shared and row.game are loaded with a claimed row: no query)."""
    return payload_with_facts(payload_joined(row), row.game if row.game_id is not None else None)


def seat_names(game: Any) -> list[str]:
    """Player names by seat number (uses the game's prefetched seats)."""
    names = ["?"] * game.players
    for seat in game.seats.all():
        if seat.number is not None and 0 <= seat.number < game.players:
            # One name everywhere (games.models.Seat.display_name): "Bot 2", as on the page.
            names[seat.number] = seat.display_name
    return names


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def game_hand(game: Any) -> int | None:
    """The number of the hand in play (or the last one), None before the deal.

    Read from the game's snapshot: the callers that lock the game have it loaded already
    (games.services.common.game_lock), so this costs no query on a move.
    """
    try:
        table = game.state.table
    except ObjectDoesNotExist:
        return None
    # Table JSON (docs/formats.md) leaves hand_number out for hand 1.
    hand = table.get("hand_number", 1) if isinstance(table, dict) else None
    return hand if isinstance(hand, int) else None


def game_moment(game: Any, table: Table | None) -> dict[str, Any]:
    """Where the game stood when a payload was built: the hand, the last move and whose turn
    it was. Public facts; play by email binds the reply address of the email to them when the
    email is sent (mailplay.services.reply_to), so that a reply answers the turn it showed."""
    active = game.status == "active"
    return {
        "hand": table.hand if table is not None else game_hand(game),
        "seq": game.last_seq,
        "turn": game.turn_seat if active else None,
    }


def _base(game: Any, seat: int | None) -> dict[str, Any]:
    return {"game": game_data(game), "seat": seat, "names": seat_names(game)}


def turn_payload(*, game: Any, table: Table, seat: int) -> dict[str, Any]:
    """your_turn and reminder: the table as `seat` sees it, what it may do, the deadline.

    Keys: view (Player view JSON), legal (LegalActions.to_json()), deadline (ISO or None),
    moment (game_moment).
    """
    return {
        **_base(game, seat),
        "view": engine.player_view(table, seat),
        "legal": engine.legal_actions(table, seat).to_json(),
        "deadline": _iso(game.deadline),
        "moment": game_moment(game, table),
    }


TURN_CHAT_LINES = 10


def turn_chat(*, game: Any, seat: Any) -> list[dict[str, str]]:
    """The table talk said since the recipient's previous turn (their last move), the latest
    `TURN_CHAT_LINES`, without their own lines and those of players they muted: the players'
    own words only (the service writes no line, docs/table-talk.md)."""
    if seat.user_id is None or seat.number is None:
        return []
    if getattr(seat, "chat_news", True) is False:
        return []  # nothing said since their last move as the game was locked (turn_chat_news)
    # One query: the recipient's last move is a subquery (the game and its seats are loaded):
    # its row, or, once the rows of that day are packed, the one its seat keeps
    # (games.services.coldmoves).
    last = Move.objects.filter(game=game, seat=seat.number).order_by("-seq").values("seq")[:1]
    lines = chat_lines(
        game_id=game.pk,
        user=seat.user,
        after_seq=Coalesce(Subquery(last), Value(seat.last_packed_seq or 0)),
        limit=TURN_CHAT_LINES + 20,
        game=game,
    )
    return [{"name": line.name, "text": line.text} for line in lines if not line.mine][
        -TURN_CHAT_LINES:
    ]


def turn_chat_news() -> dict[str, Any]:
    """`chat_news` on each seat row of the locked game (games.hooks.SeatRead): whether a line
    was said since that seat's last move, the condition turn_chat reads the lines with.

    False spares a move its chat query: the recipient's last move can only move later and
    lines only be added, so no line turn_chat could show exists. True (someone spoke) reads
    the lines as before, with the mutes and without the recipient's own lines."""
    last = Move.objects.filter(
        game_id=OuterRef(OuterRef("game_id")), seat=OuterRef(OuterRef("number"))
    )
    # The seat's last move as a row, or its last packed one (games.services.coldmoves).
    since = Coalesce(
        Subquery(last.order_by("-seq").values("seq")[:1]), OuterRef("last_packed_seq"), 0
    )
    said = ChatMessage.objects.filter(game_id=OuterRef("game_id"), after_seq__gte=since)
    return {"chat_news": Exists(said)}


def timeout_payload(
    *,
    game: Any,
    table: Table,
    seat: int | None,
    timed_out_seat: int,
    policy: str,
    handed_to_bot: bool = False,
) -> dict[str, Any]:
    """timeout: `timed_out_seat` ran out of time and `policy` (autoplay/forfeit) was applied.

    Keys: timed_out_seat, policy, handed_to_bot (the seat now plays as a bot until its player
    reclaims it), view (the table after the timeout, as the recipient sees it).
    """
    return {
        **_base(game, seat),
        "timed_out_seat": timed_out_seat,
        "policy": policy,
        "handed_to_bot": handed_to_bot,
        "view": engine.player_view(table, seat),
        "deadline": _iso(game.deadline),
    }


def hand_over_payload(
    *, game: Any, seat: int | None, hand_result: dict[str, Any], totals: Sequence[int]
) -> dict[str, Any]:
    """hand_over: `hand_result` is the public `hand_result` event of games.services.hands
    (hand, reason, seed, commitment, result); the seed is public once the hand is over.

    Keys: hand_result, totals (match totals by side), sheet (the hand's score sheet,
    games.scoresheet: every hand revealed, as the hand is over; None for a hand cut short).
    """
    return {
        **_base(game, seat),
        "hand_result": dict(hand_result),
        "totals": list(totals),
        "sheet": _sheet_json(game, hand_result.get("hand")),
    }


def _sheet_json(game: Any, number: Any) -> dict[str, Any] | None:
    if not isinstance(number, int):
        return None
    sheet = scoresheet_hand(game=game, number=number)
    return sheet.to_json() if sheet is not None else None


def _hands_json(game: Any) -> list[dict[str, Any]]:
    """Each scored hand's scores and the match totals after it (public once it is over)."""
    return [
        {"hand": hand.number, "scores": hand.result["scores"], "totals": hand.result["totals"]}
        for hand in Hand.objects.filter(game=game, result__isnull=False).order_by("number")
        if hand.result
    ]


def match_over_payload(
    *,
    game: Any,
    seat: int | None,
    totals: Sequence[int],
    winner_side: int | None,
    reason: str,
) -> dict[str, Any]:
    """match_over. Keys: totals, winner_side (None for a tie), reason (an EndReason value),
    hands (each scored hand's scores and totals), sheet (the last hand's score sheet, when it
    was played out)."""
    hands = _hands_json(game)
    return {
        **_base(game, seat),
        "totals": list(totals),
        "winner_side": winner_side,
        "reason": reason,
        "hands": hands,
        "sheet": _sheet_json(game, hands[-1]["hand"]) if hands else None,
    }


def digest_payload(*, day: str, games: Iterable[Any]) -> dict[str, Any]:
    """digest: the games waiting for `user`, most urgent first (notifications.selectors).

    Keys: day (ISO date), games (list of game data, plus deadline and names by seat).
    """
    return {
        "day": day,
        "games": [
            {**game_data(game), "deadline": _iso(game.deadline), "names": seat_names(game)}
            for game in games
        ],
        "game": None,
        "seat": None,
    }
