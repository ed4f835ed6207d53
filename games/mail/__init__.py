"""Play by email: the pure parts (no Django) and, later, the mail service.

- `body`: the player's own words from a reply (quotes and signatures stripped), HTML to text.
- `commands`: the command language of replies (`draw`, `take with 7h 7d`, `meld ...`) parsed
  into engine actions (``docs/formats.md``), and actions formatted back as commands.
- `text`: the table as one seat sees it, as plain text (and simple HTML) for the turn email.

- `parsing`, `reading`, `formatting`, `help`, `vocabulary`: the parts of `commands` (lines
  into commands, words into cards, actions written as commands, the help; the words of
  English, German and Icelandic).

These modules import nothing but the standard library, `games.engine`, `games.display` and
Django's translation functions (messages in the player's language), so the web page and
tests can use them without a database.
"""
