from django.urls import path

from mailplay.views import InboundWebhookView

urlpatterns = [
    path("inbound/postmark/", InboundWebhookView.as_view(), name="mail-inbound-postmark"),
]
