"""The caller's own settings: email preferences and absences (vacations).

Declaring or cancelling an absence moves the deadlines of the games waiting for the caller:
notifications.services.absences does that in the same transaction (clock_refresh_for_user).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.services.export import preferences_export
from api.idempotency import idempotent
from api.presenters import iso
from api.schema import BODY, COMMON, IDEMPOTENCY_KEY, error
from api.serializers.me import (
    AbsenceInSerializer,
    AbsenceSerializer,
    AbsencesOutSerializer,
    PreferencesPatchInSerializer,
    PreferencesSerializer,
)
from clients.scopes import ACCOUNT_SCOPES
from mailplay.services.autodraw import auto_draw_update
from notifications.models import Absence
from notifications.selectors import absences_of
from notifications.services.absences import absence_cancel, absence_days_used, absence_declare
from notifications.services.preferences import preference_update


def absence_entry(absence: Absence, now: datetime) -> dict[str, Any]:
    if absence.starts_at > now:
        state = "upcoming"
    elif absence.ends_at > now:
        state = "current"
    else:
        state = "over"
    return {
        "id": absence.pk,
        "starts_at": iso(absence.starts_at),
        "ends_at": iso(absence.ends_at),
        "state": state,
    }


class PreferencesView(APIView):
    """GET: my email, language and time zone preferences. PATCH: change them."""

    oauth_scopes = ACCOUNT_SCOPES

    @extend_schema(
        operation_id="me_preferences_retrieve",
        summary="My preferences: email, language, time zone",
        tags=["me"],
        responses={200: PreferencesSerializer, **COMMON},
    )
    def get(self, request: Request) -> Response:
        return Response(preferences_export(request.user))

    @extend_schema(
        operation_id="me_preferences_update",
        summary="Change my preferences (the fields given): email, language, time zone",
        tags=["me"],
        request=PreferencesPatchInSerializer,
        responses={
            200: PreferencesSerializer,
            400: error(
                "Unknown email_mode, auto_draw or language, a time_zone that is not an "
                "IANA name, or digest_hour outside 0-23 (invalid_request, details.fields); "
                "auto_draw before playing by email (not_an_email_player)."
            ),
            **BODY,
            **COMMON,
        },
    )
    def patch(self, request: Request) -> Response:
        # partial: a field left out is left as it is (a form body once turned auto_draw off).
        serializer = PreferencesPatchInSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        changes = dict(serializer.validated_data)
        auto_draw = changes.pop("auto_draw", None)
        with transaction.atomic():  # all the fields or none
            if auto_draw is not None:
                auto_draw_update(user=request.user, auto_draw=auto_draw)
            preference_update(user=request.user, **changes)
        return Response(preferences_export(request.user))


class AbsencesView(APIView):
    """GET: my absences. POST: declare one."""

    oauth_scopes = ACCOUNT_SCOPES

    @extend_schema(
        operation_id="me_absences_list",
        summary="My absences: this year's and the coming ones, with the days used",
        tags=["me"],
        responses={200: AbsencesOutSerializer, **COMMON},
    )
    def get(self, request: Request) -> Response:
        now = timezone.now()
        year = now.astimezone(UTC).year
        since = datetime(year, 1, 1, tzinfo=UTC)
        rows = absences_of(user_ids=[request.user.pk], now=since)
        return Response(
            {
                "absences": [absence_entry(absence, now) for absence in rows],
                "year": year,
                "days_used": round(absence_days_used(user=request.user, year=year), 3),
                "days_per_year": settings.CANASTA_MAX_ABSENCE_DAYS_PER_YEAR,
            }
        )

    @extend_schema(
        operation_id="me_absences_create",
        summary="Declare an absence: your turn clocks stop while you are away",
        description="Your partners and opponents see it on every game you play "
        "(seats[].absent). The deadlines of the games waiting for you move at once. At most "
        "CANASTA_MAX_ABSENCE_DAYS_PER_YEAR days per calendar year (UTC), never overlapping "
        "another absence, never starting in the past.",
        tags=["me"],
        request=AbsenceInSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={
            201: AbsenceSerializer,
            400: error(
                "invalid_absence (ends before it starts), absence_in_the_past, "
                "absence_overlaps (details.absence), absence_limit (details.limit_days, "
                "used_days, requested_days), invalid_request."
            ),
            409: error("request_in_progress (Idempotency-Key)."),
            422: error("idempotency_key_reused."),
            **BODY,
            **COMMON,
        },
    )
    @idempotent
    def post(self, request: Request) -> Response:
        serializer = AbsenceInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        absence = absence_declare(
            user=request.user, starts_at=data["starts_at"], ends_at=data["ends_at"]
        )
        return Response(absence_entry(absence, timezone.now()), status=status.HTTP_201_CREATED)


class AbsenceView(APIView):
    oauth_scopes = ACCOUNT_SCOPES

    @extend_schema(
        operation_id="me_absences_cancel",
        summary="Cancel an absence: a coming one is removed, one under way ends now",
        description="The days of an absence under way stay counted up to now. The deadlines "
        "of the games waiting for you move at once.",
        tags=["me"],
        responses={
            200: OpenApiResponse(AbsenceSerializer, description="It was under way: ended now."),
            204: OpenApiResponse(description="It had not started: removed."),
            404: error("No such absence of yours (not_found)."),
            409: error("The absence is over and stays on record (absence_over)."),
            **COMMON,
        },
    )
    def delete(self, request: Request, absence_id: int) -> Response:
        kept = absence_cancel(user=request.user, absence_id=absence_id)
        if kept is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        return Response(absence_entry(kept, timezone.now()))
