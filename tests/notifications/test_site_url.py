"""Links in emails follow the port the service runs on when no site URL is configured."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _site_url(**env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if k not in {"PORT", "CANASTA_SITE_URL"}}
    code = (
        "import django, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', "
        "'canasta_site.settings'); django.setup(); from django.conf import settings; "
        "print(settings.CANASTA_SITE_URL)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout.strip().splitlines()[-1]


def test_site_url_follows_port() -> None:
    assert _site_url(PORT="8123") == "http://127.0.0.1:8123"


def test_site_url_defaults_to_8000_and_an_explicit_one_wins() -> None:
    assert _site_url() == "http://127.0.0.1:8000"
    assert _site_url(PORT="8123", CANASTA_SITE_URL="https://canasta.example/") == (
        "https://canasta.example"
    )
