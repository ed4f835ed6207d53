"""The contract guard itself (tests/contract.py) and what the schema promises by construction
(api.schema.complete_responses): the guard runs on every response of tests/api (conftest), so
these check it would notice a mismatch, and that every operation documents what it can answer."""

from __future__ import annotations

from typing import Any

import pytest
from django.http import HttpResponse, JsonResponse

from tests import contract

GAME = "/api/v1/games/6f1d2a8e-2b7c-4f25-9d1b-3a1f0e9c7d11/"
ERROR = {"error": {"code": "throttled", "message": "Slow down.", "details": {}}}


@pytest.fixture
def schema(db: Any) -> dict[str, Any]:
    return contract.served_schema()


def _operations(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, operation)
        for path, methods in schema["paths"].items()
        for method, operation in methods.items()
        if isinstance(operation, dict) and "responses" in operation
    ]


def test_a_body_off_the_schema_is_a_mismatch(schema):
    wrong = JsonResponse({"id": "not-a-uuid"}, status=200)
    wrong["ETag"] = 'W/"x"'
    problems = contract.response_problems("GET", GAME, wrong)
    assert any("required property" in p or "is not" in p for p in problems), problems


def test_an_undocumented_status_is_a_mismatch(schema):
    problems = contract.response_problems(
        "GET", "/api/v1/variants/", JsonResponse(ERROR, status=418)
    )
    assert problems == [problems[0]] and "418 is not documented" in problems[0]


def test_a_429_without_retry_after_is_a_mismatch(schema):
    problems = contract.response_problems("GET", "/api/v1/games/", JsonResponse(ERROR, status=429))
    assert problems == ["required header Retry-After missing"]
    ok = JsonResponse(ERROR, status=429)
    ok["Retry-After"] = "3"
    assert contract.response_problems("GET", "/api/v1/games/", ok) == []


def test_a_wrong_content_type_and_an_unknown_path_are_mismatches(schema):
    page = HttpResponse(b"<html></html>", content_type="text/html", status=200)
    assert (
        "Content-Type 'text/html'" in contract.response_problems("GET", "/api/v1/games/", page)[0]
    )
    unknown = contract.response_problems("GET", "/api/v1/nothing/", JsonResponse({"a": 1}))
    assert unknown == ["200 from an operation the schema does not have"]
    assert (
        contract.response_problems("GET", "/api/v1/nothing/", JsonResponse(ERROR, status=404)) == []
    )


def test_every_operation_documents_what_stands_around_it(schema):
    for path, method, operation in _operations(schema):
        responses = operation["responses"]
        assert {"400", "414", "429", "500", "503"} <= set(responses), (method, path)
        for code, response in responses.items():
            # /health/'s 503 is its own report of what is down, for monitors.
            if code.startswith(("4", "5")) and (path, code) != ("/api/v1/health/", "503"):
                error = response["content"]["application/json"]["schema"]
                assert error == {"$ref": "#/components/schemas/Error"}, (method, path, code)
        assert responses["429"]["headers"]["Retry-After"]["required"] is True
        if "{" in path:
            assert "404" in responses, (method, path)
        if method != "get" and operation.get("security") not in (None, [{}]):
            assert {"401", "403"} <= set(responses), (method, path)
        if "requestBody" in operation:
            assert {"413", "415"} <= set(responses), (method, path)


def test_the_issues_write_operations_document_403(schema):
    for path, method in [
        ("/api/v1/games/", "post"),
        ("/api/v1/webhooks/", "post"),
        ("/api/v1/me/preferences/", "patch"),
        ("/api/v1/webhooks/{webhook_id}/", "patch"),
        ("/api/v1/webhooks/{webhook_id}/", "delete"),
        ("/api/v1/webhooks/{webhook_id}/rotate-secret/", "post"),
    ]:
        assert "403" in schema["paths"][path][method]["responses"], (method, path)


def test_headers_are_declared(schema):
    paths = schema["paths"]
    game = paths["/api/v1/games/{game_id}/"]["get"]["responses"]
    assert game["200"]["headers"]["ETag"]["required"] is True
    assert game["304"]["headers"]["ETag"]["required"] is True
    assert {"RateLimit", "RateLimit-Policy"} <= set(game["200"]["headers"])
    created = paths["/api/v1/games/"]["post"]["responses"]["201"]["headers"]
    assert created["Location"]["required"] is True
    assert "Idempotent-Replayed" in created
    assert schema["openapi"] == "3.1.0"
