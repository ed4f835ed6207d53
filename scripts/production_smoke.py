"""The parts of scripts/production-smoke written in Python:

- `play`: a player signs up through the API of the running stack, opens a table against a
  bot, plays a few turns, and waits until the bot has moved (the worker) and an email to the
  player has been delivered (the worker, from the outbox, over SMTP);
- `smtp-sink`: the mail server the worker's SMTP backend delivers to (docs/deployment.md's
  production EMAIL_BACKEND), writing each message it accepts to a file.

Standard library and examples/canasta_client.py only: it runs in the fresh venv built from
requirements.txt. Every request carries the public Host and `X-Forwarded-Proto: https`, as
the TLS-terminating proxy of docs/deployment.md would send them.
"""

from __future__ import annotations

import argparse
import importlib.util
import socketserver
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
    return [p for p in folder.glob("*.eml") if f"To: {address}" in p.read_text(errors="replace")]


class SmtpSink(socketserver.StreamRequestHandler):
    """Enough SMTP (RFC 5321) for Django's SMTP backend without TLS or login: each message
    accepted is written to a file of the server's `folder`."""

    def _reply(self, line: str) -> None:
        self.wfile.write(line.encode() + b"\r\n")

    def handle(self) -> None:
        folder: Path = self.server.folder  # type: ignore[attr-defined]
        self._reply("220 smoke ESMTP")
        while raw := self.rfile.readline():
            verb = raw.decode(errors="replace").strip().split(" ", 1)[0].upper()
            if verb == "EHLO":
                self._reply("250-smoke")
                self._reply("250 8BITMIME")
            elif verb == "DATA":
                self._reply("354 end with <CRLF>.<CRLF>")
                lines = []
                while (line := self.rfile.readline()) not in (b".\r\n", b".\n", b""):
                    lines.append(line[1:] if line.startswith(b"..") else line)
                message = folder / f"{time.time_ns()}.eml"
                message.write_bytes(b"".join(lines))
                self._reply("250 queued")
            elif verb == "QUIT":
                self._reply("221 bye")
                return
            else:  # HELO, MAIL, RCPT, RSET, NOOP
                self._reply("250 ok")


def smtp_sink(port: int, folder: Path) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    socketserver.ThreadingTCPServer.allow_reuse_address = True
    with socketserver.ThreadingTCPServer(("127.0.0.1", port), SmtpSink) as server:
        server.folder = folder  # type: ignore[attr-defined]
        server.serve_forever()
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    sink = commands.add_parser("smtp-sink", help="accept mail on a port, one file a message")
    sink.add_argument("--port", type=int, required=True)
    sink.add_argument("--mail", required=True, type=Path, help="the folder for the messages")
    play = commands.add_parser("play", help="play against a bot until it moves and mail comes")
    play.add_argument("--url", required=True)
    play.add_argument("--host", required=True, help="the public host name (ALLOWED_HOSTS)")
    play.add_argument("--mail", required=True, type=Path, help="the smtp-sink's folder")
    play.add_argument("--timeout", type=float, default=90)
    args = parser.parse_args()
    if args.command == "smtp-sink":
        return smtp_sink(args.port, args.mail)
    return play_against_a_bot(args)


def play_against_a_bot(args: argparse.Namespace) -> int:
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
