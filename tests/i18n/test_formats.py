"""Numbers, dates and durations as each language writes them (games/l10n.py), on pages and in
emails: no English grouping ("1,915") in German or Icelandic, CLDR's date patterns and zone
names, remaining times in the reader's language, and SVG coordinates never localized."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.template import Context, Template
from django.utils import timezone, translation

from games import l10n
from games.services.moves import game_resign
from tests.game_fixtures import play_long_enough, start_game, user_at

BERLIN = ZoneInfo("Europe/Berlin")
REYKJAVIK = ZoneInfo("Atlantic/Reykjavik")
# A number grouped the English way: a German reads "1,915" as one point nine one five.
ENGLISH_GROUPING = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d,])")


def assert_no_english_grouping(text: str) -> None:
    """The check for German and Icelandic text (pages and emails)."""
    found = ENGLISH_GROUPING.findall(text)
    assert not found, f"English-grouped numbers in a German/Icelandic text: {found[:5]}"


def test_the_check_finds_an_english_grouped_number() -> None:
    with pytest.raises(AssertionError):
        assert_no_english_grouping("Ihre Seite 1,915, Bot 2 & Bot 4 1,440")
    assert_no_english_grouping("Ihr Team 1.915, Bot 2 & Bot 4 1.440 (Karten 10, 20)")


@pytest.mark.parametrize(("lang", "shown"), [("en", "1,915"), ("de", "1.915"), ("is", "1.915")])
def test_numbers_are_grouped_as_the_language_groups_them(lang: str, shown: str) -> None:
    assert l10n.number(1915, lang) == shown
    assert l10n.number(915, lang) == "915"
    assert l10n.signed(-1915, lang) == "-" + shown
    assert l10n.signed(1915, lang) == "+" + shown
    assert l10n.signed(0, lang) == "0"


def test_the_active_language_is_used_when_none_is_given() -> None:
    with translation.override("de"):
        assert l10n.number(12345) == "12.345"
        assert l10n.scores([1915, 1440], ["Ihr Team", "Bot 2 & Bot 4"]) == (
            "Ihr Team 1.915, Bot 2 & Bot 4 1.440"
        )
    with translation.override("en"):
        assert l10n.scores([1915, 1440]) == "1,915 / 1,440"


def test_moments_follow_cldr_in_each_language_with_the_zone_readers_know() -> None:
    winter = datetime(2026, 12, 4, 12, 52, tzinfo=UTC)
    summer = datetime(2026, 7, 3, 12, 52, tzinfo=UTC)
    assert l10n.moment(winter, "de", BERLIN) == "Fr., 4. Dez., 13:52 MEZ"
    assert l10n.moment(summer, "de", BERLIN) == "Fr., 3. Juli, 14:52 MESZ"
    assert l10n.moment(winter, "en", BERLIN) == "Fri, Dec 4, 13:52 CET"
    # Icelandic month and weekday names are written in lower case.
    assert l10n.moment(winter, "is", REYKJAVIK) == "fös., 4. des., 12:52 GMT"
    assert l10n.moment(winter, "de", BERLIN, year=True) == "Fr., 4. Dez. 2026, 13:52 MEZ"
    assert l10n.day(winter, "is", REYKJAVIK) == "4. des. 2026"
    assert l10n.clock(winter, "de", BERLIN) == "13:52"


@pytest.mark.parametrize(
    ("lang", "shown"),
    [
        ("en", "2 days and 23 hours"),
        ("de", "2 Tage und 23 Stunden"),
        ("is", "2 dagar og 23 klukkustundir"),
    ],
)
def test_remaining_time_in_the_readers_language(lang: str, shown: str) -> None:
    now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    until = now + timedelta(days=2, hours=23, minutes=20)
    assert l10n.remaining(until, now, lang) == shown
    assert l10n.remaining(now - timedelta(hours=1), now, lang) == l10n.duration(
        timedelta(minutes=1), lang
    )


def test_the_template_filters_use_the_active_language_and_zone() -> None:
    template = Template(
        "{% load canasta_l10n %}{{ n|number }} · {{ at|moment }} · {{ at|moment:'year' }}"
        " · {{ at|day }} · {{ at|clock }}"
    )
    at = datetime(2026, 12, 4, 12, 52, tzinfo=UTC)
    with translation.override("is"), timezone.override(REYKJAVIK):
        shown = template.render(Context({"n": 1915, "at": at}))
    assert shown == (
        "1.915 · fös., 4. des., 12:52 GMT · fös., 4. des. 2026, 12:52 GMT · 4. des. 2026 · 12:52"
    )


@pytest.mark.django_db
def test_the_german_profile_groups_ratings_and_keeps_svg_coordinates_plain(
    confirmed_users, browser_for
):
    users = confirmed_users  # only confirmed players play rated matches (docs/ratings.md)
    for seed in (1, 2):
        game = start_game(users, options={"target": 100})
        game = play_long_enough(game, seed)
        game_resign(game_id=game.pk, user=user_at(game, 1))
    page = browser_for("eve", language="de").get("/players/alice/").content.decode()
    svg = re.search(r"<svg class=\"rating-chart\".*?</svg>", page, re.S).group(0)
    for name in ("cx", "cy", "x", "y", "x1", "y1", "x2", "y2"):
        for value in re.findall(rf' {name}="([^"]+)"', svg):
            assert re.fullmatch(r"-?\d+(\.\d+)?", value), (name, value)
    for pair in re.search(r'<polyline points="([^"]+)"', svg).group(1).split():
        assert re.fullmatch(r"\d+(\.\d+)?,\d+(\.\d+)?", pair), pair
    assert_no_english_grouping(re.sub(r"<[^>]+>", " ", page))


@pytest.mark.django_db
@pytest.mark.parametrize("lang", ["de", "is"])
def test_hand_and_match_emails_name_the_sides_and_group_numbers(users, lang):
    from notifications.emails import render
    from notifications.payloads import hand_over_payload, match_over_payload

    game = start_game(users)
    result = {"hand": 1, "reason": "went_out", "seed": "ab", "commitment": "cd"}
    hand = render(
        kind="hand_over",
        payload=hand_over_payload(
            game=game,
            seat=0,
            hand_result={**result, "result": {"scores": [1425, 135]}},
            totals=[1425, 135],
        ),
        lang=lang,
    )
    over = render(
        kind="match_over",
        payload=match_over_payload(
            game=game, seat=1, totals=[5100, 3000], winner_side=0, reason="match_over"
        ),
        lang=lang,
    )
    for email in (hand, over):
        assert_no_english_grouping(email.text)
        assert "Team 0" not in email.text and "lið 0" not in email.text
    assert "1.425" in hand.text and "5.100" in over.text
    winners = " & ".join(
        s.display_name
        for s in sorted(game.seats.all(), key=lambda s: s.number)
        if s.number % 2 == 0
    )
    won = {"de": f"{winners} haben gewonnen.", "is": f"{winners} unnu."}[lang]
    assert won in over.text


@pytest.mark.django_db
def test_the_vacation_form_prefills_iso_dates_and_account_tokens_are_named(users, browser_for):
    from clients.services.tokens import ACCOUNT_TOKEN_NAME, account_token_create

    client = browser_for("alice", language="de", time_zone="Europe/Berlin")
    page = client.get("/settings/").content.decode()
    values = re.findall(r'type="date"[^>]*value="([^"]*)"', page)
    assert values and all(re.fullmatch(r"\d{4}-\d{2}-\d{2}", v) for v in values), values
    account_token_create(owner=users["alice"])
    tokens = client.get("/account/tokens/").content.decode()
    assert ACCOUNT_TOKEN_NAME not in tokens and "Kontoschlüssel</strong>" in tokens


@pytest.mark.parametrize(("lang", "shown"), [("de", "1.500"), ("is", "1.500"), ("en", "1,500")])
def test_numbers_in_refusals_are_grouped_as_the_language_groups_them(lang: str, shown: str):
    from games.refusals import refusal_text

    with translation.override(lang):
        text = refusal_text("initial_meld_too_low", {"need": 1500, "worth": 90})
    assert shown in text and "1500" not in text
