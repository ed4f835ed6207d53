"""WhiteNoise's middleware, able to run in Django's async mode.

WhiteNoise's own middleware is synchronous only; under ASGI (the Procfile's web process) Django
would then run everything below it, views included, through async_to_sync in a thread, and a
waiting long poll would hold that thread again (docs/event-streams.md). This one serves the
same files the same way and passes every other request on without leaving the event loop.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction, sync_to_async
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from whitenoise.middleware import WhiteNoiseMiddleware


class StaticFilesMiddleware(WhiteNoiseMiddleware):
    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Any) -> None:
        super().__init__(get_response)
        self.asynchronous = iscoroutinefunction(get_response)
        if self.asynchronous:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if self.asynchronous:
            return self._acall(request)
        return super().__call__(request)

    async def _acall(self, request: HttpRequest) -> HttpResponseBase:
        if self.autorefresh:  # development: looks at the file system
            static_file = await sync_to_async(self.find_file)(request.path_info)
        else:
            static_file = self.files.get(request.path_info)
        if static_file is None:
            return await self.get_response(request)
        return await sync_to_async(self._serve_whole)(static_file, request)

    def _serve_whole(self, static_file: Any, request: HttpRequest) -> HttpResponse:
        """WhiteNoise's answer with the file read at once: under ASGI a file response's
        synchronous iterator would be read whole anyway, with a warning; static files are
        small."""
        answer = static_file.get_response(request.method, request.META)
        body = b""
        if answer.file is not None:
            with answer.file as file:
                body = file.read()
        response = HttpResponse(body, status=int(answer.status))
        del response["Content-Type"]
        for key, value in answer.headers:
            response[key] = value
        return response
