"""The JSON API fuzzed from its own OpenAPI document (schemathesis, in-process over WSGI).

For every operation in /api/openapi.json, generated requests, valid and invalid: no 5xx; every 4xx
is JSON with an "error" message and changes nothing; responses match the document; and after the
whole run the game log still replays to the same tables. The server-sent event streams never end,
so they are left out. FUZZ_EXAMPLES (default 100; about 2,100 requests in 12 s) sets the
examples per operation.
"""

from __future__ import annotations

import os

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from companion.config import Config
from companion.web.openapi import DOCUMENT

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "100"))
RESULTS = {"requests": 0, "statuses": {}, "lan_requests": 0}


@pytest.fixture(scope="module")
def fuzzed_service(tmp_path_factory):
    from companion.service import Service

    service = Service(Config(database=str(tmp_path_factory.mktemp("fuzz") / "fuzz.sqlite")))
    yield service
    service.close()


@pytest.fixture(scope="module")
def fuzzed_app(fuzzed_service):
    from companion.web import create_app

    return create_app(fuzzed_service, {"TESTING": True})


# The document as served is DOCUMENT (checked below); loading it from the dict keeps the operations
# known at collection time, so each one is its own test.
schema = schemathesis.openapi.from_dict(DOCUMENT)
schema = schema.exclude(path_regex=r"/events$")


def test_the_served_document_is_the_one_fuzzed(fuzzed_app):
    assert fuzzed_app.test_client().get("/api/openapi.json").get_json() == DOCUMENT


def snapshot(service) -> dict:
    """What a refused request must leave alone: each table's log position."""
    return {gid: (t._version, t._record.id if t._record else None, len(t._actions)) for gid, t in service.tables.items()}


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
def test_no_request_breaks_the_api(case, fuzzed_service, fuzzed_app):
    before = snapshot(fuzzed_service)
    response = case.call(app=fuzzed_app)
    RESULTS["requests"] += 1
    RESULTS["statuses"][response.status_code] = RESULTS["statuses"].get(response.status_code, 0) + 1
    assert response.status_code < 500, (case.method, case.formatted_path, case.body, response.text[:300])
    if 400 <= response.status_code < 500:
        body = response.json()
        assert isinstance(body, dict) and isinstance(body.get("error"), str) and body["error"], response.text[:300]
        assert snapshot(fuzzed_service) == before, f"a {response.status_code} changed the game: {body}"
    case.validate_response(response, checks=[
        schemathesis.checks.not_a_server_error,
        schemathesis.checks.status_code_conformance,
        schemathesis.checks.content_type_conformance,
        schemathesis.checks.response_schema_conformance,
        schemathesis.checks.negative_data_rejection,
    ])


@pytest.fixture(scope="module")
def lan_app(fuzzed_service):
    from companion.web import create_app

    return create_app(fuzzed_service, {"TESTING": True, "LAN_MODE": True, "TABLE_PIN": "2468", "ADMIN_PIN": "13579"})


@schema.include(method="POST").parametrize()
@settings(max_examples=max(EXAMPLES // 4, 5), deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
def test_lan_mode_refuses_every_generated_change_without_a_pin(case, fuzzed_service, lan_app):
    before = snapshot(fuzzed_service)
    response = case.call(app=lan_app)
    RESULTS["lan_requests"] += 1
    if case.method == "POST" and case.operation.path != "/api/logout":
        assert 400 <= response.status_code < 500, (case.method, case.formatted_path, case.body, response.text[:300])
        assert response.json()["error"]
    assert snapshot(fuzzed_service) == before


def test_after_fuzzing_the_log_still_replays(fuzzed_service, capsys):
    """Whatever was accepted was logged: a restart on the same database rebuilds every table exactly."""
    from companion.service import Service

    assert RESULTS["requests"] > 0, "run with test_no_request_breaks_the_api first"
    again = Service(Config(database=fuzzed_service.config.database), start_game=False)
    try:
        for gid, table in fuzzed_service.tables.items():
            assert again.tables[gid].notice is None
            if table.state is None:
                assert again.tables[gid].state is None
            else:
                assert again.tables[gid].view() == table.view(), gid
    finally:
        again.close()
    with capsys.disabled():
        print(f"\nfuzz: {RESULTS['requests']} requests, statuses {dict(sorted(RESULTS['statuses'].items()))}; "
              f"LAN mode without a PIN: {RESULTS['lan_requests']} requests to change routes, none changed the game")
