"""What a model call reports, read from the request and the provider's response or stream.

The provider SDKs hand back pydantic models, callers pass plain dicts: ``field`` reads both.
"""

from typing import Any, Dict, List, Optional

from arbiter._core.constants import MAX_MODEL_TEXT_LENGTH

#: ``model``, ``input_tokens``, ``output_tokens``, ``cached_input_tokens``, ``reasoning_tokens``,
#: ``error``, ``prompt``, ``response``.
Measure = Dict[str, Any]


class ProviderReader:
    """Reads one provider's shapes; shapes that are not its own are ignored."""

    def read_request(self, params: Any, into: Measure) -> None:
        """The keyword arguments the caller passed to the SDK method."""

    def read_result(self, result: Any, into: Measure) -> None:
        """A complete, non-streamed response."""

    def read_chunk(self, chunk: Any, into: Measure) -> None:
        """One item of a streamed response."""


def field(obj: Any, name: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def first(items: Any) -> Any:
    return items[0] if isinstance(items, (list, tuple)) and items else None


def set_count(into: Measure, name: str, value: Any) -> None:
    """Later values win: stream counts are cumulative."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
        into[name] = value


def set_tokens(into: Measure, input: Any = None, output: Any = None, cached: Any = None, reasoning: Any = None) -> None:
    """Each count the provider reported; the cached and reasoning counts are parts of the totals."""
    set_count(into, "input_tokens", input)
    set_count(into, "output_tokens", output)
    set_count(into, "cached_input_tokens", cached)
    set_count(into, "reasoning_tokens", reasoning)


def set_model(into: Measure, value: Any) -> None:
    if isinstance(value, str) and value:
        into["model"] = value


def text_of(content: Any) -> str:
    """Plain text of a message content: a string, or the ``text`` of its parts (images and tools skipped)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, (list, tuple)):
        return ""
    parts = [field(part, "text") for part in content]
    return "\n".join(p for p in parts if isinstance(p, str) and p)


def conversation_text(messages: Any, system: Any = None) -> str:
    """``role: content`` lines of a message list, the way a person would read the conversation."""
    lines: List[str] = []
    sys_text = text_of(system)
    if sys_text:
        lines.append("system: " + sys_text)
    if isinstance(messages, str):
        lines.append("user: " + messages)
    elif isinstance(messages, (list, tuple)):
        for m in messages:
            text = text_of(field(m, "content"))
            role = field(m, "role")
            if text:
                lines.append("%s: %s" % (role if isinstance(role, str) else "user", text))
    return "\n".join(lines)


def _capped(text: str) -> str:
    return text[:MAX_MODEL_TEXT_LENGTH]


def set_prompt(into: Measure, text: str) -> None:
    if text:
        into["prompt"] = _capped(text)


def set_response(into: Measure, text: Optional[str]) -> None:
    """A complete response replaces what streamed parts had gathered."""
    if isinstance(text, str) and text:
        into["response"] = _capped(text)


def append_response(into: Measure, part: Any) -> None:
    if isinstance(part, str) and part:
        into["response"] = _capped(into.get("response", "") + part)
