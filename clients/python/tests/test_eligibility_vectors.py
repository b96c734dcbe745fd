"""The shared eligibility vectors through the client, with the same runner for each file:
testdata/eligibility.json (holdouts, then the layer, then targeting, then the bucket) and
testdata/lifecycle.json (draft, running, stopped and archived experiments) and
testdata/coverage.json (a running experiment's coverage), on every surface,
with every exposure each case sends."""

import asyncio
import json
import os
from typing import Any, Callable, Dict, List, Optional

import pytest

from arbiter import Arbiter, PreparedAttributes
from conftest import REPO_ROOT
from support.fake_arbiter import FakeArbiter

#: Every test here runs with the C assign of the speedups extra and with the Python method.
pytestmark = [
    pytest.mark.usefixtures("assign_kind"),
    # The deprecated a… aliases still answer as their methods do (their warning: test_client_api).
    pytest.mark.filterwarnings(r"ignore:Arbiter\.a\w+\(\) is deprecated:DeprecationWarning"),
]


def _read(name: str) -> Dict[str, Any]:
    with open(os.path.join(REPO_ROOT, "testdata", name), encoding="utf-8") as f:
        loaded: Dict[str, Any] = json.load(f)
    return loaded


#: Every file the runner reads, each in place.
FILES: Dict[str, Dict[str, Any]] = {
    name: _read(name) for name in ("eligibility.json", "lifecycle.json", "coverage.json")
}
VECTORS = FILES["eligibility.json"]
CASES: List[Dict[str, Any]] = VECTORS["cases"]


@pytest.fixture(params=sorted(FILES))
def vectors(request: pytest.FixtureRequest) -> Dict[str, Any]:
    return FILES[request.param]


def _variables(vectors: Dict[str, Any], case: Dict[str, Any]) -> Dict[str, Any]:
    """What ``get_variables(..., {"v": 1})`` answers: the case's variant's variables over it."""
    merged: Dict[str, Any] = {"v": 1}
    for experiment in vectors["config"]["experiments"]:
        if case["variant"] is not None and case["experiment"] in (experiment["name"], experiment["id"]):
            for variant in experiment["variants"]:
                if variant["key"] == case["variant"]:
                    merged.update(variant.get("variables") or {})
    return merged


#: How a case's attributes are passed: as the plain dict, or prepared (answers must not differ).
Prepare = Callable[[Optional[Dict[str, Any]]], Any]


@pytest.fixture(params=["plain", "prepared"])
def prepare(request: pytest.FixtureRequest) -> Prepare:
    if request.param == "plain":
        return lambda attributes: attributes
    return PreparedAttributes


def _client(fake: FakeArbiter, make_client: Any, vectors: Dict[str, Any] = VECTORS) -> Arbiter:
    fake.config = vectors["config"]
    client: Arbiter = make_client(base_url=fake.url)
    assert client.ready(timeout=30)
    return client


def test_the_file_has_targeted_users_on_both_sides() -> None:
    targeted = [c for c in CASES if c["experiment"] == "pro-english"]
    assert any(c["variant"] is not None for c in targeted)
    assert any(c["variant"] is None for c in targeted)


def test_the_file_reaches_every_step_of_the_order() -> None:
    reasons = {c.get("reason") for c in CASES}
    assert reasons == {None, "held_out", "not_in_layer", "not_targeted", "not_enrolled"}
    holdout_ids = {h["id"] for h in VECTORS["config"]["holdouts"]}
    sent = {(e["experiment_id"], e["variant"]) for c in CASES for e in c["exposures"]}
    assert {(h, v) for h in holdout_ids for v in ("holdout", "general")} <= sent


def test_the_lifecycle_file_reaches_every_state() -> None:
    lifecycle = FILES["lifecycle.json"]
    statuses = {e.get("status") for e in lifecycle["config"]["experiments"]}
    assert statuses == {"draft", "running", "stopped", None}  # None: an entry without status
    reasons = {c.get("reason") for c in lifecycle["cases"]}
    assert {"draft", "unknown_experiment", "held_out", "not_targeted"} <= reasons
    held_drafts = [c for c in lifecycle["cases"] if c["experiment"] == "draft-held-targeted"]
    assert held_drafts and all(c["exposures"] == [] for c in held_drafts)
    shipped = [c for c in lifecycle["cases"] if c["experiment"] == "shipped" and c["variant"] is not None]
    assert shipped and all(e["variant"] in ("holdout", "general") for c in shipped for e in c["exposures"])


def test_the_coverage_file_reaches_every_step_and_moves_no_one() -> None:
    coverage = FILES["coverage.json"]
    reasons = {c.get("reason") for c in coverage["cases"]}
    assert {None, "not_covered", "not_enrolled", "held_out", "not_targeted", "draft"} <= reasons
    by_step = {
        name: [c for c in coverage["cases"] if c["experiment"] == name] for name in ("ramp-10", "ramp-50", "ramp-100")
    }
    admitted = [i for i, c in enumerate(by_step["ramp-10"]) if c.get("reason") != "not_covered"]
    assert admitted
    for i in admitted:
        assert by_step["ramp-50"][i]["variant"] == by_step["ramp-100"][i]["variant"] == by_step["ramp-10"][i]["variant"]


def test_every_case_assigns_prompts_and_merges_as_it_says(
    fake: FakeArbiter, make_client: Any, prepare: Prepare, vectors: Dict[str, Any]
) -> None:
    client = _client(fake, make_client, vectors)
    for case in vectors["cases"]:
        attributes = prepare(case.get("attributes"))
        got = {
            "name": case["name"],
            "assign": client.assign(case["experiment"], case["user_id"], attributes),
            "prompt": client.get_prompt(case["experiment"], case["user_id"], "default", attributes=attributes).variant,
            "variables": client.get_variables(case["experiment"], case["user_id"], {"v": 1}, attributes=attributes),
            "async": asyncio.run(client.aassign(case["experiment"], case["user_id"], attributes)),
        }
        want = case["variant"]
        variables = _variables(vectors, case)
        assert got == {"name": case["name"], "assign": want, "prompt": want, "variables": variables, "async": want}


def test_every_case_sends_exactly_its_exposures_in_order(
    fake: FakeArbiter, make_client: Any, prepare: Prepare, vectors: Dict[str, Any]
) -> None:
    """Each case runs through every surface, then the client flushes: what reached the server
    for the case is its list, in order (a holdout's exposures first). The surfaces after the
    first add nothing: exposures, the holdouts' included, go once per user and day."""
    client = _client(fake, make_client, vectors)
    mismatches = []
    for case in vectors["cases"]:
        attributes = prepare(case.get("attributes"))
        before = len(fake.stored)
        client.assign(case["experiment"], case["user_id"], attributes)
        client.get_prompt(case["experiment"], case["user_id"], "default", attributes=attributes)
        client.get_variables(case["experiment"], case["user_id"], {}, attributes=attributes)
        asyncio.run(client.aassign(case["experiment"], case["user_id"], attributes))
        client.flush(timeout=30)
        sent = [
            {"experiment_id": e["experiment_id"], "variant": e.get("variant")}
            for e in list(fake.stored.values())[before:]
            if e["type"] == "exposure" and e["user_id"] == case["user_id"]
        ]
        if len(fake.stored) - before != len(sent) or sent != case["exposures"]:
            mismatches.append({"case": case["name"], "sent": sent, "want": case["exposures"]})
    assert mismatches == []


def test_as_user_and_intercept_model_call_read_the_attributes(
    fake: FakeArbiter, make_client: Any, prepare: Prepare
) -> None:
    client = _client(fake, make_client)
    case = next(c for c in CASES if c["experiment"] == "pro-english" and c["variant"] is not None)
    attributes = prepare(case["attributes"])
    seen: List[Optional[str]] = []
    client.intercept_model_call(case["experiment"], case["user_id"], seen.append, attributes=attributes)
    # without attributes the targeting reads {}: no plan, so not targeted
    client.intercept_model_call(case["experiment"], case["user_id"], seen.append)
    assert seen == [case["variant"], None]
    # the framework integrations take the user and attributes of the enclosing as_user
    with client.as_user(case["user_id"], attributes):
        assert client._begin_model_run(case["experiment"], case["user_id"]) is not None
    assert client._begin_model_run(case["experiment"], case["user_id"]) is None
