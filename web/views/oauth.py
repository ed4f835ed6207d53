"""OAuth 2 in the web pages (docs/clients.md, "OAuth 2"):

- the consent page (/oauth/authorize/): django-oauth-toolkit's authorization endpoint with our
  own page, naming the app and, in players' words, what it asks to do; Allow or Deny. Signed
  out, the toolkit sends the player to the sign-in page and back;
- Settings → Apps (/account/apps/): register an app (its client id; a confidential app's
  secret, shown once), list and delete my apps; the apps I gave access to, with what they may
  do, and "Revoke access".
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods
from oauth2_provider.views import AuthorizationView

from clients.scopes import scope_descriptions
from clients.services.oauth import (
    access_revoke,
    app_delete,
    app_register,
    apps_of,
    authorized_apps,
    redirect_uris_parse,
)
from games.messages import error_message
from games.services.errors import GameError


class ConsentView(AuthorizationView):
    """The toolkit's authorization endpoint (the request's checks: client, redirect address,
    PKCE, scopes), shown with the site's page."""

    template_name = "web/oauth_consent.html"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["scope_list"] = scope_descriptions(list(kwargs.get("scopes") or []))
        return context


class AppForm(forms.Form):
    name = forms.CharField(
        max_length=100,
        label=gettext_lazy("Name"),
        help_text=gettext_lazy("Players see it when the app asks for access."),
    )
    redirect_uris = forms.CharField(
        label=gettext_lazy("Redirect addresses"),
        help_text=gettext_lazy(
            "Where players are sent back after they answer, one per line: https://…, or "
            "http://127.0.0.1:…/… for a program on your own computer."
        ),
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    confidential = forms.TypedChoiceField(
        label=gettext_lazy("Kind of app"),
        choices=[
            ("0", gettext_lazy("Public: a phone, desktop or browser app (no secret)")),
            ("1", gettext_lazy("Confidential: runs on a server that keeps a secret")),
        ],
        coerce=lambda value: value == "1",
        initial="0",
        widget=forms.RadioSelect,
    )


def _page(
    request: HttpRequest,
    form: AppForm,
    *,
    new_app: Any = None,
    secret: str | None = None,
    status: int = 200,
) -> HttpResponse:
    context = {
        "form": form,
        "apps": apps_of(owner=request.user),
        "authorized": [
            (entry, scope_descriptions(entry.scopes))
            for entry in authorized_apps(user=request.user)
        ],
        "new_app": new_app,
        "secret": secret,
    }
    return render(request, "web/apps.html", context, status=status)


def _app_id(request: HttpRequest) -> int:
    try:
        return int(request.POST.get("app", "0"))
    except ValueError:
        return 0


def _delete(request: HttpRequest) -> HttpResponse:
    try:
        app = app_delete(owner=request.user, app_id=_app_id(request))
    except GameError:
        messages.error(request, _("No such app."))
    else:
        messages.success(request, _("App “%(name)s” deleted.") % {"name": app.name})
    return redirect("web:apps")


def _revoke(request: HttpRequest) -> HttpResponse:
    count = access_revoke(user=request.user, app_id=_app_id(request))
    if count:
        messages.success(request, _("Access revoked: the app can no longer use your account."))
    else:
        messages.error(request, _("This app has no access to take back."))
    return redirect("web:apps")


def _register(request: HttpRequest) -> HttpResponse:
    form = AppForm(request.POST)
    if not form.is_valid():
        return _page(request, form, status=400)
    try:
        app, secret = app_register(
            owner=request.user,
            name=form.cleaned_data["name"],
            redirect_uris=redirect_uris_parse(form.cleaned_data["redirect_uris"]),
            confidential=form.cleaned_data["confidential"],
        )
    except GameError as error:
        form.add_error(None, error_message(error))
        return _page(request, form, status=400)
    # Rendered, not redirected: this answer is the only place the secret ever appears.
    response = _page(request, AppForm(), new_app=app, secret=secret)
    response["Cache-Control"] = "no-store"
    return response


ACTIONS = {"delete": _delete, "revoke": _revoke, "register": _register}


@login_required
@require_http_methods(["GET", "POST"])
def apps_view(request: HttpRequest) -> HttpResponse:
    if request.method == "GET":
        return _page(request, AppForm())
    action = ACTIONS.get(request.POST.get("form", ""), _register)
    return action(request)
