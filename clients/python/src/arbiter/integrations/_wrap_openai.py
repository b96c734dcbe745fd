"""Reads OpenAI's Chat Completions and Responses shapes."""

from typing import Any

from arbiter.integrations._model_call_measure import (
    Measure,
    ProviderReader,
    append_response,
    conversation_text,
    field,
    first,
    set_model,
    set_prompt,
    set_response,
    set_tokens,
    text_of,
)

#: The OpenAI SDK methods ``wrap`` intercepts, by their path on the client.
OPENAI_METHODS = ("chat.completions.create", "responses.create")


class OpenAIReader(ProviderReader):
    """Chat Completions report ``usage.prompt_tokens``/``completion_tokens``; a stream reports
    them only in its last chunk, and only when the request set ``stream_options.include_usage``.
    The Responses API reports ``usage.input_tokens``/``output_tokens``, streamed inside the final
    ``response.completed`` (or ``.incomplete``/``.failed``) event."""

    def read_request(self, params: Any, into: Measure) -> None:
        if not isinstance(params, dict):
            return
        if params.get("messages") is not None:
            set_prompt(into, conversation_text(params.get("messages")))
        else:
            set_prompt(into, conversation_text(params.get("input"), params.get("instructions")))

    def read_result(self, result: Any, into: Measure) -> None:
        set_model(into, field(result, "model"))
        _read_usage(field(result, "usage"), into)
        set_response(into, _response_text(result))
        error = field(result, "error")
        if field(result, "object") == "response" and field(result, "status") == "failed" and error is not None:
            into["error"] = "ResponseFailed: %s" % (field(error, "message") or field(error, "code") or "failed")

    def read_chunk(self, chunk: Any, into: Measure) -> None:
        kind = field(chunk, "type")
        response = field(chunk, "response")
        if isinstance(kind, str) and kind.startswith("response.") and response is not None:
            self.read_result(response, into)
        elif kind == "response.output_text.delta":
            append_response(into, field(chunk, "delta"))
        elif field(chunk, "object") == "chat.completion.chunk":
            set_model(into, field(chunk, "model"))
            _read_usage(field(chunk, "usage"), into)
            append_response(into, field(field(first(field(chunk, "choices")), "delta"), "content"))


def _read_usage(usage: Any, into: Measure) -> None:
    """Chat Completions' ``prompt_tokens``/``completion_tokens`` or the Responses API's
    ``input_tokens``/``output_tokens``, each with its details (cached, reasoning), which the
    totals count."""
    if usage is None:
        return
    chat = field(usage, "prompt_tokens") is not None or field(usage, "completion_tokens") is not None
    prefix = ("prompt", "completion") if chat else ("input", "output")
    set_tokens(
        into,
        input=field(usage, "%s_tokens" % prefix[0]),
        output=field(usage, "%s_tokens" % prefix[1]),
        cached=field(field(usage, "%s_tokens_details" % prefix[0]), "cached_tokens"),
        reasoning=field(field(usage, "%s_tokens_details" % prefix[1]), "reasoning_tokens"),
    )


def _response_text(result: Any) -> str:
    """The assistant text of a chat completion or a Responses API response."""
    choices = field(result, "choices")
    if isinstance(choices, (list, tuple)):
        return text_of(field(field(first(choices), "message"), "content"))
    if field(result, "object") != "response":
        return ""
    output = field(result, "output")
    if not isinstance(output, (list, tuple)):
        return ""
    texts = [text_of(field(item, "content")) for item in output]
    return "\n".join(t for t in texts if t)


openai_reader = OpenAIReader()
