"""Leave and take your data: everything the service keeps about an account, as one JSON
document (docs/accounts.md, "Your data").

Games are exported as their player saw them: every move of the log through the engine's
redaction for that seat (engine.event_for, the same as the API's move log), so the cards of
other players that were hidden at the table stay hidden here too, even in finished hands.
Secrets are never exported: token keys, webhook secrets, OAuth client secrets and tokens,
reply addresses, invitation links.
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from clients.models import ApiToken, Webhook
from clients.payloads import iso, move_entry
from clients.services.oauth import apps_of, authorized_apps
from games.models import ChatMessage, Game, Invitation, Seat
from games.movelog import game_moves
from games.players import player_name
from mailplay.services.autodraw import auto_draw_of
from notifications.models import Absence
from notifications.services.preferences import preference_of

FORMAT = "canasta-account-export/1"


def _account(user: Any) -> dict[str, Any]:
    preference = preference_of(user=user)
    return {
        "username": user.get_username(),
        "email": user.email,
        "email_confirmed": bool(user.email) and not preference.email_pending,
        "date_joined": iso(user.date_joined),
        "last_login": iso(user.last_login),
    }


def preferences_export(user: Any) -> dict[str, Any]:
    """A user's preferences as `GET /me/preferences/` and the data export show them."""
    preference = preference_of(user=user)
    return {
        "email_mode": preference.email_mode,
        "digest_hour": preference.digest_hour,
        "turn_email_delay_minutes": preference.turn_email_delay_minutes,
        "auto_draw": auto_draw_of(user=user),
        "language": preference.language,
        "time_zone": preference.time_zone,
    }


def _tokens(user: Any) -> list[dict[str, Any]]:
    return [
        {
            "name": t.name,
            "kind": t.kind,
            "scopes": list(t.scopes),
            "prefix": t.prefix,
            "created_at": iso(t.created_at),
            "last_used_at": iso(t.last_used_at),
            "revoked_at": iso(t.revoked_at),
        }
        for t in ApiToken.objects.filter(owner=user).order_by("created_at", "pk")
    ]


def _apps(user: Any) -> dict[str, list[dict[str, Any]]]:
    """The OAuth apps the player registered, and those they allowed (no client secret: the
    service keeps it hashed)."""
    return {
        "registered": [
            {
                "name": app.name,
                "client_id": app.client_id,
                "client_type": app.client_type,
                "redirect_uris": app.redirect_uris.split(),
                "created_at": iso(app.created),
            }
            for app in apps_of(owner=user)
        ],
        "allowed": [
            {
                "name": allowed.application.name,
                "client_id": allowed.application.client_id,
                "scopes": allowed.scopes,
                "since": iso(allowed.since),
            }
            for allowed in authorized_apps(user=user)
        ],
    }


def _webhooks(user: Any) -> list[dict[str, Any]]:
    return [
        {
            "url": h.url,
            "game": str(h.game_id) if h.game_id else None,
            "kinds": list(h.kinds),
            "active": h.active,
        }
        for h in Webhook.objects.filter(owner=user).order_by("pk")
    ]


def _game(game: Game, seat: Seat) -> dict[str, Any]:
    viewer = seat.number
    moves = [move_entry(m, viewer) for m in game_moves(game)]
    return {
        "id": str(game.pk),
        "variant": game.variant,
        "players": game.players,
        "options": game.options,
        "public": game.is_public,
        "status": game.status,
        "created_at": iso(game.created_at),
        "started_at": iso(game.started_at),
        "finished_at": iso(game.finished_at),
        "end_reason": game.end_reason or None,
        "winner_side": game.winner_side,
        "my_seat": viewer,
        "my_seat_status": seat.status,
        "seats": [
            {
                "number": s.number,
                "kind": s.kind,
                "name": player_name(s.user) if s.user_id else f"{s.bot_level} bot".strip(),
            }
            for s in game.seats.all()
        ],
        "moves": moves,
    }


def _invitations(user: Any) -> list[dict[str, Any]]:
    rows = Invitation.objects.filter(inviter=user) | Invitation.objects.filter(accepted_by=user)
    return [
        {
            "game": str(i.game_id),
            "sent_by_me": i.inviter_id == user.pk,
            "email": i.email,
            "status": i.status,
            "created_at": iso(i.created_at),
            "expires_at": iso(i.expires_at),
        }
        for i in rows.distinct().order_by("created_at", "pk")
    ]


def account_export(*, user: Any) -> dict[str, Any]:
    """The account's data as one JSON-ready document."""
    seats = (
        Seat.objects.filter(user=user)
        .select_related("game")
        .prefetch_related("game__seats__user")
        .order_by("game__created_at", "pk")
    )
    return {
        "format": FORMAT,
        "exported_at": iso(timezone.now()),
        "account": _account(user),
        "preferences": preferences_export(user),
        "absences": [
            {"starts_at": iso(a.starts_at), "ends_at": iso(a.ends_at)}
            for a in Absence.objects.filter(user=user).order_by("starts_at", "pk")
        ],
        "tokens": _tokens(user),
        "webhooks": _webhooks(user),
        "apps": _apps(user),
        "games": [_game(seat.game, seat) for seat in seats],
        "invitations": _invitations(user),
        "chat": _chat(user),
    }


def _chat(user: Any) -> list[dict[str, Any]]:
    """The player's own table talk (other players' lines are theirs to export)."""
    return [
        {"game": str(line.game_id), "at": iso(line.created_at), "text": line.text}
        for line in ChatMessage.objects.filter(user=user).order_by("created_at", "pk")
    ]
