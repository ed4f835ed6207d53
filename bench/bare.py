"""The baseline request of the API benchmarks: a bare DRF endpoint (token authentication,
permission and throttle checks, JSON out), which bench/api.py and bench/turn.py measure in
the same run as what they compare with it. Import after django.setup()."""

from __future__ import annotations

import sys
import types

from django.conf import settings
from django.urls import clear_url_caches, path
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

BARE_PATH = "/bench/bare/"


class BareView(APIView):
    """The baseline: token authentication, permission and throttle checks, JSON out."""

    def get(self, request: Request) -> Response:
        return Response({"ok": True})


def install_bare_endpoint() -> None:
    import canasta_site.urls

    urls = types.ModuleType("bench_urls")
    urls.urlpatterns = [  # type: ignore[attr-defined]
        path(BARE_PATH.strip("/") + "/", BareView.as_view()),
        *canasta_site.urls.urlpatterns,
    ]
    sys.modules["bench_urls"] = urls
    settings.ROOT_URLCONF = "bench_urls"
    clear_url_caches()
