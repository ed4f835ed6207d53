"""Icelandic date and time formats that Django leaves to its English defaults: "1. desember
2026 kl. 14:30", the way Icelandic writes them. Django's own Icelandic formats give the rest.
"""

DATETIME_FORMAT = r"j. F Y \k\l. H:i"
SHORT_DATETIME_FORMAT = "j.n.Y H:i"
TIME_FORMAT = "H:i"
