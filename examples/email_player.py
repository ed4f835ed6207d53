#!/usr/bin/env python3
"""Play Canasta by email alone, from the mail folder of Django's file backend.

The service writes every email it sends to EMAIL_FILE_PATH (the default backend of
`scripts/serve`, files in var/mail/). This script reads them like a mail client would, finds
the turn emails and answers that ask a player to move, picks a legal command from their
"WHAT YOU CAN DO NOW" lines, writes a reply as a person would (to the Reply-To address, from
the player's address, the original quoted below a signature) and pipes it into
`manage.py receive_email`, as an MTA would. It stops when a hand is over (or a match, or
after --max-replies).

    # with scripts/serve running (its worker delivers the mail):
    .venv/bin/python examples/email_player.py --demo
    # or without any server: deliver the outbox from the script itself
    .venv/bin/python examples/email_player.py --demo --sweep

--demo creates four players (mail1..mail4@example.com) and starts a classic table for them;
without it the script plays whatever turn emails it finds. It reads emails in English,
German and Icelandic (`WORDS`: the section titles and command words of each language, as
docs/play-by-email-commands.md lists them). Standard library only: it knows the service
through its emails and `manage.py` alone.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import formatdate, make_msgid, parseaddr
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEPARATOR = b"\n" + b"-" * 79 + b"\n"  # between messages in a file-backend file
# Cards as the commands write them in English, German and Icelandic (7h, Dka, Bkr, Gl).
_CARD = re.compile(r"^(?:10|[2-9TJQKABDG])(?:kr|ka|[shdcptl])$|^JK$", re.IGNORECASE)

# The words of the emails in each language the service writes (docs/play-by-email-commands.md):
# section titles, the command words this script uses, and the subjects it watches for.
WORDS = {
    "en": {
        "choices": "WHAT YOU CAN DO NOW",
        "hand": "YOUR HAND",
        "go_out": "go out now:",
        "draw": "draw",
        "take": "take",
        "melds": ("meld ", "add "),
        "discard": "discard ",
        "yes": "yes",
        "nothing": "nothing",
        "one_of": "one of:",
        "status": "status",
        "refused": "Move refused",
        "hand_over": "over:",
        "match_over": "Match over",
    },
    "de": {
        "choices": "DAS KÖNNEN SIE JETZT TUN",
        "hand": "IHR BLATT",
        "go_out": "jetzt ausmachen:",
        "draw": "ziehen",
        "take": "nehmen",
        "melds": ("auslegen ", "anlegen "),
        "discard": "abwerfen ",
        "yes": "ja",
        "nothing": "nichts",
        "one_of": "eine von:",
        "status": "stand",
        "refused": "Zug abgelehnt",
        "hand_over": "vorbei:",
        "match_over": "Match vorbei",
    },
    "is": {
        "choices": "ÞETTA GETUR ÞÚ GERT NÚNA",
        "hand": "HÖNDIN ÞÍN",
        "go_out": "fara út núna:",
        "draw": "draga",
        "take": "taka",
        "melds": ("leggja út ", "bæta "),
        "discard": "kasta ",
        "yes": "já",
        "nothing": "ekkert",
        "one_of": "eitt af:",
        "status": "staða",
        "refused": "Leik hafnað",
        "hand_over": "lokið:",
        "match_over": "Leik lokið",
    },
}


def language_of(text: str) -> str:
    """The language an email of the service is written in (by its section titles)."""
    return next((code for code, w in WORDS.items() if w["choices"] in text), "en")


# --- reading the mail folder -------------------------------------------------------------


class Mailbox:
    """The file backend's folder, read incrementally: each file is read on from where the
    last read stopped, so a long game does not parse its whole history again and again."""

    def __init__(self, mail_dir: Path) -> None:
        self.mail_dir = Path(mail_dir)
        self.read_up_to: dict[Path, int] = {}

    def new_messages(self) -> list[EmailMessage]:
        """Messages written since the last call, oldest file first, in file order."""
        if not self.mail_dir.is_dir():
            return []
        files = sorted(self.mail_dir.glob("*.log"), key=lambda p: (p.stat().st_mtime_ns, p.name))
        out = []
        for path in files:
            start = self.read_up_to.get(path, 0)
            with open(path, "rb") as handle:
                handle.seek(start)
                data = handle.read()
            end = data.rfind(SEPARATOR)  # whole messages only: the last may be half written
            if end < 0:
                continue
            self.read_up_to[path] = start + end + len(SEPARATOR)
            for chunk in data[:end].split(SEPARATOR):
                if chunk.strip():
                    out.append(BytesParser(policy=policy.default).parsebytes(chunk))
        return out


def read_mailbox(mail_dir: Path) -> list[EmailMessage]:
    """Every message in the folder, oldest file first, in the order each file holds them."""
    return Mailbox(mail_dir).new_messages()


def text_of(message: EmailMessage) -> str:
    body = message.get_body(preferencelist=("plain",))
    return body.get_content() if body is not None else ""


def section(text: str, title: str) -> list[str]:
    """The lines of a section of the table text ("WHAT YOU CAN DO NOW"), up to a blank line."""
    lines = text.splitlines()
    if title not in lines:
        return []
    out = []
    for line in lines[lines.index(title) + 1 :]:
        if not line.strip():
            break
        out.append(line.strip())
    return out


def hand_size(text: str) -> int:
    titles = "|".join(re.escape(w["hand"]) for w in WORDS.values())
    found = re.search(rf"^(?:{titles}) \((\d+) ", text, re.MULTILINE)
    return int(found.group(1)) if found else 0


def is_actionable(message: EmailMessage) -> bool:
    """A mail asking its recipient to move: a reply address and choices to make."""
    if not message.get("Reply-To"):
        return False
    text = text_of(message)
    words = WORDS[language_of(text)]
    choices = section(text, words["choices"])
    return bool(choices) and not choices[0].startswith(words["nothing"])


# --- choosing a move ---------------------------------------------------------------------


def _discard_cards(line: str, words: dict | None = None) -> list[str]:
    words = words or WORDS["en"]
    rest = line[len(words["discard"]) :]
    if words["one_of"] in rest:
        rest = rest.split(words["one_of"], 1)[1]
    separator = "," if "," in rest else " "
    return [c.strip() for c in rest.split(separator) if c.strip()]


def _draw_phase_choice(
    choices: list[str], w: dict[str, str], rng: random.Random, simple: bool
) -> str:
    """Take the pile now and then (or when drawing is not offered), else draw."""
    takes = [c for c in choices if c.startswith(w["take"])]
    if takes and ((not simple and rng.random() < 0.3) or w["draw"] not in choices):
        return rng.choice(takes)
    return w["draw"]


def _play_phase_choice(
    text: str, choices: list[str], w: dict[str, str], rng: random.Random, simple: bool
) -> str:
    """Sometimes one listed meld and a discard of a card it does not use, else a discard."""
    discards = next((_discard_cards(c, w) for c in choices if c.startswith(w["discard"])), [])
    melds = [c for c in choices if c.startswith(w["melds"])]
    if melds and not simple and rng.random() < 0.5:
        meld = rng.choice(melds)
        used = [t for t in re.split(r"[\s,]+", meld) if _CARD.match(t)]
        left = [c for c in discards if c not in used]
        if left and hand_size(text) - len(used) >= 2:
            return f"{meld}; {w['discard']}{rng.choice(left)}"
    if discards:
        return f"{w['discard']}{rng.choice(discards)}"
    return w["status"]


def choose_commands(text: str, rng: random.Random, *, simple: bool = False) -> str:
    """Commands for the turn shown in ``text``, chosen among its "WHAT YOU CAN DO NOW" lines.

    Goes out when it can; in the draw phase takes the pile now and then, else draws; in the
    play phase sometimes lays one listed meld before discarding a card it did not use.
    ``simple`` (after a refused move): only the plainest choice.
    """
    w = WORDS[language_of(text)]
    choices = section(text, w["choices"])
    for line in choices:
        if line.startswith(w["go_out"]) and not simple:
            return line[len(w["go_out"]) :].strip()
    if w["yes"] in choices:
        return w["yes"]
    if w["draw"] in choices or any(c.startswith(w["take"]) for c in choices):
        return _draw_phase_choice(choices, w, rng, simple)
    return _play_phase_choice(text, choices, w, rng, simple)


# --- writing a reply ---------------------------------------------------------------------


def build_reply(original: EmailMessage, commands: str, *, signature: str = "A player") -> bytes:
    """A reply as a mail client writes it: commands on top, a signature, the original quoted."""
    reply = EmailMessage(policy=policy.SMTP)
    reply["From"] = original["To"]
    reply["To"] = original["Reply-To"]
    reply["Subject"] = "Re: " + str(original["Subject"] or "")
    reply["Date"] = formatdate(localtime=False)
    reply["Message-ID"] = make_msgid(domain="player.example")
    if original["Message-ID"]:
        reply["In-Reply-To"] = original["Message-ID"]
        reply["References"] = original["Message-ID"]
    quoted = "\n".join(f"> {line}".rstrip() for line in text_of(original).splitlines())
    reply.set_content(
        f"{commands}\n\n-- \n{signature}\n\n"
        f"On {original['Date']}, {original['From']} wrote:\n{quoted}\n"
    )
    return reply.as_bytes()


# --- the loop ----------------------------------------------------------------------------


@dataclass
class Summary:
    replies: int = 0
    refused: int = 0
    finished: list[str] = field(default_factory=list)  # subjects of "hand over" / "match over"
    log: list[str] = field(default_factory=list)


def play(
    mail_dir: Path,
    *,
    send: Callable[[bytes], None],
    deliver: Callable[[], object] = lambda: None,
    rng: random.Random | None = None,
    max_replies: int = 1000,
    until: str = "hand",
    wait: Callable[[], None] = lambda: None,
    idle_rounds: int = 1,
    seen: set[str] | None = None,
    reply: Callable[..., bytes] | None = None,
) -> Summary:
    """Read, choose, reply, until a hand (or the match) is over. ``send`` delivers one reply
    to the service (e.g. a pipe into receive_email); ``deliver`` makes the service's queued
    mail land in the folder; ``wait`` pauses between empty rounds; ``seen``: Message-IDs
    to leave alone (mail of other games); ``reply``: writes a reply as a mail client does
    (default `build_reply`; tests pass German Gmail, Outlook, ... styles)."""
    rng = rng or random.Random(1)
    reply = reply or build_reply
    seen = set() if seen is None else seen
    box = Mailbox(mail_dir)
    summary = Summary()
    idle = 0
    # Every email of a game has the game's subject; the X-Canasta-Kind header says what it is.
    ends = {"match_over"} if until == "match" else {"hand_over", "match_over"}
    while summary.replies < max_replies:
        deliver()
        new = [m for m in box.new_messages() if str(m["Message-ID"]) not in seen]
        seen.update(str(m["Message-ID"]) for m in new)
        summary.finished += [str(m["Subject"]) for m in new if str(m["X-Canasta-Kind"]) in ends]
        if summary.finished:
            return summary
        latest: dict[str, EmailMessage] = {}
        for message in new:
            if is_actionable(message):
                latest[parseaddr(str(message["To"]))[1]] = message
        if not latest:
            idle += 1
            if idle >= idle_rounds:
                return summary
            wait()
            continue
        idle = 0
        for address, message in latest.items():
            # An answer starts with what happened ("Move refused (...)"), in the player's language.
            refused = any(
                text_of(message).lstrip().startswith(w["refused"]) for w in WORDS.values()
            )
            summary.refused += refused
            commands = choose_commands(text_of(message), rng, simple=refused)
            summary.log.append(f"{address}: {commands}")
            send(reply(message, commands, signature=address.split("@")[0]))
            summary.replies += 1
    return summary


# --- the command line --------------------------------------------------------------------

_DEMO = """
from django.contrib.auth import get_user_model
from games.services import lobby
User = get_user_model()
players = []
for n in range(1, 5):
    user, _ = User.objects.get_or_create(
        username=f"mail{n}", defaults={"email": f"mail{n}@example.com"})
    players.append(user)
game = lobby.game_create(creator=players[0], variant="classic", players=4,
                         options={"seating": "invitation"}, is_public=False)
for user in players[1:]:
    lobby.game_join(game_id=game.pk, user=user)
print(game.pk)
"""
_SWEEP = "from notifications.services.outbox import outbox_sweep; outbox_sweep()"


def _manage(manage: Path, *args: str, data: bytes | None = None) -> bytes:
    done = subprocess.run(
        [sys.executable, str(manage), *args], input=data, capture_output=True, check=False
    )
    if done.returncode != 0:
        sys.stderr.write(done.stderr.decode("utf-8", "replace"))
        raise SystemExit(f"manage.py {args[0]} failed with exit {done.returncode}")
    return done.stdout


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--mail-dir",
        type=Path,
        default=Path(os.environ.get("EMAIL_FILE_PATH") or ROOT / "var" / "mail"),
        help="the file backend's folder (EMAIL_FILE_PATH; default var/mail)",
    )
    parser.add_argument("--manage", type=Path, default=ROOT / "manage.py")
    parser.add_argument("--demo", action="store_true", help="create 4 players and a table")
    parser.add_argument(
        "--sweep", action="store_true", help="deliver the outbox from here (no worker running)"
    )
    parser.add_argument("--until", choices=("hand", "match"), default="hand")
    parser.add_argument("--max-replies", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--poll", type=float, default=1.0, help="seconds between empty rounds")
    parser.add_argument("--patience", type=int, default=30, help="empty rounds before giving up")
    args = parser.parse_args(list(argv) if argv is not None else None)
    seen: set[str] = set()
    if args.demo:
        # Mail already in the folder belongs to other games: leave it alone.
        if args.mail_dir.is_dir():
            seen = {str(m["Message-ID"]) for m in read_mailbox(args.mail_dir)}
        game = _manage(args.manage, "shell", "-c", _DEMO).decode().strip().splitlines()[-1]
        print(f"started game {game}")

    def send(raw: bytes) -> None:
        _manage(args.manage, "receive_email", data=raw)

    def deliver() -> None:
        if args.sweep:
            _manage(args.manage, "shell", "-c", _SWEEP)

    summary = play(
        args.mail_dir,
        send=send,
        deliver=deliver,
        rng=random.Random(args.seed),
        max_replies=args.max_replies,
        until=args.until,
        wait=lambda: time.sleep(args.poll),
        idle_rounds=args.patience,
        seen=seen,
    )
    for line in summary.log:
        print(line)
    print(f"{summary.replies} replies ({summary.refused} answered with a refusal)")
    if summary.finished:
        print("finished: " + "; ".join(dict.fromkeys(summary.finished)))
        return 0
    print("no hand finished")
    return 1


if __name__ == "__main__":
    sys.exit(main())
