"""The play part of scripts/production-smoke: a player signs up through the API of the running
stack, opens a table against a bot, plays a few turns, and waits until the bot has moved
(the worker) and an email to the player has been delivered (the worker, from the outbox).

Standard library and examples/canasta_client.py only: it runs in the fresh venv built from
requirements.txt. Every request carries the public Host and `X-Forwarded-Proto: https`, as
the TLS-terminating proxy of the README's deployment would send them.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "a-long-password-" + uuid.uuid4().hex[:8]


def _client_kit() -> Any:
    spec = importlib.util.spec_from_file_location(
        "canasta_client", ROOT / "examples" / "canasta_client.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _mail_files(folder: Path, address: str) -> list[Path]:
    if not folder.is_dir():
        return []
    return [p for p in folder.glob("*.log") if f"To: {address}" in p.read_text(errors="replace")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--host", required=True, help="the public host name (ALLOWED_HOSTS)")
    parser.add_argument("--mail", required=True, type=Path, help="EMAIL_FILE_PATH")
    parser.add_argument("--timeout", type=float, default=90)
    args = parser.parse_args()
    kit = _client_kit()
    proxy_headers = {"Host": args.host, "X-Forwarded-Proto": "https"}

    class ProxiedClient(kit.CanastaClient):  # type: ignore[misc,name-defined]
        def request(self, method: str, path: str, body: Any = None, **kw: Any) -> Any:
            kw["headers"] = {**proxy_headers, **(kw.get("headers") or {})}
            return super().request(method, path, body, **kw)

    kit.CanastaClient = ProxiedClient  # personal_token() builds its own client
    name = "smoke" + uuid.uuid4().hex[:6]
    address = f"{name}@example.com"
    ProxiedClient(args.url).request(
        "POST", "auth/register/", {"username": name, "password": PASSWORD, "email": address}
    )
    player = ProxiedClient(args.url, kit.personal_token(args.url, name, PASSWORD, "smoke"))
    game = player.create_game(players=2, bots=["basic"])
    print(f"game {game['id']} created against a bot", flush=True)

    deadline = time.monotonic() + args.timeout
    turns = 0
    while time.monotonic() < deadline:
        if turns < 3 and player.game(game["id"])["my_turn"]:
            turns += bool(kit.play_turn(player, game["id"], log=lambda m: print(m, flush=True)))
        moves = player.request("GET", f"games/{game['id']}/moves/", params={"after": 0})
        bot_moves = [m for m in moves["moves"] if m["actor"] == "bot"]
        mails = _mail_files(args.mail, address)
        if turns >= 1 and bot_moves and mails:
            print(
                f"ok: {turns} turn(s) played, {len(bot_moves)} bot move(s), "
                f"{len(mails)} email file(s) to {address}",
                flush=True,
            )
            return 0
        time.sleep(0.5)
    print(
        f"FAILED within {args.timeout:g} s: {turns} turn(s) played, "
        f"bot moves: {bool(bot_moves)}, emails to {address}: {len(mails)}",
        file=sys.stderr,
    )
    return 1


if __name__ == "__main__":
    sys.exit(main())
