"""OpenFeature's generic OFREP provider for Python (``openfeature-provider-ofrep``), unchanged,
with ``openfeature-sdk``, against the real server (``arbiter serve``): 10,000 users get
``POST /v1/assign``'s variant, and each assigned user's exposure is stored and metered once
however often it is evaluated."""

import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Iterator, List, Optional

import pytest
from openfeature import api
from openfeature.contrib.provider.ofrep import OFREPProvider
from openfeature.evaluation_context import EvaluationContext
from openfeature.exception import ErrorCode
from openfeature.flag_evaluation import Reason

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", ".."))
# The Python client's test support starts the real server and calls its API.
sys.path.insert(0, os.path.join(REPO_ROOT, "clients", "python", "tests"))

from support.arbiter_server import ArbiterServer, AssignCaller, create_experiment, new_org  # noqa: E402

USERS = 10_000
NO_VARIANT = "no-variant"


@pytest.fixture(scope="module")
def server() -> Iterator[ArbiterServer]:
    running = ArbiterServer(REPO_ROOT).start()
    yield running
    running.stop()


def user_ids() -> List[str]:
    shapes = ["user-%d", "用户-%d", "caf\u00e9 %d"]
    return [shapes[i % len(shapes)] % i for i in range(USERS)]


def wait_for(check, timeout: float = 60.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.25)
    return bool(check())


def test_10000_users_equal_assign_and_each_exposure_is_stored_once(server: ArbiterServer) -> None:
    org = new_org(server)
    experiment = create_experiment(
        org,
        name="parity",
        salt="parity-salt",
        bucket_count=10_000,
        allocation=[
            {"variant": "control", "weight": 30},
            {"variant": "concise", "weight": 30},
            {"variant": "formal", "weight": 30},
        ],
        variants=[
            {"key": "control", "variables": {"tone": "plain"}},
            {"key": "concise", "variables": {"tone": "short"}},
            {"key": "formal", "variables": {"tone": "formal"}},
        ],
        metrics=[],
    )
    api.set_provider(
        OFREPProvider(server.url, headers_factory=lambda: {"X-API-Key": org.publishable}, timeout=30),
        domain="ofrep",
    )
    client = api.get_client(domain="ofrep")
    users = user_ids()
    caller = AssignCaller(server.url, org.secret)

    def assigned(user: str) -> Optional[str]:
        status, body = caller.assign(experiment["id"], user)
        assert status == 200, body
        return body["variant"]  # type: ignore[no-any-return]

    def through(user: str) -> str:
        details = client.get_string_details("parity:$variant", NO_VARIANT, EvaluationContext(targeting_key=user))
        return details.value

    with ThreadPoolExecutor(4) as pool:
        want = list(pool.map(assigned, users))
        got = list(pool.map(through, users))
    mismatches = [u for u, w, g in zip(users, want, got) if (w or NO_VARIANT) != g]
    assert mismatches == []
    excluded = sum(1 for w in want if w is None)
    assert 800 < excluded < 1_200, excluded

    # Evaluated again, and as the variables object: the same variant, no second exposure.
    for user, variant in list(zip(users, want))[:200]:
        details = client.get_object_details("parity", {}, EvaluationContext(targeting_key=user))
        if variant is not None:
            assert details.variant == variant
            assert details.reason == Reason.SPLIT
            assert details.flag_metadata["experimentId"] == experiment["id"]

    def traffic_total() -> int:
        status, body = org.session.call("GET", "/v1/experiments/%s/traffic" % experiment["id"])
        assert status == 200, body
        return sum(n for day in body["days"] for n in day["exposures"].values())

    assert wait_for(lambda: traffic_total() >= USERS - excluded)
    time.sleep(2)  # anything recorded twice would have been appended by now
    assert traffic_total() == USERS - excluded
    status, usage = org.session.call("GET", "/v1/usage")
    assert status == 200, usage
    assert usage["events"]["used"] == USERS - excluded


def test_error_codes_reach_the_caller(server: ArbiterServer) -> None:
    org = new_org(server)
    create_experiment(org, name="known")
    api.set_provider(OFREPProvider(server.url, headers_factory=lambda: {"X-API-Key": org.secret}), domain="codes")
    client = api.get_client(domain="codes")
    unknown = client.get_string_details("nope:$variant", "x", EvaluationContext(targeting_key="u-1"))
    assert (unknown.value, unknown.error_code) == ("x", ErrorCode.FLAG_NOT_FOUND)
    missing = client.get_string_details("known:$variant", "x", EvaluationContext())
    assert (missing.value, missing.error_code) == ("x", ErrorCode.TARGETING_KEY_MISSING)
    # Another org's key finds nothing of this org's.
    other = new_org(server)
    api.set_provider(OFREPProvider(server.url, headers_factory=lambda: {"X-API-Key": other.secret}), domain="other")
    foreign = api.get_client(domain="other").get_string_details(
        "known:$variant", "x", EvaluationContext(targeting_key="u-1")
    )
    assert (foreign.value, foreign.error_code) == ("x", ErrorCode.FLAG_NOT_FOUND)
