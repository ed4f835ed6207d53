#!/usr/bin/env python3
"""A small Canasta client that plays one seat from start to end through the event feed.

Standard library only: copy this file anywhere with Python 3.11+. It shows the loop every
client needs (docs/clients.md, "Writing a client"):

1. authenticate with a personal API token (`Authorization: Bearer cnst_...`);
2. take the feed's cursor first (`GET /api/v1/events/?after=latest&wait=0`, its
   `next_cursor`), then look at the game once, so nothing that happens in between is missed;
3. wait on the feed (`GET /api/v1/events/?cursor=<next_cursor>&wait=25`: one open request, no
   polling loop; every list of the API pages with `cursor` and `next_cursor`); on `your_turn`, ask `GET /games/{id}/legal/` and post actions with
   `expected_version` and an `Idempotency-Key`; on 409 (someone moved first) look again;
4. stop at `hand_over` (after --hands hands) or `match_over`.

The strategy is deliberately simple: go out when possible, else draw (or take the pile when
drawing is not allowed), lay the first legal meld or addition, then discard the first legal card.

    export CANASTA_URL=http://127.0.0.1:8000
    python examples/canasta_client.py token --username ann --password ... --name my-bot
    export CANASTA_TOKEN=cnst_...            # the key printed above
    python examples/canasta_client.py new --bots 3 --hands 1   # a table against 3 bots
    python examples/canasta_client.py join GAME_ID              # take a seat, then play
    python examples/canasta_client.py play GAME_ID --hands 0    # play to the end of the match
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable
from typing import Any

# Long polls wait up to this long on the server; the socket timeout leaves room for it.
DEFAULT_WAIT = 25


class ApiError(Exception):
    """An error answer of the API: {"error": {"code", "message", "details"}}."""

    def __init__(self, status: int, code: str, message: str, details: dict[str, Any]) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details


class CanastaClient:
    def __init__(self, base_url: str, token: str | None = None, *, retries: int = 5) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.retries = retries

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        timeout: float = 30,
    ) -> Any:
        """One API call; JSON in and out. Waits and retries on 429 (Retry-After)."""
        url = f"{self.base_url}/api/v1/{path.lstrip('/')}"
        if params:
            url += "?" + urllib.parse.urlencode(params)
        data = json.dumps(body).encode() if body is not None else None
        sent = {"Accept": "application/json", **(headers or {})}
        if data is not None:
            sent["Content-Type"] = "application/json"
        if self.token:
            sent["Authorization"] = f"Bearer {self.token}"
        for attempt in range(self.retries + 1):
            request = urllib.request.Request(url, data=data, headers=sent, method=method)
            try:
                with urllib.request.urlopen(request, timeout=timeout) as response:
                    raw = response.read()
                    return json.loads(raw) if raw else None
            except urllib.error.HTTPError as error:
                raw = error.read()
                if error.code == 429 and attempt < self.retries:
                    time.sleep(float(error.headers.get("Retry-After") or 1))
                    continue
                raise _api_error(error.code, raw) from None
        raise AssertionError("unreachable")

    # -- the calls this client needs ------------------------------------------------------

    def events(self, cursor: str | None, wait: float = DEFAULT_WAIT) -> tuple[list[dict], str]:
        """The next events after `cursor` (a `next_cursor` the feed gave; None: only events
        from now on), waiting up to `wait` seconds; and the cursor to go on from."""
        where = {"cursor": cursor} if cursor else {"after": "latest"}
        body = self.request("GET", "events/", params={**where, "wait": wait}, timeout=wait + 30)
        return body["results"], body["next_cursor"]

    def create_game(
        self, *, variant: str = "classic", players: int = 4, bots: list[str] | None = None
    ) -> dict[str, Any]:
        body = {"variant": variant, "players": players, "bots": bots or []}
        return self.request("POST", "games/", body, headers=_idempotency())

    def join(self, game_id: str) -> dict[str, Any]:
        return self.request("POST", f"games/{game_id}/join/", headers=_idempotency())

    def game(self, game_id: str) -> dict[str, Any]:
        return self.request("GET", f"games/{game_id}/")

    def legal(self, game_id: str) -> dict[str, Any]:
        return self.request("GET", f"games/{game_id}/legal/")

    def act(self, game_id: str, actions: list[dict[str, Any]], version: int) -> dict[str, Any]:
        """Post a batch (all or nothing, but a draw from the stock stands: a 422 with
        details.applied > 0 kept it). The Idempotency-Key makes a retry after a lost
        answer safe: the server replays its first answer instead of playing twice."""
        return self.request(
            "POST",
            f"games/{game_id}/actions/",
            {"actions": actions, "expected_version": version},
            headers=_idempotency(),
        )


def _idempotency() -> dict[str, str]:
    return {"Idempotency-Key": str(uuid.uuid4())}


def _api_error(status: int, raw: bytes) -> ApiError:
    try:
        error = json.loads(raw)["error"]
        return ApiError(status, error["code"], error["message"], error.get("details") or {})
    except (ValueError, KeyError, TypeError):
        return ApiError(status, "http_error", raw[:200].decode(errors="replace"), {})


def personal_token(base_url: str, username: str, password: str, name: str) -> str:
    """Sign in with a password and create a personal token with scopes read and play."""
    account = CanastaClient(base_url)
    key = account.request("POST", "auth/token/", {"username": username, "password": password})
    # The account token may create personal tokens (a personal token may not).
    account.token = key["key"]
    created = account.request("POST", "tokens/", {"name": name, "scopes": ["read", "play"]})
    # Done with the account token: revoke it, so only the scoped personal token remains.
    account.request("DELETE", f"tokens/{key['id']}/")
    return created["key"]


# -- the strategy -------------------------------------------------------------------------


def choose(legal: dict[str, Any]) -> list[dict[str, Any]]:
    """The next batch of actions, from GET /games/{id}/legal/ only."""
    options = legal["legal"]
    if options["going_out"]:
        return options["going_out"]  # a whole way out, in one batch
    if options["answers"]:
        return [options["answers"][0]]  # the partner asked "may I go out?": yes
    if options["draw"]:
        return [{"type": "draw"}]
    if options["pickups"]:
        return [options["pickups"][0]]
    if options["melds"]:
        return [options["melds"][0]]
    if options["adds"]:
        return [options["adds"][0]]
    if options["discards"]:
        return [{"type": "discard", "card": options["discards"][0]}]
    return legal["actions"][:1]


def play_turn(client: CanastaClient, game_id: str, log: Callable[[str], None]) -> int:
    """Act until the turn is over (or the hand or the game ends); returns the batches played.

    When the bots answer at once, the turn may come back before this returns: it keeps
    playing, but never past the end of the hand, so that the caller sees `hand_over` first.
    """
    played = 0
    game = client.game(game_id)
    hand = (game.get("current_hand") or {}).get("number")
    while game["status"] == "active" and game["my_turn"]:
        try:
            legal = client.legal(game_id)
        except ApiError as error:
            if error.code == "game_not_active":
                return played
            raise
        batch = choose(legal) if legal["my_turn"] else []
        if not batch:
            return played
        try:
            game = client.act(game_id, batch, legal["version"])
        except ApiError as error:
            if error.status == 409 or error.details.get("applied"):
                # The game changed under us (a timeout, a bot, a retry), or a draw from the
                # stock stood before a refusal (docs/fair-play.md): look again.
                game = client.game(game_id)
                continue
            raise
        played += 1
        log("played " + ", ".join(_describe(action) for action in batch))
        if (game.get("current_hand") or {}).get("number") != hand:
            return played
    return played


def _describe(action: dict[str, Any]) -> str:
    cards = [action["card"]] if "card" in action else list(action.get("cards") or [])
    for meld in action.get("melds") or []:
        cards += meld
    for added in (action.get("add") or {}).values():
        cards += added
    return " ".join([action["type"], *cards])


def play(
    client: CanastaClient,
    game_id: str,
    *,
    hands: int = 1,
    wait: float = DEFAULT_WAIT,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Play our seat until `hands` hands are over (0: the whole match). Returns a summary."""
    # The cursor first, then the state: an event between the two is not lost.
    _, cursor = client.events(None, wait=0)
    game = client.game(game_id)
    if game["status"] == "active" and game["my_turn"]:
        play_turn(client, game_id, log)
    hands_over = 0
    while True:
        try:
            events, cursor = client.events(cursor, wait=wait)
        except (OSError, ApiError) as error:
            if isinstance(error, ApiError) and error.status < 500:
                raise
            log(f"event feed: {error}; retrying")
            time.sleep(2)
            continue
        for event in events:
            if event["game"] != game_id:
                continue
            kind = event["kind"]
            if kind == "your_turn":
                play_turn(client, game_id, log)
            elif kind == "hand_over":
                hands_over += 1
                totals = event["data"]["totals"]
                log(f"hand {event['data']['hand_result'].get('hand')} over; totals {totals}")
                if hands and hands_over >= hands:
                    return {"hands": hands_over, "totals": totals, "match_over": False}
            elif kind == "match_over":
                log(f"match over: side {event['data']['winner_side']} won")
                return {
                    "hands": hands_over,
                    "totals": event["data"]["totals"],
                    "match_over": True,
                }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=os.environ.get("CANASTA_URL", "http://127.0.0.1:8000"))
    parser.add_argument("--token", default=os.environ.get("CANASTA_TOKEN"))
    parser.add_argument("--hands", type=int, default=1, help="hands to play (0: the match)")
    parser.add_argument("--wait", type=float, default=DEFAULT_WAIT, help="long-poll seconds")
    # The same options after the command (`new --bots 3 --hands 1`): SUPPRESS leaves a value
    # given before the command, or the default above, unless the option is repeated here.
    shared = argparse.ArgumentParser(add_help=False, argument_default=argparse.SUPPRESS)
    shared.add_argument("--url")
    shared.add_argument("--token")
    shared.add_argument("--hands", type=int, help="hands to play (0: the match)")
    shared.add_argument("--wait", type=float, help="long-poll seconds")
    commands = parser.add_subparsers(dest="command", required=True)
    token = commands.add_parser(
        "token", parents=[shared], help="create a personal token (prints the key)"
    )
    token.add_argument("--username", required=True)
    token.add_argument("--password", required=True)
    token.add_argument("--name", default="canasta_client.py")
    new = commands.add_parser("new", parents=[shared], help="create a table and play it")
    new.add_argument("--variant", default="classic")
    new.add_argument("--players", type=int, default=4)
    new.add_argument("--bots", type=int, default=3, help="bot seats")
    new.add_argument("--level", default="basic", help="bot level")
    join = commands.add_parser("join", parents=[shared], help="take a seat at a table, then play")
    join.add_argument("game")
    resume = commands.add_parser("play", parents=[shared], help="play a seat you hold")
    resume.add_argument("game")
    args = parser.parse_args(argv)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    if args.command == "token":
        print(personal_token(args.url, args.username, args.password, args.name))
        return 0
    if not args.token:
        parser.error("a token is needed: --token or CANASTA_TOKEN")
    client = CanastaClient(args.url, args.token)
    if args.command == "new":
        game = client.create_game(
            variant=args.variant, players=args.players, bots=[args.level] * args.bots
        )
        log(f"created game {game['id']} ({game['status']})")
    elif args.command == "join":
        game = client.join(args.game)
        log(f"joined game {game['id']} ({game['status']})")
    else:
        game = client.game(args.game)
    summary = play(client, game["id"], hands=args.hands, wait=args.wait, log=log)
    print(json.dumps({"game": game["id"], **summary}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
