"""``evaluate`` (both clients') and the deprecated ``aevaluate`` against the real server, with the
real ``openai`` SDK talking to a local OpenAI-compatible provider: each variant's prompt reaches
the provider, the wrapped call's latency and tokens are attached to the result, repeats run, a
task's exception is recorded, an interrupted run resumes without running anything twice, a
LangChain run inside a task is measured like a wrapped call, a refused upload is retried by the
library's policy and then raised with the run to resume, and a publishable key is refused."""

import asyncio
import io
import sys
import threading
import urllib.error
import urllib.request
from collections import Counter
from typing import Any, Dict, List, Set, Tuple, Union

import openai
import pytest
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_openai import ChatOpenAI

from arbiter import Arbiter, ArbiterError, AsyncArbiter, EvaluationProgress, ScorerInput, TaskInput
from arbiter.integrations.langchain import ArbiterCallbackHandler
from support.arbiter_server import ArbiterServer, Org, create_experiment, new_org
from support.fake_llm import RESPONSE_DELAY_S, USAGE
from support.http_server import LoopbackServer

Triple = Tuple[str, str, int]

ITEMS: List[Dict[str, Any]] = [
    {"id": "q1", "input": "What is 2+2?", "expected_output": "Echo: What is 2+2?", "variables": {"tone": "dry"}},
    {"id": "q2", "input": "Name a colour", "expected_output": "blue"},
    {"id": "q3", "input": "Capital of France", "expected_output": "Echo: Capital of France"},
    {"id": "boom", "input": "This one raises"},
]
#: experiment_config's variants.
PROMPTS = {"control": "You are helpful.", "treatment": "Be concise."}
TEMPERATURES = {"control": 0.7, "treatment": 0.2}


class Stop(Exception):
    """Raised from on_progress to stop a run part way, as Ctrl-C would."""


class TerminalStderr(io.StringIO):
    def isatty(self) -> bool:
        return True


class Calls:
    """How many times the task ran each (item, variant, repeat), from any thread."""

    def __init__(self) -> None:
        self.counts: "Counter[Triple]" = Counter()
        self._lock = threading.Lock()

    def add(self, case: TaskInput) -> None:
        with self._lock:
            self.counts[(case.item["id"], case.variant, case.repeat)] += 1


def new_dataset(org: Org, name: str, items: List[Dict[str, Any]]) -> Dict[str, Any]:
    status, dataset = org.session.call("POST", "/v1/datasets", {"name": name})
    assert status == 201, dataset
    status, upload = org.session.call("POST", "/v1/datasets/%s/items" % dataset["id"], {"items": items})
    assert status == 200 and upload["items"] == len(items) and upload["errors"] == [], upload
    return dataset  # type: ignore[no-any-return]


def every_triple(items: List[Dict[str, Any]], repeats: int) -> Set[Triple]:
    return {(item["id"], v, r) for item in items for v in ("control", "treatment") for r in range(repeats)}


def run_items(org: Org, run_id: str) -> Dict[str, Dict[str, Any]]:
    status, page = org.session.call("GET", "/v1/offline-runs/%s/items?sort=item&limit=500" % run_id)
    assert status == 200 and page["has_more"] is False, page
    return {item["id"]: item for item in page["data"]}


def runs_of(org: Org, experiment_id: str) -> List[Dict[str, Any]]:
    status, runs = org.session.call("GET", "/v1/experiments/%s/offline-runs" % experiment_id)
    assert status == 200, runs
    return runs  # type: ignore[no-any-return]


def says_echo(scoring: ScorerInput) -> bool:
    return str(scoring.output).startswith("Echo: ")


def provider_saw(llm: LoopbackServer) -> List[Tuple[str, Any, str]]:
    """(system prompt, temperature, user message) of each chat completion the provider got."""
    out = []
    for path, body in llm.received:
        if path == "/v1/chat/completions":
            messages = {m["role"]: m["content"] for m in body["messages"]}
            out.append((messages["system"], body.get("temperature"), messages["user"]))
    return sorted(out)


def expected_provider_requests(repeats: int) -> List[Tuple[str, Any, str]]:
    return sorted(
        (PROMPTS[v], TEMPERATURES[v], item["input"])
        for item in ITEMS
        if item["id"] != "boom"
        for v in ("control", "treatment")
        for _ in range(repeats)
    )


def first_sync_request_on_this_thread(provider: openai.OpenAI, llm: LoopbackServer) -> None:
    """The openai SDK builds its pydantic models on a process's first request, and that build is
    not thread-safe: three workers making the first request at once fail one of them, about once
    in 500 fresh processes, with PydanticUserError("BaseModel cannot be instantiated directly").
    Made here, unwrapped (no online traffic), and forgotten by the provider."""
    provider.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "warm up"}])
    llm.received.clear()


def check_completed_run(org: Org, run: Dict[str, Any], calls: Calls) -> None:
    """The four items, two variants and two repeats of a run through the provider."""
    assert run["status"] == "complete", run
    assert run["variants"] == ["control", "treatment"] and run["repeats"] == 2
    assert run["expected_results"] == run["received_results"] == 16
    assert run["coverage"]["missing_results"] == 0
    errors = sorted(
        (item_id, variant, result["repeat"], result["error"])
        for item_id, item in run_items(org, run["id"]).items()
        for variant, results in item["variants"].items()
        for result in results
        if "error" in result
    )
    # The item that raises, for both variants and repeats; anything else names its error.
    assert run["coverage"]["failed_results"] == 4, errors
    assert calls.counts == Counter(every_triple(ITEMS, 2))
    for key in ("exact_match", "says_echo", "latency_ms", "total_tokens", "error_rate"):
        assert "%s::treatment" % key in run["comparisons"], key

    items = run_items(org, run["id"])
    assert sorted(items) == ["boom", "q1", "q2", "q3"]
    for item_id, item in items.items():
        for variant in ("control", "treatment"):
            results = item["variants"][variant]
            assert [r["repeat"] for r in results] == [0, 1], (item_id, variant)
            for result in results:
                if item_id == "boom":
                    assert result["error"] == "no answer from %s" % variant
                    assert result["output"] is None and result["input_tokens"] is None
                    assert result["latency_ms"] >= 0  # no call: the task's own time
                    assert "says_echo" not in result["scores"] and result["scores"]["error_rate"] == 1
                    continue
                # The wrapped call's measure, not sent anywhere else: the provider's tokens and
                # model, and a latency that includes the provider's held-back answer.
                assert result["error"] is None
                assert result["output"] == "Echo: " + item["input"]
                assert (result["input_tokens"], result["output_tokens"]) == (USAGE["input"], USAGE["output"])
                assert result["model"] == "gpt-4o-mini"
                assert result["latency_ms"] >= RESPONSE_DELAY_S * 1000
                assert result["scores"]["says_echo"] == 1
                assert result["scores"]["exact_match"] == (1 if item_id in ("q1", "q3") else 0)


def no_online_traffic(org: Org, client: Union[Arbiter, AsyncArbiter]) -> None:
    """Offline calls are not exposures or model calls: nothing was queued, sent or metered."""
    if isinstance(client, Arbiter):
        client.flush()
    assert client.stats()["sent"] == 0 and client.stats()["queued"] == 0
    status, usage = org.session.call("GET", "/v1/usage")
    assert status == 200 and usage["events"]["used"] == 0, usage


def test_evaluate_runs_each_variant_through_the_wrapped_provider(
    server: ArbiterServer, llm: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    org = new_org(server)
    experiment = create_experiment(org)
    new_dataset(org, "questions", ITEMS)
    calls = Calls()
    progress: List[EvaluationProgress] = []
    terminal = TerminalStderr()
    monkeypatch.setattr(sys, "stderr", terminal)

    provider = openai.OpenAI(base_url=llm.url + "/v1", api_key="sk-test", max_retries=0)
    first_sync_request_on_this_thread(provider, llm)
    with Arbiter(org.secret, base_url=server.url) as client:
        ai = client.wrap(provider, "py-exp")

        def task(case: TaskInput) -> str:
            calls.add(case)
            if case.item["id"] == "boom":
                raise ValueError("no answer from %s" % case.variant)
            # The item's variables are merged over the variant's.
            assert case.variables == {"temperature": TEMPERATURES[case.variant], **case.item["variables"]}
            answer = ai.chat.completions.create(
                model="gpt-4o-mini",
                temperature=case.variables["temperature"],
                messages=[{"role": "system", "content": case.prompt}, {"role": "user", "content": case.item["input"]}],
            )
            return str(answer.choices[0].message.content)

        run = client.evaluate(
            experiment="py-exp",
            dataset="questions",
            task=task,
            scorers=[
                {"name": "exact_match", "kind": "exact_match"},
                {"name": "says_echo", "kind": "custom", "score": says_echo},
            ],
            repeats=2,
            concurrency=3,
            note="sync",
            on_progress=progress.append,
        )
        no_online_traffic(org, client)

    assert run["experiment_id"] == experiment["id"] and run["note"] == "sync"
    check_completed_run(org, dict(run), calls)
    assert provider_saw(llm) == expected_provider_requests(2)
    assert progress == [(done, 16) for done in range(1, 17)]
    # On a terminal the line is redrawn in place and ends with a newline.
    drawn = terminal.getvalue()
    assert drawn.startswith("\revaluate py-exp: 0/16 (0%)") and "\revaluate py-exp: 16/16 (100%), ETA 0s" in drawn
    assert drawn.endswith("\n") and drawn.count("\n") == 1


async def test_the_async_client_runs_an_async_task_through_the_wrapped_async_provider(
    server: ArbiterServer, llm: LoopbackServer, capsys: pytest.CaptureFixture[str]
) -> None:
    org = new_org(server)
    create_experiment(org)
    new_dataset(org, "questions", ITEMS)
    calls = Calls()
    in_flight = 0
    most_in_flight = 0

    async def says_echo_later(scoring: ScorerInput) -> float:
        await asyncio.sleep(0)
        return 1.0 if says_echo(scoring) else 0.0

    async with AsyncArbiter(org.secret, base_url=server.url) as client:
        ai = client.wrap(openai.AsyncOpenAI(base_url=llm.url + "/v1", api_key="sk-test", max_retries=0), "py-exp")

        async def task(case: TaskInput) -> str:
            nonlocal in_flight, most_in_flight
            calls.add(case)
            if case.item["id"] == "boom":
                raise ValueError("no answer from %s" % case.variant)
            in_flight += 1
            most_in_flight = max(most_in_flight, in_flight)
            try:
                answer = await ai.chat.completions.create(
                    model="gpt-4o-mini",
                    temperature=case.variables["temperature"],
                    messages=[
                        {"role": "system", "content": case.prompt},
                        {"role": "user", "content": case.item["input"]},
                    ],
                )
            finally:
                in_flight -= 1
            return str(answer.choices[0].message.content)

        run = await client.evaluate(
            experiment="py-exp",
            dataset="questions",
            task=task,
            scorers=[
                {"name": "exact_match", "kind": "exact_match"},
                {"name": "says_echo", "kind": "custom", "score": says_echo_later},
            ],
            repeats=2,
            concurrency=3,
        )
        await client.flush()
        no_online_traffic(org, client)

    check_completed_run(org, dict(run), calls)
    assert provider_saw(llm) == expected_provider_requests(2)
    # Bounded, and concurrent: the provider holds each answer back, so calls overlap.
    assert 2 <= most_in_flight <= 3
    # stderr is not a terminal under pytest: no progress line.
    assert "evaluate py-exp" not in capsys.readouterr().err


def test_a_langchain_run_inside_the_task_is_measured_for_its_result(server: ArbiterServer, llm: LoopbackServer) -> None:
    org = new_org(server)
    create_experiment(org)
    new_dataset(org, "one", ITEMS[:1])
    with Arbiter(org.secret, base_url=server.url) as client:
        handler = ArbiterCallbackHandler(client, "py-exp")
        chat = ChatOpenAI(model="gpt-4o", base_url=llm.url + "/v1", api_key="sk-test", max_retries=0)
        chain = ChatPromptTemplate.from_messages([("system", "{system}"), ("human", "{question}")]) | chat
        answer = chain | StrOutputParser()

        # No as_user: inside a task the run belongs to the result, whoever the user is.
        def task(case: TaskInput) -> str:
            question = {"system": case.prompt, "question": case.item["input"]}
            return answer.invoke(question, config={"callbacks": [handler]})

        run = client.evaluate(experiment="py-exp", dataset="one", task=task)
        no_online_traffic(org, client)
    assert run["status"] == "complete" and run["coverage"]["failed_results"] == 0
    item = run_items(org, run["id"])["q1"]
    for variant in ("control", "treatment"):
        (result,) = item["variants"][variant]
        assert result["output"] == "Echo: What is 2+2?" and result["model"] == "gpt-4o"
        assert (result["input_tokens"], result["output_tokens"]) == (USAGE["input"], USAGE["output"])
        assert result["latency_ms"] >= RESPONSE_DELAY_S * 1000
    assert sorted(system for system, _, _ in provider_saw(llm)) == sorted(PROMPTS.values())


def stopped_run(org: Org, experiment_id: str) -> Dict[str, Any]:
    (run,) = runs_of(org, experiment_id)
    assert run["status"] == "running"
    return run


def test_an_interrupted_evaluate_resumes_without_running_anything_twice(
    server: ArbiterServer, caplog: pytest.LogCaptureFixture
) -> None:
    org = new_org(server)
    experiment = create_experiment(org)
    items = [{"id": "item-%d" % i, "input": "input %d" % i, "expected_output": "out %d" % i} for i in range(5)]
    new_dataset(org, "five", items)
    calls = Calls()

    def task(case: TaskInput) -> str:
        calls.add(case)
        return "out %s" % case.item["input"].split()[-1]

    def stop_at_seven(progress: EvaluationProgress) -> None:
        if progress.done == 7:
            raise Stop()

    with Arbiter(org.secret, base_url=server.url) as client:
        options: Dict[str, Any] = dict(experiment=experiment["id"], dataset="five", task=task, repeats=2, concurrency=3)
        with pytest.raises(Stop):
            client.evaluate(
                on_progress=stop_at_seven, scorers=[{"name": "exact_match", "kind": "exact_match"}], **options
            )
        stopped = stopped_run(org, experiment["id"])
        # The tasks running when it stopped finished and were saved: they will not run again.
        assert stopped["received_results"] == sum(calls.counts.values()) >= 7
        assert "resume with run_id=%r" % stopped["id"] in caplog.text

        resumed: List[EvaluationProgress] = []
        run = client.evaluate(run_id=stopped["id"], on_progress=resumed.append, **options)
        assert calls.counts == Counter(every_triple(items, 2))  # each of the 20 once
        assert resumed[0] == (stopped["received_results"] + 1, 20) and resumed[-1] == (20, 20)
        assert run["status"] == "complete" and run["id"] == stopped["id"]
        assert run["received_results"] == 20 and run["coverage"]["missing_results"] == 0
        assert run["comparisons"]["exact_match::treatment"]["n_items"] == 5

        # A run past running is returned as it is; nothing runs.
        again = client.evaluate(run_id=stopped["id"], **options)
        assert again == run and sum(calls.counts.values()) == 20


async def test_an_interrupted_async_evaluate_resumes_with_a_sync_task(server: ArbiterServer) -> None:
    org = new_org(server)
    experiment = create_experiment(org)
    items = [{"id": "item-%d" % i, "input": "input %d" % i} for i in range(5)]
    new_dataset(org, "five", items)
    calls = Calls()
    loop_threads: Set[int] = set()

    async def async_task(case: TaskInput) -> Dict[str, Any]:
        calls.add(case)
        loop_threads.add(threading.get_ident())
        await asyncio.sleep(0.001)
        return {"answer": case.item["input"], "variant": case.variant}

    def sync_task(case: TaskInput) -> Dict[str, Any]:
        calls.add(case)
        assert threading.get_ident() not in loop_threads  # off the event loop
        return {"answer": case.item["input"], "variant": case.variant}

    def stop_at_seven(progress: EvaluationProgress) -> None:
        if progress.done == 7:
            raise Stop()

    async with AsyncArbiter(org.secret, base_url=server.url) as client:
        with pytest.raises(Stop):
            await client.evaluate(
                experiment="py-exp",
                dataset="five",
                task=async_task,
                repeats=2,
                concurrency=3,
                on_progress=stop_at_seven,
            )
        stopped = stopped_run(org, experiment["id"])
        assert stopped["received_results"] == sum(calls.counts.values()) >= 7

        run = await client.evaluate(
            experiment="py-exp", dataset="five", task=sync_task, repeats=2, concurrency=3, run_id=stopped["id"]
        )
    assert calls.counts == Counter(every_triple(items, 2))
    assert run["status"] == "complete" and run["received_results"] == 20
    assert run["coverage"]["failed_results"] == 0  # the sync task ran off the loop every time
    stored = run_items(org, run["id"])
    assert stored["item-3"]["variants"]["treatment"][1]["output"] == {"answer": "input 3", "variant": "treatment"}


def test_a_refused_upload_is_retried_then_raised_and_the_run_resumed(server: ArbiterServer) -> None:
    org = new_org(server)
    experiment = create_experiment(org)
    items = [{"id": "item-%d" % i, "input": "input %d" % i} for i in range(3)]
    new_dataset(org, "three", items)
    uploads: List[str] = []
    waits: List[float] = []

    def results_down(request: urllib.request.Request, *, timeout: float) -> Any:
        """The real server, except that every results upload answers 503."""
        if request.full_url.endswith("/results"):
            uploads.append(request.full_url)
            raise urllib.error.HTTPError(request.full_url, 503, "Service Unavailable", {}, None)  # type: ignore[arg-type]
        return urllib.request.urlopen(request, timeout=timeout)

    calls = Calls()

    def task(case: TaskInput) -> str:
        calls.add(case)
        return "out"

    unsaved = r"HTTP 503.*6 results were not saved.*resume with run_id='"
    with Arbiter(
        org.secret, base_url=server.url, http_client=results_down, sleep=waits.append
    ) as client, pytest.raises(ArbiterError, match=unsaved) as refused:
        client.evaluate(experiment="py-exp", dataset="three", task=task)
    assert len(uploads) == 3 and len(waits) == 2  # MAX_ATTEMPTS, with the backoff between them
    (stopped,) = runs_of(org, experiment["id"])
    assert stopped["status"] == "running" and stopped["id"] in str(refused.value)

    with Arbiter(org.secret, base_url=server.url) as client:
        run = client.evaluate(experiment="py-exp", dataset="three", task=task, run_id=stopped["id"])
    assert run["status"] == "complete" and run["received_results"] == 6
    # The results that never reached the run ran again; nothing else did.
    assert calls.counts == Counter(dict.fromkeys(every_triple(items, 1), 2))


async def test_a_publishable_key_is_refused_before_any_request(server: ArbiterServer) -> None:
    org = new_org(server)
    experiment = create_experiment(org)
    new_dataset(org, "tiny", [{"id": "a", "input": "x"}])

    def task(case: TaskInput) -> str:
        raise AssertionError("never runs")

    async with Arbiter(org.publishable, base_url=server.url) as client:
        with pytest.raises(ArbiterError, match=r"evaluate needs the org's secret key \(svc_sk_"):
            client.evaluate(experiment="py-exp", dataset="tiny", task=task)
        with pytest.raises(ArbiterError, match="secret key"), pytest.warns(DeprecationWarning, match="aevaluate"):
            await client.aevaluate(experiment="py-exp", dataset="tiny", task=task)
    async with AsyncArbiter(org.publishable, base_url=server.url) as async_client:
        with pytest.raises(ArbiterError, match="secret key"):
            await async_client.evaluate(experiment="py-exp", dataset="tiny", task=task)
    assert runs_of(org, experiment["id"]) == []

    # With the secret key, a refused request raises with the problem's detail.
    with Arbiter(org.secret, base_url=server.url) as client:
        with pytest.raises(ArbiterError, match="creating the offline run failed: HTTP 404"):
            client.evaluate(experiment="py-exp", dataset="no-such-dataset", task=task)
        with pytest.raises(TypeError, match="AsyncArbiter"):

            async def async_task(case: TaskInput) -> str:
                return "x"

            client.evaluate(experiment="py-exp", dataset="tiny", task=async_task)
    assert runs_of(org, experiment["id"]) == []
