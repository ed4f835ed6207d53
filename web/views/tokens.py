"""Settings → API tokens (/account/tokens/): personal tokens (list, create: the key is shown
once, revoke) and account tokens, the programs signed in with the password (list, revoke one,
revoke them all).

The page calls the same services as the API (clients.services.tokens); a token made here is
the one third-party clients send as `Authorization: Bearer <key>`.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_http_methods

from clients.models import TokenKind, TokenScope
from clients.selectors import tokens_of
from clients.services.tokens import account_tokens_revoke, token_create, token_revoke
from games.messages import error_message
from games.services.errors import GameError


class TokenForm(forms.Form):
    name = forms.CharField(
        max_length=100,
        help_text=gettext_lazy("What the token is for, e.g. “my chat bot”."),
        label=gettext_lazy("Name"),
    )
    scopes = forms.MultipleChoiceField(
        choices=[
            (TokenScope.READ, gettext_lazy("read — see your games, moves and events")),
            (TokenScope.PLAY, gettext_lazy("play — create, join and play games; webhooks")),
        ],
        initial=[TokenScope.READ, TokenScope.PLAY],
        widget=forms.CheckboxSelectMultiple,
        label=gettext_lazy("What it may do"),
    )


def _page(
    request: HttpRequest, form: TokenForm, *, new_key: str = "", status: int = 200
) -> HttpResponse:
    tokens = list(tokens_of(user=request.user))
    context = {
        "form": form,
        "tokens": [t for t in tokens if t.kind == TokenKind.PERSONAL],
        "account_tokens": [t for t in tokens if t.kind == TokenKind.ACCOUNT],
        "new_key": new_key,
    }
    return render(request, "web/tokens.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def tokens_view(request: HttpRequest) -> HttpResponse:
    if request.method == "GET":
        return _page(request, TokenForm())
    if request.POST.get("form") == "revoke_account":
        count = account_tokens_revoke(owner=request.user)
        messages.success(
            request,
            ngettext(
                "%(count)s account token revoked: every program that signed in with your "
                "password is signed out.",
                "%(count)s account tokens revoked: every program that signed in with your "
                "password is signed out.",
                count,
            )
            % {"count": count},
        )
        return redirect("web:tokens")
    if request.POST.get("form") == "revoke":
        try:
            token = token_revoke(owner=request.user, token_id=int(request.POST.get("token", "0")))
        except (GameError, ValueError):
            messages.error(request, _("No such token."))
        else:
            messages.success(
                request, _("Token “%(name)s” revoked: it no longer works.") % {"name": token.name}
            )
        return redirect("web:tokens")
    form = TokenForm(request.POST)
    if not form.is_valid():
        return _page(request, form, status=400)
    try:
        _token, key = token_create(
            owner=request.user, name=form.cleaned_data["name"], scopes=form.cleaned_data["scopes"]
        )
    except GameError as error:
        form.add_error(None, error_message(error))
        return _page(request, form, status=400)
    # Rendered, not redirected: this answer is the only place the key ever appears.
    response = _page(request, TokenForm(), new_key=key)
    response["Cache-Control"] = "no-store"
    return response
