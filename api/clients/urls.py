"""/api/v1/ endpoints for clients built by others (included by api/urls.py)."""

from django.urls import path

from api.clients.views.events import EventStreamView, EventsView
from api.clients.views.tokens import TokensView, TokenView
from api.clients.views.webhooks import (
    WebhookDeliveriesView,
    WebhookRotateView,
    WebhooksView,
    WebhookView,
)

urlpatterns = [
    path("events/", EventsView.as_view(), name="clients-events"),
    path("events/stream/", EventStreamView.as_view(), name="clients-events-stream"),
    path("webhooks/", WebhooksView.as_view(), name="clients-webhooks"),
    path("webhooks/<int:webhook_id>/", WebhookView.as_view(), name="clients-webhook"),
    path(
        "webhooks/<int:webhook_id>/rotate-secret/",
        WebhookRotateView.as_view(),
        name="clients-webhook-rotate-secret",
    ),
    path(
        "webhooks/<int:webhook_id>/deliveries/",
        WebhookDeliveriesView.as_view(),
        name="clients-webhook-deliveries",
    ),
    path("tokens/", TokensView.as_view(), name="clients-tokens"),
    path("tokens/<int:token_id>/", TokenView.as_view(), name="clients-token"),
]
