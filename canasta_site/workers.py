"""The gunicorn worker class of the Procfile's web process: uvicorn's, serving the ASGI
application (canasta_site/asgi.py, docs/event-streams.md)."""

from __future__ import annotations

from typing import Any

from uvicorn_worker import UvicornWorker


class WebWorker(UvicornWorker):
    # uvicorn would take the client's address and scheme from X-Forwarded-For/-Proto sent by a
    # peer on the loopback, which anyone on this host could fake. As under gthread, REMOTE_ADDR
    # stays the peer's address: the settings decide which proxies to trust (NUM_PROXIES for the
    # per-address limits, SECURE_PROXY_SSL_HEADER_NAME for HTTPS).
    CONFIG_KWARGS: dict[str, Any] = {**UvicornWorker.CONFIG_KWARGS, "proxy_headers": False}
