"""The lobby: my games (my turn first), tables to join, a new table, joining by link."""

from __future__ import annotations

import inspect
from typing import Any
from uuid import UUID

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from accounts.services.addresses import address_normalized, address_state
from games import engine, selectors
from games.access import seat_of
from games.models import Game, GameStatus, Seat, SeatKind, SeatStatus
from games.readmodel import game_summary, viewer_seat
from games.services import invitations, lobby, profiles
from games.services.errors import ErrorKind, GameError, refused
from web.forms import GameCreateForm, RatingFilterForm
from web.history import scores_text
from web.presenters import end_reasons, my_side_name
from web.variants import variant_summary, variant_title, variant_titles
from web.views.common import STATUS_BY_KIND, error_context

FINISHED_SHOWN = 10


def seat_name(seat: Seat, me: int | None) -> str:
    """A seat in a list: "you", a username, "Bot 2" (its one name, games.models.Seat);
    invitations and stand-ins marked."""
    if seat.user_id is None:
        if seat.kind == SeatKind.HUMAN:
            return _("invited by email")
        return seat.display_name
    name = _("you") if me is not None and seat.number == me else seat.display_name
    if seat.status == SeatStatus.INVITED:
        return _("%(name)s (invited)") % {"name": name}
    if seat.away:
        return _("%(name)s (away: a bot plays)") % {"name": name}
    return name


def _row(game: Game, user: Any, titles: dict[str, str]) -> dict[str, Any]:
    seat = seat_of(game, user)
    summary = game_summary(game, seat)
    me = viewer_seat(seat)
    seats = sorted(game.seats.all(), key=lambda s: (s.number is None, s.number, s.created_at, s.pk))
    names = [seat_name(s, me) for s in seats]
    scores = ""
    if summary["totals"] is not None and all(s.number is not None for s in seats):
        labels = []
        for side in range(game.sides):
            if me is not None and me % game.sides == side:
                labels.append(my_side_name(game))
            else:
                members = [
                    n
                    for s, n in zip(seats, names, strict=True)
                    if s.seated_number % game.sides == side
                ]
                labels.append(" & ".join(members))
        scores = scores_text(summary["totals"], labels)
    return {
        "scores": scores,
        "end_reason": end_reasons().get(game.end_reason or "", ""),
        "game": game,
        "summary": summary,
        "title": titles.get(game.variant, game.variant),
        "names": names,
        "free": game.players - len(seats),
        "my_turn": summary["my_turn"] and game.status == GameStatus.ACTIVE,
        "invited": seat is not None and seat.status == SeatStatus.INVITED,
        "seated": seat is not None and seat.status == SeatStatus.JOINED,
        "deadline": game.deadline,
        "turn_name": next(
            (n for s, n in zip(seats, names, strict=True) if s.number == game.turn_seat), ""
        ),
        # Open tables read through profiles.tables_in_rating_range carry their rating.
        "rating": (profiles.table_rating_label(game) if hasattr(game, "table_rating") else None),
    }


def _by_deadline(row: dict[str, Any]) -> tuple[bool, float]:
    deadline = row["deadline"]
    return (deadline is None, deadline.timestamp() if deadline else 0.0)


@login_required
def lobby_view(request: HttpRequest) -> HttpResponse:
    user = request.user
    titles = variant_titles()
    mine = selectors.with_summary_relations(selectors.games_of_user(user=user))
    active = [_row(g, user, titles) for g in mine.filter(status=GameStatus.ACTIVE)]
    # My turn first, each group by its deadline (soonest first, no deadline last).
    active.sort(key=lambda r: (not r["my_turn"], *_by_deadline(r)))
    waiting = [_row(g, user, titles) for g in mine.filter(status=GameStatus.OPEN)]
    finished = [
        _row(g, user, titles)
        for g in mine.filter(status__in=[GameStatus.FINISHED, GameStatus.ABORTED]).order_by(
            "-finished_at", "-created_at"
        )[:FINISHED_SHOWN]
    ]
    # Every open table carries its rating (table_rating), shown in its row and filtered on.
    rating_filter = RatingFilterForm(request.GET or None)
    bounds = rating_filter.cleaned_data if rating_filter.is_valid() else {}
    open_games = profiles.tables_in_rating_range(
        selectors.games_open_to(user=user),
        low=bounds.get("rating_min"),
        high=bounds.get("rating_max"),
    )
    open_tables = [_row(g, user, titles) for g in selectors.with_summary_relations(open_games)[:50]]
    return render(
        request,
        "web/lobby.html",
        {
            "active": active,
            "my_turn_count": sum(1 for r in active if r["my_turn"]),
            "waiting": [r for r in waiting if not r["invited"]],
            "finished": finished,
            "open_tables": open_tables,
            "rating_filter": rating_filter,
            "invitations": invitations_for_me(user),
        },
    )


def invitations_for_me(user: Any) -> list[dict[str, Any]]:
    """Invitations mailed to the reader's address, once their account has confirmed it (an
    unconfirmed address could be anyone's): each with its table and link to answer."""
    if not user.email or not address_state(user=user)["email_confirmed"]:
        return []
    return [
        {
            "inviter": i.inviter.get_username(),
            "table": invitations.invitation_table(i),
            "expires_at": i.expires_at,
            "token": i.token,
        }
        for i in invitations.invitations_for_address(address=address_normalized(user.email))
    ]


def home_view(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return lobby_view(request)
    variants = [
        {"title": variant_title(v), "summary": variant_summary(v)} for v in engine.list_variants()
    ]
    return render(request, "web/welcome.html", {"variants": variants})


def _service_takes(parameter: str) -> bool:
    return parameter in inspect.signature(lobby.game_create).parameters


def bots_supported() -> bool:
    """Whether the service seats bots (games.services.lobby.game_create(bots=...))."""
    return _service_takes("bots")


def _create(user: Any, data: dict[str, Any]) -> Game:
    kwargs: dict[str, Any] = {
        "creator": user,
        "variant": data["variant"],
        "players": data["players"],
        "options": data["options"],
        "is_public": data["public"],
        "turn_seconds": data["turn_seconds"],
        "timeout_policy": data["timeout_policy"],
        "invite": data["invite"],
        "rated": data["rated"],
    }
    if data.get("invite_emails"):
        kwargs["invite_emails"] = data["invite_emails"]
    if data["bots"]:
        if not bots_supported():
            raise refused(ErrorKind.INVALID, "bots_unavailable")
        kwargs["bots"] = [data["bot_level"]] * data["bots"]
    if data.get("weekend_pause") and _service_takes("weekend_pause"):
        kwargs["weekend_pause"] = True
    return lobby.game_create(**kwargs)


@login_required
@require_http_methods(["GET", "POST"])
def create_view(request: HttpRequest) -> HttpResponse:
    form = GameCreateForm(request.POST or None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                game = _create(request.user, form.cleaned_data)
            except GameError as error:
                field = {
                    "unknown_user": "invite",
                    "invalid_invite": "invite",
                    "invalid_email": "invite",
                    "too_many_invitations": "invite",
                }.get(error.code)
                if error.code in ("invalid_players",):
                    field = "players"
                if error.code == "invalid_time_control":
                    field = "turn_seconds"
                if error.code in ("bots_unavailable", "invalid_bots"):
                    field = "bots"
                form.add_error(field, error_context(error)["message"])
                status = STATUS_BY_KIND.get(error.kind, 400)
            else:
                return redirect("web:game", game_id=game.pk)
        else:
            status = 400
    return render(
        request,
        "web/create.html",
        {"form": form, "bots_supported": bots_supported()},
        status=status,
    )


@login_required
@require_http_methods(["GET", "POST"])
def join_view(request: HttpRequest, game_id: UUID) -> HttpResponse:
    """GET: a private table's link (its id is the invitation) asks to take a seat. POST: join."""
    try:
        game = selectors.game_with_seats(game_id=game_id)
    except GameError:
        raise Http404(_("No such game.")) from None
    seat = seat_of(game, request.user)
    if request.method == "POST":
        try:
            lobby.game_join(game_id=game_id, user=request.user)
        except GameError as error:
            if error.kind is ErrorKind.NOT_FOUND:
                raise Http404(_("No such game.")) from None
            return render(
                request,
                "web/join.html",
                {
                    "game": game,
                    "error": error_context(error),
                    "title": variant_titles()[game.variant],
                },
                status=STATUS_BY_KIND[error.kind],
            )
        return redirect("web:game", game_id=game_id)
    if seat is not None and seat.status == "joined":
        return redirect("web:game", game_id=game_id)
    free = game.players - game.seats.count()
    if game.status != GameStatus.OPEN or (seat is None and free <= 0):
        if not game.is_public and seat is None:
            raise Http404(_("No such game."))
        return redirect("web:game", game_id=game_id)
    return render(
        request,
        "web/join.html",
        {
            "game": game,
            "free": free,
            "title": variant_titles()[game.variant],
            "invited": seat is not None,
        },
    )
