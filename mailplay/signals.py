"""anymail's `inbound` signal, from our webhook view, to the inbound service."""

from __future__ import annotations

from typing import Any

from anymail.signals import inbound

from mailplay.services.inbound import process_message
from mailplay.views import InboundWebhookView


def on_inbound(sender: Any, event: Any, esp_name: str, **kwargs: Any) -> None:
    message = event.message
    process_message(
        message.as_bytes(),
        source="webhook",
        envelope_sender=message.envelope_sender,
        envelope_recipient=message.envelope_recipient,
    )


def connect() -> None:
    inbound.connect(on_inbound, sender=InboundWebhookView, dispatch_uid="mailplay.inbound")
