"""The review gallery: every page kind and every email kind in English, German and Icelandic,
written to files a native reader can go through (`manage.py review_gallery`, docs/i18n.md).

A small world is made for it: four players, a four-player table after its first hand (score
sheet, history, a hand-over email), a two-player match played to its end (match-over email,
replay, ratings), an invitation by email and a vacation. The command runs all of it in one
transaction that it rolls back, so nothing is left in the database and no email is sent (the
outbox is read, not delivered).
"""

from __future__ import annotations

import html
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from games import engine
from games.engine.randomplay import random_action
from games.models import Game, GameState, Invitation
from games.services import lobby
from games.services.invitations import invitation_add
from games.services.moves import moves_submit
from games.services.records import hand_steps
from notifications.emails import render
from notifications.models import Outbox
from notifications.services.absences import absence_declare
from notifications.services.delivery import payload_with_links
from notifications.services.preferences import preference_update

LANGUAGES = {"en": "Europe/London", "de": "Europe/Berlin", "is": "Atlantic/Reykjavik"}
CAST = ("hildegard", "klaus", "gudrun", "jorg")


@dataclass
class World:
    players: dict[str, Any]
    table: Game  # four players, in its second hand
    match: Game  # two players, over
    invitation: Invitation


def _user(name: str) -> Any:
    user = get_user_model().objects.create_user(username=name, email=f"{name}@example.org")
    user.set_unusable_password()
    user.save(update_fields=["password"])
    return user


def _seat_user(game: Game, seat: int) -> Any:
    return next(s.user for s in game.seats.all() if s.number == seat)


def _play(game: Game, rng: random.Random, until: Callable[[Game, engine.Table], bool]) -> Game:
    """Random legal moves through the service until ``until`` holds (or the match ends)."""
    for _ in range(5000):
        table = engine.from_json(GameState.objects.get(game=game).table)
        if game.status != "active" or until(game, table):
            break
        game = moves_submit(
            game_id=game.pk,
            user=_seat_user(game, table.turn),
            actions=[random_action(table, rng)],
            expected_version=game.version,
        )
    return Game.objects.get(pk=game.pk)


def _table(creator: Any, others: list[Any], players: int, options: dict[str, Any]) -> Game:
    game = lobby.game_create(
        creator=creator,
        variant="classic",
        players=players,
        options={"seating": "invitation", **options},
        is_public=True,
    )
    for user in others:
        game = lobby.game_join(game_id=game.pk, user=user)
    return game


def world_make(seed: int = 7) -> World:
    rng = random.Random(seed)
    players = {name: _user(name) for name in CAST}
    hilde, klaus, gudrun, jorg = (players[n] for n in CAST)
    table = _table(hilde, [klaus, gudrun, jorg], 4, {})
    table = _play(table, rng, lambda game, t: t.hand >= 2 and t.turn == 0)
    match = _table(hilde, [klaus], 2, {"target": 100})
    match = _play(match, rng, lambda game, t: False)
    open_table = _table(hilde, [], 2, {})
    invitation_add(game_id=open_table.pk, inviter=hilde, email="freundin@example.org")
    now = timezone.now()
    absence_declare(user=hilde, starts_at=now + timedelta(days=3), ends_at=now + timedelta(days=6))
    return World(players, table, match, Invitation.objects.get(game=open_table))


def pages(world: World) -> dict[str, str]:
    """Page name -> path, as hildegard reads them (the invitation as a visitor)."""
    table, match = world.table.pk, world.match.pk
    return {
        "lobby": "/",
        "create": "/games/new/",
        "game": f"/games/{table}/",
        "scores": f"/games/{table}/scores/",
        "replay": f"/games/{match}/replay/",
        "replay-end": f"/games/{match}/replay/?hand=1&step={hand_steps(world.match)[1]}",
        "archive": "/archive/",
        "profile": f"/players/{CAST[0]}/",
        "leaderboard": "/leaderboard/",
        "settings": "/settings/",
        "tokens": "/account/tokens/",
        "signup": "/signup/",
        "invitation": f"/invitations/{world.invitation.token}/",
    }


def _client(world: World, name: str, lang: str) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=lang)
    if name not in ("signup", "invitation"):
        client.force_login(world.players[CAST[0]])
    return client


def page_files(world: World, lang: str) -> Iterator[tuple[str, str]]:
    preference_update(user=world.players[CAST[0]], language=lang, time_zone=LANGUAGES[lang])
    for name, path in pages(world).items():
        answer = _client(world, name, lang).get(path, HTTP_HOST="localhost")
        yield f"pages/{name}.html", answer.content.decode()


def email_files(lang: str) -> Iterator[tuple[str, str]]:
    """The first email of each kind in the outbox, rendered for a reader of ``lang``."""
    seen: set[str] = set()
    for row in Outbox.objects.order_by("id"):
        if row.kind in seen or row.channel != "email":
            continue
        seen.add(row.kind)
        email = render(
            kind=row.kind, payload=payload_with_links(row), lang=lang, time_zone=LANGUAGES[lang]
        )
        text = f"Subject: {email.subject}\n\n{email.text}"
        yield f"emails/{row.kind}.txt", text
        yield f"emails/{row.kind}.html", email.html


def _index(written: dict[str, list[str]]) -> str:
    rows = "".join(
        f"<h2>{lang}</h2><ul>"
        + "".join(f'<li><a href="{html.escape(p)}">{html.escape(p)}</a></li>' for p in paths)
        + "</ul>"
        for lang, paths in written.items()
    )
    return f"<!doctype html><meta charset='utf-8'><title>Review gallery</title>{rows}"


def gallery_write(out: Path) -> dict[str, list[str]]:
    """Make the world and write every page and email in each language under ``out/<lang>/``;
    returns the files written per language (and writes an index page beside them)."""
    world = world_make()
    written: dict[str, list[str]] = {}
    for lang in LANGUAGES:
        written[lang] = []
        for name, content in [*page_files(world, lang), *email_files(lang)]:
            path = out / lang / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")
            written[lang].append(f"{lang}/{name}")
    (out / "index.html").write_text(_index(written), encoding="utf-8")
    return written
