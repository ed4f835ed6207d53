"""Writing replies the way mail clients do, for the inbound tests."""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Iterable
from email import policy
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def load_email_player() -> Any:
    """examples/email_player.py as a module (it is a script, not a package)."""
    spec = importlib.util.spec_from_file_location(
        "email_player", ROOT / "examples" / "email_player.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def choices(text: str) -> list[str]:
    """The lines of the "WHAT YOU CAN DO NOW" section of a turn email or an answer."""
    lines = text.splitlines()
    out = []
    for line in lines[lines.index("WHAT YOU CAN DO NOW") + 1 :]:
        if not line.strip():
            break
        out.append(line.strip())
    return out


def a_discard(text: str) -> str:
    line = next(c for c in choices(text) if c.startswith("discard "))
    rest = line.split("one of:", 1)[1] if "one of:" in line else line[len("discard ") :]
    return "discard " + rest.split()[0].rstrip(",")


def reply(
    original: Any,
    body: str,
    *,
    sender: str | None = None,
    to: str | None = None,
    message_id: str | None = None,
    headers: Iterable[tuple[str, str]] = (),
    quote: bool = True,
    signature: bool = True,
) -> bytes:
    """A reply to ``original`` (a Django EmailMessage from mail.outbox): the commands on top,
    a signature, then the original quoted, sent from the recipient to the Reply-To address."""
    message = EmailMessage(policy=policy.SMTP)
    message["From"] = sender or f"Player <{original.to[0]}>"
    message["To"] = to or original.reply_to[0]
    message["Subject"] = "Re: " + original.subject
    message["Message-ID"] = message_id or make_msgid(domain="example.com")
    for name, value in headers:
        message[name] = value
    text = body
    if signature:
        text += "\n\n-- \nA. Player\nSent from my phone"
    if quote:
        quoted = "\n".join(f"> {line}".rstrip() for line in original.body.splitlines())
        text += f"\n\nOn Sun, 29 Nov 2026 at 16:00, Canasta <canasta@localhost> wrote:\n{quoted}"
    message.set_content(text)
    return message.as_bytes()


def html_reply(original: Any, html: str) -> bytes:
    message = EmailMessage(policy=policy.SMTP)
    message["From"] = original.to[0]
    message["To"] = original.reply_to[0]
    message["Subject"] = "Re: " + original.subject
    message["Message-ID"] = make_msgid(domain="example.com")
    message.set_content(html, subtype="html")
    return message.as_bytes()


SAMPLES = Path(__file__).resolve().parent / "samples"
# The reply address every sample was written to (a server that no longer exists).
_SAMPLE_ADDRESS = re.compile(rb"play\+[a-z2-7]{32}@canasta\.localhost")


def sample(name: str, *, to: str, replace: dict[bytes, bytes] | None = None) -> bytes:
    """A mail from tests/mailplay/samples/ (copies of real clients' replies from the shared
    mail samples) sent to ``to`` instead of its dead address; ``replace``: byte strings to
    change (a command that fits the test's table, a new Message-ID)."""
    raw = _SAMPLE_ADDRESS.sub(lambda _: to.encode(), (SAMPLES / name).read_bytes())
    for old, new in (replace or {}).items():
        assert old in raw, old
        raw = raw.replace(old, new)
    return raw
