from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from api.errors import api_not_found

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path("api/v1/", include("api.urls")),
    # Session login for the browsable API.
    path("api-auth/", include("rest_framework.urls")),
    # Anything else under /api/ answers in the API's error shape, with DEBUG on or off.
    re_path(r"^api/", api_not_found),
    # Inbound mail for play by email (mailplay/urls.py): the provider webhook.
    path("mail/", include("mailplay.urls")),
    # The web pages for people: lobby, game page, accounts (web/urls.py).
    path("", include("web.urls")),
]

# Outside /api/ these fall back to Django's pages.
handler400 = "api.errors.bad_request"
handler403 = "api.errors.permission_denied"
handler404 = "api.errors.not_found"
handler500 = "api.errors.server_error"
