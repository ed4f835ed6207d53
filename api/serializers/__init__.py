"""Serializers per operation: input ones validate requests; output ones describe the plain
dicts of api/presenters.py for the OpenAPI schema."""
