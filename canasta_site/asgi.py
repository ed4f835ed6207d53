"""The web process (Procfile `web`: gunicorn with uvicorn workers). The whole site is served
through ASGI, so the event feed's long polls and streams wait in the event loop instead of
holding a thread each (docs/event-streams.md); every other view is synchronous and runs in a
thread of its own, as under WSGI."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "canasta_site.settings")
# Each request runs in a new thread here, so persistent per-thread connections would be opened
# anew each time: borrow from a connection pool instead (settings.py, PostgreSQL only).
os.environ.setdefault("CANASTA_DB_POOL", "1")

application = get_asgi_application()
