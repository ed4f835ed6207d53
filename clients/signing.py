"""Webhook signatures: HMAC-SHA256 over "<timestamp>.<body>" with the hook's secret.

Pure functions, standard library only; examples/webhook_receiver.py carries its own copy of
`verify` so that a receiver needs nothing of ours.
"""

from __future__ import annotations

import hashlib
import hmac
import time

SIGNATURE_PREFIX = "sha256="
# A receiver refuses a delivery whose timestamp is further than this from its own clock: a
# captured request cannot be replayed later.
DEFAULT_TOLERANCE_SECONDS = 300


def signature(secret: str, timestamp: int | str, body: bytes) -> str:
    """The X-Canasta-Signature header: "sha256=" + hex HMAC-SHA256(secret, f"{ts}.{body}")."""
    message = str(timestamp).encode() + b"." + body
    digest = hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()
    return SIGNATURE_PREFIX + digest


def verify(
    secret: str,
    timestamp: str | None,
    body: bytes,
    given: str | None,
    *,
    tolerance: int = DEFAULT_TOLERANCE_SECONDS,
    now: float | None = None,
) -> bool:
    """True if `given` signs `body` at `timestamp` and the timestamp is recent enough."""
    if not timestamp or not given:
        return False
    try:
        stamped = int(timestamp)
    except ValueError:
        return False
    now = time.time() if now is None else now
    if abs(now - stamped) > tolerance:
        return False
    return hmac.compare_digest(signature(secret, stamped, body), given.strip())
