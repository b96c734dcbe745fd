"""exposure_attributes: an exposure carries its call's attributes as ``metadata.attributes`` only
when the caller opts in (testdata/exposure-attributes.json, read in place by every client)."""

import copy
import inspect
import logging
import types
from typing import Any, Dict, List, Optional

import pytest

from arbiter import Arbiter, PreparedAttributes
from conftest import read_testdata
from support.fake_arbiter import FakeArbiter

#: Every test here runs with the C assign of the speedups extra and with the Python method.
pytestmark = pytest.mark.usefixtures("assign_kind")

SHARED = read_testdata("exposure-attributes.json")
ELIGIBILITY = read_testdata("eligibility.json")
OPEN_CONFIG = SHARED["config"]
OPEN = SHARED["experiment"]


def _attributes(case: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    if "attributes" not in case:
        return None
    out: Dict[str, Any] = copy.deepcopy(case["attributes"])
    fill = case.get("fill")
    if fill is not None:
        out[fill["key"]] = fill["text"] * fill["count"]
    return out


def _client(fake: FakeArbiter, make_client: Any, config: Dict[str, Any], **options: Any) -> Arbiter:
    fake.config = config
    client: Arbiter = make_client(base_url=fake.url, **options)
    assert client.ready(timeout=30)
    return client


def _sent(fake: FakeArbiter, client: Arbiter) -> List[Dict[str, Any]]:
    client.flush(timeout=30)
    return list(fake.stored.values())


def test_the_option_is_off_by_default_as_the_shared_defaults_say() -> None:
    switches = read_testdata("client-defaults.json")["switches"]
    default = inspect.signature(Arbiter.__init__).parameters["exposure_attributes"].default
    assert default is switches["exposureAttributes"] is False


def test_off_every_exposure_is_sent_without_metadata(fake: FakeArbiter, make_client: Any) -> None:
    client = _client(fake, make_client, OPEN_CONFIG)
    for case in SHARED["cases"]:
        client.assign(OPEN, case["user_id"], _attributes(case))
    sent = _sent(fake, client)
    assert [e["user_id"] for e in sent] == [c["user_id"] for c in SHARED["cases"]]
    assert all("metadata" not in e for e in sent)


def _passed(attributes: Optional[Dict[str, Any]], prepared: bool) -> Any:
    """The attributes as a call passes them: plain, or prepared (the exposure must not differ)."""
    return PreparedAttributes(attributes) if prepared else attributes


@pytest.mark.parametrize("prepared", [False, True], ids=["plain", "prepared"])
def test_on_each_exposure_carries_exactly_the_attributes_or_none_past_the_limit(
    fake: FakeArbiter, make_client: Any, warnings_log: pytest.LogCaptureFixture, prepared: bool
) -> None:
    client = _client(fake, make_client, OPEN_CONFIG, exposure_attributes=True)
    for case in SHARED["cases"]:
        assert client.assign(OPEN, case["user_id"], _passed(_attributes(case), prepared)) == "treatment", case["name"]
    sent = _sent(fake, client)
    assert [e["user_id"] for e in sent] == [c["user_id"] for c in SHARED["cases"]]
    got = [{"name": c["name"], "metadata": e.get("metadata")} for c, e in zip(SHARED["cases"], sent)]
    want = [
        {"name": c["name"], "metadata": {"attributes": _attributes(c)} if c["sent"] else None} for c in SHARED["cases"]
    ]
    assert got == want
    dropped = [r for r in warnings_log.records if "without its attributes" in r.getMessage()]
    assert len(dropped) == 1


@pytest.mark.parametrize("prepared", [False, True], ids=["plain", "prepared"])
def test_eligibility_cases_send_the_same_exposures_each_with_its_attributes(
    fake: FakeArbiter, make_client: Any, prepared: bool
) -> None:
    """Held-out users' holdout exposures carry them too; a user not targeted sends nothing."""
    client = _client(fake, make_client, ELIGIBILITY["config"], exposure_attributes=True)
    mismatches = []
    for case in ELIGIBILITY["cases"]:
        attributes = case.get("attributes")
        before = len(fake.stored)
        assert client.assign(case["experiment"], case["user_id"], _passed(attributes, prepared)) == case["variant"]
        client.flush(timeout=30)
        sent = [
            {"experiment_id": e["experiment_id"], "variant": e.get("variant"), "metadata": e.get("metadata")}
            for e in list(fake.stored.values())[before:]
        ]
        meta = None if attributes is None else {"attributes": attributes}
        want = [dict(e, metadata=meta) for e in case["exposures"]]
        if sent != want:
            mismatches.append({"case": case["name"], "sent": sent, "want": want})
    assert mismatches == []


class _Opaque:
    pass


def test_attributes_that_are_not_json_are_dropped_without_raising(
    fake: FakeArbiter, make_client: Any, warnings_log: pytest.LogCaptureFixture
) -> None:
    client = _client(fake, make_client, OPEN_CONFIG, exposure_attributes=True)
    cycle: Dict[str, Any] = {"plan": "pro"}
    cycle["self"] = cycle
    bad: List[Any] = [
        {"nan": float("nan")},
        {"inf": float("inf")},
        {"tags": {"a", "b"}},
        {"who": _Opaque()},
        {1: "int key"},
        cycle,
        {"nested": types.MappingProxyType({"a": 1})},
        "not a mapping",
    ]
    for i, attributes in enumerate(bad):
        client.assign(OPEN, "u-%d" % i, attributes)
    sent = _sent(fake, client)
    assert [e["user_id"] for e in sent] == ["u-%d" % i for i in range(len(bad))]
    assert all("metadata" not in e for e in sent)
    assert len([r for r in warnings_log.records if "without its attributes" in r.getMessage()]) == 1


def test_later_drops_go_to_the_debug_log(fake: FakeArbiter, make_client: Any, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="arbiter")
    client = _client(fake, make_client, OPEN_CONFIG, exposure_attributes=True)
    client.assign(OPEN, "a", {"x": float("nan")})
    client.assign(OPEN, "b", {"x": float("nan")})
    lines = [(r.levelno, r.getMessage()) for r in caplog.records if "without its attributes" in r.getMessage()]
    assert [level for level, _ in lines] == [logging.WARNING, logging.DEBUG]


def test_a_mapping_that_is_not_a_dict_is_sent_as_an_object(fake: FakeArbiter, make_client: Any) -> None:
    client = _client(fake, make_client, OPEN_CONFIG, exposure_attributes=True)
    client.assign(OPEN, "u", types.MappingProxyType({"plan": "pro"}))
    assert _sent(fake, client)[0]["metadata"] == {"attributes": {"plan": "pro"}}


def test_the_first_call_of_the_day_gives_the_attributes(fake: FakeArbiter, make_client: Any) -> None:
    client = _client(fake, make_client, OPEN_CONFIG, exposure_attributes=True)
    client.assign(OPEN, "u", {"plan": "pro"})
    client.get_prompt(OPEN, "u", "default", attributes={"plan": "team"})
    client.get_variables(OPEN, "u", {}, attributes={"plan": "free"})
    assert [e.get("metadata") for e in _sent(fake, client)] == [{"attributes": {"plan": "pro"}}]


def test_a_model_call_exposure_carries_them_and_its_model_call_never(fake: FakeArbiter, make_client: Any) -> None:
    client = _client(fake, make_client, OPEN_CONFIG, exposure_attributes=True)
    client.intercept_model_call(OPEN, "u", lambda variant: {"model": "m"}, attributes={"plan": "pro"})
    client.intercept_model_call(OPEN, "w", lambda variant: "ok")
    got = [(e["type"], e["user_id"], e.get("metadata")) for e in _sent(fake, client)]
    assert got == [
        ("exposure", "u", {"attributes": {"plan": "pro"}}),
        ("model_call", "u", None),
        ("exposure", "w", None),
        ("model_call", "w", None),
    ]


def test_off_a_model_call_exposure_carries_none(fake: FakeArbiter, make_client: Any) -> None:
    client = _client(fake, make_client, OPEN_CONFIG)
    client.intercept_model_call(OPEN, "u", lambda variant: "ok", attributes={"plan": "pro"})
    assert [e.get("metadata") for e in _sent(fake, client)] == [None, None]
