"""Raw deflate against a preset dictionary (issue 25): the one packer of the values the service
keeps packed, an idempotency record's answer (games.services.idempotency) and a finished
game's move log (games.movearchive). Each caller puts its own format byte in front and keeps
its dictionary in a file that never changes in place (dictionary_checked)."""

from __future__ import annotations

import functools
import hashlib
import zlib
from pathlib import Path


def deflated(data: bytes, dictionary: bytes, *, level: int = 9) -> bytes:
    """`data` as raw deflate (no header: the caller's format byte says what it is) against
    `dictionary`: what it shares with the dictionary costs a back-reference, not its bytes."""
    packer = zlib.compressobj(level, zlib.DEFLATED, -15, 9, zlib.Z_DEFAULT_STRATEGY, dictionary)
    return packer.compress(data) + packer.flush()


def inflated(packed: bytes, dictionary: bytes) -> bytes:
    """What `deflated` was given, from its result and the same dictionary."""
    unpacker = zlib.decompressobj(-15, dictionary)
    return unpacker.decompress(packed) + unpacker.flush()


@functools.cache
def dictionary_checked(path: Path, sha256: str) -> bytes:
    """A dictionary file, refused when its digest is not `sha256`: every value packed against
    it needs it byte for byte, so a changed file is an error, never a silent misread."""
    dictionary = path.read_bytes()
    if hashlib.sha256(dictionary).hexdigest() != sha256:
        raise RuntimeError(f"{path} changed: what was packed against it needs it as it was")
    return dictionary
