"""assign() in C (the speedups extra) against the Python method it stands for: the same answers,
the same exposures, the same warnings, for every shape of call."""

import copy
import gc
import json
import os
import random
import types
from datetime import datetime, timezone
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest

from arbiter import Arbiter
from arbiter._core.events import exposure_dedup as _exposure_dedup
from arbiter._fast import accelerated_assign as _accelerated_assign
from conftest import C_ASSIGN, read_testdata
from support.fake_arbiter import EXPERIMENT_NAME, FakeArbiter
from support.recorded import events_of
from support.wait import wait_until

ELIGIBILITY = read_testdata("eligibility.json")
BUCKETING = read_testdata("bucketing.json")["cases"]


@pytest.fixture
def fakes() -> Iterator[Tuple[FakeArbiter, FakeArbiter]]:
    """One fake API per client, so that each one's events can be told apart."""
    pair = (FakeArbiter().start(), FakeArbiter().start())
    yield pair
    for fake in pair:
        fake.stop()


def c_and_python(
    fakes: Tuple[FakeArbiter, FakeArbiter], make_client: Any, monkeypatch: pytest.MonkeyPatch, **options: Any
) -> Tuple[Arbiter, Arbiter]:
    """A client with the C assign and one with the Python method alone, on the same config."""
    assert C_ASSIGN is not None, "arbiter-client-speedups is not installed"
    c = make_client(base_url=fakes[0].url, **options)
    assert c.ready(timeout=30)
    with monkeypatch.context() as m:
        m.setattr(_accelerated_assign, "ACCELERATED", None)
        python = make_client(base_url=fakes[1].url, **options)
        assert python.ready(timeout=30)
    assert c._engine_assigner is not None, "the client did not take the C assign"
    assert python._engine_assigner is None
    return c, python


def random_ranges(rng: random.Random, bucket_count: int) -> List[Dict[str, Any]]:
    """Up to four ranges, in any order, overlapping or leaving gaps, some beyond the buckets."""
    ranges = []
    for i in range(rng.randint(0, 4)):
        start = rng.choice([rng.randrange(bucket_count), 0, -5, bucket_count, 2**70 * rng.choice([1, -1])])
        end = rng.choice([start + rng.randint(0, bucket_count), bucket_count, 2**64 + 1])
        ranges.append({"variant": "v%d" % i, "start": start, "end": end})
    return ranges


def random_user(rng: random.Random) -> str:
    kind = rng.randrange(6)
    if kind == 0:
        return "user-%d" % rng.randrange(10**9)
    if kind == 1:
        return "".join(chr(rng.randint(0x20, 0x7E)) for _ in range(rng.randint(0, 9)))
    if kind == 2:
        return "é-%d-ü" % rng.randrange(1000)
    if kind == 3:
        return "x\ud800-%d" % rng.randrange(1000)  # a lone surrogate: the pure hash's U+FFFD rule
    if kind == 4:
        return "long-" + "u" * rng.choice([250, 251, 252, 300])  # around the C call's 256 bytes
    return "\U0001f600-%d" % rng.randrange(1000)


def random_config(rng: random.Random) -> Dict[str, Any]:
    """The eligibility vectors' config (holdouts, layers, targeting) and 12 plain experiments with
    salts of every length modulo 4, non-ASCII and lone-surrogate salts, and odd bucket counts."""
    config = copy.deepcopy(ELIGIBILITY["config"])
    salts = ["", "a", "ab", "abc", "abcd", "s-8f2a", "sél", "s\ud800x", "日本語", "k" * 33, "x:y", "z"]
    for i, salt in enumerate(salts):
        count = rng.choice([1, 2, 100, 10_000, 2**32 - 1])
        config["experiments"].append(
            {
                "id": "10000000-0000-4000-8000-%012d" % i,
                "name": "plain-%d" % i,
                "version": 1,
                "salt": salt,
                "bucket_count": count,
                "ranges": random_ranges(rng, count),
                "variants": [{"key": "v%d" % k} for k in range(4)],
            }
        )
    return config


def exposures(fake: FakeArbiter, client: Arbiter) -> List[str]:
    """The exposure events sent, as comparable text (without their ids and times)."""
    keep = ("experiment_id", "user_id", "variant", "metadata")
    return sorted(json.dumps({k: e.get(k) for k in keep}, sort_keys=True) for e in events_of(fake, client, "exposure"))


@pytest.mark.parametrize("seed", range(4))
def test_random_configs_users_and_attributes_answer_and_expose_alike(
    fakes: Tuple[FakeArbiter, FakeArbiter], make_client: Any, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    rng = random.Random(seed)
    config = random_config(rng)
    for fake in fakes:
        fake.config = config
    c, python = c_and_python(fakes, make_client, monkeypatch, exposure_attributes=seed % 2 == 1)
    keys = [e["name"] for e in config["experiments"]] + [e["id"] for e in config["experiments"]] + ["unknown"]
    attribute_sets = [case.get("attributes") for case in ELIGIBILITY["cases"]] + [None, {}]
    calls = [(rng.choice(keys), random_user(rng), rng.choice(attribute_sets)) for _ in range(3_000)]
    calls += calls[:1_000]  # again: users already exposed today
    answers = [(c.assign(*call), python.assign(*call)) for call in calls]
    assert [a for a, _ in answers] == [b for _, b in answers]
    assert sum(a is not None for a, _ in answers) > 1_000, "too few enrolled calls to compare"
    sent = exposures(fakes[0], c)
    assert sent == exposures(fakes[1], python)
    assert len(sent) > 500
    assert c.stats() == python.stats()


@pytest.mark.parametrize("case", BUCKETING, ids=lambda c: "%d" % BUCKETING.index(c))
def test_every_bucketing_vector_lands_in_its_bucket_through_the_c_call(
    fakes: Tuple[FakeArbiter, FakeArbiter], make_client: Any, case: Dict[str, Any]
) -> None:
    bucket, count = case["bucket"], case["bucket_count"]
    ranges = [{"variant": "in", "start": bucket, "end": bucket + 1}]
    if count > 1:
        ranges.append({"variant": "out", "start": (bucket + 1) % count, "end": (bucket + 1) % count + 1})
    fakes[0].config = {
        "config_version": 1,
        "bucketing_version": "1",
        "experiments": [
            {"id": "e", "name": "vector", "version": 1, "salt": case["salt"], "bucket_count": count, "ranges": ranges}
        ],
    }
    fakes[0].config["experiments"][0]["variants"] = [{"key": "in"}, {"key": "out"}]
    client = make_client(base_url=fakes[0].url, track_exposures=False)
    assert client.ready(timeout=30)
    assert client._engine_assigner is not None
    assert client.assign("vector", case["user_id"]) == "in"


def test_every_shape_of_call_is_answered_or_refused_as_the_method_does(
    fakes: Tuple[FakeArbiter, FakeArbiter], make_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    c, python = c_and_python(fakes, make_client, monkeypatch)
    user = "user-7"
    answered = [
        ((EXPERIMENT_NAME, user), {}),
        ((EXPERIMENT_NAME, user, None), {}),
        ((EXPERIMENT_NAME, user, {"plan": "pro"}), {}),
        ((EXPERIMENT_NAME,), {"user": user}),
        ((), {"experiment": EXPERIMENT_NAME, "user": user, "attributes": {"a": 1}}),
        ((EXPERIMENT_NAME, user), {"attributes": None}),
        ((EXPERIMENT_NAME, 7), {}),  # not a str: None
        ((EXPERIMENT_NAME, None), {}),
        ((EXPERIMENT_NAME, type("Id", (str,), {})(user)), {}),  # a str subclass is a user id
        (("unknown", user), {}),
        ((["unhashable"], user), {}),  # the method's TypeError, caught: None and a warning
        ((None, user), {}),
    ]
    for args, kwargs in answered:
        assert c.assign(*args, **kwargs) == python.assign(*args, **kwargs), (args, kwargs)
    assert c.assign(EXPERIMENT_NAME, user) in ("control", "concise")
    refused = [
        ((EXPERIMENT_NAME,), {}),
        ((), {}),
        ((EXPERIMENT_NAME, user, None, "extra"), {}),
        ((EXPERIMENT_NAME, user), {"attribute": {}}),
        ((EXPERIMENT_NAME, user), {"user": user}),
        ((EXPERIMENT_NAME,), {"user": user, "experiment": EXPERIMENT_NAME}),
    ]
    for args, kwargs in refused:
        with pytest.raises(TypeError) as from_python:
            python.assign(*args, **kwargs)
        with pytest.raises(TypeError) as from_c:
            c.assign(*args, **kwargs)
        assert str(from_c.value) == str(from_python.value)
    assert exposures(fakes[0], c) == exposures(fakes[1], python)


def test_a_failing_step_answers_none_and_warns_once_as_the_method_does(
    fakes: Tuple[FakeArbiter, FakeArbiter],
    make_client: Any,
    monkeypatch: pytest.MonkeyPatch,
    warnings_log: pytest.LogCaptureFixture,
) -> None:
    c, python = c_and_python(fakes, make_client, monkeypatch)

    class Broken:
        def first_today(self, user: str, variant: str) -> bool:
            raise RuntimeError("table broken")

    # The table both clients consult for every enrolled user, replaced in both forms.
    for client in (c, python):
        client._experiments[EXPERIMENT_NAME].exposures = Broken()  # type: ignore[assignment]
    entry = c._experiments[EXPERIMENT_NAME]
    for key in (entry.name, entry.id):
        c._store.accelerated[key] = C_ASSIGN.entry(entry.id, entry.variant, Broken(), None)  # type: ignore[union-attr]
    for client in (c, python):
        assert [client.assign(EXPERIMENT_NAME, "user-%d" % i) for i in range(5)] == [None] * 5
    failures = [r.getMessage() for r in warnings_log.records if "assign failed" in r.getMessage()]
    assert failures == ["assign failed, returning None: RuntimeError('table broken')"] * 2


def test_an_interrupt_is_not_swallowed(
    fakes: Tuple[FakeArbiter, FakeArbiter], make_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The method catches Exception only; KeyboardInterrupt reaches the caller from both."""
    c, python = c_and_python(fakes, make_client, monkeypatch, track_exposures=False)

    def interrupted(user: str, attributes: Any = None, expose_holdout: Any = None) -> Optional[str]:
        raise KeyboardInterrupt

    python._experiments[EXPERIMENT_NAME].variant = interrupted
    entry = c._experiments[EXPERIMENT_NAME]
    c._store.accelerated[EXPERIMENT_NAME] = C_ASSIGN.entry(entry.id, interrupted, entry.exposures, None)  # type: ignore[union-attr]
    for client in (c, python):
        with pytest.raises(KeyboardInterrupt):
            client.assign(EXPERIMENT_NAME, "user-1")


def test_a_subclass_keeps_its_own_assign(fakes: Tuple[FakeArbiter, FakeArbiter], make_client: Any) -> None:
    class Logged(Arbiter):
        def assign(self, experiment: str, user: str, attributes: Any = None) -> Optional[str]:
            return "logged:" + str(super().assign(experiment, user, attributes))

    client = Logged(api_key="svc_pk_test", base_url=fakes[0].url, poll_interval=3600.0, flush_interval=3600.0)
    try:
        assert client.ready(timeout=30)
        assert client.assign(EXPERIMENT_NAME, "user-1") in ("logged:control", "logged:concise")
    finally:
        client.close(timeout=5)


def test_the_collector_sees_the_c_assigns_references_to_its_client(
    fakes: Tuple[FakeArbiter, FakeArbiter], make_client: Any
) -> None:
    """Client -> its assign -> the method bound to the client is a cycle: without the C types'
    traverse the collector could never free it."""
    client = make_client(base_url=fakes[0].url)
    assert client.ready(timeout=30)
    assigner = client._engine_assigner
    assert gc.is_tracked(assigner)
    referents = gc.get_referents(assigner)
    assert client._store.accelerated in referents
    assert any(getattr(r, "__self__", None) is client for r in referents)
    entry = client._store.accelerated[EXPERIMENT_NAME]
    assert gc.is_tracked(entry) and client._experiments[EXPERIMENT_NAME].variant in gc.get_referents(entry)


def test_the_c_assign_is_left_alone_unless_it_speaks_this_clients_interface() -> None:
    import arbiter_speedups

    assert isinstance(_accelerated_assign.accelerated(arbiter_speedups), type(C_ASSIGN))
    for api_version in (None, 1, "2", 3):
        other = types.SimpleNamespace(Assigner=arbiter_speedups.Assigner, AssignEntry=arbiter_speedups.AssignEntry)
        if api_version is not None:
            other.API_VERSION = api_version
        assert _accelerated_assign.accelerated(other) is None


def test_a_client_without_the_extra_keeps_the_method(
    fakes: Tuple[FakeArbiter, FakeArbiter], make_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_accelerated_assign, "ACCELERATED", None)
    client = make_client(base_url=fakes[0].url)
    assert client.ready(timeout=30)
    assert client._engine_assigner is None
    assert client._store.accelerated == {}
    assert client.assign(EXPERIMENT_NAME, "user-1") in ("control", "concise")


# -- the batch of exposure checks ------------------------------------------------------------


def test_checks_wait_in_a_batch_of_64_and_a_full_batch_is_decided(
    fakes: Tuple[FakeArbiter, FakeArbiter], make_client: Any
) -> None:
    client = make_client(base_url=fakes[0].url, batch_size=1000)
    assert client.ready(timeout=30)
    assigner = client._engine_assigner
    for i in range(64):
        client.assign(EXPERIMENT_NAME, "batch-%d" % i)
    assert assigner.pending() == 64 and len(client._queue) == 0
    client.assign(EXPERIMENT_NAME, "batch-64")
    assert assigner.pending() == 1 and len(client._queue) == 64
    assert client.stats()["queued"] == 65  # stats() decides the rest first
    assert assigner.pending() == 0


def test_a_batched_exposure_is_queued_before_the_events_tracked_after_its_call(
    fakes: Tuple[FakeArbiter, FakeArbiter], make_client: Any
) -> None:
    client = make_client(base_url=fakes[0].url)
    assert client.ready(timeout=30)
    variant = client.assign(EXPERIMENT_NAME, "ordered")
    assert variant is not None and client._engine_assigner.pending() == 1
    client.track("business_event", experiment_id=EXPERIMENT_NAME, user_id="ordered", business_metric="m", value=1)
    client.flush()
    assert [(e["type"], e["user_id"]) for e in fakes[0].stored.values()] == [
        ("exposure", "ordered"),
        ("business_event", "ordered"),
    ]


def test_a_batched_exposure_keeps_its_calls_time_and_utc_day(
    fakes: Tuple[FakeArbiter, FakeArbiter], make_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    before_midnight = datetime(2026, 11, 25, 23, 59, 59, 250_000, tzinfo=timezone.utc).timestamp()
    now = [before_midnight]
    monkeypatch.setattr(_exposure_dedup, "wall_clock", lambda: now[0])  # read when a table is made
    client = make_client(base_url=fakes[0].url)
    assert client.ready(timeout=30)
    client.assign(EXPERIMENT_NAME, "midnight")
    now[0] += 1.5  # 00:00:00.750 of the next UTC day: the same user is exposed once more
    client.assign(EXPERIMENT_NAME, "midnight")
    client.assign(EXPERIMENT_NAME, "midnight")
    assert client._engine_assigner.pending() == 3
    now[0] += 3600.0  # decided an hour later, each on its own call's day and time
    client.flush()
    stamps = sorted(e["timestamp"] for e in events_of(fakes[0], client, "exposure"))
    assert stamps == ["2026-11-25T23:59:59.250Z", "2026-11-26T00:00:00.750Z"]


def test_close_delivers_the_batch_of_the_calls_made_before_it(
    fakes: Tuple[FakeArbiter, FakeArbiter], make_client: Any, warnings_log: pytest.LogCaptureFixture
) -> None:
    client = make_client(base_url=fakes[0].url)
    assert client.ready(timeout=30)
    client.assign(EXPERIMENT_NAME, "before-close")
    assert client._engine_assigner.pending() == 1
    client.close(timeout=5)
    assert [e["user_id"] for e in fakes[0].stored.values()] == ["before-close"]
    assert client.stats()["dropped"] == 0
    assert not [r for r in warnings_log.records if "after close" in r.getMessage()]


def test_a_quiet_clients_batch_goes_out_with_the_background_flush(
    fakes: Tuple[FakeArbiter, FakeArbiter], make_client: Any
) -> None:
    client = make_client(base_url=fakes[0].url, flush_interval=0.02)
    assert client.ready(timeout=30)
    client.assign(EXPERIMENT_NAME, "quiet")
    wait_until(lambda: len(fakes[0].stored) == 1, "the background flush sends the batched exposure")
    assert [e["user_id"] for e in fakes[0].stored.values()] == ["quiet"]


def test_checks_the_method_makes_follow_the_batch(fakes: Tuple[FakeArbiter, FakeArbiter], make_client: Any) -> None:
    """A call of another shape goes to the method, which checks at once: the batch goes first."""
    client = make_client(base_url=fakes[0].url, batch_size=1000)
    assert client.ready(timeout=30)
    client.assign(EXPERIMENT_NAME, "first")
    client.assign(EXPERIMENT_NAME, user=type("Id", (str,), {})("second"))
    assert client._engine_assigner.pending() == 0
    client.flush()
    assert [e["user_id"] for e in fakes[0].stored.values()] == ["first", "second"]


def test_a_forked_child_forgets_its_parents_batch(fakes: Tuple[FakeArbiter, FakeArbiter], make_client: Any) -> None:
    client = make_client(base_url=fakes[0].url, flush_interval=0.02)
    assert client.ready(timeout=30)
    client.assign(EXPERIMENT_NAME, "parent")
    assert client._engine_assigner.pending() == 1
    pid = os.fork()
    if pid == 0:  # the child
        code = 1
        try:
            code = 0 if client._engine_assigner.pending() == 0 else 2
            client.assign(EXPERIMENT_NAME, "child")
            client.flush()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0
    client.flush()
    assert sorted(e["user_id"] for e in fakes[0].stored.values()) == ["child", "parent"]
