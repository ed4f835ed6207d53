"""In the browser: sign up, confirm the address from the mailed link, forget the password
and set a new one from the reset mail (mails read from Django's locmem backend)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlparse

from django.core import mail

PASSWORD = "a-long-enough-password-42"
NEW = "another-long-password-77"


def _path_in_last_mail(to: str, part: str) -> str:
    message = [m for m in mail.outbox if to in m.to][-1]
    link = next(u for u in re.findall(r"https?://\S+", message.body) if part in u)
    return urlparse(link).path


def test_sign_up_confirm_the_address_then_reset_the_password(new_page: Any, screenshot: Any):
    page = new_page()
    page.goto("/signup/")
    page.get_by_label("Username").fill("helga")
    page.get_by_label("Email").fill("helga@example.com")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password confirmation").fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    page.goto("/settings/")
    assert "is not confirmed yet" in page.content()

    page.goto(_path_in_last_mail("helga@example.com", "/account/confirm/"))
    page.wait_for_url("**/settings/")
    assert "helga@example.com is confirmed" in page.content()
    screenshot(page, "address-confirmed")

    stranger = new_page()
    stranger.goto("/login/")
    stranger.get_by_role("link", name="Forgot your password?").click()
    stranger.get_by_label("Email").fill("helga@example.com")
    stranger.get_by_role("button", name="Send the link").click()
    stranger.wait_for_url("**/password/reset/sent/")
    assert "Check your email" in stranger.content()

    stranger.goto(_path_in_last_mail("helga@example.com", "/password/reset/"))
    stranger.get_by_label("New password", exact=True).fill(NEW)
    stranger.get_by_label("New password confirmation").fill(NEW)
    stranger.get_by_role("button", name="Set the password").click()
    stranger.wait_for_url("**/password/reset/complete/")
    screenshot(stranger, "password-reset-done")
    stranger.get_by_role("link", name="Sign in").first.click()
    stranger.get_by_label("Username").fill("helga")
    stranger.get_by_label("Password").fill(NEW)
    stranger.get_by_role("button", name="Sign in").click()
    stranger.wait_for_url(lambda url: not url.endswith("/login/"))
    assert "Your games" in stranger.content()
