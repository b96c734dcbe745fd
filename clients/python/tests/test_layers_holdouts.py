"""Holdouts and layers beyond the shared vectors: model calls, refreshes, the exposure option, and
config documents the client cannot fully read (docs/decisions/clients.md#python-client)."""

import copy
import json
import os
from typing import Any, Dict, List, Tuple

import pytest

from arbiter import Arbiter
from conftest import REPO_ROOT
from support.fake_arbiter import FakeArbiter
from support.wait import wait_until

#: Every test here runs with the C assign of the speedups extra and with the Python method.
pytestmark = pytest.mark.usefixtures("assign_kind")

with open(os.path.join(REPO_ROOT, "testdata", "eligibility.json"), encoding="utf-8") as _f:
    VECTORS: Dict[str, Any] = json.load(_f)
CASES: List[Dict[str, Any]] = VECTORS["cases"]
GLOBAL = VECTORS["config"]["holdouts"][0]["id"]


def _case(experiment: str, reason: Any) -> Dict[str, Any]:
    return next(c for c in CASES if c["experiment"] == experiment and c.get("reason") == reason)


def _client(fake: FakeArbiter, make_client: Any, config: Dict[str, Any], **options: Any) -> Arbiter:
    fake.config = config
    client: Arbiter = make_client(base_url=fake.url, **options)
    assert client.ready(timeout=30)
    return client


def _sent(fake: FakeArbiter, client: Arbiter) -> List[Tuple[str, str, Any]]:
    client.flush(timeout=30)
    return [(e["type"], e["experiment_id"], e.get("variant")) for e in fake.stored.values()]


def _experiment(config: Dict[str, Any], name: str) -> Dict[str, Any]:
    found: Dict[str, Any] = next(e for e in config["experiments"] if e["name"] == name)
    return found


def test_a_model_call_of_a_held_out_user_runs_unrecorded_but_the_holdout_hears_of_it(
    fake: FakeArbiter, make_client: Any
) -> None:
    client = _client(fake, make_client, VECTORS["config"])
    held = _case("held-global", "held_out")
    seen: List[Any] = []
    client.intercept_model_call("held-global", held["user_id"], seen.append)
    client.intercept_model_call("held-global", held["user_id"], seen.append)
    assert seen == [None, None]
    assert _sent(fake, client) == [("exposure", GLOBAL, "holdout")]


def test_a_model_call_of_a_general_user_records_the_holdout_then_the_experiment(
    fake: FakeArbiter, make_client: Any
) -> None:
    client = _client(fake, make_client, VECTORS["config"])
    case = _case("held-global", None)
    experiment_id = _experiment(VECTORS["config"], "held-global")["id"]
    seen: List[Any] = []
    client.intercept_model_call("held-global", case["user_id"], lambda v: seen.append(v) or "answer")
    assert seen == [case["variant"]]
    assert _sent(fake, client) == [
        ("exposure", GLOBAL, "general"),
        ("exposure", experiment_id, case["variant"]),
        ("model_call", experiment_id, None),
    ]


def test_a_refreshed_config_does_not_send_the_days_holdout_exposures_again(fake: FakeArbiter, make_client: Any) -> None:
    client = _client(fake, make_client, VECTORS["config"], poll_interval=0.02)
    held = _case("held-global", "held_out")
    assert client.assign("held-global", held["user_id"]) is None
    refreshed = copy.deepcopy(VECTORS["config"])
    refreshed["config_version"] = 2
    fake.config = refreshed
    wait_until(lambda: client._store.version == 2, "the refreshed config is polled")
    assert client.assign("held-global", held["user_id"]) is None
    assert _sent(fake, client) == [("exposure", GLOBAL, "holdout")]


def test_without_exposure_tracking_assign_sends_no_holdout_exposure(fake: FakeArbiter, make_client: Any) -> None:
    client = _client(fake, make_client, VECTORS["config"], track_exposures=False)
    for case in CASES:
        if case["experiment"] == "held-both-layered-targeted":
            assert client.assign(case["experiment"], case["user_id"], case.get("attributes")) == case["variant"]
    assert _sent(fake, client) == []


def test_an_experiment_naming_a_holdout_the_client_cannot_read_lets_no_one_in(
    fake: FakeArbiter, make_client: Any, warnings_log: Any
) -> None:
    config = copy.deepcopy(VECTORS["config"])
    del config["holdouts"][0]["salt"]
    client = _client(fake, make_client, config)
    enrolled = [c for c in CASES if c["experiment"] == "held-global" and c["variant"] is not None]
    assert enrolled
    assert [client.assign("held-global", c["user_id"]) for c in enrolled] == [None] * len(enrolled)
    assert "held-global" in warnings_log.text
    # held-both names it too; an experiment without it is untouched
    both = [c for c in CASES if c["experiment"] == "held-both-layered-targeted" and c["variant"] is not None]
    assert both
    assert {client.assign(c["experiment"], c["user_id"], c.get("attributes")) for c in both} == {None}
    open_case = _case("open", None)
    assert client.assign("open", open_case["user_id"]) == open_case["variant"]


def test_a_layer_the_client_cannot_read_lets_no_one_in(fake: FakeArbiter, make_client: Any) -> None:
    config = copy.deepcopy(VECTORS["config"])
    config["layers"][0]["bucket_count"] = "1000"
    client = _client(fake, make_client, config)
    chat = [c for c in CASES if c["experiment"].startswith("chat-") and c["variant"] is not None]
    assert chat
    assert {client.assign(c["experiment"], c["user_id"], c.get("attributes")) for c in chat} == {None}
    sliver = next(c for c in CASES if c["experiment"] == "search-sliver" and c["variant"] is not None)
    assert client.assign("search-sliver", sliver["user_id"]) == sliver["variant"]


def test_layer_fields_of_the_wrong_shape_leave_the_experiment_out(
    fake: FakeArbiter, make_client: Any, warnings_log: Any
) -> None:
    config = copy.deepcopy(VECTORS["config"])
    _experiment(config, "chat-tone")["layer_ranges"] = {"start": 0, "end": 300}
    _experiment(config, "chat-length")["layer"] = 7
    _experiment(config, "held-global")["holdouts"] = GLOBAL
    client = _client(fake, make_client, config)
    for name in ("chat-tone", "chat-length", "held-global"):
        assert name in warnings_log.text
        enrolled = [c for c in CASES if c["experiment"] == name and c["variant"] is not None]
        assert enrolled
        assert {client.assign(name, c["user_id"], c.get("attributes")) for c in enrolled} == {None}
    targeted = next(c for c in CASES if c["experiment"] == "chat-targeted" and c["variant"] is not None)
    assert client.assign("chat-targeted", targeted["user_id"], targeted["attributes"]) == targeted["variant"]


def test_an_experiment_in_a_layer_without_layer_ranges_owns_no_bucket(fake: FakeArbiter, make_client: Any) -> None:
    config = copy.deepcopy(VECTORS["config"])
    del _experiment(config, "chat-length")["layer_ranges"]
    client = _client(fake, make_client, config)
    users = [c["user_id"] for c in CASES if c["experiment"] == "chat-length"]
    assert {client.assign("chat-length", u) for u in users} == {None}
