"""Password reset and address confirmation pages (docs/accounts.md).

The reset request page answers the same whether or not an account has the address, and only
hands the address to a background task (accounts.services.reset), like the API. Requests and
new passwords count against the API's per-address limit (api.throttles).
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import PasswordResetForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from accounts.services.addresses import address_confirm
from accounts.services.reset import reset_address_proved, reset_request_dispatch
from api.throttles import PasswordResetRateThrottle
from games.messages import error_message
from games.services.errors import GameError
from web.views.common import STATUS_BY_KIND


def _throttled(request: HttpRequest) -> HttpResponse | None:
    if PasswordResetRateThrottle().allow_request(request, None):  # type: ignore[arg-type]
        return None
    return render(
        request,
        "web/message.html",
        {
            "title": _("Too many requests"),
            "message": _(
                "There were many password requests from your connection. Please wait an "
                "hour and try again."
            ),
        },
        status=429,
    )


@require_http_methods(["GET", "POST"])
def reset_request_view(request: HttpRequest) -> HttpResponse:
    form = PasswordResetForm(request.POST or None)
    if request.method == "POST":
        refused = _throttled(request)
        if refused is not None:
            return refused
        if form.is_valid():
            reset_request_dispatch(email=form.cleaned_data["email"])
            return redirect("web:password_reset_sent")
    return render(
        request, "web/password_reset.html", {"form": form}, status=400 if form.errors else 200
    )


def reset_sent_view(request: HttpRequest) -> HttpResponse:
    return render(request, "web/password_reset_sent.html")


class ResetConfirmView(auth_views.PasswordResetConfirmView):
    """Django's page; the new password also confirms a pending address (the link reached
    it), and posting counts against the reset limit."""

    template_name = "web/password_reset_confirm.html"
    success_url = reverse_lazy("web:password_reset_complete")

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        refused = _throttled(request)
        if refused is not None:
            return refused
        return super().post(request, *args, **kwargs)

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        reset_address_proved(user=form.user)
        return response


class ResetCompleteView(auth_views.PasswordResetCompleteView):
    template_name = "web/password_reset_complete.html"


@require_http_methods(["GET"])
def confirm_address_view(request: HttpRequest, token: str) -> HttpResponse:
    """The link of a confirmation mail: one click confirms (no sign-in needed)."""
    try:
        user = address_confirm(token=token)
    except GameError as error:
        return render(
            request,
            "web/message.html",
            {
                "title": _("Address not confirmed"),
                "message": error_message(error),
                "settings": True,
            },
            status=STATUS_BY_KIND[error.kind],
        )
    messages.success(
        request,
        _("Thank you: %(address)s is confirmed. Your game mail goes there from now on.")
        % {"address": user.email},
    )
    if request.user.is_authenticated:
        return redirect("web:settings")
    return render(
        request,
        "web/message.html",
        {"title": _("Address confirmed"), "message": "", "sign_in": True},
    )
