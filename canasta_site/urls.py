from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from oauth2_provider import views as oauth_views

from api.errors import api_not_found
from web.views.oauth import ConsentView

# OAuth 2 for third-party apps (docs/clients.md, "OAuth 2"): the toolkit's endpoints under
# /oauth/, its namespace kept (it reverses its own names), the consent page our own; the
# authorization server's metadata (RFC 8414) at the root, where clients look for it.
oauth_patterns = [
    path("oauth/authorize/", ConsentView.as_view(), name="authorize"),
    path("oauth/token/", oauth_views.TokenView.as_view(), name="token"),
    path("oauth/revoke/", oauth_views.RevokeTokenView.as_view(), name="revoke-token"),
    path("oauth/introspect/", oauth_views.IntrospectTokenView.as_view(), name="introspect"),
    path(
        ".well-known/oauth-authorization-server",
        oauth_views.OAuthServerMetadataView.as_view(),
        name="oauth-server-metadata",
    ),
]

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
    path("", include((oauth_patterns, "oauth2_provider"))),
    # The web pages for people: lobby, game page, accounts (web/urls.py).
    path("", include("web.urls")),
]

# Outside /api/ these fall back to Django's pages.
handler400 = "api.errors.bad_request"
handler403 = "api.errors.permission_denied"
handler404 = "api.errors.not_found"
handler500 = "api.errors.server_error"
