"""Reads Anthropic's Messages shapes."""

from typing import Any

from arbiter.integrations._model_call_measure import (
    Measure,
    ProviderReader,
    append_response,
    conversation_text,
    field,
    set_count,
    set_model,
    set_prompt,
    set_response,
    text_of,
)

#: The Anthropic SDK method ``wrap`` intercepts, by its path on the client.
ANTHROPIC_METHODS = ("messages.create",)


class AnthropicReader(ProviderReader):
    """A Message carries ``usage.input_tokens``/``output_tokens``. A stream opens with
    ``message_start`` (model and input tokens) and its ``message_delta`` events carry cumulative
    output tokens."""

    def read_request(self, params: Any, into: Measure) -> None:
        if isinstance(params, dict):
            set_prompt(into, conversation_text(params.get("messages"), params.get("system")))

    def read_result(self, result: Any, into: Measure) -> None:
        if field(result, "type") != "message":
            return
        set_model(into, field(result, "model"))
        _read_usage(field(result, "usage"), into)
        set_response(into, text_of(field(result, "content")))

    def read_chunk(self, chunk: Any, into: Measure) -> None:
        kind = field(chunk, "type")
        if kind == "message_start":
            self.read_result(field(chunk, "message"), into)
        elif kind == "message_delta":
            _read_usage(field(chunk, "usage"), into)
        elif kind == "content_block_delta":
            delta = field(chunk, "delta")
            if field(delta, "type") == "text_delta":
                append_response(into, field(delta, "text"))


def _read_usage(usage: Any, into: Measure) -> None:
    if usage is not None:
        set_count(into, "input_tokens", field(usage, "input_tokens"))
        set_count(into, "output_tokens", field(usage, "output_tokens"))


anthropic_reader = AnthropicReader()
