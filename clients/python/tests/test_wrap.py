"""``wrap`` with the real ``openai`` and ``anthropic`` packages against a local server speaking
their protocols: sync, async and streaming, and ``as_user`` across threads and asyncio tasks."""

import asyncio
import threading
from typing import Any, Dict, List

import anthropic
import openai
import pytest

from arbiter import Arbiter, ResolvedPrompt
from support.fake_arbiter import EXPERIMENT_ID, EXPERIMENT_NAME, FakeArbiter
from support.fake_llm import FAILING_MODEL, USAGE
from support.http_server import LoopbackServer
from support.recorded import events_of


def only_call(fake: FakeArbiter, client: Arbiter, user: str, prompt: str) -> Dict[str, Any]:
    """The one exposure and model_call of ``user``; returns the model_call."""
    exposures = [e for e in events_of(fake, client, "exposure") if e["user_id"] == user]
    calls = [e for e in events_of(fake, client, "model_call") if e["user_id"] == user]
    assert len(exposures) == 1 and len(calls) == 1, (exposures, calls)
    variant = client.assign(EXPERIMENT_NAME, user)
    assert exposures[0]["variant"] == variant and exposures[0]["experiment_id"] == EXPERIMENT_ID
    call = calls[0]
    assert call["experiment_id"] == EXPERIMENT_ID
    assert call["latency_ms"] > 0
    assert call["prompt"] == prompt
    return call


def openai_client(llm: LoopbackServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=llm.url + "/v1", api_key="sk-test", max_retries=0)


def async_openai_client(llm: LoopbackServer) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=llm.url + "/v1", api_key="sk-test", max_retries=0)


MEASURED = {"input_tokens": USAGE["input"], "output_tokens": USAGE["output"], "error": None}


def test_openai_chat_completion_sync(fake: FakeArbiter, llm: LoopbackServer, arbiter_client: Arbiter) -> None:
    raw = openai_client(llm)
    ai = arbiter_client.wrap(raw, EXPERIMENT_NAME)
    with arbiter_client.as_user("u-1"):
        res = ai.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi u-1"}])
    assert res.choices[0].message.content == "Echo: hi u-1"
    assert isinstance(res, openai.types.chat.ChatCompletion)
    call = only_call(fake, arbiter_client, "u-1", "user: hi u-1")
    assert call == dict(call, model="gpt-4o-mini", response="Echo: hi u-1", **MEASURED)
    # The client itself is untouched: calls through it are not recorded.
    raw.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "raw"}])
    assert len(events_of(fake, arbiter_client, "model_call")) == 1
    assert ai.api_key == "sk-test" and ai.base_url == raw.base_url


def test_openai_chat_stream_sync_with_usage(fake: FakeArbiter, llm: LoopbackServer, arbiter_client: Arbiter) -> None:
    ai = arbiter_client.wrap(openai_client(llm), EXPERIMENT_NAME)
    with arbiter_client.as_user("u-2"):
        stream = ai.chat.completions.create(
            model="gpt-4o",
            messages=[{"role": "user", "content": "s"}],
            stream=True,
            stream_options={"include_usage": True},
        )
        assert isinstance(stream, openai.Stream)
        text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    assert text == "Echo: s"
    call = only_call(fake, arbiter_client, "u-2", "user: s")
    assert call == dict(call, model="gpt-4o", response="Echo: s", **MEASURED)


def test_openai_stream_helper_and_responses_api(
    fake: FakeArbiter, llm: LoopbackServer, arbiter_client: Arbiter
) -> None:
    ai = arbiter_client.wrap(openai_client(llm), EXPERIMENT_NAME)
    with arbiter_client.as_user("u-3"):
        res = ai.responses.create(model="gpt-4.1", input="r3", instructions="Be brief.")
    assert res.output_text == "Echo: r3"
    call = only_call(fake, arbiter_client, "u-3", "system: Be brief.\nuser: r3")
    assert call == dict(call, model="gpt-4.1", response="Echo: r3", **MEASURED)

    with arbiter_client.as_user("u-4"):
        events = list(ai.responses.create(model="gpt-4.1", input="r4", stream=True))
    assert events[-1].type == "response.completed"
    call = only_call(fake, arbiter_client, "u-4", "user: r4")
    assert call == dict(call, model="gpt-4.1", response="Echo: r4", **MEASURED)

    # SDK helpers that call create() are recorded too.
    # One statement enters its managers left to right: the user is set before stream() runs.
    with arbiter_client.as_user("u-5"), ai.chat.completions.stream(
        model="gpt-4o", messages=[{"role": "user", "content": "h5"}]
    ) as helper:
        final = helper.get_final_completion()
    assert final.choices[0].message.content == "Echo: h5"
    call = only_call(fake, arbiter_client, "u-5", "user: h5")
    assert call == dict(call, model="gpt-4o", response="Echo: h5", error=None)


async def test_openai_async_create_and_stream(fake: FakeArbiter, llm: LoopbackServer, arbiter_client: Arbiter) -> None:
    ai = arbiter_client.wrap(async_openai_client(llm), EXPERIMENT_NAME)
    async with arbiter_client.as_user("a-1"):
        res = await ai.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "x"}])
        stream = await ai.chat.completions.create(
            model="gpt-4o-mini",
            messages=[{"role": "user", "content": "y"}],
            stream=True,
            stream_options={"include_usage": True},
        )
        assert isinstance(stream, openai.AsyncStream)
        text = "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])
    assert res.choices[0].message.content == "Echo: x" and text == "Echo: y"
    calls = sorted(events_of(fake, arbiter_client, "model_call"), key=lambda e: e["prompt"])
    assert [(c["user_id"], c["prompt"], c["response"], c["input_tokens"], c["output_tokens"]) for c in calls] == [
        ("a-1", "user: x", "Echo: x", 11, 7),
        ("a-1", "user: y", "Echo: y", 11, 7),
    ]
    # One exposure per call: each call is a moment the user met the variant.
    assert len(events_of(fake, arbiter_client, "exposure")) == 2


def test_anthropic_sync_and_stream(fake: FakeArbiter, llm: LoopbackServer, arbiter_client: Arbiter) -> None:
    claude = arbiter_client.wrap(
        anthropic.Anthropic(base_url=llm.url, api_key="sk-ant", max_retries=0), EXPERIMENT_NAME
    )
    with arbiter_client.as_user("c-1"):
        msg = claude.messages.create(
            model="claude-test-large", max_tokens=64, system="Terse.", messages=[{"role": "user", "content": "m1"}]
        )
    assert msg.content[0].text == "Echo: m1"
    call = only_call(fake, arbiter_client, "c-1", "system: Terse.\nuser: m1")
    assert call == dict(call, model="claude-test-large", response="Echo: m1", **MEASURED)

    with arbiter_client.as_user("c-2"):
        stream = claude.messages.create(
            model="claude-test-small",
            max_tokens=64,
            stream=True,
            messages=[{"role": "user", "content": [{"type": "text", "text": "m2"}]}],
        )
        kinds = [e.type for e in stream]
    assert kinds[0] == "message_start" and kinds[-1] == "message_stop"
    call = only_call(fake, arbiter_client, "c-2", "user: m2")
    assert call == dict(call, model="claude-test-small", response="Echo: m2", **MEASURED)


async def test_anthropic_async_and_stream(fake: FakeArbiter, llm: LoopbackServer, arbiter_client: Arbiter) -> None:
    claude = arbiter_client.wrap(
        anthropic.AsyncAnthropic(base_url=llm.url, api_key="k", max_retries=0), EXPERIMENT_NAME
    )
    with arbiter_client.as_user("c-3"):
        msg = await claude.messages.create(model="claude-x", max_tokens=8, messages=[{"role": "user", "content": "m3"}])
        stream = await claude.messages.create(
            model="claude-x", max_tokens=8, stream=True, messages=[{"role": "user", "content": "m4"}]
        )
        async for _ in stream:
            pass
    assert msg.content[0].text == "Echo: m3"
    calls = sorted(events_of(fake, arbiter_client, "model_call"), key=lambda e: e["prompt"])
    assert [(c["user_id"], c["response"], c["input_tokens"], c["output_tokens"], c["model"]) for c in calls] == [
        ("c-3", "Echo: m3", 11, 7, "claude-x"),
        ("c-3", "Echo: m4", 11, 7, "claude-x"),
    ]


def test_errors_are_recorded_and_raised_unchanged(
    fake: FakeArbiter, llm: LoopbackServer, arbiter_client: Arbiter
) -> None:
    ai = arbiter_client.wrap(openai_client(llm), EXPERIMENT_NAME)
    with arbiter_client.as_user("e-1"), pytest.raises(openai.BadRequestError):
        ai.chat.completions.create(model=FAILING_MODEL, messages=[{"role": "user", "content": "e"}])
    call = only_call(fake, arbiter_client, "e-1", "user: e")
    assert call["error"].startswith("BadRequestError: ") and call["model"] == FAILING_MODEL
    assert "input_tokens" not in call


def test_calls_outside_as_user_pass_through_unrecorded_with_one_warning(
    fake: FakeArbiter, llm: LoopbackServer, arbiter_client: Arbiter, warnings_log: Any
) -> None:
    ai = arbiter_client.wrap(openai_client(llm), EXPERIMENT_NAME)
    for _ in range(3):
        ai.chat.completions.create(model="m", messages=[{"role": "user", "content": "anon"}])
    assert events_of(fake, arbiter_client, "model_call") == []
    assert [r.getMessage() for r in warnings_log.records] == ["wrap: model call outside as_user(), not recorded"]


def test_record_model_text_false_sends_measurements_only(
    fake: FakeArbiter, llm: LoopbackServer, make_client: Any
) -> None:
    client = make_client(base_url=fake.url, record_model_text=False)
    assert client.ready(timeout=30)
    ai = client.wrap(openai_client(llm), EXPERIMENT_NAME)
    with client.as_user("t-1"):
        ai.chat.completions.create(model="m", messages=[{"role": "user", "content": "secret"}])
    [call] = events_of(fake, client, "model_call")
    assert "prompt" not in call and "response" not in call and call["input_tokens"] == 11


async def test_intercept_model_call_sync_and_async(
    fake: FakeArbiter, llm: LoopbackServer, arbiter_client: Arbiter
) -> None:
    raw = openai_client(llm)
    seen: List[Any] = []

    def call(variant: Any) -> Any:
        seen.append(variant)
        return raw.chat.completions.create(model="gpt-i", messages=[{"role": "user", "content": "i"}])

    res = arbiter_client.intercept_model_call(EXPERIMENT_NAME, "i-1", call)
    assert res.choices[0].message.content == "Echo: i" and seen == [arbiter_client.assign(EXPERIMENT_NAME, "i-1")]

    async_raw = async_openai_client(llm)

    async def acall(variant: Any) -> Any:
        return await async_raw.chat.completions.create(model="gpt-i", messages=[{"role": "user", "content": "j"}])

    res2 = await arbiter_client.intercept_model_call(EXPERIMENT_NAME, "i-2", acall)
    assert res2.choices[0].message.content == "Echo: j"
    calls = {c["user_id"]: c for c in events_of(fake, arbiter_client, "model_call")}
    assert set(calls) == {"i-1", "i-2"}
    assert all(
        c["model"] == "gpt-i" and c["input_tokens"] == 11 and c["response"].startswith("Echo") for c in calls.values()
    )


def test_as_user_is_right_across_20_asyncio_tasks_and_8_threads(
    fake: FakeArbiter, llm: LoopbackServer, arbiter_client: Arbiter
) -> None:
    sync_ai = arbiter_client.wrap(openai_client(llm), EXPERIMENT_NAME)
    async_ai = arbiter_client.wrap(async_openai_client(llm), EXPERIMENT_NAME)
    claude = arbiter_client.wrap(
        anthropic.AsyncAnthropic(base_url=llm.url, api_key="k", max_retries=0), EXPERIMENT_NAME
    )
    rounds = 3

    async def task_user(n: int) -> None:
        user = "task-%d" % n
        with arbiter_client.as_user(user):
            for r in range(rounds):
                await asyncio.sleep(0)  # let the other tasks run between calls
                content = "%s round %d" % (user, r)
                if r == 0:
                    await async_ai.chat.completions.create(model="m", messages=[{"role": "user", "content": content}])
                elif r == 1:
                    stream = await async_ai.chat.completions.create(
                        model="m", stream=True, messages=[{"role": "user", "content": content}]
                    )
                    async for _ in stream:
                        await asyncio.sleep(0)
                else:
                    await claude.messages.create(
                        model="c", max_tokens=8, messages=[{"role": "user", "content": content}]
                    )

    async def all_tasks() -> None:
        await asyncio.gather(*(task_user(n) for n in range(20)))

    def thread_user(n: int) -> None:
        user = "thread-%d" % n
        with arbiter_client.as_user(user):
            for r in range(rounds):
                content = "%s round %d" % (user, r)
                if r == 1:
                    for _ in sync_ai.chat.completions.create(
                        model="m", stream=True, messages=[{"role": "user", "content": content}]
                    ):
                        pass
                else:
                    sync_ai.chat.completions.create(model="m", messages=[{"role": "user", "content": content}])

    threads = [threading.Thread(target=thread_user, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    asyncio.run(all_tasks())
    for t in threads:
        t.join()

    calls = events_of(fake, arbiter_client, "model_call")
    users = ["task-%d" % n for n in range(20)] + ["thread-%d" % n for n in range(8)]
    assert len(calls) == len(users) * rounds
    for c in calls:
        # The request and the answer both name the user the call was made for.
        assert c["prompt"].startswith("user: %s round " % c["user_id"]), c
        assert c["response"].startswith("Echo: %s round " % c["user_id"]), c
    assert sorted(c["prompt"] for c in calls) == sorted(
        "user: %s round %d" % (u, r) for u in users for r in range(rounds)
    )
    exposures = events_of(fake, arbiter_client, "exposure")
    assert sorted(e["user_id"] for e in exposures) == sorted(u for u in users for _ in range(rounds))
    assert all(e["variant"] == arbiter_client.assign(EXPERIMENT_NAME, e["user_id"]) for e in exposures)


async def test_with_prompt_puts_the_prompts_name_and_version_on_each_recorded_call(
    fake: FakeArbiter, llm: LoopbackServer, arbiter_client: Arbiter
) -> None:
    ai = arbiter_client.wrap(openai_client(llm), EXPERIMENT_NAME)
    async_ai = arbiter_client.wrap(async_openai_client(llm), EXPERIMENT_NAME)
    stored = ResolvedPrompt("support-reply", "label", 3, None, None, "Hi", None, [], {})
    messages = [{"role": "user", "content": "hi"}]
    with arbiter_client.as_user("p-1"), arbiter_client.with_prompt(stored):
        ai.chat.completions.create(model="m", messages=messages)
    async with arbiter_client.with_prompt(stored), arbiter_client.as_user("p-2"):
        await async_ai.chat.completions.create(model="m", messages=messages)
    with arbiter_client.with_prompt(stored):
        arbiter_client.intercept_model_call(
            EXPERIMENT_NAME, "p-3", lambda v: ai.chat.completions.create(model="m", messages=messages)
        )
    fallback = arbiter_client.prompts.get("nowhere", "p-4", "Hi")
    with arbiter_client.as_user("p-4"), arbiter_client.with_prompt(fallback):
        ai.chat.completions.create(model="m", messages=messages)
    with arbiter_client.as_user("p-5"):
        ai.chat.completions.create(model="m", messages=messages)
    calls = {c["user_id"]: c.get("metadata") for c in events_of(fake, arbiter_client, "model_call")}
    carried = {"prompt_name": "support-reply", "prompt_version": 3}
    assert calls == {"p-1": carried, "p-2": carried, "p-3": carried, "p-4": None, "p-5": None}
    exposures = events_of(fake, arbiter_client, "exposure")
    assert len(exposures) == 5 and all("metadata" not in e for e in exposures)
