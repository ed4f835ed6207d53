"""The review gallery (web/gallery.py): every page and email kind in each language, written
to files, with German and Icelandic numbers grouped as they write them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.core.management import call_command

from games.models import Game
from tests.i18n.test_formats import assert_no_english_grouping

pytestmark = pytest.mark.django_db


def test_the_gallery_renders_every_kind_in_three_languages_and_leaves_nothing(
    tmp_path: Path, settings
) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    call_command("review_gallery", out=str(tmp_path))
    assert Game.objects.count() == 0  # rolled back
    for lang in ("en", "de", "is"):
        pages = {p.stem for p in (tmp_path / lang / "pages").iterdir()}
        assert {"lobby", "game", "scores", "replay", "profile", "invitation"} <= pages
        emails = {p.name for p in (tmp_path / lang / "emails").iterdir()}
        assert {"your_turn.txt", "hand_over.txt", "match_over.txt", "invitation.txt"} <= emails
        for path in (tmp_path / lang).rglob("*"):
            if path.is_file() and lang != "en":
                text = re.sub(r"<[^>]+>", " ", path.read_text())
                assert_no_english_grouping(text)
    assert "Partie" in (tmp_path / "de" / "emails" / "match_over.txt").read_text()
    assert (tmp_path / "index.html").is_file()
