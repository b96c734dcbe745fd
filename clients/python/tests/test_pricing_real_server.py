"""Each Python integration that reports tokens without a cost, against the real server (``arbiter
serve``) and a local server speaking the provider's protocol: ``wrap`` over OpenAI's Chat
Completions and Responses and over Anthropic's Messages, and the LangChain callback handler
over ``ChatOpenAI``. The stored model call (read back through ``GET /v1/events/export``) has the
cost the server's price table gives, within 1e-12, with cached and reasoning tokens at their own
rates, and names the row that priced it."""

import datetime
import json
import os
import urllib.request
from typing import Any, Dict, Iterator, List, Optional

import anthropic
import openai
import pytest
from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI

from arbiter import Arbiter
from arbiter.integrations.langchain import ArbiterCallbackHandler
from support import fake_llm
from support.arbiter_server import ArbiterServer, Org, create_experiment, new_org
from support.http_server import LoopbackServer

PRICES = os.path.join(
    os.path.dirname(__file__), "..", "..", "..", "apps", "server", "src", "domain", "model-prices", "prices.json"
)
EXPERIMENT = "py-priced"
TODAY = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")

#: What the fake provider reports for each model: totals, and the cached and reasoning parts.
USAGE = {
    "o3-2025-04-16": {"input": 3000, "output": 800, "cached": 1200, "reasoning": 600},
    "gemini-2.5-flash-preview-04-17": {"input": 12345, "output": 6789, "cached": 2345, "reasoning": 4321},
    "claude-haiku-4-5-20251001": {"input": 1000, "output": 40, "cached": 900},
    "gpt-4.1-mini-2025-04-14": {"input": 4000, "output": 300, "cached": 3000, "reasoning": 0},
}


def row_in_effect(pattern: str) -> Dict[str, Any]:
    """The built-in row of ``pattern`` in effect today: its latest day on or before today."""
    with open(PRICES, encoding="utf-8") as f:
        rows = [r for r in json.load(f)["rows"] if r["pattern"] == pattern and r["effective_from"] <= TODAY]
    return max(rows, key=lambda r: r["effective_from"])  # type: ignore[no-any-return]


def oracle(row: Dict[str, Any], usage: Dict[str, int]) -> float:
    """Each kind at its own rate, the cached and reasoning parts out of their totals."""
    cached = usage.get("cached", 0)
    reasoning = usage.get("reasoning", 0)
    cached_rate = row["cached_input_per_million"]
    reasoning_rate = row["reasoning_per_million"]
    return (
        float(
            (usage["input"] - cached) * row["input_per_million"]
            + cached * (row["input_per_million"] if cached_rate is None else cached_rate)
            + (usage["output"] - reasoning) * row["output_per_million"]
            + reasoning * (row["output_per_million"] if reasoning_rate is None else reasoning_rate)
        )
        / 1e6
    )


@pytest.fixture(scope="module")
def priced_llm() -> Iterator[LoopbackServer]:
    fake_llm.USAGE_BY_MODEL.update(USAGE)
    server = fake_llm.start_fake_llm()
    yield server
    server.stop()
    for model in USAGE:
        fake_llm.USAGE_BY_MODEL.pop(model, None)


@pytest.fixture(scope="module")
def stored(server: ArbiterServer, priced_llm: LoopbackServer) -> Dict[str, Dict[str, Any]]:
    """Every integration's call, sent through one client, as the export gives them back by model."""
    org = new_org(server)
    experiment = create_experiment(org, name=EXPERIMENT)
    client = Arbiter(api_key=org.publishable, base_url=server.url, experiments=[EXPERIMENT], flush_interval=3600.0)
    try:
        assert client.ready(timeout=60) is True
        send_calls(client, priced_llm)
        client.flush(timeout=60)
    finally:
        client.close(timeout=30)
    lines = export(org, experiment["id"])
    return {line["model"]: line for line in lines if line["type"] == "model_call"}


def send_calls(client: Arbiter, llm: LoopbackServer) -> None:
    oai = client.wrap(openai.OpenAI(base_url=llm.url + "/v1", api_key="sk-test", max_retries=0), EXPERIMENT)
    claude = client.wrap(anthropic.Anthropic(base_url=llm.url, api_key="sk-ant", max_retries=0), EXPERIMENT)
    handler = ArbiterCallbackHandler(client, EXPERIMENT)
    chat = ChatOpenAI(
        model="gpt-4.1-mini-2025-04-14",
        base_url=llm.url + "/v1",
        api_key="sk-test",
        max_retries=0,  # type: ignore[arg-type]
    )
    with client.as_user("priced-1"):
        oai.chat.completions.create(model="o3-2025-04-16", messages=[{"role": "user", "content": "hi"}])
        oai.responses.create(model="gemini-2.5-flash-preview-04-17", input="hi")
        claude.messages.create(
            model="claude-haiku-4-5-20251001", max_tokens=64, messages=[{"role": "user", "content": "hi"}]
        )
        chat.invoke([HumanMessage(content="hi")], config={"callbacks": [handler]})


def export(org: Org, experiment_id: str) -> List[Dict[str, Any]]:
    """``GET /v1/events/export`` of today: NDJSON, one event a line."""
    req = urllib.request.Request(
        "%s/v1/events/export?experiment=%s&day=%s" % (org.session.url, experiment_id, TODAY),
        headers={"X-API-Key": org.secret},
    )
    with urllib.request.urlopen(req, timeout=30) as res:
        return [json.loads(line) for line in res.read().decode("utf-8").splitlines() if line]


@pytest.mark.parametrize(
    "model,pattern,integration",
    [
        ("o3-2025-04-16", "o3", "wrap over OpenAI Chat Completions"),
        ("gemini-2.5-flash-preview-04-17", "gemini-2.5-flash-preview-04-17", "wrap over OpenAI Responses"),
        ("claude-haiku-4-5-20251001", "claude-haiku-4-5", "wrap over Anthropic Messages"),
        ("gpt-4.1-mini-2025-04-14", "gpt-4.1-mini", "the LangChain callback handler"),
    ],
)
def test_the_stored_call_has_the_table_cost_and_names_its_row(
    stored: Dict[str, Dict[str, Any]], model: str, pattern: str, integration: str
) -> None:
    call: Optional[Dict[str, Any]] = stored.get(model)
    assert call is not None, "%s sent no call of %s: %s" % (integration, model, sorted(stored))
    usage = USAGE[model]
    assert (call["input_tokens"], call["output_tokens"]) == (usage["input"], usage["output"])
    assert call.get("cached_input_tokens") == usage.get("cached")
    assert call.get("reasoning_tokens", 0) == usage.get("reasoning", 0)
    row = row_in_effect(pattern)
    assert call["priced_by"] == "builtin:%s@%s" % (pattern, row["effective_from"])
    assert abs(call["cost_usd"] - oracle(row, usage)) < 1e-12


def test_cached_and_reasoning_tokens_are_not_priced_as_the_rest(stored: Dict[str, Dict[str, Any]]) -> None:
    """The oracle above would pass for any rates if every kind cost the same: these rows differ."""
    preview = row_in_effect("gemini-2.5-flash-preview-04-17")
    assert preview["cached_input_per_million"] != preview["input_per_million"]
    assert preview["reasoning_per_million"] != preview["output_per_million"]
    flat = dict(preview, cached_input_per_million=None, reasoning_per_million=None)
    call = stored["gemini-2.5-flash-preview-04-17"]
    assert abs(call["cost_usd"] - oracle(flat, USAGE["gemini-2.5-flash-preview-04-17"])) > 1e-6
