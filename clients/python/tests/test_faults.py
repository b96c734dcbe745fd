"""Against a local server that fails in every way a network can: nothing raised into the
caller, nothing lost (spilled and replayed with original ids and timestamps), nothing doubled."""

import json
from typing import Any, Dict, List

from arbiter import Arbiter
from support.fake_arbiter import EXPERIMENT_NAME, FakeArbiter
from support.http_server import free_port


def track_many(client: Arbiter, n: int, prefix: str = "u", first: int = 0) -> None:
    for i in range(first, first + n):
        assert (
            client.track(
                "business_event",
                experiment_id=EXPERIMENT_NAME,
                user_id="%s-%d" % (prefix, i),
                business_metric="checkout",
                value=i,
            )
            is None
        )


def first_attempt_of(fake: FakeArbiter) -> Dict[str, Dict[str, Any]]:
    """Each event as the server first saw it, before any retry or replay."""
    seen: Dict[str, Dict[str, Any]] = {}
    for attempt in fake.attempts:
        for e in attempt:
            seen.setdefault(e["event_id"], e)
    return seen


def assert_stored_once_unchanged(fake: FakeArbiter, expected: int) -> None:
    """Every event is stored, exactly as first sent (id, timestamp, fields), and none twice."""
    assert len(fake.stored) == expected
    first = first_attempt_of(fake)
    assert set(first) == set(fake.stored)
    for event_id, event in fake.stored.items():
        assert event == first[event_id]
    # One id per tracked event: a retry or a replay never makes a new one.
    assert sorted(e["user_id"] for e in fake.stored.values()) == sorted("u-%d" % i for i in range(expected))


def test_500s_are_retried_with_the_same_ids_then_delivered(fake: FakeArbiter, make_client: Any) -> None:
    fake.plan(("status", 500), ("status", 503))
    waits: List[float] = []
    client = make_client(base_url=fake.url, retry_base_delay=0.5, retry_max_delay=0.8, sleep=waits.append)
    track_many(client, 5)
    client.flush()
    assert len(fake.attempts) == 3
    # Exponential backoff (0.5 s, then 1 s capped at 0.8 s), each shortened by up to 25 % jitter.
    assert len(waits) == 2 and 0.375 <= waits[0] <= 0.5 and 0.6 <= waits[1] <= 0.8
    assert [sorted(e["event_id"] for e in a) for a in fake.attempts[1:]] == [
        sorted(e["event_id"] for e in fake.attempts[0])
    ] * 2
    assert_stored_once_unchanged(fake, 5)
    assert client.stats() == {"queued": 0, "sent": 5, "dropped": 0, "spilled": 0, "replayed": 0, "expired": 0}


def test_retry_after_of_a_429_is_honoured_up_to_its_cap(fake: FakeArbiter, make_client: Any) -> None:
    fake.plan(("status", 429, {"Retry-After": "120"}), ("status", 429, {"Retry-After": "0.01"}))
    waits: List[float] = []  # the sleep hook records the waits instead of sleeping
    client = make_client(base_url=fake.url, retry_after_cap=0.04, retry_base_delay=1.0, sleep=waits.append)
    track_many(client, 3)
    client.flush()
    # 120 s asked, capped at 40 ms; then 10 ms asked and honoured. The 1 s backoff is not used.
    assert waits == [0.04, 0.01]
    assert_stored_once_unchanged(fake, 3)


def test_timeouts_spill_to_the_file_and_replay_with_original_ids_and_timestamps(
    fake: FakeArbiter, make_client: Any, tmp_path: Any, warnings_log: Any
) -> None:
    path = str(tmp_path / "spill" / "events.ndjson")
    fake.plan(("hang", 1.0), ("hang", 1.0), ("hang", 1.0))
    client = make_client(base_url=fake.url, offline_store_path=path, request_timeout=0.1)
    track_many(client, 7)
    client.flush()
    assert fake.stored == {}
    with open(path, encoding="utf-8") as f:
        spilled = [json.loads(line) for line in f]
    assert [e["event_id"] for e in spilled] == [e["event_id"] for e in fake.attempts[0]]
    assert client.stats()["spilled"] == 7
    assert sum("offline store" in r.getMessage() for r in warnings_log.records) == 1

    client.flush()  # the server answers again: the file is replayed
    assert_stored_once_unchanged(fake, 7)
    assert {e["event_id"]: e["timestamp"] for e in spilled} == {k: v["timestamp"] for k, v in fake.stored.items()}
    with open(path, encoding="utf-8") as f:
        assert f.read() == ""
    assert client.stats()["replayed"] == 7


def test_refused_connections_then_a_server_that_comes_up(make_client: Any, tmp_path: Any) -> None:
    port = free_port()
    path = str(tmp_path / "events.ndjson")
    client = make_client(base_url="http://127.0.0.1:%d" % port, offline_store_path=path)
    assert client.ready(timeout=30) is False  # the config could not be loaded
    assert client.assign(EXPERIMENT_NAME, "u-1") is None
    track_many(client, 4)
    client.flush()
    assert client.stats()["spilled"] == 4

    fake = FakeArbiter(port).start()
    try:
        client.flush()
        assert_stored_once_unchanged(fake, 4)
    finally:
        fake.stop()


def test_a_server_that_dies_mid_flush_loses_and_doubles_nothing(make_client: Any, tmp_path: Any) -> None:
    fake = FakeArbiter().start()
    port = int(fake.url.rsplit(":", 1)[1])
    path = str(tmp_path / "events.ndjson")
    # Batches of ten, each sent by flush() before the next ten are tracked. A batch size of 11
    # keeps track() from ever filling a batch: a full one wakes the background sender, whose
    # drain could run after this flush() and take the first events of the next ten as a short
    # batch, shifting the plan (seen once in CI: 14 stored instead of 20).
    client = make_client(base_url=fake.url, offline_store_path=path, batch_size=11)
    # A connection cut before the answer; then a batch stored whose answer is lost because the
    # server dies right there: its retries, and the third batch, meet refused connections.
    fake.plan("drop", "ok", "store-then-die")
    for first in (0, 10, 20):
        track_many(client, 10, first=first)
        client.flush()
    assert client.stats()["spilled"] == 20
    assert len(fake.stored) == 20  # the first batch, and the second, whose ack was lost

    revived = FakeArbiter(port)
    revived.stored = fake.stored  # the same database behind the restarted server
    revived.attempts = fake.attempts
    revived.start()
    try:
        client.flush()
        assert_stored_once_unchanged(revived, 30)
        assert client.stats()["replayed"] == 20
        # The batch whose ack was lost went twice (first attempt, replay) and is stored once.
        second = {e["event_id"] for e in fake.attempts[2]}
        assert sum(1 for a in revived.attempts if {e["event_id"] for e in a} & second) == 2
    finally:
        revived.stop()


def test_without_an_offline_store_a_failed_batch_is_dropped_with_one_log_line(
    fake: FakeArbiter, make_client: Any, warnings_log: Any
) -> None:
    fake.plan(*[("status", 500)] * 3)
    client = make_client(base_url=fake.url)
    track_many(client, 4)
    client.flush()
    assert client.stats()["dropped"] == 4
    lines = [r.getMessage() for r in warnings_log.records if "dropped" in r.getMessage()]
    assert lines == ["dropped 4 events, API unreachable and no offline store: HTTP 500: injected"]
    assert len(fake.attempts) == 3  # max_attempts, then no more


def test_events_older_than_the_replay_window_are_discarded_not_sent(
    fake: FakeArbiter, make_client: Any, tmp_path: Any
) -> None:
    path = tmp_path / "events.ndjson"
    old = {
        "event_id": "old-1",
        "type": "business_event",
        "experiment_id": EXPERIMENT_NAME,
        "user_id": "u-0",
        "business_metric": "checkout",
        "value": 1,
        "timestamp": "2020-01-01T00:00:00.000Z",
    }
    path.write_text(json.dumps(old) + "\n")
    client = make_client(base_url=fake.url, offline_store_path=str(path))
    track_many(client, 1)
    client.flush()
    assert set(fake.stored) != {"old-1"} and "old-1" not in fake.stored
    assert client.stats()["expired"] == 1
    assert path.read_text() == ""


def test_a_file_written_by_the_node_client_is_replayed(fake: FakeArbiter, make_client: Any, tmp_path: Any) -> None:
    """JSON.stringify's lines, a line cut short by a crash, and an empty line: the Node format."""
    from datetime import datetime, timezone

    now = datetime.now(timezone.utc).isoformat(timespec="milliseconds")[:-6] + "Z"
    lines = [
        {
            "experiment_id": EXPERIMENT_NAME,
            "user_id": "u-0",
            "business_metric": "checkout",
            "value": 1,
            "event_id": "9d4c3a0e-0000-4000-8000-000000000001",
            "type": "business_event",
            "timestamp": now,
        },
        {
            "experiment_id": EXPERIMENT_NAME,
            "user_id": "u-1",
            "variant": "control",
            "event_id": "9d4c3a0e-0000-4000-8000-000000000002",
            "type": "exposure",
            "timestamp": now,
        },
    ]
    path = tmp_path / "node.ndjson"
    path.write_text("".join(json.dumps(e, separators=(",", ":")) + "\n" for e in lines) + '\n{"event_id":"cut')
    client = make_client(base_url=fake.url, offline_store_path=str(path))
    client.flush()
    assert fake.stored == {e["event_id"]: e for e in lines}


def test_nothing_raises_into_the_caller_whatever_it_passes(make_client: Any) -> None:
    client = make_client(base_url="http://127.0.0.1:%d" % free_port(), max_attempts=1)
    bad: List[Any] = [None, 3, "", object()]
    for experiment in bad:
        for user in bad:
            assert client.assign(experiment, user) is None
            assert client.get_prompt(experiment, user, "d").prompt == "d"
            assert client.get_variables(experiment, user, {"a": 1}) == {"a": 1}
    assert client.get_variables("e", "u", None) == {}  # type: ignore[arg-type]
    assert client.get_variables("e", "u", 42) == {}  # type: ignore[arg-type]
    client.track("nonsense", {})  # type: ignore[arg-type]
    client.track("business_event", None)
    client.track(
        "business_event", {"experiment_id": "e", "user_id": "u", "business_metric": "m", "value": float("nan")}
    )
    client.track(
        "business_event",
        {"experiment_id": "e", "user_id": "u", "business_metric": "m", "value": 1, "metadata": {"x": object()}},
    )
    client.flush()
    client.close()
    client.close()
    client.track("business_event", {"experiment_id": "e", "user_id": "u", "business_metric": "m", "value": 1})
    stats = client.stats()
    assert stats["queued"] == 0 and stats["dropped"] == 1  # the one tracked after close()


def test_a_batch_over_1_mib_is_split_into_requests_under_it(fake: FakeArbiter, make_client: Any) -> None:
    client = make_client(base_url=fake.url)
    for i in range(20):
        client.track("model_call", experiment_id=EXPERIMENT_NAME, user_id="u-%d" % i, response="é" * 60_000)
    client.flush()
    sizes = [len(json.dumps({"events": a}, ensure_ascii=False, separators=(",", ":")).encode()) for a in fake.attempts]
    assert len(sizes) > 1 and max(sizes) <= 1_048_576
    assert_stored_once_unchanged(fake, 20)
