"""The language and time zone of a page: a signed-in user's preferences.

Django's LocaleMiddleware (before this one) has already chosen the visitor's language: the
switcher's cookie, else the browser's Accept-Language, else English. For a signed-in user the
preference saved in Settings wins over both, so the pages read the same on every device; dates
and times are shown in the user's time zone (for visitors, the zone of the language's country:
Europe/Berlin for German, Atlantic/Reykjavik for Icelandic, else UTC). docs/i18n.md

The API (/api/) chooses its language itself when it renders a message (api/messages.py, request_language), because a
token caller is known only once DRF has authenticated the request, after every middleware.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.utils import timezone, translation
from django.utils.deprecation import MiddlewareMixin

from notifications.services.preferences import preference_of, zone_named
from web.forms import TIME_ZONE_BY_LANGUAGE

# Paths where no page is drawn: no preference to read (one query fewer per request).
SKIPPED_PREFIXES = ("/api/", "/static/", "/mail/")


class UserLocaleMiddleware(MiddlewareMixin):
    """Activates a signed-in user's language and time zone for the request."""

    def process_request(self, request: HttpRequest) -> None:
        timezone.deactivate()
        if request.path.startswith(SKIPPED_PREFIXES):
            return
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            # A visitor's zone is unknown: the country of the page's language is a better
            # guess than UTC for an invitation's expiry ("gültig bis … MEZ").
            zone = TIME_ZONE_BY_LANGUAGE.get(translation.get_language() or "")
            if zone:
                timezone.activate(zone_named(zone))
            return
        preference = preference_of(user=user)
        translation.activate(preference.language)
        request.LANGUAGE_CODE = translation.get_language()
        timezone.activate(zone_named(preference.time_zone))

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        # LocaleMiddleware, outside this one, sets Content-Language from the active language.
        timezone.deactivate()
        return response
