"""Reply extraction: the player's words survive, quotes and signatures do not."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from games.mail.body import extract_reply_text, html_to_text
from games.mail.commands import parse_commands

TURN_EMAIL = """\
Classic Canasta, 4 players
It is your turn: draw from the stock or take the discard pile.

YOUR HAND (11 cards)
  A♠ A♥ | K♦ | 9♣ 9♣ | 7♥ | 2♣ JK

WHAT YOU CAN DO NOW
  draw
  take with 7h 7d
"""


def quoted(text: str) -> str:
    return "\n".join(("> " + line).rstrip() for line in text.splitlines())


GMAIL = f"""\
draw
meld 7h 7d 7s
discard 9c

On Mon, May 6, 2024 at 9:14 AM Canasta <turns@canasta.example> wrote:

{quoted(TURN_EMAIL)}
"""

GMAIL_WRAPPED = f"""\
Draw; discard 9c

On Mon, May 6, 2024 at 9:14 AM Canasta by correspondence <
turns+g123.s2@canasta.example> wrote:

{quoted(TURN_EMAIL)}
"""

OUTLOOK = f"""\
take with 7h 7d
discard 9c

________________________________
From: Canasta <turns@canasta.example>
Sent: Monday, May 6, 2024 9:14 AM
To: Alice <alice@example.com>
Subject: Your turn in game 123

{TURN_EMAIL}
"""

OUTLOOK_OLD = f"""\
draw\r
discard 9c\r
\r
-----Original Message-----\r
From: Canasta [mailto:turns@canasta.example] \r
Sent: Monday, May 06, 2024 9:14 AM\r
To: Alice\r
Subject: Your turn in game 123\r
\r
{TURN_EMAIL}"""

APPLE_MOBILE = f"""\
draw
discard 9♣

Sent from my iPhone

> On 6 May 2024, at 09:14, Canasta <turns@canasta.example> wrote:
>
{quoted(TURN_EMAIL)}
"""

SIGNATURE = """\
draw
discard 9c

--\x20
Alice Example
Head of Canasta, Example Ltd.
meld this is not a command
"""

BOTTOM_POSTED = f"""\
On Mon, May 6, 2024 at 9:14 AM Canasta <turns@canasta.example> wrote:
{quoted(TURN_EMAIL)}

draw
discard 9c
"""

INTERLEAVED = """\
> WHAT YOU CAN DO NOW
>   draw
draw
>   take with 7h 7d
discard 9c
"""

OUTLOOK_MOBILE = f"""\
draw; discard 9c

Get Outlook for Android<https://aka.ms/AAb9ysg>
________________________________
From: Canasta <turns@canasta.example>
Sent: Monday, May 6, 2024 9:14:00 AM
{TURN_EMAIL}
"""

FRENCH = f"""\
draw
discard 9c

Le lun. 6 mai 2024 à 09:14, Canasta <turns@canasta.example> a écrit :

{quoted(TURN_EMAIL)}
"""

GERMAN_OUTLOOK = f"""\
draw
discard 9c

Von: Canasta <turns@canasta.example>
Gesendet: Montag, 6. Mai 2024 09:14
An: Alice
Betreff: Ihr Zug

{TURN_EMAIL}
"""

FORWARDED_HEADER_UNQUOTED = f"""\
draw
discard 9c

On Mon, 6 May 2024 at 09:14, Canasta <turns@canasta.example> wrote:
{TURN_EMAIL}
"""

EXPECTED = "draw\ndiscard 9c"


def test_gmail() -> None:
    assert extract_reply_text(GMAIL) == "draw\nmeld 7h 7d 7s\ndiscard 9c"
    assert extract_reply_text(GMAIL_WRAPPED) == "Draw; discard 9c"


def test_outlook() -> None:
    assert extract_reply_text(OUTLOOK) == "take with 7h 7d\ndiscard 9c"
    assert extract_reply_text(OUTLOOK_OLD) == EXPECTED
    assert extract_reply_text(OUTLOOK_MOBILE) == "draw; discard 9c"
    assert extract_reply_text(GERMAN_OUTLOOK) == EXPECTED


def test_apple_mail_and_mobile_footer() -> None:
    assert extract_reply_text(APPLE_MOBILE) == "draw\ndiscard 9♣"


def test_signature() -> None:
    assert extract_reply_text(SIGNATURE) == EXPECTED
    assert extract_reply_text("draw\n--\nAlice") == "draw"


def test_bottom_posted_and_interleaved() -> None:
    assert extract_reply_text(BOTTOM_POSTED) == EXPECTED
    assert extract_reply_text(INTERLEAVED) == EXPECTED


def test_other_languages_and_unquoted_attribution() -> None:
    assert extract_reply_text(FRENCH) == EXPECTED
    assert extract_reply_text(FORWARDED_HEADER_UNQUOTED) == EXPECTED


def test_plain_text_and_edges() -> None:
    assert extract_reply_text("  \n\ndraw\n\n  discard 9c  \n\n") == "draw\n\n  discard 9c"
    assert extract_reply_text("") == ""
    assert extract_reply_text(None) == ""  # type: ignore[arg-type]
    # "From:" without a header block is the player's own line (and the parser's business).
    assert extract_reply_text("From: me\ndraw") == "From: me\ndraw"


def test_every_sample_parses() -> None:
    view = {"seat": 0, "variant": "classic", "hand": ["7H", "7D", "7S", "9C"], "melds": [{}, {}]}
    for sample in (GMAIL, GMAIL_WRAPPED, OUTLOOK, OUTLOOK_OLD, APPLE_MOBILE, SIGNATURE,
                   BOTTOM_POSTED, INTERLEAVED, OUTLOOK_MOBILE, FRENCH, GERMAN_OUTLOOK):  # fmt: skip
        assert parse_commands(extract_reply_text(sample), view).actions


# --- HTML -----------------------------------------------------------------------------

GMAIL_HTML = """\
<div dir="ltr">draw<div>meld 7h&nbsp;7d 7s</div><div>discard 9&#9827;</div><div><br></div>
<div><br></div><span class="gmail_signature_prefix">-- </span><br>
<div dir="ltr" class="gmail_signature" data-smartmail="gmail_signature">Alice<br>meld nope</div>
</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Mon, May 6, 2024 at
9:14 AM Canasta &lt;<a href="mailto:turns@canasta.example">turns@canasta.example</a>&gt; wrote:<br>
</div><blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex">
<h3>YOUR HAND</h3><p>A♠ A♥</p><p>draw</p></blockquote></div>
"""

OUTLOOK_HTML = """\
<html><head><style>p {margin:0}</style><title>Re: turn</title></head><body>
<div style="font-family: Calibri">take with 7h 7d</div>
<div style="font-family: Calibri">discard 9c</div>
<div id="appendonsend"></div>
<hr style="display:inline-block;width:98%" tabindex="-1">
<div id="divRplyFwdMsg" dir="ltr"><font face="Calibri"><b>From:</b> Canasta &lt;turns@canasta.example&gt;<br>
<b>Sent:</b> Monday, May 6, 2024 9:14 AM<br><b>To:</b> Alice<br><b>Subject:</b> Your turn</font></div>
<div><p>draw</p><p>take with 7h 7d</p></div>
<script>var x = "meld 1 2 3";</script>
</body></html>
"""

APPLE_HTML = """\
<html><body dir="auto">draw<div>discard 9c</div><div><br><blockquote type="cite">On 6 May 2024,
at 09:14, Canasta &lt;turns@canasta.example&gt; wrote:<br><br></blockquote></div>
<blockquote type="cite"><div dir="ltr"><pre>YOUR HAND
  A♠ A♥</pre></div></blockquote></body></html>
"""


def test_html_to_text_basics() -> None:
    text = html_to_text("<p>draw</p><p>meld 7h&nbsp;7d  7s</p><ul><li>discard 9c</li></ul>")
    assert text.splitlines() == ["draw", "meld 7h 7d 7s", "discard 9c"]
    assert html_to_text("a<br>b<br/>c") == "a\nb\nc"
    assert html_to_text("<style>x{}</style><script>alert(1)</script>ok") == "ok"
    assert html_to_text("<blockquote>quoted<blockquote>deeper</blockquote></blockquote>") == (
        "> quoted\n> > deeper"
    )
    assert html_to_text("<pre>a\n  b</pre>") == "a\n  b"
    assert html_to_text("&lt;draw&gt; &amp; &#9829;") == "<draw> & ♥"
    assert html_to_text("") == ""
    assert html_to_text(None) == ""  # type: ignore[arg-type]


def test_html_replies() -> None:
    assert extract_reply_text(html_to_text(GMAIL_HTML)) == "draw\nmeld 7h 7d 7s\ndiscard 9♣"
    assert extract_reply_text(html_to_text(OUTLOOK_HTML)) == "take with 7h 7d\ndiscard 9c"
    assert extract_reply_text(html_to_text(APPLE_HTML)) == EXPECTED


@settings(max_examples=150)
@given(st.text(max_size=400))
def test_never_raises(text: str) -> None:
    out = extract_reply_text(text)
    assert isinstance(out, str) and len(out) <= len(text.replace("\r\n", "\n")) + 1
    assert isinstance(html_to_text(text), str)
    assert isinstance(html_to_text("<div>" + text + "<blockquote>" + text), str)
