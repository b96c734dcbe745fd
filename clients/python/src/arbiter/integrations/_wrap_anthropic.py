"""Reads Anthropic's Messages shapes."""

from typing import Any

from arbiter.integrations._model_call_measure import (
    Measure,
    ProviderReader,
    append_response,
    conversation_text,
    field,
    set_model,
    set_prompt,
    set_response,
    set_tokens,
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
    """Anthropic counts the prompt cache apart from ``input_tokens``: the cache read and
    written are added into the input, as the wire counts them, and the read is the cached part."""
    if usage is None:
        return
    given = field(usage, "input_tokens")
    read = field(usage, "cache_read_input_tokens")
    written = field(usage, "cache_creation_input_tokens")
    total = None if not isinstance(given, int) else given + (read or 0) + (written or 0)
    set_tokens(into, input=total, output=field(usage, "output_tokens"), cached=read if total is not None else None)


anthropic_reader = AnthropicReader()
