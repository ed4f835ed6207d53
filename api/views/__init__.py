"""One view per operation; see api/urls.py for the routes."""
