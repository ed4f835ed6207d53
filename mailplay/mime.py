"""Reading a received email: what kind of mail it is, who sent it, to which address, and its
text. Pure standard library (``email`` with ``policy.default``); nothing here raises on odd
input: a header that cannot be read counts as absent.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from email import errors, policy
from email.headerregistry import AddressHeader, BaseHeader
from email.message import EmailMessage, Message
from email.parser import BytesHeaderParser, BytesParser
from email.utils import collapse_rfc2231_value, getaddresses, parseaddr

from games.mail.body import html_to_text

# Headers that name where a mail was delivered: the MTA's (Delivered-To, X-Original-To,
# Envelope-To) first, then what the sender wrote.
RECIPIENT_HEADERS = ("Delivered-To", "X-Original-To", "Envelope-To", "To", "Cc")
_AUTO_PRECEDENCE = frozenset({"bulk", "junk", "list", "auto_reply", "auto-reply"})
_AUTO_HEADERS = ("X-Autoreply", "X-Autorespond", "X-AutoReply-From", "X-Mail-Autoreply")
_DAEMONS = frozenset({"mailer-daemon", "postmaster"})
# Subjects vacation replies are given by mail programs and Outlook rules that set no header:
# English, German, Icelandic (and the French of Exchange).
_AUTO_SUBJECT = re.compile(
    r"""^\s*(?:
        automatic\s+reply | auto[\s-]?reply | autoreply | out\s+of\s+(?:the\s+)?office
      | automatische\s+antwort | abwesend | abwesenheit\w* | urlaubs?(?:notiz|antwort)
      | sjálfvirkt\s+svar | fjarverandi | í\s+fríi
      | réponse\s+automatique | absence
    )\b""",
    re.IGNORECASE | re.VERBOSE,
)
_MESSAGE_ID = re.compile(r"<[^<>\s]{1,250}>")


def parse(raw: bytes) -> EmailMessage:
    message = BytesParser(policy=policy.default).parsebytes(raw)
    assert isinstance(message, EmailMessage)
    return message


def parse_headers(raw: bytes) -> EmailMessage:
    """Only the headers (for a mail too large to read whole)."""
    message = BytesHeaderParser(policy=policy.default).parsebytes(raw)
    assert isinstance(message, EmailMessage)
    return message


def header(message: Message, name: str) -> str:
    """A header's value as text, "" when absent or unreadable."""
    try:
        value = message.get(name)
    except Exception:  # policy.default raises on some malformed headers when read
        return ""
    return "" if value is None else str(value).strip()


def headers(message: Message, name: str) -> list[str]:
    try:
        values = message.get_all(name) or []
    except Exception:
        return []
    return [str(v).strip() for v in values]


def message_key(message: Message, raw: bytes) -> tuple[str, str]:
    """(key, Message-ID): the key is sha256 of the Message-ID, or of the raw bytes without one."""
    found = _MESSAGE_ID.search(header(message, "Message-ID"))
    if found:
        message_id = found.group(0)
        return hashlib.sha256(message_id.encode("utf-8", "replace")).hexdigest(), message_id
    return message_key_of_bytes(raw), ""


def message_key_of_bytes(raw: bytes) -> str:
    return hashlib.sha256(b"raw:" + raw).hexdigest()


def sender(message: Message) -> str | None:
    """The one From address (lowercased), or None when there is none or it is not clear.

    Strict, with the standard library's header registry (``policy.default``): None when the
    mail has no From or several, when the From names a group or more than one address, or
    when parsing it found a defect, i.e. text the parser had to skip or guess at
    (``victim@example.com)<attacker@evil.com>`` reads as the victim to a lenient parser and
    as the attacker to others). Obsolete but unambiguous syntax, such as a period in a
    name (``John Q. Public <john@example.com>``, common in real mail), is accepted.
    """
    try:
        values = message.get_all("From") or []
    except Exception:  # policy.default raises on some malformed headers when read
        return None
    if len(values) != 1:
        return None
    value = values[0]
    # The registry's header classes are BaseHeader + AddressHeader (a str subclass); a policy
    # without the registry gives a plain str, which is not read here.
    if not isinstance(value, BaseHeader) or not isinstance(value, AddressHeader):
        return None
    addresses = value.addresses
    if len(addresses) != 1:
        return None
    defects = [d for d in value.defects if not isinstance(d, errors.ObsoleteHeaderDefect)]
    if defects or any(group.display_name is not None for group in value.groups):
        return None
    address = addresses[0]
    if not address.username or not address.domain:
        return None
    return str(address.addr_spec).strip().lower()


def from_text(message: Message) -> str:
    """The From header as written (for the record of a mail whose From is refused)."""
    return " ".join(headers(message, "From"))


def recipients(message: Message, envelope_recipient: str | None = None) -> Iterator[str]:
    """Every address the mail was sent or delivered to, the envelope's first."""
    if envelope_recipient:
        yield parseaddr(envelope_recipient)[1] or envelope_recipient
    for name in RECIPIENT_HEADERS:
        for _, address in getaddresses(headers(message, name)):
            if address:
                yield address


def automatic_reason(message: Message, envelope_sender: str | None = None) -> str | None:
    """Why this mail was sent by a machine (an auto-reply, a bounce), or None.

    RFC 3834 (Auto-Submitted), RFC 3464 (delivery reports), the null Return-Path of bounces,
    and the headers vacation responders set. None of these is ever answered: answering a
    machine is how mail loops start.
    """
    auto = header(message, "Auto-Submitted").lower()
    if auto and auto.split(";")[0].strip() != "no":
        return "auto_submitted"
    if envelope_sender is not None and envelope_sender.strip() in ("", "<>"):
        return "bounce"
    if any(value.replace(" ", "") == "<>" for value in headers(message, "Return-Path")):
        return "bounce"
    if header(message, "Precedence").lower() in _AUTO_PRECEDENCE:
        return "precedence"
    if any(header(message, name) for name in _AUTO_HEADERS):
        return "auto_reply"
    if message.get_content_type() == "multipart/report" or any(
        part.get_content_type() in ("message/delivery-status", "message/disposition-notification")
        for part in _walk(message)
    ):
        return "delivery_report"
    address = sender(message) or ""
    if address.partition("@")[0] in _DAEMONS:
        return "bounce"
    if _AUTO_SUBJECT.match(header(message, "Subject")):
        return "auto_reply_subject"
    return None


def _walk(message: Message) -> Iterator[Message]:
    try:
        yield from message.walk()
    except Exception:
        return


class UnreadableBody(ValueError):
    """The mail has no text we can read (no text part, an unknown charset, broken encoding)."""


def _unflow(text: str, delsp: bool) -> str:
    """RFC 3676 format=flowed: a line ending in a space continues on the next line."""
    out: list[str] = []
    joining = False
    for line in text.split("\n"):
        if joining and out:
            out[-1] += line
        else:
            out.append(line)
        joining = line.endswith(" ") and line != "-- " and not line.startswith(">")
        if joining and delsp:
            out[-1] = out[-1][:-1]
    return "\n".join(out)


def _part_text(part: EmailMessage) -> str:
    try:
        content = part.get_content()
    except (LookupError, UnicodeError, ValueError, AssertionError) as error:
        raise UnreadableBody(f"the {part.get_content_type()} part cannot be decoded") from error
    if not isinstance(content, str):
        raise UnreadableBody("the text part is not text")
    return content.replace("\r\n", "\n").replace("\r", "\n")


def body_text(message: EmailMessage) -> str:
    """The mail's text: its text/plain part, else its HTML part as text. Raises UnreadableBody."""
    try:
        part = message.get_body(preferencelist=("plain", "html"))
    except Exception as error:
        raise UnreadableBody("the mail's structure cannot be read") from error
    if not isinstance(part, EmailMessage):
        raise UnreadableBody("the mail has no text part")
    text = _part_text(part)
    if part.get_content_subtype() == "html":
        return html_to_text(text)
    if collapse_rfc2231_value(part.get_param("format") or "").lower() == "flowed":
        text = _unflow(text, collapse_rfc2231_value(part.get_param("delsp") or "").lower() == "yes")
    return text
