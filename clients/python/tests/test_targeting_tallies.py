"""Targeting tallies (``track_targeting_tallies``): testdata/targeting-tallies.json through the
client, and their delivery to ``POST /v1/targeting-tallies``."""

import asyncio
from collections import Counter
from datetime import datetime, timezone
from typing import Any, Dict, List, Tuple

import pytest

from arbiter import Arbiter
from arbiter._core.events.targeting_tallies import MAX_PENDING_TALLIES, TargetingTallies
from conftest import read_testdata
from support.fake_arbiter import FakeArbiter

#: Every test here runs with the C assign of the speedups extra and with the Python method.
pytestmark = [
    pytest.mark.usefixtures("assign_kind"),
    # The deprecated a… aliases still answer as their methods do (their warning: test_client_api).
    pytest.mark.filterwarnings(r"ignore:Arbiter\.a\w+\(\) is deprecated:DeprecationWarning"),
]

SHARED = read_testdata("targeting-tallies.json")
ELIGIBILITY = read_testdata("eligibility.json")
NAME_OF = {e["id"]: e["name"] for e in ELIGIBILITY["config"]["experiments"]}
PRO = {"plan": "pro", "locale": "en-US"}
FREE = {"plan": "free"}


def _today() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d")


def _start(fake: FakeArbiter, make_client: Any, config: Any = None, **options: Any) -> Arbiter:
    fake.config = ELIGIBILITY["config"] if config is None else config
    # Tallies go with the secret key only.
    options.setdefault("api_key", "svc_sk_test")
    client: Arbiter = make_client(base_url=fake.url, **options)
    assert client.ready(timeout=30)
    return client


def _received(fake: FakeArbiter) -> Dict[str, Dict[str, int]]:
    """The fake server's tallies summed per experiment name, after checking they are all today's."""
    out: Dict[str, Dict[str, int]] = {}
    for t in fake.tallies:
        assert t["day"] == _today(), t
        name = NAME_OF.get(t["experiment_id"], t["experiment_id"])
        total = out.setdefault(name, {"matched": 0, "excluded": 0})
        total["matched"] += t["matched"]
        total["excluded"] += t["excluded"]
    return out


def _exposures(fake: FakeArbiter) -> "Counter[Tuple[str, str, Any]]":
    return Counter(
        (e["experiment_id"], e["user_id"], e.get("variant")) for e in fake.stored.values() if e["type"] == "exposure"
    )


def _assign_every_case(client: Arbiter) -> None:
    for case in ELIGIBILITY["cases"]:
        client.assign(case["experiment"], case["user_id"], case.get("attributes"))
    for case in ELIGIBILITY["cases"]:
        client.assign(case["experiment"], case["user_id"], {})


# -- testdata/targeting-tallies.json ----------------------------------------------------------


def test_the_vectors_report_the_distinct_users_that_reached_each_targeting(fake: FakeArbiter, make_client: Any) -> None:
    client = _start(fake, make_client)
    _assign_every_case(client)
    client.flush()
    assert _received(fake) == SHARED["tallies"]
    # The tallies share the exposure tables and suppress no exposure: the same ones as without.
    without = FakeArbiter().start()
    try:
        other = _start(without, make_client, track_targeting_tallies=False)
        _assign_every_case(other)
        other.flush()
        assert without.tallies == []
        assert sum(_exposures(fake).values()) > 0
        assert _exposures(fake) == _exposures(without)
    finally:
        without.stop()


def test_the_vectors_with_exposures_off_and_tallies_asked_for_send_the_same_and_no_exposure(
    fake: FakeArbiter, make_client: Any
) -> None:
    client = _start(fake, make_client, track_exposures=False, track_targeting_tallies=True)
    _assign_every_case(client)
    client.flush()
    assert _received(fake) == SHARED["tallies"]
    assert fake.stored == {}


def test_exposures_off_tallies_nothing_by_default_the_switch_follows_them(fake: FakeArbiter, make_client: Any) -> None:
    client = _start(fake, make_client, track_exposures=False)
    _assign_every_case(client)
    client.flush()
    assert fake.tallies == []
    assert fake.stored == {}
    assert all(entry.reached is None for entry in client._experiments.values())


def test_tallies_off_sends_none_and_the_exposures_still(fake: FakeArbiter, make_client: Any) -> None:
    client = _start(fake, make_client, track_targeting_tallies=False)
    _assign_every_case(client)
    client.flush()
    assert fake.tallies == []
    assert len(fake.stored) > 0


# -- the secret key only ------------------------------------------------------------------------


def _tally_warnings(log: pytest.LogCaptureFixture) -> List[str]:
    return [r.getMessage() for r in log.records if "targeting tallies" in r.getMessage()]


def test_a_publishable_key_client_sends_no_tallies_and_warns_of_nothing(
    fake: FakeArbiter, make_client: Any, warnings_log: pytest.LogCaptureFixture
) -> None:
    client = _start(fake, make_client, api_key="svc_pk_test")
    _assign_every_case(client)
    client.flush()
    client.close()
    assert fake.tally_requests == []
    assert _tally_warnings(warnings_log) == []
    assert all(entry.reached is None for entry in client._experiments.values())
    assert len(fake.stored) > 0


def test_tallies_asked_for_with_a_publishable_key_warn_once_at_construction_and_none_is_sent(
    fake: FakeArbiter, make_client: Any, warnings_log: pytest.LogCaptureFixture
) -> None:
    client = _start(fake, make_client, api_key="svc_pk_test", track_targeting_tallies=True)
    warned = _tally_warnings(warnings_log)
    assert len(warned) == 1 and "secret key" in warned[0]
    _assign_every_case(client)
    client.flush()
    client.close()
    assert fake.tally_requests == []
    assert len(_tally_warnings(warnings_log)) == 1


# -- delivery ---------------------------------------------------------------------------------


def _excluded_once(client: Arbiter) -> None:
    client.assign("pro-english", "u-free", FREE)
    assert client.assign("pro-english", "u-pro", PRO) is not None


def test_tallies_the_api_could_not_take_are_kept_and_sent_merged_with_the_next_flush(
    fake: FakeArbiter, make_client: Any
) -> None:
    client = _start(fake, make_client, max_attempts=2)
    fake.tally_faults.extend([503, 503])
    _excluded_once(client)
    client.flush()
    assert fake.tallies == [] and fake.tally_faults == []
    client.assign("pro-english", "u-other", FREE)
    client.flush()
    assert _received(fake) == {"pro-english": {"matched": 1, "excluded": 2}}
    assert len(fake.tallies) == 1


def test_tallies_the_api_refuses_are_dropped_with_a_warning_and_nothing_raises(
    fake: FakeArbiter, make_client: Any, warnings_log: pytest.LogCaptureFixture
) -> None:
    client = _start(fake, make_client)
    fake.tally_faults.append(400)
    _excluded_once(client)
    assert client.flush() is None
    assert any("dropped 1 targeting tallies" in r.getMessage() for r in warnings_log.records)
    # Only what was counted since: the refused tallies were not kept.
    client.assign("pro-english", "u-new", FREE)
    client.flush()
    assert _received(fake) == {"pro-english": {"matched": 0, "excluded": 1}}


def test_tallies_are_sent_on_close(fake: FakeArbiter, make_client: Any) -> None:
    client = _start(fake, make_client)
    _excluded_once(client)
    client.close()
    assert _received(fake) == {"pro-english": {"matched": 1, "excluded": 1}}


def test_tallies_are_sent_on_aclose_after_async_assigns(fake: FakeArbiter, make_client: Any) -> None:
    client = _start(fake, make_client)

    async def run() -> None:
        await client.aassign("pro-english", "u-free", FREE)
        await client.aget_prompt("pro-english", "u-pro", "default", attributes=PRO)
        await client.aclose()

    asyncio.run(run())
    assert _received(fake) == {"pro-english": {"matched": 1, "excluded": 1}}


def test_a_user_counts_once_on_the_first_check_of_the_day_matched_or_excluded(
    fake: FakeArbiter, make_client: Any
) -> None:
    client = _start(fake, make_client)
    # Matched, then excluded.
    assert client.assign("pro-english", "u-1", PRO) is not None
    assert client.assign("pro-english", "u-1", FREE) is None
    # Excluded, then matched with a new exposure, then matched again.
    assert client.assign("pro-english", "u-2", FREE) is None
    assert client.assign("pro-english", "u-2", PRO) is not None
    client.assign("pro-english", "u-2", PRO)
    client.flush()
    assert _received(fake) == {"pro-english": {"matched": 1, "excluded": 1}}
    assert sorted(user for _, user, _ in _exposures(fake)) == ["u-1", "u-2"]


def test_a_user_counts_again_once_the_days_table_was_full_and_forgot_everyone(
    fake: FakeArbiter, make_client: Any
) -> None:
    client = _start(fake, make_client, exposure_dedup_capacity=1)
    for user in ("a", "b", "a"):
        client.assign("pro-english", user, FREE)
    client.flush()
    assert _received(fake) == {"pro-english": {"matched": 0, "excluded": 3}}


def test_model_calls_are_tallied_as_assign_is(fake: FakeArbiter, make_client: Any) -> None:
    client = _start(fake, make_client)
    seen: List[Any] = []
    for _ in range(2):
        client.intercept_model_call("pro-english", "u-pro", seen.append, attributes=PRO)
        client.intercept_model_call("pro-english", "u-free", seen.append, attributes=FREE)
    # A framework integration's run: matched, enrolled or not.
    with client.as_user("u-team", {"plan": "team", "locale": "en-GB"}):
        client._begin_model_run("pro-english", "u-team")
    client.flush()
    assert seen[0] is not None and seen[1] is None
    assert _received(fake) == {"pro-english": {"matched": 2, "excluded": 1}}


def test_a_thousand_tallies_a_request_at_most(fake: FakeArbiter, make_client: Any) -> None:
    base = ELIGIBILITY["config"]["experiments"][1]  # pro-english
    experiments = [
        dict(base, id="00000000-0000-4000-8000-%012d" % i, name="targeted-%d" % i, layer=None, holdouts=None)
        for i in range(1_001)
    ]
    # A request timed out on a busy machine is sent again and counted twice: this test is about
    # the split, so a request is given time to answer.
    client = _start(
        fake, make_client, config=dict(ELIGIBILITY["config"], experiments=experiments), request_timeout=10.0
    )
    for e in experiments:
        client.assign(e["name"], "u-1", FREE)
    client.flush()
    assert fake.tally_requests == [1_000, 1]
    assert {t["experiment_id"] for t in fake.tallies} == {e["id"] for e in experiments}


# -- the counts ---------------------------------------------------------------------------------


def test_past_ten_thousand_experiment_days_a_new_one_is_not_counted() -> None:
    tallies = TargetingTallies()
    for i in range(MAX_PENDING_TALLIES + 1):
        tallies.count("e-%d" % i, True)
    tallies.count("e-0", False)
    assert (len(tallies), tallies.dropped) == (MAX_PENDING_TALLIES, 1)
    taken = tallies.take()
    assert len(taken) == MAX_PENDING_TALLIES and len(tallies) == 0
    tallies.count("new", False)
    # Put back after a failed send: merged with what was counted since, up to the bound.
    tallies.restore(taken)
    assert (len(tallies), tallies.dropped) == (MAX_PENDING_TALLIES, 1 + 1)
    first = next(t for t in tallies.take() if t["experiment_id"] == "e-0")
    assert (first["matched"], first["excluded"]) == (1, 1)
