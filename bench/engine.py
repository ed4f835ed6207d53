"""Engine benchmark: turns and cards moved per second, and the replay of a match.

    .venv/bin/python bench/engine.py [--hands N] [--variant V] [--players P] [--rounds R]
                                     [--root DIR] [--peer DIR] [--cpu] [--eager-listing]

Prints, for one core:

- uniform legal play: every action chosen uniformly from `legal_actions(t).actions()`,
  then applied (what the `random` bot does, and what a bot's playouts cost). The listing is
  a sequence of those actions, so the choice is `rng.choice(legal)`: the same action, with
  only its JSON built (as the peer's `legal_actions()` lists integer ids and decodes only
  the one applied); ``--eager-listing`` chooses from ``.actions()``, every action's JSON
  built, as before (and as an engine from ``--root`` whose listing is no sequence does);
- randomplay: `games.engine.randomplay.random_action`, the cheap random player;
- the replay (`Match.replay`) of a whole random classic match played to its target of
  5,000 points, from its seeds and actions;
- the baseline: dealing one hand (shuffle + deal), measured in the same run, and every
  figure as a ratio to it, so that runs on a loaded or another machine compare;
- the load average, since the machine is shared.

A *turn* is one seat's turn, from its draw (or taking the pile) to the action that ends
it: the discard that passes play to the next seat, or the action that ends the hand
(going out, the stock running out). "May I go out?" and its answer are part of the
asker's turn. In tiles the first player's opening discard is a turn.

*Cards moved* counts the cards that change place in an action: drawn cards (and red
threes laid out and replaced while drawing), every card of a pile taken plus the hand
cards melded with it, cards melded or added, the discarded card.

``--cpu`` times everything (the peer and the baseline too) with the process's CPU time
instead of wall time: on a shared machine under load it leaves out the time spent waiting
for a core, so figures move less between runs (ratios are still best taken in one run).

``--root DIR`` imports the engine from another checkout (e.g. an older commit exported
with ``git archive``), so before/after figures come from alternating runs on the same
machine. ``--peer DIR`` also measures the OpenSpiel Canasta of
jhtschultz/canasta-openspiel from a checkout in DIR (never part of this repository):
4 players, every action chosen uniformly from its ``legal_actions()``, turns and cards
moved counted the same way (see `peer_turns`). It needs numpy; a stand-in for the few
``pyspiel`` names it uses is installed when OpenSpiel itself is not. Run the benchmark
with an interpreter that has numpy (the system python3 does; the engine needs only the
standard library).

Nothing here is a test: no figure is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

# What every figure is timed with: wall time, or with --cpu this process's CPU time (on a
# shared, loaded machine it leaves out the time the process waits for a core).
clock: Callable[[], float] = time.perf_counter


def seed_from(rng: random.Random) -> str:
    return rng.getrandbits(256).to_bytes(32, "big").hex()


def _engine(root: str | None) -> Any:
    sys.path.insert(0, root or str(Path(__file__).resolve().parents[1]))
    import games.engine as engine
    from games.engine import compiled, randomplay

    engine.randomplay = randomplay
    engine.compiled = compiled
    return engine


def bench_deal(engine: Any, variant: str, players: int, n: int) -> float:
    rng = random.Random(1)
    seeds = [seed_from(rng) for _ in range(n)]
    start = clock()
    for seed in seeds:
        engine.deal(variant, players, seed)
    return (clock() - start) / n


def cards_moved(action: dict[str, Any], events: list[dict[str, Any]]) -> int:
    """Cards that change place in one action (see the module docstring)."""
    moved = len(action.get("cards") or ()) if action["type"] == "pickup" else 0
    for event in events:
        kind = event["type"]
        if kind in ("draw", "pickup"):
            moved += len(event["cards"])
        elif kind == "red_three":
            moved += action["type"] == "draw"  # from a pile they are counted with the pile
        elif kind == "meld":
            moved += sum(map(len, event["melds"])) + sum(map(len, event["add"].values()))
        elif kind == "discard":
            moved += 1
    return moved


def play_hands(
    engine: Any, variant: str, players: int, n: int, choose: Callable[[Any, random.Random], Any]
) -> tuple[float, float, float]:
    """Play ``n`` hands choosing with ``choose``: (seconds, turns, cards moved)."""
    rng = random.Random(2)
    seeds = [seed_from(rng) for _ in range(n)]
    turns = moved = 0
    apply = engine.apply
    start = clock()
    for seed in seeds:
        t = engine.deal(variant, players, seed)
        while not t.over:
            seat = t.turn
            action = choose(t, rng)
            out = apply(t, seat, action)
            t = out.table
            if t.over or (t.phase == "draw" and t.turn != seat):
                turns += 1
            moved += cards_moved(action, out.events)
    return clock() - start, turns, moved


def uniform_choice(engine: Any, eager: bool = False) -> Callable[[Any, random.Random], Any]:
    """One of ``legal_actions(t).actions()``, uniformly. The listing is a sequence of those
    actions (len and indexing), so `rng.choice` on it picks exactly the action it picks from
    ``.actions()`` and builds only that one's JSON; ``eager``, or an engine whose listing is
    not a sequence (`--root` before it was), chooses from ``.actions()``."""
    legal_actions = engine.legal_actions
    lazy = hasattr(engine.LegalActions, "__getitem__") and not eager

    def choose(t: Any, rng: random.Random) -> Any:
        legal = legal_actions(t)
        return rng.choice(legal if lazy else legal.actions())

    return choose


def random_choice(engine: Any) -> Callable[[Any, random.Random], Any]:
    return engine.randomplay.random_action  # type: ignore[no-any-return]


def match_to_target(engine: Any, max_hands: int = 400) -> tuple[list[Any], int, int, bool]:
    """A random classic match to its 5,000-point target: (hands, actions, hands played, over)."""
    rng = random.Random(3)
    match = engine.Match("classic", 4, lambda: seed_from(rng))
    actions = 0
    while not match.over and len(match.hands) <= max_hands:
        _, log = engine.randomplay.play_random_hand(match.table, rng)
        for seat, action in log:
            match.act(seat, action)
        actions += len(log)
    hands = [(h.seed, h.actions) for h in match.hands]
    return hands, actions, len(hands), match.over


def long_match(engine: Any, min_actions: int) -> tuple[list[Any], int]:
    """A random classic match of at least ``min_actions`` actions (target raised so it lasts)."""
    rng = random.Random(3)
    options = {"target": 100000}
    match = engine.Match("classic", 4, lambda: seed_from(rng), options=options)
    actions = 0
    while actions < min_actions:
        _, log = engine.randomplay.play_random_hand(match.table, rng)
        for seat, action in log:
            match.act(seat, action)
        actions += len(log)
    return [(h.seed, h.actions) for h in match.hands], actions


def bench_replay(
    engine: Any, hands: list[Any], repeat: int, options: dict[str, Any] | None = None
) -> float:
    times = []
    for _ in range(repeat):
        start = clock()
        engine.Match.replay("classic", 4, hands, options=options)
        times.append(clock() - start)
    return statistics.median(times)


# --- the peer (OpenSpiel Canasta), imported from a path given at run time -------------------


def _pyspiel_stand_in() -> types.ModuleType:
    """The few pyspiel names the peer uses, with the State driver OpenSpiel provides."""
    mod = types.ModuleType("pyspiel")

    class PlayerId:
        CHANCE = -1
        TERMINAL = -4

    class _Enum:
        def __getattr__(self, name: str) -> str:
            return name

    class GameType:
        Dynamics = ChanceMode = Information = Utility = RewardModel = _Enum()

        def __init__(self, **kwargs: Any) -> None:
            self.__dict__.update(kwargs)

    class GameInfo(GameType):
        pass

    class Game:
        def __init__(self, game_type: Any, info: Any, params: Any) -> None:
            self._info = info

        def num_players(self) -> int:
            return int(self._info.num_players)

    class State:
        def __init__(self, game: Any) -> None:
            pass

        def is_chance_node(self) -> bool:
            return bool(self.current_player() == PlayerId.CHANCE)  # type: ignore[attr-defined]

        def legal_actions(self) -> list[int]:
            return self._legal_actions(self.current_player())  # type: ignore[attr-defined,no-any-return]

        def apply_action(self, action: int) -> None:
            self._apply_action(action)  # type: ignore[attr-defined]

    mod.PlayerId = PlayerId  # type: ignore[attr-defined]
    mod.GameType = GameType  # type: ignore[attr-defined]
    mod.GameInfo = GameInfo  # type: ignore[attr-defined]
    mod.Game = Game  # type: ignore[attr-defined]
    mod.State = State  # type: ignore[attr-defined]
    mod.IIGObservationType = lambda **kwargs: None  # type: ignore[attr-defined]
    mod.register_game = lambda game_type, cls: None  # type: ignore[attr-defined]
    return mod


def _peer_module(peer_dir: str) -> Any:
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        sys.modules["pyspiel"] = _pyspiel_stand_in()
        observation = types.ModuleType("open_spiel.python.observation")
        observation.IIGObserverForPublicInfoGame = object  # type: ignore[attr-defined]
        for name in ("open_spiel", "open_spiel.python"):
            sys.modules.setdefault(name, types.ModuleType(name))
        sys.modules["open_spiel.python.observation"] = observation
    sys.path.insert(0, peer_dir)
    try:
        from canasta import canasta_game
    except ImportError as exc:
        raise SystemExit(
            f"--peer: cannot import the peer from {peer_dir} ({exc}); it needs numpy:"
            " run this benchmark with an interpreter that has it (e.g. the system python3)"
        ) from None
    return canasta_game


def peer_turns(peer: Any, min_turns: int) -> tuple[float, float, float]:
    """The peer with uniform legal choices: (seconds, turns, cards moved).

    A turn ends when the seat that acted is no longer the one to act (its discard, going
    out, the end of a hand), except its "may I go out?" and the partner's answer; cards
    moved: cards drawn from the stock, a pile taken, cards melded, the card discarded.
    """
    rng = random.Random(4)
    asks = {peer.ACTION_ASK_PARTNER_GO_OUT, peer.ACTION_ANSWER_GO_OUT_YES}
    asks.add(peer.ACTION_ANSWER_GO_OUT_NO)
    game = peer.CanastaGame()
    turns = moved = 0
    start = clock()
    while turns < min_turns:
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal() and steps < 20000:
            steps += 1
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
                continue
            seat = state.current_player()
            stock, pile = len(state._stock), len(state._discard_pile)
            melded = sum(len(m.natural_cards) + len(m.wild_cards) for m in state._melds[seat % 2])
            legal = state.legal_actions()
            if not legal:
                break  # the peer has positions without a legal action: start a new game
            action = rng.choice(legal)
            state.apply_action(action)
            after_pile = len(state._discard_pile)
            moved += max(0, stock - len(state._stock))
            moved += pile if pile and not after_pile else max(0, after_pile - pile)
            now = sum(len(m.natural_cards) + len(m.wild_cards) for m in state._melds[seat % 2])
            moved += max(0, now - melded)
            if action not in asks and (state.is_terminal() or state.current_player() != seat):
                turns += 1
    return clock() - start, turns, moved


# --- one build, in its own process ------------------------------------------------------------


def engine_round(engine: Any, args: argparse.Namespace) -> dict[str, Any]:
    """One round of the engine's figures (and the replays when asked), as JSON for the parent."""
    v, p, n = args.variant, args.players, args.hands
    out: dict[str, Any] = {
        "compiled": engine.compiled.is_compiled(),
        "deal": bench_deal(engine, v, p, 300),
        "uniform": play_hands(engine, v, p, n, uniform_choice(engine, args.eager_listing)),
        "random": play_hands(engine, v, p, n, random_choice(engine)),
    }
    if args.replay:
        hands, actions, count, over = match_to_target(engine)
        out["replay"] = (bench_replay(engine, hands, 5), actions, count, over)
        hands, actions = long_match(engine, 5000)
        out["long_replay"] = (bench_replay(engine, hands, 5, {"target": 100000}), actions)
    return out


def child_round(build: str, args: argparse.Namespace, replay: bool) -> dict[str, Any]:
    """`engine_round` for one build in a fresh interpreter (the builds share module names)."""
    argv = [sys.executable, __file__, "--one-round", "--variant", args.variant]
    argv += ["--players", str(args.players), "--hands", str(args.hands)]
    argv += ["--root", args.root] if args.root else []
    argv += ["--cpu"] if args.cpu else []
    argv += ["--eager-listing"] if args.eager_listing else []
    argv += ["--replay"] if replay else []
    env = {k: v for k, v in os.environ.items() if k != "CANASTA_ENGINE"}
    if build == "pure":
        env["CANASTA_ENGINE"] = "pure"
    out = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(out.stdout)
    if result["compiled"] != (build == "compiled"):
        raise SystemExit(f"asked for the {build} build, got the other (manage.py build_engine?)")
    return result


# --- report -----------------------------------------------------------------------------------


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--hands", type=int, default=100, help="hands per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (median)")
    parser.add_argument("--root", help="import the engine from this checkout instead")
    parser.add_argument("--peer", help="a checkout of jhtschultz/canasta-openspiel to measure")
    parser.add_argument(
        "--build",
        choices=("pure", "compiled", "both"),
        help="which engine build (default: both when a current compiled build exists)",
    )
    parser.add_argument("--no-replay", action="store_true")
    parser.add_argument(
        "--cpu", action="store_true", help="time with the process's CPU time, not wall time"
    )
    parser.add_argument(
        "--eager-listing",
        action="store_true",
        help="uniform legal play chooses from legal_actions(t).actions() (every JSON built)",
    )
    parser.add_argument("--one-round", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--replay", action="store_true", help=argparse.SUPPRESS)
    return parser.parse_args()


def _builds(args: argparse.Namespace) -> list[str]:
    if args.build in ("pure", "compiled"):
        return [args.build]
    engine = _engine(args.root)
    if engine.compiled.usable_build() is None:
        if args.build == "both":
            raise SystemExit("no current compiled build: manage.py build_engine")
        return ["pure"]
    return ["pure", "compiled"]


def _print_build(build: str, rounds: list[dict[str, Any]], peer_rate: float | None) -> float:
    deal_time = statistics.median(r["deal"] for r in rounds)
    print(f"  [{build}] baseline: deal one hand (shuffle + deal)  {deal_time * 1e3:8.3f} ms")
    rates: dict[str, float] = {}
    for name, label in (("uniform", "uniform legal play"), ("random", "randomplay")):
        rates[name] = statistics.median(turns / sec for sec, turns, _ in (r[name] for r in rounds))
        cards = statistics.median(moved / sec for sec, _, moved in (r[name] for r in rounds))
        per_turn = 1 / rates[name] / deal_time
        print(
            f"  [{build}] {label:<20} {rates[name]:9.0f} turns/s {cards:9.0f}"
            f" cards moved/s  (one turn = {per_turn:.3f} deals)"
        )
    if peer_rate:
        print(
            f"  [{build}] uniform legal play / peer: {rates['uniform'] / peer_rate:.2f}x per turn;"
            f" randomplay / peer: {rates['random'] / peer_rate:.2f}x"
        )
    replays = [r for r in rounds if "replay" in r]
    if replays:
        seconds, actions, count, over = replays[0]["replay"]
        state = "to its end" if over else "NOT finished"
        print(
            f"  [{build}] replay of a 5,000-point classic match ({count} hands, {actions} actions,"
            f" {state})  {seconds * 1e3:8.1f} ms  ({seconds / deal_time:.0f} deals)"
        )
        seconds, actions = replays[0]["long_replay"]
        print(
            f"  [{build}] replay of a {actions}-action classic match (target raised)"
            f"  {seconds * 1e3:8.1f} ms  ({seconds / deal_time:.0f} deals)"
        )
    return rates["uniform"]


def main() -> int:
    args = _arguments()
    if args.cpu:
        global clock
        clock = time.process_time
    if args.one_round:
        print(json.dumps(engine_round(_engine(args.root), args)))
        return 0
    builds = _builds(args)
    peer = _peer_module(args.peer) if args.peer else None
    rounds: dict[str, list[dict[str, Any]]] = {b: [] for b in builds}
    peer_rows: list[tuple[float, float, float]] = []
    for i in range(args.rounds):  # alternate, so that load changes hit every figure alike
        for build in builds:
            replay = i == 0 and not args.no_replay
            rounds[build].append(child_round(build, args, replay))
        if peer is not None:
            done = rounds[builds[0]]
            turns = int(statistics.median([r["uniform"][1] for r in done]))
            peer_rows.append(peer_turns(peer, turns))
    load = os.getloadavg()
    timing = "CPU time" if args.cpu else "wall time"
    print(
        f"engine benchmark: {args.variant}, {args.players} players, one core,"
        f" {args.rounds} alternating rounds, {timing}"
    )
    print(f"  load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1, 5, 15 min)")
    peer_rate = statistics.median(t / s for s, t, _ in peer_rows) if peer_rows else None
    if peer_rate:
        cards = statistics.median(m / s for s, _, m in peer_rows)
        print(
            f"  peer (OpenSpiel, uniform)      {peer_rate:9.0f} turns/s {cards:9.0f} cards moved/s"
        )
    uniform = {build: _print_build(build, rounds[build], peer_rate) for build in builds}
    if len(builds) == 2:
        print(
            f"  uniform legal play, compiled / pure: {uniform['compiled'] / uniform['pure']:.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
