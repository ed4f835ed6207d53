"""Accounts: sign up (sign in, sign out and password change are Django's auth views), and
the settings page: email address, notification preferences, vacations."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone, translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST
from django.views.i18n import set_language

from accounts.services.addresses import address_set, address_state, confirmation_resend
from games.messages import error_message
from games.services.errors import GameError
from mailplay.models import AutoDraw
from mailplay.services.autodraw import auto_draw_of, auto_draw_update
from notifications.selectors import absences_of
from notifications.services.absences import absence_cancel, absence_days_used, absence_declare
from notifications.services.preferences import preference_of, preference_update
from web.forms import (
    COMMON_TIME_ZONES,
    AbsenceForm,
    EmailForm,
    LocaleForm,
    PreferenceForm,
    SignupForm,
    tomorrow,
)
from web.views.common import signed_in_user
from web.views.push import push_public_key

AUTO_DRAW_CHOICES = [
    (AutoDraw.OFF, translation.gettext_lazy("Never: I draw or take the pile myself")),
    (
        AutoDraw.PILE_CLOSED,
        translation.gettext_lazy("When nobody may take the pile (it is empty, or blocked on top)"),
    ),
    (AutoDraw.ALWAYS, translation.gettext_lazy("Always, even when I could take the pile")),
]


@require_http_methods(["GET", "POST"])
def signup_view(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("web:lobby")
    next_url = _safe_next(request)
    # The language the page is shown in (the browser's, or the switcher's) is the default.
    initial = {"email": request.GET.get("email", "")[:254], "language": translation.get_language()}
    form = SignupForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            with transaction.atomic():
                user = form.save()
                language = form.cleaned_data["language"]
                preference_update(user=user, language=language, time_zone=form.chosen_time_zone())
                # A confirmation link goes to the address; nothing else until it is opened.
                address_set(user=user, address=user.email, reason="signup")
        except GameError as error:
            form.add_error("email", error_message(error))
        else:
            login(request, user, backend=settings.AUTHENTICATION_BACKENDS[0])
            translation.activate(language)
            messages.success(
                request,
                _(
                    "Welcome, %(name)s! We mailed a link to %(address)s: open it to confirm "
                    "your address and get your turn emails."
                )
                % {"name": user.get_username(), "address": user.email},
            )
            return redirect(next_url or "web:lobby")
    return render(
        request,
        "web/signup.html",
        {"form": form, "next": next_url},
        status=400 if form.errors else 200,
    )


def _safe_next(request: HttpRequest) -> str:
    """Where to go after signing up (an invitation link), if it is on this site."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return ""


def _settings_context(request: HttpRequest, **forms: Any) -> dict[str, Any]:
    user = request.user
    now = timezone.now()
    preference = preference_of(user=user)
    context = {
        "email_form": EmailForm(instance=user),
        "preference_form": PreferenceForm(
            initial={
                "email_mode": preference.email_mode,
                "digest_hour": preference.digest_hour,
                "turn_email_delay_minutes": preference.turn_email_delay_minutes,
            }
        ),
        "locale_form": LocaleForm(
            initial={"language": preference.language, "time_zone": preference.time_zone}
        ),
        "time_zones": COMMON_TIME_ZONES,
        "absence_form": AbsenceForm(initial={"returns": tomorrow(now)}),
        "email_confirmed": address_state(user=user)["email_confirmed"],
        "auto_draw": auto_draw_of(user=user),
        "auto_draw_choices": AUTO_DRAW_CHOICES,
        "absences": list(absences_of(user_ids=[user.pk], now=now)),
        "days_used": absence_days_used(user=user, year=now.year),
        "days_limit": settings.CANASTA_MAX_ABSENCE_DAYS_PER_YEAR,
        "now": now,
        "push_key": push_public_key(),
    }
    context.update(forms)
    return context


@login_required
@require_http_methods(["GET", "POST"])
def settings_view(request: HttpRequest) -> HttpResponse:
    if request.method == "GET":
        return render(request, "web/settings.html", _settings_context(request))
    which = request.POST.get("form")
    user = request.user
    if which == "email":
        return _email_change(request)
    if which == "resend_confirmation":
        if confirmation_resend(user=user):
            messages.success(request, _("We sent the link again: check your inbox."))
        else:
            messages.info(request, _("A link went out a moment ago; please check your inbox."))
        return redirect("web:settings")
    if which == "preferences":
        form = PreferenceForm(request.POST)
        if form.is_valid():
            preference_update(user=user, **form.cleaned_data)
            messages.success(request, _("Notification preferences saved."))
            return redirect("web:settings")
        return _invalid(request, preference_form=form)
    if which == "locale":
        return _locale_save(request)
    if which == "auto_draw":
        try:
            auto_draw_update(user=user, auto_draw=request.POST.get("auto_draw", ""))
        except GameError as error:
            messages.error(request, error_message(error))
            return _invalid(request)
        messages.success(request, _("Play-by-email setting saved."))
        return redirect("web:settings")
    if which == "absence":
        absence_form = AbsenceForm(request.POST)
        if absence_form.is_valid():
            starts, ends = absence_form.interval(timezone.now())
            try:
                absence_declare(user=user, starts_at=starts, ends_at=ends)
            except GameError as error:
                absence_form.add_error(None, error_message(error))
                return _invalid(request, absence_form=absence_form)
            messages.success(
                request, _("Vacation saved: your turn clocks stop while you are away.")
            )
            return redirect("web:settings")
        return _invalid(request, absence_form=absence_form)
    if which == "cancel_absence":
        try:
            absence_cancel(user=user, absence_id=int(request.POST.get("absence", "0")))
        except GameError as error:
            messages.error(request, error_message(error))
        except ValueError:
            messages.error(request, _("No such vacation."))
        else:
            messages.success(request, _("Vacation withdrawn."))
        return redirect("web:settings")
    return _invalid(request)


def _locale_save(request: HttpRequest) -> HttpResponse:
    form = LocaleForm(request.POST)
    if not form.is_valid():
        return _invalid(request, locale_form=form)
    preference_update(user=request.user, **form.cleaned_data)
    # The answer is already in the new language, and the switcher's cookie agrees with it.
    translation.activate(form.cleaned_data["language"])
    messages.success(request, _("Language and time zone saved."))
    response = redirect("web:settings")
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        form.cleaned_data["language"],
        max_age=settings.LANGUAGE_COOKIE_AGE,
        # One of Django's accepted values (settings.py); the stub types the setting as str.
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,  # type: ignore[arg-type]
    )
    return response


def _email_change(request: HttpRequest) -> HttpResponse:
    user = signed_in_user(request)
    # A copy: the form would change the signed-in user before the address is checked.
    form = EmailForm(request.POST, instance=get_user_model().objects.get(pk=user.pk))
    if form.is_valid():
        try:
            sent = address_set(user=user, address=form.cleaned_data["email"])
        except GameError as error:
            form.add_error("email", error_message(error))
            return _invalid(request, email_form=form)
        if sent:
            messages.success(
                request,
                _(
                    "Address saved. We mailed a link to %(address)s: open it to confirm the "
                    "address; until then it gets no game mail."
                )
                % {"address": user.email},
            )
        else:
            messages.success(request, _("Email address saved."))
        return redirect("web:settings")
    return _invalid(request, email_form=form)


def _invalid(request: HttpRequest, **forms: Any) -> HttpResponse:
    return render(request, "web/settings.html", _settings_context(request, **forms), status=400)


@require_POST
def language_view(request: HttpRequest) -> HttpResponse:
    """The header's language switcher: Django's set_language (the cookie that a visitor's pages
    follow), and for a signed-in user the preference, which every device and email follow."""
    response = set_language(request)
    language = request.POST.get("language", "")
    if request.user.is_authenticated and language in dict(settings.LANGUAGES):
        preference_update(user=request.user, language=language)
    return response
