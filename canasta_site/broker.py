"""The embedded broker: kombu's filesystem transport with message files that are whole when a
worker sees them (settings.py selects it when neither REDIS_URL nor CELERY_BROKER_URL is set;
docs/background-work.md, "The embedded broker").

kombu 5.7 creates a message file under its final name and then writes it: a worker listing the
folder in between moves and reads an empty file and dies on a JSONDecodeError (issue 25
reproduced it with two processes on one folder). Here a message is written under a name the
readers skip (a dot file) and renamed to its queue name once complete; rename is atomic on one
filesystem, so a reader sees no file or the whole file. A reader claims a message by renaming
it into the claim folder next to the queue (kombu moved it to the system's temporary folder,
a copy and a delete when that is another filesystem, which two readers could both do):
exactly one rename succeeds. A message that still cannot be read is logged and dropped rather
than taking the worker down; the outbox sweep sends what it would have sent.
"""

from __future__ import annotations

import logging
import os
import uuid
from pathlib import Path
from queue import Empty
from time import monotonic_ns
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import bytes_to_str, str_to_bytes
from kombu.utils.json import dumps, loads
from kombu.utils.objects import cached_property

logger = logging.getLogger(__name__)


def _message_name(queue: str) -> str:
    """kombu's naming, a clock reading first so that a sorted listing is oldest first (readers
    match the part after the first dot against "<queue>.msg"), but in nanoseconds written to a
    fixed width: kombu's unpadded milliseconds sorted "10000_…" before "9999_…", and two
    messages of one millisecond in the order of their random suffixes, so a writer's messages
    could be read out of the order it wrote them."""
    return f"{monotonic_ns():020d}_{uuid.uuid4()}.{queue}.msg"


class Channel(filesystem.Channel):
    # kombu's own bases disagree on this parameter's name (message, payload): as filesystem's.
    def _put(self, queue: str, payload: dict[str, Any], **kwargs: Any) -> None:  # type: ignore[override]
        """Write the message under a dot name no reader matches, then rename it into place."""
        folder = Path(self.data_folder_out)
        partial = folder / f".{uuid.uuid4()}.part"
        try:
            partial.write_bytes(str_to_bytes(dumps(payload)))
            os.replace(partial, folder / _message_name(queue))
        except OSError as error:
            partial.unlink(missing_ok=True)
            raise ChannelError(f"Cannot add a message to {folder}") from error

    @cached_property
    def _claim_folder(self) -> Path:
        """`processed_folder` (settings.py), else `claimed` next to the queue: one filesystem
        with it, or the rename would not be atomic."""
        configured = self.transport_options.get("processed_folder")
        folder = Path(configured) if configured else Path(self.data_folder_in).parent / "claimed"
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def _take(self, filename: str) -> bytes | None:
        """The message's bytes if this reader won it, else None (another reader did)."""
        claimed = self._claim_folder / filename
        try:
            os.rename(Path(self.data_folder_in) / filename, claimed)
        except OSError:
            return None  # taken by another reader a moment ago
        try:
            return claimed.read_bytes()
        except OSError as error:
            raise ChannelError(f"Cannot read the message {claimed}") from error
        finally:
            if not self.store_processed:
                claimed.unlink(missing_ok=True)

    def _get(self, queue: str, timeout: float | None = None) -> Any:
        """The oldest message of `queue`, claimed by an atomic rename."""
        wanted = f"{queue}.msg"
        for filename in sorted(os.listdir(self.data_folder_in)):
            if filename.partition(".")[2] != wanted:
                continue
            body = self._take(filename)
            if body is None:
                continue
            try:
                return loads(bytes_to_str(body))
            except ValueError:
                logger.error("embedded broker: dropped an unreadable message %s", filename)
        raise Empty()


class Transport(filesystem.Transport):
    Channel = Channel
