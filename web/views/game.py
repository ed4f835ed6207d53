"""The game page, its refreshable table fragment, and the plain-form moves."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseNotModified,
    JsonResponse,
)
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from api.errors import error_body
from games import engine
from games.models import Game, GameStatus, Seat, SeatStatus
from games.readmodel import etag
from games.scoresheet import last_scored_hand, scoresheet_match
from games.services import lobby
from games.services.chat import (
    chat_lines,
    chat_mark,
    chat_mute,
    chat_muted_seats,
    chat_post,
    chat_report,
)
from games.services.errors import ErrorKind, GameError
from games.services.moves import game_resign, moves_submit_with_table
from notifications.services.presence import presence_record
from web import moves
from web.play import legal_for
from web.presenters import game_page, player_names, side_names
from web.sheets import sheet_context
from web.views.common import STATUS_BY_KIND, error_context, visible_game

# How often an open game page asks whether the game changed (a 304 costs one indexed read);
# game.js waits longer while the tab is hidden and backs off on errors.
DEFAULT_POLL_SECONDS = 4.0


def stale_text() -> str:
    return _(
        "The table changed since you loaded it (another player moved): here it is now. "
        "Check it and play again."
    )


def page_tag(game: Game, seat: Seat | None) -> str:
    """The page's ETag: the game's, and the last score sheet the viewer acknowledged (the
    page changes when they do, the game does not)."""
    tag = etag(game, seat)
    if _seated(seat):
        # New table talk changes the page, not the game.
        tag = f'{tag[:-1]}-c{chat_mark(game=game)}"'
    if seat is None or not seat.sheet_seen:
        return tag
    return f'{tag[:-1]}-s{seat.sheet_seen}"'


def _seated(seat: Seat | None) -> bool:
    return seat is not None and seat.number is not None and seat.status == SeatStatus.JOINED


def chat_context(request: HttpRequest, game: Game, seat: Seat | None) -> dict[str, Any] | None:
    """The table talk a seated player reads (docs/table-talk.md); None for spectators."""
    if not _seated(seat):
        return None
    muted = chat_muted_seats(game=game, user=request.user)
    return {
        "lines": chat_lines(game_id=game.pk, user=request.user, game=game),
        "others": [
            {"number": s.number, "name": s.display_name, "muted": s.number in muted}
            for s in game.seats.all()
            if _seated(s) and s.user_id and s.pk != getattr(seat, "pk", None)
        ],
    }


def player_seen(request: HttpRequest, game: Game, seat: Seat | None) -> None:
    """The one place where the game page tells that its player is looking at the game: the
    page's load and each of its polls (table_fragment) pass here. Presence-based email
    suppression: no turn email while the page is open (notifications/services/presence.py)."""
    if seat is not None:
        presence_record(user=request.user, game=game.pk)


def _render(
    request: HttpRequest,
    game_id: UUID,
    *,
    form: moves.MoveForm | None = None,
    error: dict[str, Any] | None = None,
    status: int = 200,
    template: str = "web/game.html",
    found: tuple[Game, Seat | None] | None = None,
    chat_error: dict[str, Any] | None = None,
    chat_text: str = "",
) -> HttpResponse:
    game, seat = found or visible_game(game_id, request.user)
    context = game_page(game, seat, form)
    context["etag"] = page_tag(game, seat)
    context["error"] = error
    context["chat"] = chat_context(request, game, seat)
    context["chat_error"] = chat_error
    context["chat_text"] = chat_text
    seconds = getattr(settings, "CANASTA_WEB_POLL_SECONDS", DEFAULT_POLL_SECONDS)
    context["poll_ms"] = max(250, int(float(seconds) * 1000))
    response = render(request, template, context, status=status)
    response["ETag"] = context["etag"]
    response["Cache-Control"] = "private, no-cache"
    return response


@login_required
@require_GET
def game_view(request: HttpRequest, game_id: UUID) -> HttpResponse:
    found = visible_game(game_id, request.user)
    player_seen(request, *found)
    return _render(request, game_id, found=found)


@login_required
@require_GET
def table_fragment(request: HttpRequest, game_id: UUID) -> HttpResponse:
    """The part of the game page that changes with moves; game.js swaps it in."""
    game, seat = visible_game(game_id, request.user)
    player_seen(request, game, seat)
    tag = page_tag(game, seat)
    given = request.headers.get("If-None-Match", "")
    if given and tag.removeprefix("W/") in {t.strip().removeprefix("W/") for t in given.split(",")}:
        return HttpResponseNotModified()
    return _render(request, game_id, template="web/_table.html", found=(game, seat))


def _wants_json(request: HttpRequest) -> bool:
    """game.js posts the move form in place (no reload) and asks for JSON; a browser without
    the script posts it plainly and gets the page."""
    return "application/json" in request.headers.get("Accept", "")


def _move_refused(
    request: HttpRequest,
    game_id: UUID,
    form: moves.MoveForm,
    error: dict[str, Any],
    status: int = 400,
) -> HttpResponse:
    """A refused move: the one error shape for game.js (shown in place, nothing changed), or
    the page again with the refusal and the selection kept."""
    if _wants_json(request):
        body = error_body(error["code"], error["message"], error.get("details"))
        return JsonResponse(body, status=status)
    return _render(request, game_id, form=form, error=error, status=status)


def _form_actions(
    request: HttpRequest, game_id: UUID, form: moves.MoveForm
) -> tuple[Game, list[dict[str, Any]]]:
    """The game and the actions the pressed button plays (SelectionError when none)."""
    game, seat = visible_game(game_id, request.user)
    keys: list[str] = []
    legal: dict[str, Any] = {}
    if seat is not None and seat.number is not None and game.status == GameStatus.ACTIVE:
        table = engine.from_json(game.state.table)
        keys = list(table.melds[seat.number % game.sides])
        legal = legal_for(table, seat.number, table.turn == seat.number)
    return game, moves.actions(form, keys, legal)


@login_required
@require_POST
def move_view(request: HttpRequest, game_id: UUID) -> HttpResponse:
    """The move form: plain (the page again) or from game.js in place (JSON, no reload)."""
    form = moves.parse(request.POST)
    if form.op in moves.PLAN_OPS:
        try:
            form = moves.apply_plan_op(form)
        except moves.SelectionError as error:
            return _move_refused(request, game_id, form, error_context(message=str(error)))
        return _render(request, game_id, form=form)
    if form.op not in moves.PLAY_OPS:
        return _move_refused(request, game_id, form, error_context(message=_("Unknown button.")))
    try:
        game, actions = _form_actions(request, game_id, form)
    except moves.SelectionError as error:
        return _move_refused(request, game_id, form, error_context(message=str(error)))
    if form.version is None:
        lost = _("The form lost its version: please reload the page.")
        return _move_refused(request, game_id, form, error_context(message=lost))
    try:
        moves_submit_with_table(
            game_id=game_id, user=request.user, actions=actions, expected_version=form.version
        )
    except GameError as error:
        if error.kind is ErrorKind.NOT_FOUND:
            raise Http404(_("No such game.")) from None
        shown = error_context(error, variant=game.variant)
        if error.code == "stale_version":
            shown["message"] = stale_text()
        if "applied" in error.details:
            # Some steps stood (a draw from the stock): game.js shows the table they left.
            shown["details"] = {"applied": error.details["applied"]}
        return _move_refused(request, game_id, form, shown, STATUS_BY_KIND[error.kind])
    if _wants_json(request):
        return JsonResponse({"played": len(actions)})
    return redirect("web:game", game_id=game_id)


def _lobby_action(request: HttpRequest, game_id: UUID, service: Any, done: str) -> HttpResponse:
    try:
        service(game_id=game_id, user=request.user)
    except GameError as error:
        if error.kind is ErrorKind.NOT_FOUND:
            raise Http404(_("No such game.")) from None
        try:
            return _render(
                request, game_id, error=error_context(error), status=STATUS_BY_KIND[error.kind]
            )
        except Http404:
            # A private table one has just left is no longer visible: back to the lobby.
            return redirect("web:lobby")
    if done == "lobby":
        return redirect("web:lobby")
    return redirect("web:game", game_id=game_id)


@login_required
@require_POST
def resign_view(request: HttpRequest, game_id: UUID) -> HttpResponse:
    return _lobby_action(request, game_id, game_resign, "game")


@login_required
@require_POST
def abort_view(request: HttpRequest, game_id: UUID) -> HttpResponse:
    return _lobby_action(request, game_id, lobby.game_abort, "game")


@login_required
@require_POST
def leave_view(request: HttpRequest, game_id: UUID) -> HttpResponse:
    return _lobby_action(request, game_id, lobby.game_leave, "lobby")


@login_required
@require_POST
def sheet_seen_view(request: HttpRequest, game_id: UUID, number: int) -> HttpResponse:
    """The player has read hand ``number``'s score sheet: show them the game as it is now.
    Per player: the game went on for the others meanwhile (correspondence)."""
    game, seat = visible_game(game_id, request.user)
    scored = last_scored_hand(game=game) or 0
    # Only a sheet that exists can be read: a later number would hide sheets to come.
    if seat is not None and seat.number is not None and seat.sheet_seen < number <= scored:
        Seat.objects.filter(pk=seat.pk, sheet_seen__lt=number).update(sheet_seen=number)
    return redirect("web:game", game_id=game_id)


@login_required
@require_GET
def scores_view(request: HttpRequest, game_id: UUID) -> HttpResponse:
    """The whole match's score sheets, hand by hand (the match-over page once it is over)."""
    game, seat = visible_game(game_id, request.user)
    context = game_page(game, seat)
    names = context.get("names") or player_names(game, context["me"])
    sides = side_names(game, names, context["me"])
    display = (context.get("view") or {}).get("display")
    sheets = [
        sheet_context(s, names, sides, display, context["me"]) for s in scoresheet_match(game=game)
    ]
    context.update({"sheets": list(reversed(sheets)), "sides_text": sides})
    return render(request, "web/scores.html", context)


def _chat_action(request: HttpRequest, game_id: UUID, action: Any) -> HttpResponse:
    """Run a table-talk action from the page's plain forms: back to the chat, or the page
    with the refusal next to the chat form (and the text kept)."""
    try:
        action()
    except GameError as error:
        if error.kind is ErrorKind.NOT_FOUND:
            raise Http404(_("No such game.")) from None
        return _render(
            request,
            game_id,
            chat_error=error_context(error),
            chat_text=request.POST.get("text", "")[:2000],
            status=STATUS_BY_KIND[error.kind],
        )
    return redirect(reverse("web:game", kwargs={"game_id": game_id}) + "#chat")


@login_required
@require_POST
def chat_view(request: HttpRequest, game_id: UUID) -> HttpResponse:
    text = request.POST.get("text", "")
    return _chat_action(
        request,
        game_id,
        lambda: chat_post(game_id=game_id, user=request.user, text=text, source="web"),
    )


@login_required
@require_POST
def chat_mute_view(request: HttpRequest, game_id: UUID) -> HttpResponse:
    muted = request.POST.get("muted", "1") != "0"
    seat = request.POST.get("seat")
    return _chat_action(
        request,
        game_id,
        lambda: chat_mute(game_id=game_id, user=request.user, seat=seat, muted=muted),
    )


@login_required
@require_POST
def chat_report_view(request: HttpRequest, game_id: UUID, message_id: int) -> HttpResponse:
    reason = request.POST.get("reason", "")
    return _chat_action(
        request,
        game_id,
        lambda: chat_report(
            game_id=game_id, user=request.user, message_id=message_id, reason=reason
        ),
    )
