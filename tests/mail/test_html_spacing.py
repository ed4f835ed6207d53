"""The HTML table reads like the plain-text one: a label keeps its space before the cards."""

from __future__ import annotations

import html
import re

from games.mail.text import render_table_html, render_table_text
from tests.mail.test_text import NAMES, _view


def _visible_text(fragment: str) -> str:
    """What a mail client shows of the fragment, one paragraph a line, help text left out."""
    body = fragment.split("<pre>")[0]
    return html.unescape(re.sub(r"<[^>]+>", "", body))


def test_html_keeps_the_space_between_a_label_and_its_cards() -> None:
    fragment = render_table_html(_view(), legal=None, players=NAMES[:4], deadline=None)
    shown = _visible_text(fragment)
    assert "top: 10♠" in shown
    assert "Red threes: 3♥" in shown
    assert "top:10" not in shown and "threes:3" not in shown


def test_html_drops_only_the_indentation_the_padding_shows() -> None:
    view = _view()
    text = render_table_text(view, legal=None, players=NAMES[:4], deadline=None)
    fragment = render_table_html(view, legal=None, players=NAMES[:4], deadline=None)
    assert "    Red threes: 3♥" in text  # indented in text...
    # ...a padded paragraph in HTML, its text starting at the label.
    assert re.search(r'padding-left:24px">Red threes: <span', fragment)
