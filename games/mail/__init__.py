"""Play by email: the pure parts (no Django) and, later, the mail service.

- `body`: the player's own words from a reply (quotes and signatures stripped), HTML to text.
- `commands`: the command language of replies (`draw`, `take with 7h 7d`, `meld ...`) parsed
  into engine actions (``docs/formats.md``), and actions formatted back as commands.
- `text`: the table as one seat sees it, as plain text (and simple HTML) for the turn email.

These three modules import nothing but the standard library and `games.engine`, so the web
page and tests can use them without a database.
"""
