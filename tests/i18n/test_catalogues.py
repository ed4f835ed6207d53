"""The translation checks of CI (docs/i18n.md, "The checks"): they run with the normal suite.

- every German and Icelandic catalogue (`*/locale/{de,is}/LC_MESSAGES/django.po`) is
  complete: no untranslated and no fuzzy message;
- every compiled catalogue (django.mo, committed: production needs no gettext tools) says
  exactly what its .po says;
- where xgettext is installed, every string marked in the code is in its app's catalogue;
- no template shows a person text that is not marked for translation.
"""

from __future__ import annotations

import gettext
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.i18n.catalogues import (
    ROOT,
    catalogues,
    po_entries,
    template_skeleton,
    templates,
    unmarked_texts,
)

CATALOGUES = catalogues()


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_there_are_catalogues_for_the_pages_the_api_and_the_clients() -> None:
    names = {_name(p) for p in CATALOGUES}
    for app in ("web", "api", "clients"):
        for lang in ("de", "is"):
            assert f"{app}/locale/{lang}/LC_MESSAGES/django.po" in names


@pytest.mark.parametrize("path", CATALOGUES, ids=_name)
def test_every_message_is_translated_and_none_is_fuzzy(path: Path) -> None:
    entries = po_entries(path)
    header = next((e for e in entries if e.msgid == "" and e.msgctxt is None), None)
    assert header is not None, f"{_name(path)} has no header"
    assert "Plural-Forms: nplurals=2;" in header.msgstr[0], "the header needs Plural-Forms"
    problems = []
    for entry in entries:
        if entry is header or entry.obsolete:
            continue
        if "fuzzy" in entry.flags:
            problems.append(f"line {entry.line}: fuzzy: {entry.msgid!r}")
        elif not entry.translated:
            problems.append(f"line {entry.line}: untranslated: {entry.msgid!r}")
    assert not problems, f"{_name(path)}:\n" + "\n".join(problems)


# German addresses the player as "Sie" everywhere (docs/i18n.md): many of our players are not
# young, and a page that says "du" in one line and "Sie" in the next reads as careless.
_DU = re.compile(r"\b(du|dich|dir|dein|deine|deinen|deinem|deiner|deines)\b", re.IGNORECASE)


@pytest.mark.parametrize("path", [p for p in CATALOGUES if "/de/" in p.as_posix()], ids=_name)
def test_german_says_sie_never_du(path: Path) -> None:
    found = [
        f"line {entry.line}: {text!r}"
        for entry in po_entries(path)
        if entry.msgid and not entry.obsolete
        for text in entry.msgstr.values()
        if _DU.search(text)
    ]
    assert not found, f"{_name(path)} says du:\n" + "\n".join(found)


@pytest.mark.parametrize("path", CATALOGUES, ids=_name)
def test_placeholders_are_kept(path: Path) -> None:
    """A translation names exactly the placeholders of its message (else: a KeyError on the
    page, or a value silently left out)."""
    named = re.compile(r"%\((\w+)\)[sd]")
    problems = []
    for entry in po_entries(path):
        if not entry.msgid or entry.obsolete:
            continue
        wanted = set(named.findall(entry.msgid)) | set(named.findall(entry.msgid_plural or ""))
        for index, text in entry.msgstr.items():
            got = set(named.findall(text))
            # The singular form of a plural may leave out the count ("one card").
            missing = (
                wanted - got - ({"count", "counter", "free", "limit"} if index == 0 else set())
            )
            if got - wanted or missing:
                problems.append(f"line {entry.line}: {entry.msgid!r} -> {text!r}")
    assert not problems, f"{_name(path)}:\n" + "\n".join(problems)


@pytest.mark.parametrize("path", CATALOGUES, ids=_name)
def test_the_compiled_catalogue_is_up_to_date(path: Path) -> None:
    compiled = path.with_suffix(".mo")
    assert compiled.exists(), f"{_name(compiled)} is missing: run compilemessages (docs/i18n.md)"
    with compiled.open("rb") as file:
        catalog = gettext.GNUTranslations(file)._catalog  # type: ignore[attr-defined]
    expected: dict[object, str] = {}
    for entry in po_entries(path):
        if entry.obsolete or "fuzzy" in entry.flags or not entry.translated:
            continue
        if entry.msgid_plural is None:
            expected[entry.key] = entry.msgstr[0]
        else:
            for index, text in entry.msgstr.items():
                expected[(entry.key, index)] = text
    actual = {k: v for k, v in catalog.items() if k != ""}
    expected.pop("", None)
    stale = sorted(str(k) for k in expected.keys() ^ actual.keys())
    stale += sorted(str(k) for k in expected.keys() & actual.keys() if expected[k] != actual[k])
    assert not stale, (
        f"{_name(compiled)} differs from its .po (run compilemessages, docs/i18n.md): {stale[:5]}"
    )


def _apps_with_catalogues() -> list[str]:
    return sorted({p.relative_to(ROOT).parts[0] for p in CATALOGUES})


@pytest.mark.parametrize("app", _apps_with_catalogues())
def test_every_marked_string_is_in_the_catalogue(app: str, tmp_path: Path) -> None:
    """makemessages, run on a copy of the app, finds no message the catalogue lacks."""
    if shutil.which("xgettext") is None:
        pytest.skip("xgettext is not installed (apt-get install gettext): catalogues not compared")
    copy = tmp_path / app
    shutil.copytree(
        ROOT / app, copy, ignore=shutil.ignore_patterns("__pycache__", "*.mo", "pending-*.po")
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DJANGO_SETTINGS_MODULE": "canasta_site.settings"}
    # -P: the copy's own modules (clients/selectors.py) must not shadow the standard library's.
    subprocess.run(
        [sys.executable, "-P", str(ROOT / "scripts" / "makemessages.py"), "-l", "de", "--no-wrap"],
        cwd=copy,
        env=env,
        check=True,
        capture_output=True,
    )
    found = {e.key for e in po_entries(copy / "locale/de/LC_MESSAGES/django.po") if e.msgid}
    known = {
        e.key
        for e in po_entries(ROOT / app / "locale/de/LC_MESSAGES/django.po")
        if e.msgid and not e.obsolete
    }
    assert not found - known, (
        f"marked in {app}/ but not in its catalogue (run makemessages, docs/i18n.md): "
        f"{sorted(found - known)[:10]}"
    )
    assert not known - found, (
        f"in {app}'s catalogue but no longer in the code (run makemessages --no-obsolete): "
        f"{sorted(known - found)[:10]}"
    )


@pytest.mark.parametrize("path", templates(), ids=_name)
def test_templates_show_no_text_that_is_not_marked_for_translation(path: Path) -> None:
    texts = unmarked_texts(path.read_text(encoding="utf-8"))
    assert not texts, f"{_name(path)}: not marked for translation: {texts}"


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("<p>Hello {{ name }}</p>", ["Hello"]),
        ('<input aria-label="Invitation link">', ["Invitation link"]),
        ('<input type="submit" value="Go">', ["Go"]),
        ("{% load i18n %}<p>{% translate 'Hello' %} · 3 ♠ 12:00</p>", []),
        ("{% blocktranslate %}Hi {{ name }}{% endblocktranslate %}", []),
        ("<script>var a = 'text';</script><p>Canasta · API</p>", []),
        ('<input type="hidden" name="form" value="email">', []),
        ("{% comment %}a note{% endcomment %}{# another #}", []),
    ],
)
def test_the_template_check_finds_what_a_person_reads(source: str, found: list[str]) -> None:
    assert unmarked_texts(source) == found
    assert "\x00" in template_skeleton("{{ x }}")


@pytest.mark.parametrize("lang", ["de", "is"])
def test_a_message_reads_the_same_in_every_apps_catalogue(lang: str) -> None:
    # Django merges the apps' catalogues and the first app wins: two translations of one
    # message would make a word change from page to email ("Klassísk canasta").
    seen: dict[tuple[str | None, str], tuple[str, str]] = {}
    clashes = []
    for path in CATALOGUES:
        if f"/locale/{lang}/" not in path.as_posix():
            continue
        for entry in po_entries(path):
            if not entry.msgid:
                continue
            key = (entry.msgctxt, entry.msgid)
            text = repr(sorted(entry.msgstr.items()))
            if key in seen and seen[key][1] != text:
                clashes.append(f"{entry.msgid!r}: {seen[key][0]} and {_name(path)} differ")
            seen.setdefault(key, (_name(path), text))
    assert not clashes, "\n".join(clashes[:20])
