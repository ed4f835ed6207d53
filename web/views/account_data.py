"""Leave and take your data: the export download and account deletion (docs/accounts.md)."""

from __future__ import annotations

import json

from django import forms
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from accounts.services.deletion import account_delete
from accounts.services.export import account_export
from games.messages import error_message
from games.services.errors import GameError


class DeleteForm(forms.Form):
    password = forms.CharField(
        label=gettext_lazy("Your password"),
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )


@login_required
def export_view(request: HttpRequest) -> HttpResponse:
    document = account_export(user=request.user)
    response = HttpResponse(
        json.dumps(document, ensure_ascii=False, indent=2), content_type="application/json"
    )
    name = f"canasta-{request.user.get_username()}.json"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_http_methods(["GET", "POST"])
def delete_view(request: HttpRequest) -> HttpResponse:
    form = DeleteForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            account_delete(user=request.user, password=form.cleaned_data["password"])
        except GameError as error:
            form.add_error("password", error_message(error))
        else:
            logout(request)
            messages.success(request, _("Your account is deleted. Thank you for playing."))
            return redirect("web:lobby")
    return render(
        request, "web/account_delete.html", {"form": form}, status=400 if form.errors else 200
    )
