"""What a notification carries: built when the event happens, from the recipient's player view
only, so a payload (stored, rendered, logged) can never show a card the recipient could not
see at the table. The move service builds payloads with these and hands them to
notifications.services.outbox.outbox_enqueue; notifications/emails.py renders them.

Every payload has `game` (id, url, variant, players), `seat` (the recipient's, or None) and
`names` (player names by seat); each kind adds its own keys, documented on its builder.

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

from games import engine
from games.engine import Table
from games.players import player_name


def game_url(game_id: Any) -> str:
    return f"{settings.CANASTA_SITE_URL}/games/{game_id}/"


def game_data(game: Any) -> dict[str, Any]:
    return {
        "id": str(game.pk),
        "url": game_url(game.pk),
        "variant": game.variant,
        "players": game.players,
    }


def seat_names(game: Any) -> list[str]:
    """Player names by seat number (uses the game's prefetched seats)."""
    names = ["?"] * game.players
    for seat in game.seats.all():
        if seat.number is not None and 0 <= seat.number < game.players:
            if seat.kind == "bot":
                names[seat.number] = "bot"
            elif seat.user_id is not None:
                names[seat.number] = player_name(seat.user)
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

    Keys: hand_result, totals (match totals by side).
    """
    return {**_base(game, seat), "hand_result": dict(hand_result), "totals": list(totals)}


def match_over_payload(
    *,
    game: Any,
    seat: int | None,
    totals: Sequence[int],
    winner_side: int | None,
    reason: str,
) -> dict[str, Any]:
    """match_over. Keys: totals, winner_side (None for a tie), reason (an EndReason value)."""
    return {
        **_base(game, seat),
        "totals": list(totals),
        "winner_side": winner_side,
        "reason": reason,
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
