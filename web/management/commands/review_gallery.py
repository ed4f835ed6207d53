"""manage.py review_gallery [--out var/gallery]: every page and email kind in en, de and is,
as files for a native reader (web/gallery.py, docs/i18n.md). Nothing stays in the database."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction
from django.test.utils import override_settings

from web.gallery import gallery_write


class Command(BaseCommand):
    help = "Render every page kind and every email kind in en, de and is to files for review."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--out", default=str(Path(settings.BASE_DIR) / "var" / "gallery"))

    def handle(self, *args: Any, **options: Any) -> None:
        out = Path(options["out"])
        # The pages are fetched with Django's test client from "localhost"; the world made
        # for them is rolled back (no outbox row is ever delivered: commit hooks never run).
        with override_settings(ALLOWED_HOSTS=["localhost"]), transaction.atomic():
            written = gallery_write(out)
            transaction.set_rollback(True)
        total = sum(len(files) for files in written.values())
        self.stdout.write(f"review gallery: {total} files in {out} (open {out / 'index.html'})")
