"""``client.prompts.get`` and ``render_prompt`` on the shared vectors (testdata/prompts.json),
read in place: each case's source, version and rendering, and exactly its exposure."""

from typing import Any, Dict, List

import pytest

from arbiter import render_prompt
from conftest import read_testdata
from support.fake_arbiter import FakeArbiter

#: Every test here runs with the C assign of the speedups extra and with the Python method.
pytestmark = pytest.mark.usefixtures("assign_kind")

VECTORS = read_testdata("prompts.json")


@pytest.mark.parametrize("case", VECTORS["render"], ids=lambda c: repr(c["template"]))
def test_renders_as_the_vectors_say(case: Dict[str, Any]) -> None:
    assert render_prompt(case["template"], case["variables"]) == case["expected"]


def _exposures(fake: FakeArbiter) -> List[Dict[str, Any]]:
    return [e for e in fake.stored.values() if e["type"] == "exposure"]


def test_resolves_every_case_with_exactly_its_exposure(fake: FakeArbiter, make_client: Any) -> None:
    fake.config = VECTORS["config"]
    client = make_client(base_url=fake.url)
    assert client.ready(timeout=30)
    ids = {e["name"]: e["id"] for e in VECTORS["config"]["experiments"]}
    for case in VECTORS["resolve"]:
        before = len(_exposures(fake))
        got = client.prompts.get(
            case["prompt"],
            case["user"],
            case["default"],
            label=case.get("label", "production"),
            variables=case.get("variables"),
            attributes=case.get("attributes"),
        )
        client.flush(timeout=30)
        sent = _exposures(fake)[before:]
        expected = dict(case["expected"])
        exposure = expected.pop("exposure")
        answer = {k: getattr(got, k) for k in ("source", "version", "experiment", "variant", "text", "messages")}
        assert (case["name"], answer, len(sent)) == (case["name"], expected, 1 if exposure else 0)
        if expected["source"] == "experiment":
            assert sent[0]["experiment_id"] == ids[expected["experiment"]]


def test_answers_the_default_before_any_config_and_never_raises(make_client: Any) -> None:
    client = make_client(base_url="http://127.0.0.1:9", poll_interval=3600.0)
    got = client.prompts.get("p", "u", "Hi {{x}}", variables={"x": "X"})
    assert (got.source, got.version, got.text) == ("default", None, "Hi X")
    odd = client.prompts.get(None, 7, [{"role": "user", "content": "{{x}}"}])  # type: ignore[arg-type]
    assert odd.messages == [{"role": "user", "content": "{{x}}"}]
