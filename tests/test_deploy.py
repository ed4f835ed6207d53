"""Production settings pass Django's deployment checklist with no warning (README, Deployment)."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _check(**env: str) -> subprocess.CompletedProcess[str]:
    dropped = ("DATABASE_URL", "REDIS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE")
    environment = {k: v for k, v in os.environ.items() if k not in dropped}
    environment.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_it_passes_check_deploy_with_production_settings():
    proc = _check(
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="canasta.example.org",
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no issues" in proc.stdout


def test_development_settings_are_flagged_by_check_deploy():
    # The same check fails on the dev defaults: the test above is not vacuous.
    proc = _check(DEBUG="1")
    assert proc.returncode != 0
