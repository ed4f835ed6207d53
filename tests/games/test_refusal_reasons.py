"""Refusals are built from a reason and its parameters, never parsed back from English
(games/services/reasons.py, games/refusals.py, docs/i18n.md "Error messages").
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.utils import translation

from games.engine.errors import REASONS
from games.messages import error_message
from games.refusals import ALONE, refusal_text
from games.services import lobby
from games.services.errors import ErrorKind, GameError, refused
from games.services.moves import moves_submit
from games.services.reasons import SERVICE_REASONS, service_text
from tests.game_fixtures import current_table, user_at

ROOT = Path(__file__).resolve().parents[2]
APPS = ("games", "accounts", "clients", "notifications", "mailplay", "api", "web", "canasta_site")
PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")
# The functions that raise a service refusal, and the position of their reason.
RAISERS = {"refused": 1, "ApiError": 1, "_invalid": 0, "PermissionRefused": 0}


def _placeholders(reason: str) -> set[str]:
    entry = SERVICE_REASONS[reason]
    with translation.override(None):
        names = set(PLACEHOLDER.findall(str(entry.text)))
    return names | ({entry.count} if entry.count else set())


def _sample(reason: str) -> dict[str, object]:
    return {
        name: 2 if name in {"count", "limit", "low", "high"} else "x"
        for name in _placeholders(reason)
    }


def _sources() -> Iterator[Path]:
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            if "engine" not in path.parts and "migrations" not in path.parts:
                yield path


def _calls() -> Iterator[tuple[Path, ast.Call, str]]:
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                yield path, node, name


@pytest.mark.parametrize("lang", ["en", "de", "is"])
def test_every_service_reason_reads_in_every_language(lang: str) -> None:
    for reason in SERVICE_REASONS:
        with translation.override(lang):
            text = service_text(reason, _sample(reason))
        assert text and "%(" not in text, (lang, reason, text)


def test_every_reason_is_raised_with_a_known_reason_and_the_parameters_of_its_sentence() -> None:
    seen = 0
    for path, call, name in _calls():
        if name not in RAISERS or len(call.args) <= RAISERS[name]:
            continue
        argument = call.args[RAISERS[name]]
        if not (isinstance(argument, ast.Constant) and isinstance(argument.value, str)):
            continue  # a reason chosen at run time (invitation_refusal): checked by its table
        seen += 1
        reason = argument.value
        where = f"{path.relative_to(ROOT)}:{call.lineno}"
        assert reason in SERVICE_REASONS, f"{where}: unknown reason {reason!r}"
        if any(keyword.arg is None for keyword in call.keywords):
            continue  # **params: the rendering test below covers them
        given = {keyword.arg for keyword in call.keywords}
        assert _placeholders(reason) <= given, f"{where}: {reason} needs {_placeholders(reason)}"
    assert seen > 60


def test_every_game_error_built_directly_carries_a_reason() -> None:
    """A GameError made without `refused` passes on an engine refusal's reason."""
    for path, call, name in _calls():
        if name == "GameError" and path.name != "errors.py":
            keywords = {keyword.arg for keyword in call.keywords}
            assert "reason" in keywords, f"{path.relative_to(ROOT)}:{call.lineno}"


def test_no_sentence_is_made_by_matching_english() -> None:
    for module in ("games/messages.py", "games/refusals.py", "games/services/reasons.py"):
        tree = ast.parse((ROOT / module).read_text(encoding="utf-8"))
        imported = {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import | ast.ImportFrom)
            for alias in node.names
        } | {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert "re" not in imported, module


def test_reasons_do_not_clash_and_codes_are_stable() -> None:
    assert not set(SERVICE_REASONS) & set(REASONS)
    assert all(re.fullmatch(r"[a-z_]+", entry.code) for entry in SERVICE_REASONS.values())


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", "Only 1 seat is left to invite to."),
        ("de", "Nur noch 1 Platz ist für Einladungen frei."),
    ],
)
def test_a_plural_sentence_takes_the_form_of_its_figure(lang: str, expected: str) -> None:
    error = refused(ErrorKind.INVALID, "invite_seats_left", count=1)
    assert error.code == "invalid_invite"
    with translation.override(lang):
        assert error_message(error) == expected


def test_the_message_is_english_and_the_sentence_follows_the_reader() -> None:
    error = refused(ErrorKind.INVALID, "chat_too_long", {"limit": 2000}, limit=2000, length=2345)
    assert error.message == "A message can be at most 2,000 characters long (yours has 2,345)."
    assert error.details == {"limit": 2000}
    with translation.override("de"):
        assert "2.000" in error_message(error) and "2.345" in error_message(error)


def test_a_game_error_without_a_reason_reads_as_its_kinds_sentence() -> None:
    error = GameError(ErrorKind.CONFLICT, "brand_new", "Something new.")
    with translation.override("en"):
        assert error_message(error) == "Something new."
    with translation.override("de"):
        assert error_message(error) != "Something new."


@pytest.mark.parametrize("lang", ["en", "de", "is"])
def test_a_player_without_partners_is_not_told_about_a_side(lang: str) -> None:
    """Two- and three-handed games have no partners: "you", not "your side" / "Ihr Team"."""
    params = {"rank": "7", "cards": ["7H", "7D"], "need": 50, "worth": 40, "have": 0}
    with translation.override(lang):
        for reason in ALONE:
            alone = refusal_text(reason, {**params, "partners": False})
            partnered = refusal_text(reason, {**params, "partners": True})
            assert alone != partnered, (lang, reason)
            for word in ("side", "Team", "Seite", "lið"):
                assert word not in alone, (lang, reason, alone)


@pytest.mark.django_db
def test_a_two_handed_refusal_says_you(users: dict[str, Any]) -> None:
    game = lobby.game_create(creator=users["alice"], variant="classic", players=2)
    game = lobby.game_join(game_id=game.pk, user=users["bob"])
    table = current_table(game)
    card = next(c for c in table.hands[table.turn] if c[0] not in "23J")
    player = user_at(game, table.turn)
    with pytest.raises(GameError) as raised:
        moves_submit(
            game_id=game.pk,
            user=player,
            actions=[{"type": "draw"}, {"type": "meld", "add": {card[0]: [card]}}],
            expected_version=game.version,
        )
    assert raised.value.reason == "no_such_meld"
    assert raised.value.params["partners"] is False
    with translation.override("de"):
        text = error_message(raised.value)
    assert "Sie haben keine Meldung" in text and "Team" not in text
