"""Invitations by email and rematch, as pages (docs/accounts.md): the invitation link, a
table's invitations (invite more, withdraw), and the rematch button."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from accounts.services.invitations import invitation_take
from games.messages import error_message
from games.models import GameStatus
from games.services import invitations
from games.services.errors import ErrorKind, GameError, refused
from games.services.rematch import rematch_offer
from web.views.common import STATUS_BY_KIND, visible_game

# An invitation that can no longer be used: the page says why, with 410 Gone.
GONE = {"expired", "withdrawn", "declined", "accepted", "closed"}


def _message(request: HttpRequest, title: str, message: str, status: int) -> HttpResponse:
    return render(request, "web/message.html", {"title": title, "message": message}, status=status)


@require_http_methods(["GET", "POST"])
def invitation_view(request: HttpRequest, token: str) -> HttpResponse:
    try:
        invitation = invitations.invitation_by_token(token=token)
    except GameError as error:
        return _message(request, _("Invitation not found"), error_message(error), 404)
    state = invitations.invitation_state(invitation)
    if state in GONE:
        refusal = invitations.invitation_refusal(state)
        return _message(request, _("This invitation cannot be used"), error_message(refusal), 410)
    if request.method == "POST":
        return _answer(request, token)
    return render(
        request,
        "web/invitation.html",
        {"invitation": invitation, "table": invitations.invitation_table(invitation)},
    )


def _answer(request: HttpRequest, token: str) -> HttpResponse:
    try:
        if request.POST.get("action") == "decline":
            invitations.invitation_decline(token=token)
            return _message(
                request,
                _("Invitation declined"),
                _("The seat is free again. Thank you for letting the table know."),
                200,
            )
        if not request.user.is_authenticated:
            return redirect(f"{request.path}")
        invitation = invitation_take(token=token, user=request.user)
    except GameError as error:
        return _message(
            request,
            _("This invitation cannot be used"),
            error_message(error),
            STATUS_BY_KIND[error.kind],
        )
    messages.success(request, _("You have a seat at the table."))
    return redirect("web:game", game_id=invitation.game_id)


class InviteForm(forms.Form):
    who = forms.CharField(
        max_length=254,
        label=gettext_lazy("Invite"),
        help_text=gettext_lazy(
            "An email address (they get a link to sign up and take the seat) or a username."
        ),
    )


@login_required
@require_http_methods(["GET", "POST"])
def game_invitations_view(request: HttpRequest, game_id: UUID) -> HttpResponse:
    game, seat = visible_game(game_id, request.user)
    form = InviteForm(request.POST or None)
    status = 200
    if request.method == "POST":
        try:
            _invite_or_withdraw(request, game_id, form)
        except GameError as error:
            form.add_error(None, error_message(error))
            status = STATUS_BY_KIND[error.kind]
        else:
            return redirect("web:invitations", game_id=game_id)
    shown = invitations.invitations_of_game(game=game) if seat is not None else []
    return render(
        request,
        "web/invitations.html",
        {
            "game": game,
            "form": form,
            "rows": [invitations.invitation_entry(i) for i in shown],
            "open": game.status == GameStatus.OPEN and seat is not None,
        },
        status=status,
    )


def _invite_or_withdraw(request: HttpRequest, game_id: UUID, form: InviteForm) -> None:
    withdraw = request.POST.get("withdraw")
    if withdraw:
        try:
            invitation_id = int(withdraw)
        except ValueError:
            raise refused(ErrorKind.INVALID, "invitation_not_found") from None
        invitations.invitation_withdraw(invitation_id=invitation_id, user=request.user)
        messages.success(request, _("Invitation withdrawn: the seat is free again."))
        return
    if not form.is_valid():
        raise refused(ErrorKind.INVALID, "invitee_missing")
    who = form.cleaned_data["who"].strip()
    kwargs: dict[str, Any] = {"email": who} if "@" in who else {"username": who}
    invitations.invitation_add(game_id=game_id, inviter=request.user, **kwargs)
    messages.success(request, _("Invitation sent to %(who)s.") % {"who": who})


@login_required
@require_POST
def rematch_view(request: HttpRequest, game_id: UUID) -> HttpResponse:
    visible_game(game_id, request.user)
    try:
        new = rematch_offer(
            game_id=game_id, user=request.user, swap_partners=request.POST.get("swap") == "1"
        )
    except GameError as error:
        messages.error(request, error_message(error))
        return redirect("web:game", game_id=game_id)
    messages.success(
        request,
        _("Rematch offered: the other players are invited; it starts when all have joined."),
    )
    return redirect("web:game", game_id=new.pk)
