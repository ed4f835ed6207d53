"""canasta-sdk: the Python client of the Canasta-by-correspondence API (docs/clients.md)."""

from canasta_sdk.client import ApiError, Client, MatchSummary, Stats, simple_strategy
from canasta_sdk.models import Action, Event, Game, Legal, RateLimit, YourTurn

__all__ = [
    "Action",
    "ApiError",
    "Client",
    "Event",
    "Game",
    "Legal",
    "MatchSummary",
    "RateLimit",
    "Stats",
    "YourTurn",
    "simple_strategy",
]
__version__ = "1.0.0"
