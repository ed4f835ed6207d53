"""The OpenAPI schema the fuzz tests load, and what they share."""

from __future__ import annotations

from typing import Any

import schemathesis
from django.core.wsgi import get_wsgi_application
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import negative_data_rejection, positive_data_acceptance

from api.schema import add_links


def load_schema() -> Any:
    """The schema /api/schema/ serves (with its links), built without a request: the schema
    endpoint cannot be called while tests are collected (no test database yet). Every
    request, the checks' own probes included, goes to the app in-process (WSGI)."""
    document = add_links(SchemaGenerator().get_schema(request=None, public=True), None, None, True)
    schema = schemathesis.openapi.from_dict(document)
    schema.config.update(base_url="http://localhost")
    schema.app = get_wsgi_application()
    return schema


# positive_data_acceptance wants every schema-valid request accepted (2xx). The schema cannot
# say what the services check against the database and the rules: an unknown variant name, a
# weak password, a taken username, a date in the past, an illegal card play, a stale version.
# Those 4xx answers are documented and in the error shape, and the remaining checks (status
# code documented, content type, body schema, headers, no 5xx) hold them to it.
#
# negative_data_rejection wants every schema-violating request refused. DRF parses query
# strings and form fields leniently by design ("5" is an integer, "true" a boolean, an empty
# optional field is "not given"), and these tests put a real game id and a valid token into
# every case, which turns a case made invalid there into a valid one. The other checks still
# run on every negative case.
EXCLUDED_CHECKS = [positive_data_acceptance, negative_data_rejection]
assert not_a_server_error not in EXCLUDED_CHECKS

# The users and the started game are function-scoped fixtures on purpose (each test starts
# from the same game), which Hypothesis' health check would flag.
HEALTH_CHECKS_OFF = list(HealthCheck)
