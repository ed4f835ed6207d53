"""The contract guard (issue 29): every API response a test receives is checked against the
schema the site serves at /api/schema/, and a mismatch fails the test.

What is checked, per response under /api/v1/:
- the operation (path template and method) is in the schema; a response to a path or method
  the schema does not know (an unknown URL, a 405) must be in the one error shape;
- its status is one the operation documents;
- its Content-Type is one documented for that status, and its JSON body validates against the
  documented schema under OpenAPI 3.1's dialect (JSON Schema 2020-12, `format` checked);
- every header documented as required for that status is there, and every documented header
  that is there validates against its schema.

openapi-core would be the obvious library, but its newest release (0.23.1) requires
openapi-spec-validator < 0.9 and this project pins 0.9.0; the body checks here are made by
openapi-schema-validator, the validator openapi-core itself uses for bodies.

`install(monkeypatch)` wraps django.test.Client.request, which every APIClient goes through.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from typing import Any

from django.http import HttpResponseBase
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from jsonschema.exceptions import ValidationError
from openapi_schema_validator import OAS31Validator, oas31_format_checker

API_PREFIX = "/api/v1/"
ERROR_REF = {"$ref": "#/components/schemas/Error"}


@functools.cache
def served_schema() -> dict[str, Any]:
    """The schema /api/schema/ serves (the same generator and settings, rendered to JSON)."""
    generated = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(OpenApiJsonRenderer().render(generated, renderer_context={}))


@dataclass(frozen=True)
class _Route:
    template: str
    pattern: re.Pattern[str]
    literal_parts: int


@functools.cache
def _routes() -> tuple[_Route, ...]:
    routes = []
    for template in served_schema()["paths"]:
        regex = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template))
        literal = len([part for part in template.split("/") if part and "{" not in part])
        routes.append(_Route(template, re.compile(f"^{regex}$"), literal))
    # The most literal template first: games/open/ before games/{game_id}/.
    return tuple(sorted(routes, key=lambda route: -route.literal_parts))


def route_of(path: str) -> str | None:
    for route in _routes():
        if route.pattern.match(path):
            return route.template
    return None


@functools.cache
def _validator(schema_json: str) -> OAS31Validator:
    schema = json.loads(schema_json)
    # Local references (#/components/...) resolve against a root that carries the components.
    root = {**schema, "components": served_schema()["components"]}
    return OAS31Validator(root, format_checker=oas31_format_checker)


def _errors(schema: dict[str, Any], value: Any) -> list[str]:
    validator = _validator(json.dumps(schema, sort_keys=True))
    found: list[ValidationError] = sorted(validator.iter_errors(value), key=lambda e: e.path)
    return [f"{'/'.join(map(str, error.absolute_path)) or '<root>'}: {error.message}"[:300]
            for error in found[:5]]  # fmt: skip


def _json_body(response: HttpResponseBase) -> tuple[Any, str | None]:
    try:
        return json.loads(response.content), None
    except ValueError as error:
        return None, f"body is not JSON ({error})"


def _media_type(response: HttpResponseBase) -> str:
    return (response.get("Content-Type") or "").split(";")[0].strip()


def _check_headers(documented: dict[str, Any], response: HttpResponseBase) -> list[str]:
    problems = []
    for name, header in documented.items():
        value = response.get(name)
        if value is None:
            if header.get("required"):
                problems.append(f"required header {name} missing")
            continue
        schema = header.get("schema", {"type": "string"})
        if schema.get("type") == "integer" and re.fullmatch(r"-?\d+", value):
            problems += [f"header {name}: {e}" for e in _errors(schema, int(value))]
        elif schema.get("type") == "string":
            problems += [f"header {name}: {e}" for e in _errors(schema, value)]
    return problems


def _check_body(content: dict[str, Any], response: HttpResponseBase) -> list[str]:
    media_type = _media_type(response)
    if not content:
        body = b"" if response.streaming else response.content
        return [f"a body ({media_type}) where none is documented"] if body else []
    if media_type not in content:
        return [f"Content-Type {media_type!r}, documented: {sorted(content)}"]
    schema = content[media_type].get("schema")
    if response.streaming or schema is None or not media_type.endswith("json"):
        return []
    body, problem = _json_body(response)
    return [problem] if problem else _errors(schema, body)


def response_problems(method: str, path: str, response: HttpResponseBase) -> list[str]:
    """What is wrong with `response` to `method path` by the served schema ([] if nothing)."""
    template = route_of(path)
    operation = served_schema()["paths"].get(template or "", {}).get(method.lower())
    if operation is None:
        if response.status_code < 400:
            return [f"{response.status_code} from an operation the schema does not have"]
        body, problem = _json_body(response)
        return [problem] if problem else _errors(ERROR_REF, body)
    documented = operation["responses"].get(str(response.status_code))
    if documented is None:
        return [
            f"status {response.status_code} is not documented ({sorted(operation['responses'])})"
        ]
    return _check_headers(documented.get("headers", {}), response) + _check_body(
        documented.get("content", {}), response
    )


class ContractMismatch(AssertionError):
    pass


def install(monkeypatch: Any) -> None:
    """Every request a test client makes under /api/v1/ has its response checked."""
    from django.test import Client

    original = Client.request

    def checked_request(self: Client, **request: Any) -> HttpResponseBase:
        response = original(self, **request)
        path = request.get("PATH_INFO", "")
        # The browsable API's page, asked for by name (Accept: text/html), is for people in a
        # browser and outside the JSON contract.
        human = "text/html" in request.get("HTTP_ACCEPT", "")
        if path.startswith(API_PREFIX) and not human:
            method = request.get("REQUEST_METHOD", "GET")
            problems = response_problems(method, path, response)
            if problems:
                raise ContractMismatch(
                    f"{method} {path} -> {response.status_code}: " + "; ".join(problems)
                )
        return response

    monkeypatch.setattr(Client, "request", checked_request)
