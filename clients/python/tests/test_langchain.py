"""``ArbiterCallbackHandler`` with the real ``langchain-core`` and ``langchain-openai`` against a
local server speaking OpenAI's protocol: an LCEL chain of prompt, chat model and parser, sync and
async, streamed and not, concurrent users, and a failing call."""

import asyncio
import subprocess
import sys
from typing import Any, Dict

import openai
import pytest
from langchain_core.language_models import FakeListLLM
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import Runnable
from langchain_openai import ChatOpenAI

from arbiter import Arbiter
from arbiter.integrations.langchain import ArbiterCallbackHandler
from support.fake_arbiter import EXPERIMENT_ID, EXPERIMENT_NAME, FakeArbiter
from support.fake_llm import FAILING_MODEL, USAGE
from support.http_server import LoopbackServer
from support.recorded import events_of


def chain_of(llm: LoopbackServer, model: str = "gpt-4o-mini") -> "Runnable[Dict[str, str], str]":
    chat = ChatOpenAI(model=model, base_url=llm.url + "/v1", api_key="sk-test", max_retries=0, stream_usage=True)
    prompt = ChatPromptTemplate.from_messages([("system", "{system}"), ("human", "{question}")])
    return prompt | chat | StrOutputParser()


def ask(client: Arbiter, user: str, question: str) -> Dict[str, str]:
    """The chain's input, with the user's variant prompt as the system message."""
    return {"system": client.get_prompt(EXPERIMENT_NAME, user, "Be helpful.").prompt, "question": question}


def recorded_call(fake: FakeArbiter, client: Arbiter, user: str) -> Dict[str, Any]:
    """The one exposure and model_call of ``user``, checked against what the model server
    answered (the answer echoes the question; its usage is USAGE); returns the model_call."""
    exposures = [e for e in events_of(fake, client, "exposure") if e["user_id"] == user]
    calls = [e for e in events_of(fake, client, "model_call") if e["user_id"] == user]
    assert len(exposures) == 1 and len(calls) == 1, (exposures, calls)
    assert exposures[0]["experiment_id"] == EXPERIMENT_ID
    assert exposures[0]["variant"] == client.assign(EXPERIMENT_NAME, user)
    call = calls[0]
    assert call["experiment_id"] == EXPERIMENT_ID
    assert call["error"] is None
    assert call["input_tokens"] == USAGE["input"] and call["output_tokens"] == USAGE["output"]
    assert call["latency_ms"] > 0
    return call


def test_invoke_records_the_chat_model_run(fake: FakeArbiter, llm: LoopbackServer, arbiter_client: Arbiter) -> None:
    handler = ArbiterCallbackHandler(arbiter_client, EXPERIMENT_NAME)
    chain = chain_of(llm)
    with arbiter_client.as_user("u-1"):
        answer = chain.invoke(ask(arbiter_client, "u-1", "hi u-1"), config={"callbacks": [handler]})
    assert answer == "Echo: hi u-1"
    call = recorded_call(fake, arbiter_client, "u-1")
    system = arbiter_client.get_prompt(EXPERIMENT_NAME, "u-1", "").prompt
    assert call["prompt"] == "system: %s\nuser: hi u-1" % system
    assert call["response"] == "Echo: hi u-1" and call["model"] == "gpt-4o-mini"
    # Not streamed: no time to first token.
    assert "metadata" not in call
    # Later calls of the same user add model calls, not exposures.
    with arbiter_client.as_user("u-1"):
        chain.invoke(ask(arbiter_client, "u-1", "again"), config={"callbacks": [handler]})
    assert len([e for e in events_of(fake, arbiter_client, "model_call") if e["user_id"] == "u-1"]) == 2
    assert len(events_of(fake, arbiter_client, "exposure")) == 1


async def test_ainvoke_records_the_chat_model_run(
    fake: FakeArbiter, llm: LoopbackServer, arbiter_client: Arbiter
) -> None:
    handler = ArbiterCallbackHandler(arbiter_client, EXPERIMENT_NAME)
    async with arbiter_client.as_user("a-1"):
        answer = await chain_of(llm, "gpt-4.1").ainvoke(ask(arbiter_client, "a-1", "x"), {"callbacks": [handler]})
    assert answer == "Echo: x"
    call = recorded_call(fake, arbiter_client, "a-1")
    assert call["response"] == "Echo: x" and call["model"] == "gpt-4.1" and call["prompt"].endswith("\nuser: x")


def test_stream_records_time_to_first_token_and_the_final_usage(
    fake: FakeArbiter, llm: LoopbackServer, arbiter_client: Arbiter
) -> None:
    handler = ArbiterCallbackHandler(arbiter_client, EXPERIMENT_NAME)
    with arbiter_client.as_user("s-1"):
        parts = list(chain_of(llm).stream(ask(arbiter_client, "s-1", "streamed"), {"callbacks": [handler]}))
    assert len(parts) > 1 and "".join(parts) == "Echo: streamed"
    call = recorded_call(fake, arbiter_client, "s-1")
    assert call["response"] == "Echo: streamed" and call["model"] == "gpt-4o-mini"
    ttft = call["metadata"]["time_to_first_token_ms"]
    # The server holds the answer back before the first chunk and spaces the chunks after it.
    assert 0 < ttft < call["latency_ms"]


async def test_astream_records_time_to_first_token_and_the_final_usage(
    fake: FakeArbiter, llm: LoopbackServer, arbiter_client: Arbiter
) -> None:
    handler = ArbiterCallbackHandler(arbiter_client, EXPERIMENT_NAME)
    async with arbiter_client.as_user("s-2"):
        parts = [p async for p in chain_of(llm).astream(ask(arbiter_client, "s-2", "as"), {"callbacks": [handler]})]
    assert "".join(parts) == "Echo: as"
    call = recorded_call(fake, arbiter_client, "s-2")
    assert call["response"] == "Echo: as"
    assert 0 < call["metadata"]["time_to_first_token_ms"] < call["latency_ms"]


async def test_concurrent_users_under_as_user_are_each_attributed(
    fake: FakeArbiter, llm: LoopbackServer, arbiter_client: Arbiter
) -> None:
    # One handler and one chain shared by every task: the run ids keep the calls apart.
    handler = ArbiterCallbackHandler(arbiter_client, EXPERIMENT_NAME)
    chain = chain_of(llm)
    users = ["task-%d" % n for n in range(20)]

    async def one(n: int, user: str) -> str:
        async with arbiter_client.as_user(user):
            await asyncio.sleep(0)
            if n % 2:
                return await chain.ainvoke(ask(arbiter_client, user, user), {"callbacks": [handler]})
            return "".join([p async for p in chain.astream(ask(arbiter_client, user, user), {"callbacks": [handler]})])

    answers = await asyncio.gather(*(one(n, u) for n, u in enumerate(users)))
    assert answers == ["Echo: %s" % u for u in users]
    for n, user in enumerate(users):
        call = recorded_call(fake, arbiter_client, user)
        # The request and the answer both name the user the call was made for.
        assert call["prompt"].endswith("\nuser: " + user) and call["response"] == "Echo: " + user
        assert ("metadata" in call) == (n % 2 == 0)
    assert handler._runs == {}


def test_a_failing_call_records_the_error(fake: FakeArbiter, llm: LoopbackServer, arbiter_client: Arbiter) -> None:
    handler = ArbiterCallbackHandler(arbiter_client, EXPERIMENT_NAME)
    raised = {}
    with arbiter_client.as_user("e-1"), pytest.raises(openai.BadRequestError) as invoked:
        chain_of(llm, FAILING_MODEL).invoke(ask(arbiter_client, "e-1", "e"), {"callbacks": [handler]})
    raised["e-1"] = invoked.value
    with arbiter_client.as_user("e-2"), pytest.raises(openai.BadRequestError) as streamed:
        for _ in chain_of(llm, FAILING_MODEL).stream(ask(arbiter_client, "e-2", "e"), {"callbacks": [handler]}):
            pass
    raised["e-2"] = streamed.value
    for user, err in raised.items():
        [call] = [e for e in events_of(fake, arbiter_client, "model_call") if e["user_id"] == user]
        # The error the chain raised (langchain-openai's subclass of the SDK's 400 error).
        assert call["error"] == "%s: %s" % (type(err).__name__, err) and "bad model" in call["error"], call
        assert call["model"] == FAILING_MODEL and call["latency_ms"] > 0
        assert "input_tokens" not in call and "response" not in call and "metadata" not in call
    assert len(events_of(fake, arbiter_client, "exposure")) == 2


def test_an_explicit_user_and_record_model_text_off(fake: FakeArbiter, llm: LoopbackServer, make_client: Any) -> None:
    client = make_client(base_url=fake.url, record_model_text=False)
    assert client.ready(timeout=30)
    handler = ArbiterCallbackHandler(client, EXPERIMENT_NAME, user="x-1")
    # The explicit user wins over the enclosing as_user.
    with client.as_user("someone-else"):
        chain_of(llm).invoke({"system": "s", "question": "secret"}, {"callbacks": [handler]})
    call = recorded_call(fake, client, "x-1")
    assert "prompt" not in call and "response" not in call
    assert [e["user_id"] for e in events_of(fake, client, "model_call")] == ["x-1"]


def test_runs_without_a_user_or_outside_the_experiment_are_not_recorded(
    fake: FakeArbiter, llm: LoopbackServer, arbiter_client: Arbiter, warnings_log: Any
) -> None:
    chain = chain_of(llm)
    handler = ArbiterCallbackHandler(arbiter_client, EXPERIMENT_NAME)
    for _ in range(2):
        assert chain.invoke({"system": "s", "question": "anon"}, {"callbacks": [handler]}) == "Echo: anon"
    unknown = ArbiterCallbackHandler(arbiter_client, "no-such-experiment", user="u-9")
    chain.invoke({"system": "s", "question": "q"}, {"callbacks": [unknown]})
    client = arbiter_client
    assert events_of(fake, client, "model_call") == [] and events_of(fake, client, "exposure") == []
    assert [r.getMessage() for r in warnings_log.records] == [
        "langchain: model call outside as_user() and without user=, not recorded",
        "experiment no-such-experiment is not in the config",
    ]


def test_importing_arbiter_does_not_import_langchain() -> None:
    code = "import sys, arbiter, arbiter.integrations; print(any(m.startswith('langchain') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_stream_read_in_part_is_a_complete_call(
    fake: FakeArbiter, llm: LoopbackServer, arbiter_client: Arbiter
) -> None:
    handler = ArbiterCallbackHandler(arbiter_client, EXPERIMENT_NAME)
    chat = ChatOpenAI(model="gpt-4o-mini", base_url=llm.url + "/v1", api_key="sk-test", max_retries=0)
    with arbiter_client.as_user("p-1"):
        stream = chat.stream("partly", {"callbacks": [handler]})
        first_chunk = next(stream)
        stream.close()  # LangChain reports GeneratorExit to on_llm_error
    assert first_chunk.content == "Echo:"
    [call] = events_of(fake, arbiter_client, "model_call")
    assert call == dict(call, error=None, response="Echo:", prompt="user: partly", model="gpt-4o-mini")
    assert "input_tokens" not in call and 0 < call["metadata"]["time_to_first_token_ms"] <= call["latency_ms"]


def test_batch_with_a_handler_per_user(fake: FakeArbiter, llm: LoopbackServer, arbiter_client: Arbiter) -> None:
    users = ["b-%d" % n for n in range(4)]
    configs: Any = [{"callbacks": [ArbiterCallbackHandler(arbiter_client, EXPERIMENT_NAME, user=u)]} for u in users]
    answers = chain_of(llm).batch([ask(arbiter_client, u, u) for u in users], configs)
    assert answers == ["Echo: %s" % u for u in users]
    for user in users:
        assert recorded_call(fake, arbiter_client, user)["response"] == "Echo: " + user


def test_a_completion_llm_run_is_recorded(fake: FakeArbiter, arbiter_client: Arbiter) -> None:
    """``on_llm_start``: a text-completion model gets one prompt string per run."""
    model = FakeListLLM(responses=["the answer"])
    handler = ArbiterCallbackHandler(arbiter_client, EXPERIMENT_NAME, user="l-1")
    assert model.invoke("the question", {"callbacks": [handler]}) == "the answer"
    [call] = events_of(fake, arbiter_client, "model_call")
    assert call == dict(call, user_id="l-1", prompt="user: the question", response="the answer", error=None)


def test_before_the_first_config_the_server_works_the_variant_out(
    fake: FakeArbiter, llm: LoopbackServer, make_client: Any
) -> None:
    fake.config_released.clear()  # the config request waits: the client has no config yet
    try:
        client = make_client(base_url=fake.url)
        handler = ArbiterCallbackHandler(client, EXPERIMENT_NAME, user="n-1")
        assert chain_of(llm).invoke({"system": "s", "question": "early"}, {"callbacks": [handler]}) == "Echo: early"
        [exposure] = events_of(fake, client, "exposure")
        [call] = events_of(fake, client, "model_call")
    finally:
        fake.config_released.set()
    # As wrap sends it then: the experiment as named, no variant.
    assert exposure == dict(exposure, experiment_id=EXPERIMENT_NAME, user_id="n-1") and "variant" not in exposure
    assert call == dict(call, experiment_id=EXPERIMENT_NAME, user_id="n-1", response="Echo: early", error=None)


def test_the_handler_hears_model_runs_and_skips_the_rest(arbiter_client: Arbiter) -> None:
    handler = ArbiterCallbackHandler(arbiter_client, EXPERIMENT_NAME)
    skipped = ("chain", "agent", "retriever", "retry", "custom_event")
    assert [getattr(handler, "ignore_" + kind) for kind in skipped] == [True] * 5
    assert [handler.ignore_llm, handler.ignore_chat_model] == [False, False]
