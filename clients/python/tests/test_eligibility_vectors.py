"""testdata/eligibility.json through the client: targeting, then the bucket, on every surface."""

import asyncio
import json
import os
from typing import Any, Dict, List, Optional

from arbiter import Arbiter
from conftest import REPO_ROOT
from support.fake_arbiter import FakeArbiter

with open(os.path.join(REPO_ROOT, "testdata", "eligibility.json"), encoding="utf-8") as _f:
    VECTORS: Dict[str, Any] = json.load(_f)
CASES: List[Dict[str, Any]] = VECTORS["cases"]


def _client(fake: FakeArbiter, make_client: Any) -> Arbiter:
    fake.config = VECTORS["config"]
    client: Arbiter = make_client(base_url=fake.url)
    assert client.ready(timeout=30)
    return client


def test_the_file_has_targeted_users_on_both_sides() -> None:
    targeted = [c for c in CASES if c["experiment"] == "pro-english"]
    assert any(c["variant"] is not None for c in targeted)
    assert any(c["variant"] is None for c in targeted)


def test_every_case_assigns_prompts_and_merges_as_it_says(fake: FakeArbiter, make_client: Any) -> None:
    client = _client(fake, make_client)
    for case in CASES:
        attributes: Optional[Dict[str, Any]] = case.get("attributes")
        got = {
            "name": case["name"],
            "assign": client.assign(case["experiment"], case["user_id"], attributes),
            "prompt": client.get_prompt(case["experiment"], case["user_id"], "default", attributes=attributes).variant,
            "variables": client.get_variables(case["experiment"], case["user_id"], {"v": 1}, attributes=attributes),
            "async": asyncio.run(client.aassign(case["experiment"], case["user_id"], attributes)),
        }
        want = case["variant"]
        assert got == {"name": case["name"], "assign": want, "prompt": want, "variables": {"v": 1}, "async": want}


def test_an_exposure_only_for_users_the_targeting_admits(fake: FakeArbiter, make_client: Any) -> None:
    client = _client(fake, make_client)
    for case in CASES:
        client.assign(case["experiment"], case["user_id"], case.get("attributes"))
    client.flush(timeout=30)
    ids = {e["name"]: e["id"] for e in VECTORS["config"]["experiments"]}
    stored = {(e["experiment_id"], e["user_id"], e.get("variant")) for e in fake.stored.values()}
    expected = {(ids[c["experiment"]], c["user_id"], c["variant"]) for c in CASES if c["variant"] is not None}
    assert stored == expected


def test_as_user_and_intercept_model_call_read_the_attributes(fake: FakeArbiter, make_client: Any) -> None:
    client = _client(fake, make_client)
    case = next(c for c in CASES if c["experiment"] == "pro-english" and c["variant"] is not None)
    seen: List[Optional[str]] = []
    client.intercept_model_call(case["experiment"], case["user_id"], seen.append, attributes=case["attributes"])
    # without attributes the targeting reads {}: no plan, so not targeted
    client.intercept_model_call(case["experiment"], case["user_id"], seen.append)
    assert seen == [case["variant"], None]
    # the framework integrations take the user and attributes of the enclosing as_user
    with client.as_user(case["user_id"], case["attributes"]):
        assert client._begin_model_run(case["experiment"], case["user_id"]) is not None
    assert client._begin_model_run(case["experiment"], case["user_id"]) is None
