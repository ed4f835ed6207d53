"""Play by email: reply addresses (tokens), inbound mail (MTA pipe, Maildir, webhook), the
answer to every processed email, and the forced draw for email players.

The pure parts (reply text extraction, the command language, the text table) live in
games.mail; this app holds what needs the database. docs/play-by-email.md.
"""
