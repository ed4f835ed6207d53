"""Feed received mail to play by email: one message on standard input (an MTA pipe), or every
new message of a Maildir (docs/play-by-email.md#receiving-mail).

Exit status: 0 whenever the mail was dealt with, also when it was ignored or refused (the
player gets an answer where one is due; an MTA must not bounce it), 75 (EX_TEMPFAIL) when
nothing could be recorded (the database is down): the MTA keeps the mail and tries again.
One line per message goes to standard error, without the reply address.
"""

from __future__ import annotations

import mailbox
import os
import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from mailplay.services.inbound import Result, process_message

EX_TEMPFAIL = 75


class Command(BaseCommand):
    help = "Process one email from standard input, or the new messages of a Maildir."
    stealth_options = ("stdin",)

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--maildir",
            metavar="PATH",
            help="process the messages in PATH/new and file them in PATH/cur (flag S, seen)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options.get("maildir"):
            results = self._maildir(Path(options["maildir"]))
        else:
            results = [self._stdin(options.get("stdin"))]
        if any(r.temporary for r in results):
            sys.exit(EX_TEMPFAIL)

    def _report(self, name: str, result: Result) -> None:
        self.stderr.write(f"receive_email: {name}: {result.summary()}")

    def _stdin(self, stream: Any) -> Result:
        stream = stream if stream is not None else sys.stdin.buffer
        # One byte past the limit is enough to know the mail is too large; the rest of a huge
        # mail is read and dropped so the MTA's pipe does not break.
        limit = settings.CANASTA_MAIL_MAX_BYTES + 1
        data = stream.read(limit)
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogateescape")
        size = len(data)
        while chunk := stream.read(1 << 16):
            size += len(chunk)
        result = process_message(data, source="pipe", size=size)
        self._report("stdin", result)
        return result

    def _maildir(self, path: Path) -> list[Result]:
        if not (path / "new").is_dir() or not (path / "cur").is_dir():
            raise CommandError(f"{path} is not a Maildir (it needs new/ and cur/)")
        box = mailbox.Maildir(path, factory=None, create=False)
        results = []
        for name in sorted(os.listdir(path / "new")):
            source = path / "new" / name
            if name.startswith(".") or not source.is_file():
                continue
            with open(source, "rb") as handle:
                data = handle.read(settings.CANASTA_MAIL_MAX_BYTES + 1)
            size = source.stat().st_size
            result = process_message(data, source="maildir", size=size)
            self._report(name, result)
            results.append(result)
            if result.temporary:
                continue  # left in new/ for the next run
            # Maildir's own filing: cur/<name>:2,S ("seen"), by rename, bytes untouched.
            os.rename(source, path / "cur" / f"{name}{box.colon}2,S")
        return results
