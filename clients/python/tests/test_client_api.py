"""The public surface: construction, assignment, prompts and variables, polling, the async
forms, context managers, the exit hook and fork safety."""

import asyncio
import inspect
import json
import os
import subprocess
import sys
import textwrap
from typing import Any

import pytest

import arbiter
from arbiter import Arbiter, ArbiterError, AsyncArbiter, PromptResult
from support.fake_arbiter import EXPERIMENT_ID, EXPERIMENT_NAME, FakeArbiter, config_document
from support.wait import wait_until


def test_without_a_key_construction_raises_a_clear_error(monkeypatch: Any) -> None:
    monkeypatch.delenv("ARBITER_API_KEY", raising=False)
    with pytest.raises(ArbiterError, match="ARBITER_API_KEY"):
        Arbiter()
    with pytest.raises(ArbiterError):
        Arbiter(api_key="")


def test_key_and_address_come_from_the_environment(fake: FakeArbiter, monkeypatch: Any) -> None:
    monkeypatch.setenv("ARBITER_API_KEY", "svc_pk_from_env")
    monkeypatch.setenv("ARBITER_BASE_URL", fake.url)
    with Arbiter(experiments=[EXPERIMENT_NAME]) as client:
        assert client.ready(timeout=30) is True
    assert fake.api_keys == ["svc_pk_from_env"]


def test_assign_by_name_or_id_one_exposure_per_user(fake: FakeArbiter, make_client: Any) -> None:
    client = make_client(base_url=fake.url, experiments=[EXPERIMENT_NAME])
    assert client.ready(timeout=30) is True
    users = ["user-%d" % i for i in range(200)]
    for _ in range(3):
        for user in users:
            assert client.assign(EXPERIMENT_NAME, user) == client.assign(EXPERIMENT_ID, user)
    assert {client.assign(EXPERIMENT_NAME, u) for u in users} == {"control", "concise"}
    assert client.assign("no-such-experiment", "user-1") is None
    client.flush()
    exposures = [e for e in fake.stored.values() if e["type"] == "exposure"]
    assert sorted(e["user_id"] for e in exposures) == sorted(users)
    assert all(
        e["experiment_id"] == EXPERIMENT_ID and e["variant"] == client.assign(EXPERIMENT_ID, e["user_id"])
        for e in exposures
    )
    assert all(e["timestamp"].endswith("Z") and len(e["event_id"]) == 36 for e in exposures)


def test_prompts_and_variables(fake: FakeArbiter, make_client: Any) -> None:
    fake.config_released.clear()
    client = make_client(base_url=fake.url, track_exposures=False)
    assert client.get_prompt(EXPERIMENT_NAME, "u", "DEFAULT") == PromptResult(None, "DEFAULT", True)
    assert client.assign(EXPERIMENT_NAME, "u") is None
    assert client.ready(timeout=0.05) is False  # still loading
    fake.config_released.set()
    assert client.ready(timeout=30) is True
    concise = next(u for u in ("u-%d" % i for i in range(100)) if client.assign(EXPERIMENT_NAME, u) == "concise")
    variant, prompt, fallback = client.get_prompt(EXPERIMENT_NAME, concise, "DEFAULT")
    assert (variant, prompt, fallback) == ("concise", "Answer in one sentence.", False)
    defaults = {"temperature": 1.0, "max_tokens": 256}
    assert client.get_variables(EXPERIMENT_ID, concise, defaults) == {"temperature": 0.2, "max_tokens": 256}
    assert defaults == {"temperature": 1.0, "max_tokens": 256}


def test_polling_uses_the_etag_and_keeps_the_last_config_when_the_api_goes_away(
    fake: FakeArbiter, make_client: Any
) -> None:
    client = make_client(base_url=fake.url, poll_interval=0.02, track_exposures=False)
    assert client.ready(timeout=30)
    wait_until(lambda: fake.config_statuses.count(304) >= 2, "unchanged polls answered 304")
    assert fake.config_statuses[0] == 200
    doc = config_document(version=2)
    doc["experiments"][0]["ranges"] = [{"variant": "concise", "start": 0, "end": 10000}]
    fake.config = doc
    wait_until(lambda: client.assign(EXPERIMENT_NAME, "user-1") == "concise", "the new version is polled")
    fake.stop()
    assert all(client.assign(EXPERIMENT_NAME, "u-%d" % i) == "concise" for i in range(100))


async def test_the_async_client_awaits_its_waits(fake: FakeArbiter) -> None:
    async with AsyncArbiter(
        api_key="k", base_url=fake.url, experiments=[EXPERIMENT_NAME], flush_interval=3600.0
    ) as client:
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0)

        ticker = asyncio.ensure_future(tick())
        assert await client.ready(timeout=30) is True
        variant = client.assign(EXPERIMENT_NAME, "async-user")
        assert variant is not None
        assert client.get_prompt(EXPERIMENT_NAME, "async-user", "d").variant == variant
        assert "temperature" in client.get_variables(EXPERIMENT_NAME, "async-user", {})
        client.track(
            "business_event", experiment_id=EXPERIMENT_NAME, user_id="async-user", business_metric="checkout", value=2.5
        )
        await client.flush()
        assert client.stats()["sent"] == 2
        ticker.cancel()
        # The event loop ran other tasks while the client waited for its config and its flush.
        assert ticks > 0
    kinds = sorted(e["type"] for e in fake.stored.values())
    assert kinds == ["business_event", "exposure"]
    assert client.stats()["queued"] == 0


def test_the_async_clients_waits_are_coroutines_and_its_reads_plain() -> None:
    for name in ("ready", "flush", "close", "evaluate", "__aenter__", "__aexit__"):
        assert inspect.iscoroutinefunction(getattr(AsyncArbiter, name)), name
    for name in ("assign", "get_prompt", "get_variables", "track", "stats", "wrap", "as_user"):
        assert not inspect.iscoroutinefunction(getattr(AsyncArbiter, name)), name
    assert not hasattr(AsyncArbiter, "__enter__")


async def test_the_async_clients_ready_times_out_without_a_server() -> None:
    client = AsyncArbiter(api_key="k", base_url="http://127.0.0.1:9", request_timeout=5.0, max_attempts=3)
    try:
        assert await client.ready(timeout=0.05) is False
    finally:
        await client.close(timeout=1)


async def test_the_a_methods_still_work_and_say_they_are_deprecated(fake: FakeArbiter) -> None:
    async with Arbiter(api_key="k", base_url=fake.url, experiments=[EXPERIMENT_NAME], flush_interval=3600.0) as client:
        with pytest.warns(DeprecationWarning) as caught:
            assert await client.aready(timeout=30) is True
            variant = await client.aassign(EXPERIMENT_NAME, "async-user")
            assert variant == client.assign(EXPERIMENT_NAME, "async-user") is not None
            assert (await client.aget_prompt(EXPERIMENT_NAME, "async-user", "d")).variant == variant
            assert "temperature" in await client.aget_variables(EXPERIMENT_NAME, "async-user", {})
            await client.atrack(
                "business_event",
                experiment_id=EXPERIMENT_NAME,
                user_id="async-user",
                business_metric="checkout",
                value=2.5,
            )
            await client.aflush()
        assert client.stats()["sent"] == 2
        names = [str(w.message).split("(")[0] for w in caught if issubclass(w.category, DeprecationWarning)]
        assert names == [
            *["Arbiter.aready", "Arbiter.aassign", "Arbiter.aget_prompt", "Arbiter.aget_variables"],
            *["Arbiter.atrack", "Arbiter.aflush"],
        ]
        assert all(w.filename == __file__ for w in caught)
        with pytest.warns(DeprecationWarning, match=r"Arbiter\.aclose\(\) is deprecated"):
            await client.aclose()
    kinds = sorted(e["type"] for e in fake.stored.values())
    assert kinds == ["business_event", "exposure"]


def test_track_takes_a_payload_and_fields_and_queues_only_what_the_api_would_store(
    fake: FakeArbiter, make_client: Any, warnings_log: Any
) -> None:
    client = make_client(base_url=fake.url)
    client.track("business_event", {"experiment_id": EXPERIMENT_NAME, "user_id": "u"}, business_metric="rev", value=3)
    metadata = {"order": "A-17", "items": [1, 2]}
    client.track(
        "business_event", experiment_id=EXPERIMENT_NAME, user_id="v", business_metric="rev", value=1, metadata=metadata
    )
    metadata["order"] = "changed after track"  # the queued event is a snapshot
    refused = [
        dict(user_id="\U0001f600" * 129),  # 258 UTF-16 units
        dict(user_id="ok", metadata={"note": "a\x00b"}),
        dict(user_id="ok", metadata={"k\udc00": 1}),
        dict(user_id="ok", business_metric="m\ud800"),
        dict(user_id="ok", value=float("inf")),
        dict(user_id="ok", business_metric=""),
    ]
    for fields in refused:
        payload = dict(experiment_id=EXPERIMENT_NAME, business_metric="rev", value=1)
        payload.update(fields)  # type: ignore[arg-type]
        client.track("business_event", payload)
    client.flush()
    assert sorted((e["user_id"], e["value"]) for e in fake.stored.values()) == [("u", 3), ("v", 1)]
    stored_v = next(e for e in fake.stored.values() if e["user_id"] == "v")
    assert stored_v["metadata"] == {"order": "A-17", "items": [1, 2]}
    assert len([r for r in warnings_log.records if "event dropped" in r.getMessage()]) == len(refused)


def test_a_full_queue_drops_and_counts_with_one_log_line(
    fake: FakeArbiter, make_client: Any, warnings_log: Any
) -> None:
    client = make_client(base_url=fake.url, queue_capacity=5, batch_size=1000)
    for i in range(12):
        client.track("business_event", experiment_id=EXPERIMENT_NAME, user_id="u%d" % i, business_metric="m", value=i)
    assert client.stats()["queued"] == 5 and client.stats()["dropped"] == 7
    assert len([r for r in warnings_log.records if "queue full" in r.getMessage()]) == 1
    client.flush()
    assert len(fake.stored) == 5


SCRIPT = textwrap.dedent("""
    import sys
    from arbiter import Arbiter
    client = Arbiter(api_key="k", base_url=sys.argv[1], offline_store_path=sys.argv[2] or None,
                     flush_interval=3600.0, request_timeout=float(sys.argv[3]), max_attempts=1)
    for i in range(3):
        client.track("business_event", experiment_id="checkout-prompt", user_id="exit-%d" % i,
                     business_metric="m", value=i)
    # no close(): the atexit hook delivers
""")


def test_the_exit_hook_delivers_what_close_was_never_called_for(fake: FakeArbiter) -> None:
    subprocess.run([sys.executable, "-c", SCRIPT, fake.url, "", "5"], check=True, timeout=120)
    assert sorted(e["user_id"] for e in fake.stored.values()) == ["exit-0", "exit-1", "exit-2"]


def test_the_exit_hook_spills_what_a_hanging_api_did_not_take_by_its_deadline(fake: FakeArbiter, tmp_path: Any) -> None:
    fake.plan(("hang", 30))
    path = str(tmp_path / "spill.ndjson")
    # A 60 s request timeout: only the exit deadline can end the hanging request.
    subprocess.run([sys.executable, "-c", SCRIPT, fake.url, path, "60"], check=True, timeout=120)
    with open(path, encoding="utf-8") as f:
        spilled = [json.loads(line) for line in f]
    assert sorted(e["user_id"] for e in spilled) == ["exit-0", "exit-1", "exit-2"]
    assert fake.stored == {}


def test_a_forked_child_runs_its_own_threads_and_leaves_the_parents_events_alone(
    fake: FakeArbiter, make_client: Any
) -> None:
    client = make_client(base_url=fake.url, flush_interval=0.02, track_exposures=False)
    assert client.ready(timeout=30)
    client.track("business_event", experiment_id=EXPERIMENT_NAME, user_id="parent", business_metric="m", value=1)
    pid = os.fork()
    if pid == 0:  # the child: its background flush must deliver without any flush() call
        code = 1
        try:
            client.track("business_event", experiment_id=EXPERIMENT_NAME, user_id="child", business_metric="m", value=1)
            wait_until(lambda: client.stats()["sent"] == 1, "the child's thread sends", guard_s=20)
            code = 0 if client.assign(EXPERIMENT_NAME, "x") is not None else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0
    client.flush()
    users = sorted(e["user_id"] for e in fake.stored.values())
    assert users == ["child", "parent"]  # each once: the child did not resend the parent's


def test_public_surface_is_small() -> None:
    assert sorted(arbiter.__all__) == sorted(
        [
            *[
                "Arbiter",
                "ArbiterError",
                "AsUser",
                "AsyncArbiter",
                "ClientStats",
                "EventType",
                "PromptResult",
                "TrackPayload",
            ],
            "PreparedAttributes",
            *["Prompts", "ResolvedPrompt", "render_prompt"],  # prompts.get's
            *["DatasetItem", "EvaluationProgress", "OfflineRun", "Scorer", "ScorerInput", "TaskInput"],  # evaluate's
            "__version__",
        ]
    )
