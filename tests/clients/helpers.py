"""Helpers for the clients tests: personal-token clients, a fake webhook receiver, moves."""

from __future__ import annotations

import socket
from dataclasses import dataclass, field
from typing import Any

from rest_framework.test import APIClient

from clients.services.tokens import token_create
from games import engine
from games.models import Game
from games.services.moves import moves_submit
from tests.game_fixtures import current_table, user_at


def token_client(user: Any, scopes: list[str] | None = None, *, header: str = "Bearer") -> Any:
    """An API client with a new personal token of `user` (the key on `.key`)."""
    _, key = token_create(owner=user, name="test", scopes=scopes or ["read", "play"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"{header} {key}")
    client.key = key  # type: ignore[attr-defined]
    return client


def whole_turn(game: Game) -> Game:
    """The player on turn draws and discards their first card: the turn passes on."""
    table = current_table(game)
    seat = table.turn
    after = engine.apply(table, seat, {"type": "draw"}).table
    return moves_submit(
        game_id=game.pk,
        user=user_at(game, seat),
        actions=[{"type": "draw"}, {"type": "discard", "card": after.hands[seat][0]}],
        expected_version=game.version,
    )


@dataclass
class FakeReceiver:
    """Stands in for clients.services.webhooks.transport: records requests, answers `status`."""

    status: int | list[int] = 200
    calls: list[dict[str, Any]] = field(default_factory=list)

    def __call__(self, target: Any, body: bytes, headers: dict[str, str], timeout: float) -> int:
        self.calls.append({"target": target, "body": body, "headers": headers})
        if isinstance(self.status, list):
            return self.status.pop(0)
        return self.status


def fake_dns(monkeypatch: Any, answers: dict[str, list[str]]) -> None:
    """Make socket.getaddrinfo answer `answers` for those names (and resolve the rest)."""
    real = socket.getaddrinfo

    def getaddrinfo(host: str, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        if host in answers:
            return [
                (
                    socket.AF_INET6 if ":" in a else socket.AF_INET,
                    socket.SOCK_STREAM,
                    6,
                    "",
                    (a, port),
                )
                for a in answers[host]
            ]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
