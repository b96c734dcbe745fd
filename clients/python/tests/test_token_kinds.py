"""The token kinds each integration reads from what its provider reports: OpenAI's cached and
reasoning details (parts of the totals), Anthropic's cache (counted apart, added into the
input) and LangChain's ``usage_metadata`` details."""

from types import SimpleNamespace
from typing import Any, Dict

from arbiter.integrations._model_call_recorder import _model_call_fields
from arbiter.integrations._wrap_anthropic import anthropic_reader
from arbiter.integrations._wrap_openai import openai_reader
from arbiter.integrations.langchain import _read_result


def test_openai_chat_details_are_read_as_parts_of_the_totals() -> None:
    into: Dict[str, Any] = {}
    openai_reader.read_result(
        {
            "object": "chat.completion",
            "model": "o3-2025-04-16",
            "choices": [{"message": {"content": "hi"}}],
            "usage": {
                "prompt_tokens": 3000,
                "completion_tokens": 800,
                "prompt_tokens_details": {"cached_tokens": 1200},
                "completion_tokens_details": {"reasoning_tokens": 600},
            },
        },
        into,
    )
    assert _model_call_fields(into, False) == {
        "error": None,
        "model": "o3-2025-04-16",
        "input_tokens": 3000,
        "output_tokens": 800,
        "cached_input_tokens": 1200,
        "reasoning_tokens": 600,
    }


def test_openai_responses_details_are_read() -> None:
    into: Dict[str, Any] = {}
    openai_reader.read_result(
        {
            "object": "response",
            "model": "gpt-5",
            "output_text": "hi",
            "usage": {
                "input_tokens": 10,
                "output_tokens": 9,
                "input_tokens_details": {"cached_tokens": 4},
                "output_tokens_details": {"reasoning_tokens": 5},
            },
        },
        into,
    )
    assert (into["cached_input_tokens"], into["reasoning_tokens"]) == (4, 5)


def test_anthropic_cache_is_added_into_the_input() -> None:
    into: Dict[str, Any] = {}
    anthropic_reader.read_result(
        {
            "type": "message",
            "model": "claude-sonnet-4-20250514",
            "content": [{"type": "text", "text": "hi"}],
            "usage": {
                "input_tokens": 100,
                "cache_read_input_tokens": 900,
                "cache_creation_input_tokens": 50,
                "output_tokens": 40,
            },
        },
        into,
    )
    assert (into["input_tokens"], into["cached_input_tokens"], into["output_tokens"]) == (1050, 900, 40)


def test_langchain_usage_metadata_details_are_read() -> None:
    message = SimpleNamespace(
        content="hi",
        response_metadata={"model_name": "gpt-4.1-mini-2025-04-14"},
        usage_metadata={
            "input_tokens": 4000,
            "output_tokens": 300,
            "input_token_details": {"cache_read": 3000},
            "output_token_details": {"reasoning": 100},
        },
    )
    result = SimpleNamespace(generations=[[SimpleNamespace(text="hi", message=message)]], llm_output=None)
    into: Dict[str, Any] = {}
    _read_result(result, into)  # type: ignore[arg-type]
    assert _model_call_fields(into, False) == {
        "error": None,
        "model": "gpt-4.1-mini-2025-04-14",
        "input_tokens": 4000,
        "output_tokens": 300,
        "cached_input_tokens": 3000,
        "reasoning_tokens": 100,
    }


def test_a_part_above_its_total_is_left_out() -> None:
    fields = _model_call_fields({"input_tokens": 5, "cached_input_tokens": 6, "output_tokens": 1}, False)
    assert "cached_input_tokens" not in fields
