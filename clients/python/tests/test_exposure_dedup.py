"""One exposure per user, experiment, variant and UTC day, in bounded memory; a full queue drops
exposures first (docs/decisions/clients.md#exposure-de-duplication-in-the-clients)."""

import asyncio
import random
import sys
import types
from array import array
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import pytest

from arbiter import Arbiter
from arbiter._core.events import exposure_dedup as _exposure_dedup
from arbiter._core.events.event_queue import EventQueue
from arbiter._core.events.queued_event import QueuedEvent
from arbiter._fast import accelerated_assign
from arbiter._fast.engine import choose_engine
from support.fake_arbiter import EXPERIMENT_ID, EXPERIMENT_NAME, FakeArbiter, config_document
from support.recorded import events_of
from support.wait import wait_until

#: Every test here runs with the C assign of the speedups extra and with the Python method.
pytestmark = [
    pytest.mark.usefixtures("assign_kind"),
    # The deprecated a… aliases still answer as their methods do (their warning: test_client_api).
    pytest.mark.filterwarnings(r"ignore:Arbiter\.a\w+\(\) is deprecated:DeprecationWarning"),
]

DAY = 86_400.0
#: 2026-11-25 23:59:59 UTC, one second before a UTC midnight.
BEFORE_MIDNIGHT = 1_795_651_199.0
USERS = ["user-%d" % i for i in range(60)]


class Clock:
    """The wall clock the exposure tables read, moved by the test."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake_clock = Clock(BEFORE_MIDNIGHT)
    monkeypatch.setattr(_exposure_dedup, "wall_clock", fake_clock)
    return fake_clock


#: The C table of the speedups extra is the one a client takes here: the tests install it.
C_TABLE = accelerated_assign.ACCELERATED_TABLE


@pytest.fixture(autouse=True, params=["c", "pure"])
def table_kind(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Every test of this file runs with the speedups extra's C table and with the pure-Python
    one (the plain install's)."""
    assert C_TABLE is not None, "arbiter-client-speedups is not installed"
    monkeypatch.setattr(accelerated_assign, "ACCELERATED_TABLE", C_TABLE if request.param == "c" else None)
    yield request.param


def slot_bytes(table: _exposure_dedup.ExposureTable) -> int:
    """The memory of the table's slots."""
    if isinstance(table, _exposure_dedup.ExposureDedup):
        return sys.getsizeof(table._slots) - sys.getsizeof(array("q"))
    return sys.getsizeof(table) - type(table).__basicsize__


def exposures_per_user(fake: FakeArbiter, client: Arbiter) -> Dict[str, int]:
    counts: Dict[str, int] = {}
    for e in events_of(fake, client, "exposure"):
        counts[e["user_id"]] = counts.get(e["user_id"], 0) + 1
    return counts


def sync_assign(client: Arbiter) -> Callable[[str, str], Any]:
    return client.assign


def async_assign(client: Arbiter) -> Callable[[str, str], Any]:
    return lambda experiment, user: asyncio.run(client.aassign(experiment, user))


@pytest.mark.parametrize("assign_of", [sync_assign, async_assign], ids=["assign", "aassign"])
def test_one_exposure_per_user_and_day_however_often_and_by_whichever_name(
    fake: FakeArbiter, make_client: Any, clock: Clock, assign_of: Callable[[Arbiter], Callable[[str, str], Any]]
) -> None:
    client = make_client(base_url=fake.url, experiments=[EXPERIMENT_NAME])
    assert client.ready(timeout=30)
    assign = assign_of(client)
    for _ in range(3):
        for user in USERS:
            assign(EXPERIMENT_NAME, user)
            assign(EXPERIMENT_ID, user)
        clock.now += 0.25  # still the same UTC day (23:59:59.50 at the third pass)
    assert exposures_per_user(fake, client) == dict.fromkeys(USERS, 1)


@pytest.mark.parametrize("assign_of", [sync_assign, async_assign], ids=["assign", "aassign"])
def test_a_new_utc_day_sends_every_user_again_once(
    fake: FakeArbiter, make_client: Any, clock: Clock, assign_of: Callable[[Arbiter], Callable[[str, str], Any]]
) -> None:
    client = make_client(base_url=fake.url, experiments=[EXPERIMENT_NAME])
    assert client.ready(timeout=30)
    assign = assign_of(client)
    for user in USERS:
        assign(EXPERIMENT_NAME, user)
    clock.now += 1.0  # 00:00:00 UTC: the next day
    for _ in range(2):
        for user in USERS:
            assign(EXPERIMENT_NAME, user)
    assert exposures_per_user(fake, client) == dict.fromkeys(USERS, 2)
    clock.now += DAY - 1.0  # 23:59:59 of that day: still the same day
    for user in USERS:
        assign(EXPERIMENT_NAME, user)
    assert exposures_per_user(fake, client) == dict.fromkeys(USERS, 2)


def test_a_changed_variant_sends_again(fake: FakeArbiter, make_client: Any, clock: Clock) -> None:
    client = make_client(base_url=fake.url, experiments=[EXPERIMENT_NAME], poll_interval=0.02)
    assert client.ready(timeout=30)
    controls = [u for u in USERS if client.assign(EXPERIMENT_NAME, u) == "control"]
    conciser = [u for u in USERS if u not in controls]
    assert controls and conciser
    doc = config_document(version=2)
    doc["experiments"][0]["ranges"] = [{"variant": "concise", "start": 0, "end": 10000}]
    fake.config = doc
    wait_until(lambda: client.assign(EXPERIMENT_NAME, controls[0]) == "concise", "the new weights are polled")
    for _ in range(2):
        for user in USERS:
            assert client.assign(EXPERIMENT_NAME, user) == "concise"
    exposures = events_of(fake, client, "exposure")
    # The users whose variant changed are exposed once more, to the new variant; the others not.
    assert sorted((e["user_id"], e["variant"]) for e in exposures) == sorted(
        [(u, "control") for u in controls] + [(u, "concise") for u in USERS]
    )


def test_reaching_the_capacity_clears_the_table_and_keeps_its_memory_bounded(
    fake: FakeArbiter, make_client: Any, clock: Clock
) -> None:
    capacity = 100
    client = make_client(
        base_url=fake.url, experiments=[EXPERIMENT_NAME], exposure_dedup_capacity=capacity, batch_size=1000
    )
    assert client.ready(timeout=30)
    table = client._experiments[EXPERIMENT_NAME].exposures
    users = ["cap-%d" % i for i in range(250)]
    largest = 0
    for user in users:
        client.assign(EXPERIMENT_NAME, user)
        largest = max(largest, table.slot_count())
        assert len(table) <= capacity
    # The C assign decides its exposure checks in batches; stats() decides the last one.
    client.stats()
    largest = max(largest, table.slot_count())
    # Three in four slots filled at most, 8 bytes each: at most 134 slots for 100 users.
    assert largest == -(-capacity * 4 // 3)
    assert slot_bytes(table) == 8 * table.slot_count()
    # Filled at users 0-99 and 100-199, cleared twice: it holds users 200-249 now.
    assert len(table) == 50
    for user in users[200:]:
        client.assign(EXPERIMENT_NAME, user)
    assert exposures_per_user(fake, client) == dict.fromkeys(users, 1)
    for user in users[:10]:  # forgotten at a clear: exposed once more
        client.assign(EXPERIMENT_NAME, user)
    assert exposures_per_user(fake, client) == dict(dict.fromkeys(users, 1), **dict.fromkeys(users[:10], 2))


@pytest.mark.parametrize("capacity", [0, -5, 1.9])
def test_a_capacity_below_one_or_not_whole_is_read_as_a_whole_number_from_one(
    fake: FakeArbiter, make_client: Any, clock: Clock, capacity: float
) -> None:
    client = make_client(base_url=fake.url, experiments=[EXPERIMENT_NAME], exposure_dedup_capacity=capacity)
    assert client.ready(timeout=30)
    for user in ["a", "a", "b", "b", "a"]:
        client.assign(EXPERIMENT_NAME, user)
    # One fingerprint held: each change of user forgets the one before.
    assert exposures_per_user(fake, client) == {"a": 2, "b": 1}


def test_a_client_takes_the_c_table_when_the_speedups_extra_imports(
    fake: FakeArbiter, make_client: Any, table_kind: str
) -> None:
    client = make_client(base_url=fake.url, experiments=[EXPERIMENT_NAME])
    assert client.ready(timeout=30)
    table = client._experiments[EXPERIMENT_NAME].exposures
    assert isinstance(table, _exposure_dedup.ExposureDedup) is (table_kind == "pure")


def test_an_arbiter_speedups_of_another_interface_is_left_for_the_pure_table() -> None:
    import arbiter_speedups

    assert accelerated_assign.accelerated_table(arbiter_speedups) is arbiter_speedups.ExposureTable
    for api_version in (None, 1, "2"):
        other = types.SimpleNamespace(ExposureTable=arbiter_speedups.ExposureTable)
        if api_version is not None:
            other.API_VERSION = api_version
        assert accelerated_assign.accelerated_table(other) is None


def test_a_table_grows_by_doubling_and_finds_every_user_after_each_growth(clock: Clock) -> None:
    table = choose_engine().new_table(5_000)
    sizes: List[int] = []
    users = ["grow-%d" % i for i in range(5_000)]
    for user in users:
        assert table.first_today(user, "a") is True
        if not sizes or sizes[-1] != table.slot_count():
            sizes.append(table.slot_count())
    assert sizes == [256, 512, 1024, 2048, 4096, 6667]
    assert not any(table.first_today(user, "a") for user in users)
    assert all(table.first_today(user, "b") for user in users[:10])  # another variant, another pair


def test_the_c_and_the_pure_table_answer_alike_across_fills_clears_and_days(clock: Clock) -> None:
    """Random checks, repeats, a capacity reached several times and three UTC midnights: both
    tables give the same answer to every call and end up the same size."""
    rng = random.Random(32)
    users = ["u-%d-\u00e9" % i for i in range(700)]
    variants: List[Optional[str]] = ["control", "concise", None]
    checks: List[Tuple[str, Optional[str]]] = []
    tables = [C_TABLE(500, _exposure_dedup.wall_clock), _exposure_dedup.ExposureDedup(500)]  # type: ignore[misc]
    answers: List[List[bool]] = [[], []]
    for step in range(20_000):
        if step % 6_000 == 5_999:
            clock.now += DAY  # a new UTC day forgets everyone
        check = (rng.choice(users), rng.choice(variants))
        checks.append(check)
        for table, into in zip(tables, answers):
            into.append(table.first_today(*check))
    assert answers[0] == answers[1]
    assert 0 < sum(answers[0]) < len(checks)
    assert len(tables[0]) == len(tables[1]) and tables[0].slot_count() == tables[1].slot_count()


def event(n: int) -> QueuedEvent:
    return QueuedEvent("id-%d" % n, "2026-11-25T12:00:00.000Z", "{}")


def test_a_full_queue_makes_room_for_other_events_by_dropping_its_oldest_exposure() -> None:
    queue = EventQueue(4)
    for n, exposure in [(1, True), (2, False), (3, True), (4, False)]:
        assert queue.push(event(n), exposure) is True
    assert queue.push(event(5), False) is False  # kept, in the place of exposure 1
    assert queue.push(event(6), True) is False  # an exposure finds the queue full: dropped
    assert queue.push(event(7), False) is False  # kept, in the place of exposure 3
    assert queue.dropped == 3 and len(queue) == 4
    assert queue.push(event(8), False) is False  # no exposure left to give way: dropped
    assert queue.dropped == 4
    assert [e.event_id for e in queue.take(10)] == ["id-2", "id-4", "id-5", "id-7"]


def test_take_hands_out_both_kinds_in_arrival_order() -> None:
    queue = EventQueue(100)
    kinds = [n % 3 == 0 for n in range(30)]
    for n, exposure in enumerate(kinds):
        queue.push(event(n), exposure)
    taken = queue.take(7) + queue.take(100)
    assert [e.event_id for e in taken] == ["id-%d" % n for n in range(30)]
    assert queue.take(5) == [] and len(queue) == 0


def test_a_model_call_at_a_queue_full_of_exposures_is_kept_and_an_exposure_is_dropped(
    fake: FakeArbiter, make_client: Any, clock: Clock, warnings_log: Any
) -> None:
    client = make_client(base_url=fake.url, experiments=[EXPERIMENT_NAME], queue_capacity=3, batch_size=1000)
    assert client.ready(timeout=30)
    for user in ["u1", "u2", "u3", "u4"]:  # u4's exposure finds the queue full
        client.assign(EXPERIMENT_NAME, user)
    assert client.stats()["queued"] == 3 and client.stats()["dropped"] == 1
    # The call's own exposure is dropped; its model_call takes the place of u1's exposure.
    client.intercept_model_call(EXPERIMENT_NAME, "u2", lambda variant: {"model": "m"})
    assert client.stats()["queued"] == 3 and client.stats()["dropped"] == 3
    # A business event takes the place of u2's.
    client.track("business_event", experiment_id=EXPERIMENT_NAME, user_id="u3", business_metric="m", value=1)
    assert client.stats()["queued"] == 3 and client.stats()["dropped"] == 4
    client.flush()
    kept = sorted((e["type"], e["user_id"]) for e in fake.stored.values())
    assert kept == [("business_event", "u3"), ("exposure", "u3"), ("model_call", "u2")]
    assert len([r for r in warnings_log.records if "queue full" in r.getMessage()]) == 1
