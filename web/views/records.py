"""Records pages: the archive of finished matches, the replay viewer, the record download, a
player's profile and the leaderboards (docs/record-format.md, docs/ratings.md)."""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _

from games.models import Game
from games.services import profiles, records
from games.services.errors import ErrorKind, GameError
from games.services.ratings import (
    LEADERBOARD_MIN_MATCHES,
    LEADERBOARD_MIN_OPPONENTS,
    rating_label,
    rating_margin,
)
from web.records import frame_context, rating_chart, seat_names, side_labels
from web.variants import variant_titles
from web.views.common import STATUS_BY_KIND

ARCHIVE_SHOWN = 50


def _finished(request: HttpRequest, game_id: UUID) -> Game:
    try:
        return records.finished_match(game_id=game_id, user=request.user)
    except GameError as error:
        if error.kind is ErrorKind.NOT_FOUND:
            raise Http404(_("No such game.")) from None
        raise


def _conflict(request: HttpRequest, error: GameError, game_id: UUID) -> HttpResponse:
    return render(
        request,
        "web/record_unavailable.html",
        {
            "game_id": game_id,
            "message": _("The record of a match is available once the match is over."),
        },
        status=STATUS_BY_KIND[error.kind],
    )


def _archive_row(game: Game, titles: dict[str, str]) -> dict[str, Any]:
    names = seat_names(game)
    labels = side_labels(game, names)
    return {
        "game": game,
        "title": titles.get(game.variant, game.variant),
        "sides": labels,
        "winner": labels[game.winner_side] if game.winner_side is not None else "",
    }


@login_required
def archive_view(request: HttpRequest) -> HttpResponse:
    titles = variant_titles()
    mine = records.archive_of(user=request.user).prefetch_related("seats__user")[:ARCHIVE_SHOWN]
    public = (
        records.archive_public()
        .exclude(pk__in=[g.pk for g in mine])
        .prefetch_related("seats__user")[:ARCHIVE_SHOWN]
    )
    return render(
        request,
        "web/archive.html",
        {
            "mine": [_archive_row(g, titles) for g in mine],
            "public": [_archive_row(g, titles) for g in public],
        },
    )


def _step_links(game: Game, steps: dict[int, int], hand: int, step: int) -> dict[str, str | None]:
    base = reverse("web:replay", kwargs={"game_id": game.pk})

    def link(h: int, s: int) -> str:
        return f"{base}?hand={h}&step={s}"

    numbers = sorted(steps)
    index = numbers.index(hand)
    previous = link(hand, step - 1) if step > 0 else None
    if previous is None and index > 0:
        previous = link(numbers[index - 1], steps[numbers[index - 1]])
    following = link(hand, step + 1) if step < steps[hand] else None
    if following is None and index + 1 < len(numbers):
        following = link(numbers[index + 1], 0)
    return {
        "previous": previous,
        "next": following,
        "first": link(numbers[0], 0),
        "last": link(numbers[-1], steps[numbers[-1]]),
        "hand_start": link(hand, 0),
        "hand_end": link(hand, steps[hand]),
    }


def _number(request: HttpRequest, name: str, default: int) -> int:
    raw = request.GET.get(name, "")
    if raw == "":
        return default
    if not raw.isdecimal() or len(raw) > 6:
        raise Http404(_("No such step."))
    return int(raw)


@login_required
def replay_view(request: HttpRequest, game_id: UUID) -> HttpResponse:
    try:
        game = _finished(request, game_id)
    except GameError as error:
        return _conflict(request, error, game_id)
    steps = records.hand_steps(game)
    if not steps:
        raise Http404(_("No such step."))
    hand = _number(request, "hand", min(steps))
    step = _number(request, "step", 0)
    if hand not in steps or step > steps[hand]:
        raise Http404(_("No such step."))
    try:
        frame = records.replay_frame(game, hand, step)
    except GameError:
        raise Http404(_("No such step.")) from None
    context = frame_context(game, frame)
    base = reverse("web:replay", kwargs={"game_id": game.pk})
    context.update(
        game=game,
        title=variant_titles().get(game.variant, game.variant),
        hand=hand,
        step=step,
        steps=steps[hand],
        hands=[{"number": n, "link": f"{base}?hand={n}&step=0"} for n in sorted(steps)],
        links=_step_links(game, steps, hand, step),
    )
    return render(request, "web/replay.html", context)


@login_required
def record_download(request: HttpRequest, game_id: UUID) -> HttpResponse:
    try:
        game = _finished(request, game_id)
    except GameError as error:
        return _conflict(request, error, game_id)
    body = json.dumps(records.record_export(game=game), indent=1, ensure_ascii=False)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="canasta-{game.pk}.json"'
    return response


@login_required
def profile_view(request: HttpRequest, username: str) -> HttpResponse:
    try:
        user = profiles.player_by_name(username)
    except GameError:
        raise Http404(_("No such player.")) from None
    profile = profiles.profile_of(user)
    titles = variant_titles()
    ratings = [
        {
            "card": card,
            "title": titles.get(card.family, card.family),
            "chart": rating_chart(card.history),
            "history": [
                {
                    "change": change,
                    "game_id": profiles.shown_game_id(change),
                    "before": rating_label(change.display_before, change.sigma_before),
                    "after": rating_label(change.display, change.sigma),
                }
                for change in card.history
            ],
        }
        for card in profile.ratings
    ]
    variants = [
        {
            "title": titles.get(v.variant, v.variant),
            "record": v,
            "win_percent": round(100 * v.win_rate) if v.win_rate is not None else None,
            "average": round(v.average_hand_score) if v.average_hand_score is not None else None,
        }
        for v in profile.variants
    ]
    return render(
        request,
        "web/profile.html",
        {
            "player": user,
            "profile": profile,
            "ratings": ratings,
            "variants": variants,
            "newcomer": profiles.initial_display(),
        },
    )


@login_required
def leaderboard_view(request: HttpRequest) -> HttpResponse:
    titles = variant_titles()
    family = request.GET.get("variant") or next(iter(titles))
    if family not in titles:
        raise Http404(_("No such variant."))
    return render(
        request,
        "web/leaderboard.html",
        {
            "family": family,
            "families": list(titles.items()),
            "title": titles[family],
            "rows": [
                {
                    "position": i,
                    "rating": r,
                    "label": rating_label(r.display, r.sigma),
                    "margin": rating_margin(r.sigma),
                }
                for i, r in enumerate(profiles.leaderboard(family=family), start=1)
            ],
            "minimum": LEADERBOARD_MIN_MATCHES,
            "minimum_opponents": LEADERBOARD_MIN_OPPONENTS,
        },
    )
