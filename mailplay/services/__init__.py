"""Play-by-email use-cases: tokens (reply addresses), inbound (process one received email),
answers (the reply to every processed email), autodraw (who gets the forced draw)."""
