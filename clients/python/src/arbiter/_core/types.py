"""The public value types."""

from typing import Any, Dict, Literal, NamedTuple, Optional, TypedDict

#: The three event types ``POST /v1/events`` accepts (docs/wire-format.md#post-v1events-publishable-or-secret-key).
EventType = Literal["exposure", "model_call", "business_event"]


class TrackPayload(TypedDict, total=False):
    """What ``track`` takes: the wire fields of an event (docs/wire-format.md) without the three
    the client fills in (``event_id``, ``type``, ``timestamp``)."""

    experiment_id: str
    user_id: str
    variant: str
    business_metric: str
    value: float
    latency_ms: float
    input_tokens: int
    output_tokens: int
    #: Of ``input_tokens``, those read from the provider's prompt cache.
    cached_input_tokens: int
    #: Of ``output_tokens``, those the model spent reasoning.
    reasoning_tokens: int
    #: The call's cost; without it the server prices the call from its tokens and model.
    cost_usd: float
    model: str
    error: Optional[str]
    prompt: str
    response: str
    metadata: Dict[str, Any]


class PromptResult(NamedTuple):
    """``get_prompt``'s answer; unpacks as ``variant, prompt, fallback``."""

    #: The assigned variant key, or None (not enrolled, or no config yet).
    variant: Optional[str]
    prompt: str
    #: True when ``prompt`` is the caller's default.
    fallback: bool


class ClientStats(TypedDict):
    """Counters of the event pipeline since construction."""

    #: Events waiting in memory.
    queued: int
    #: Events acknowledged by the server.
    sent: int
    #: Events dropped: queue full, refused by the server, retries exhausted without a store, closed.
    dropped: int
    #: Events written to the offline store.
    spilled: int
    #: Spilled events later acknowledged by the server.
    replayed: int
    #: Spilled events discarded as older than the replay window.
    expired: int
