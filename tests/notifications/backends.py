"""Email backends for tests, selected with settings.EMAIL_BACKEND."""

import os
import time
from smtplib import SMTPServerDisconnected

from django.core.mail.backends import filebased
from django.core.mail.backends.base import BaseEmailBackend


class FailingBackend(BaseEmailBackend):
    calls = 0

    def send_messages(self, email_messages):  # type: ignore[no-untyped-def]
        type(self).calls += 1
        raise SMTPServerDisconnected("421 the server closed the connection")


class SlowFileBackend(filebased.EmailBackend):
    """The file backend after a pause of CANASTA_TEST_EMAIL_DELAY seconds: a slow SMTP server,
    so an integration test can kill a worker in the middle of a delivery."""

    def send_messages(self, email_messages):  # type: ignore[no-untyped-def]
        time.sleep(float(os.environ.get("CANASTA_TEST_EMAIL_DELAY", "3")))
        return super().send_messages(email_messages)
