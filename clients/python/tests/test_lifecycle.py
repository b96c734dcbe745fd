"""How the client reads an experiment's lifecycle from the config (``status``, ``served_variant``):
what the shared vectors (testdata/lifecycle.json) do not cover — a malformed entry, a model call
of a stopped experiment, and an experiment moving through its states between two polls."""

from typing import Any, Dict, List

import pytest

from support.fake_arbiter import EXPERIMENT_ID, EXPERIMENT_NAME, FakeArbiter, config_document
from support.wait import wait_until

#: Every test here runs with the C assign of the speedups extra and with the Python method.
pytestmark = pytest.mark.usefixtures("assign_kind")


def with_status(version: int, **fields: Any) -> Dict[str, Any]:
    doc = config_document(version=version)
    doc["experiments"][0].update(fields)
    return doc


def exposures(fake: FakeArbiter) -> List[Any]:
    return [(e["user_id"], e["variant"]) for e in fake.stored.values() if e["type"] == "exposure"]


@pytest.mark.parametrize(
    "fields",
    [
        {"status": "paused"},
        {"status": None},
        {"status": "stopped"},
        {"status": "stopped", "served_variant": "no-such-variant"},
        {"status": "stopped", "served_variant": 1},
    ],
    ids=["unknown status", "null status", "stopped without variant", "unknown variant", "variant not a string"],
)
def test_a_malformed_lifecycle_leaves_the_experiment_out(
    fake: FakeArbiter, make_client: Any, warnings_log: Any, fields: Dict[str, Any]
) -> None:
    fake.config = with_status(1, **fields)
    client = make_client(base_url=fake.url)
    assert client.ready(timeout=30)
    assert client.assign(EXPERIMENT_NAME, "user-1") is None
    assert "malformed experiments left out: %s" % EXPERIMENT_NAME in warnings_log.text


def test_a_stopped_experiments_model_calls_pass_through_unrecorded(fake: FakeArbiter, make_client: Any) -> None:
    fake.config = with_status(1, status="stopped", served_variant="concise")
    client = make_client(base_url=fake.url)
    assert client.ready(timeout=30)
    seen: List[Any] = []
    client.intercept_model_call(EXPERIMENT_NAME, "user-1", seen.append)
    with client.as_user("user-2"):
        assert client._begin_model_run(EXPERIMENT_NAME, "user-2") is None
    client.flush(timeout=30)
    assert seen == ["concise"]
    assert list(fake.stored.values()) == []


def test_draft_then_running_then_stopped_between_polls(fake: FakeArbiter, make_client: Any) -> None:
    fake.config = with_status(1, status="draft")
    client = make_client(base_url=fake.url, poll_interval=0.05)
    assert client.ready(timeout=30)
    users = ["user-%d" % i for i in range(200)]
    assert {client.assign(EXPERIMENT_ID, u) for u in users} == {None}

    fake.config = with_status(2, status="running")
    wait_until(lambda: client.assign(EXPERIMENT_NAME, "probe") is not None, "the start is polled")
    running = {u: client.assign(EXPERIMENT_NAME, u) for u in users}
    assert set(running.values()) == {"control", "concise"}
    client.flush(timeout=30)
    assert sorted(exposures(fake)) == sorted([("probe", client.assign(EXPERIMENT_NAME, "probe")), *running.items()])

    switched = next(u for u, v in running.items() if v == "concise")
    fake.config = with_status(3, status="stopped", served_variant="control")
    wait_until(lambda: client.assign(EXPERIMENT_NAME, switched) == "control", "the stop is polled")
    assert {client.assign(EXPERIMENT_NAME, u) for u in [*users, "new-1", "new-2"]} == {"control"}
    before = len(fake.stored)
    client.flush(timeout=30)
    assert len(fake.stored) == before
    assert client.get_prompt(EXPERIMENT_NAME, "new-3", "d") == ("control", "You are a helpful assistant.", False)
