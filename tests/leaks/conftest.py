"""Reply tokens as they are issued. The database keeps a token only as its digest
(games.fields.DigestField), so the leak tests, which look for every token's text in what each
channel shows, learn the texts where they are made (mailplay.services.tokens.new_token)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from games.fields import digest
from mailplay.models import ReplyToken
from mailplay.services import tokens

_ISSUED: list[str] = []


@pytest.fixture(autouse=True)
def _reply_tokens_recorded(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    made = tokens.new_token

    def recorded() -> str:
        token = made()
        _ISSUED.append(token)
        return token

    _ISSUED.clear()
    monkeypatch.setattr(tokens, "new_token", recorded)
    yield
    _ISSUED.clear()


def reply_tokens() -> dict[str, int]:
    """Every stored reply token's text, with the user it is for."""
    stored = dict(ReplyToken.objects.values_list("token", "user_id"))
    return {text: stored[digest(text)] for text in _ISSUED if digest(text) in stored}
