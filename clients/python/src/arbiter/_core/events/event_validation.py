"""Why the API would refuse an event, found before it is queued.

The server's rules for one event (docs/wire-format.md), the same as the TypeScript client's:
text without NUL or unpaired surrogates in every field and id, the fields' lengths, the numeric
domains, and the free-form JSON limit of ``metadata``. ``track`` checks at call time because a
refusal found at flush time would cost the whole batch a round trip, and the caller's mistake a
log line far from its cause; exposures and model calls recorded for the caller are checked too.
"""

import json
import math
from typing import Any, List, Mapping, Optional, Tuple

from arbiter._core.bucketing.utf8 import utf16_length
from arbiter._core.constants import (
    MAX_ABS_BUSINESS_VALUE,
    MAX_COST_USD,
    MAX_LATENCY_MS,
    MAX_MODEL_TEXT_LENGTH,
    MAX_TOKENS,
    MAX_USER_ID_LENGTH,
    METADATA_MAX_BYTES,
    METADATA_MAX_DEPTH,
)

EVENT_TYPES = frozenset(("exposure", "model_call", "business_event"))

#: Field, shortest and longest length in UTF-16 units (the API's event schema).
_TEXT_LIMITS: Tuple[Tuple[str, int, int], ...] = (
    ("experiment_id", 1, 200),
    ("variant", 1, 64),
    ("business_metric", 1, 128),
    ("model", 0, 200),
    ("error", 0, 4_000),
    ("prompt", 0, MAX_MODEL_TEXT_LENGTH),
    ("response", 0, MAX_MODEL_TEXT_LENGTH),
)
#: Field, minimum, maximum, whether it must be an integer.
_NUMBER_LIMITS: Tuple[Tuple[str, int, int, bool], ...] = (
    ("latency_ms", 0, MAX_LATENCY_MS, False),
    ("input_tokens", 0, MAX_TOKENS, True),
    ("output_tokens", 0, MAX_TOKENS, True),
    ("cached_input_tokens", 0, MAX_TOKENS, True),
    ("reasoning_tokens", 0, MAX_TOKENS, True),
    ("cost_usd", 0, MAX_COST_USD, False),
    ("value", -MAX_ABS_BUSINESS_VALUE, MAX_ABS_BUSINESS_VALUE, False),
)
#: A token part is counted inside its total: it needs the total and cannot exceed it.
_TOKEN_PARTS: Tuple[Tuple[str, str], ...] = (
    ("cached_input_tokens", "input_tokens"),
    ("reasoning_tokens", "output_tokens"),
)
_TEXT_RULE = "holds a NUL character or an unpaired surrogate"


def is_wire_user_id(user: str) -> bool:
    """Any string buckets (the shared vectors include the empty one), but the API stores only
    user ids of 1 to 256 UTF-16 units of storable text, so no event is made for others."""
    return len(user) >= 1 and utf16_length(user) <= MAX_USER_ID_LENGTH and text_problem(user) is None


def text_problem(text: str) -> Optional[str]:
    """What makes ``text`` unstorable, or None."""
    if "\x00" in text:
        return "contains NUL (U+0000)"
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return "contains an unpaired surrogate"
    return None


def _is_number(value: Any) -> bool:
    # bool is an int to Python but not a number to JSON readers.
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _number_problem(value: Any, low: int, high: int, integer: bool) -> bool:
    if not _is_number(value):
        return True
    # Compared without float(): an int too large for a double must not raise OverflowError.
    if isinstance(value, float) and (not math.isfinite(value) or (integer and not value.is_integer())):
        return True
    return not low <= value <= high


def free_form_problem(value: Any, what: str = "metadata") -> Optional[str]:
    """Why ``value`` (an object, or for ``what`` other than metadata any JSON value) breaks the
    free-form JSON limit, or None; iterative, so no depth can overflow the stack."""
    if what == "metadata" and not isinstance(value, Mapping):
        return "metadata must be an object"
    stack: List[Tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, str):
            if text_problem(node) is not None:
                return "%s %s" % (what, _TEXT_RULE)
        elif isinstance(node, float):
            if not math.isfinite(node):
                return "%s holds a number JSON cannot carry" % what
        elif isinstance(node, (Mapping, list, tuple)):
            if depth > METADATA_MAX_DEPTH:
                return "%s is nested deeper than %d levels" % (what, METADATA_MAX_DEPTH)
            if isinstance(node, Mapping):
                for key, inner in node.items():
                    if isinstance(key, str) and text_problem(key) is not None:
                        return "a key of %s %s" % (what, _TEXT_RULE)
                    stack.append((inner, depth + 1))
            else:
                stack.extend((inner, depth + 1) for inner in node)
    try:
        compact = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as err:
        return "%s is not JSON (%s)" % (what, err)
    size = len(compact.encode("utf-8"))
    if size > METADATA_MAX_BYTES:
        return "%s is %d bytes as JSON, more than %d" % (what, size, METADATA_MAX_BYTES)
    return None


def wire_problem(payload: Mapping[str, Any]) -> Optional[str]:
    """Why the API would refuse an event with these fields, or None."""
    user = payload.get("user_id")
    if not isinstance(user, str) or not is_wire_user_id(user):
        return "user_id must be 1 to %d characters without NUL or unpaired surrogates" % MAX_USER_ID_LENGTH
    for field, shortest, longest in _TEXT_LIMITS:
        value = payload.get(field)
        if value is None:
            continue
        if not isinstance(value, str) or not shortest <= utf16_length(value) <= longest:
            return "%s must be a string of %d to %d characters" % (field, shortest, longest)
        if text_problem(value) is not None:
            return "%s %s" % (field, _TEXT_RULE)
    for field, low, high, integer in _NUMBER_LIMITS:
        if field in payload and _number_problem(payload[field], low, high, integer):
            return "%s must be %s from %d to %d" % (field, "an integer" if integer else "a number", low, high)
    for part, whole in _TOKEN_PARTS:
        if part in payload and not (whole in payload and payload[part] <= payload[whole]):
            return "%s must be a part of %s" % (part, whole)
    if "metadata" in payload:
        return free_form_problem(payload["metadata"])
    return None


def track_problem(event: Any, payload: Any) -> Optional[str]:
    """Why the API would refuse this event, or None."""
    if not isinstance(event, str) or event not in EVENT_TYPES:
        return "unknown event type %r" % (event,)
    if not isinstance(payload, Mapping):
        return "payload is not a mapping"
    experiment = payload.get("experiment_id")
    if not isinstance(experiment, str) or experiment == "":
        return "experiment_id is missing"
    if event == "business_event":
        metric = payload.get("business_metric")
        if not isinstance(metric, str) or metric == "":
            return "business_metric is missing"
        value = payload.get("value")
        if not _is_number(value) or (isinstance(value, float) and not math.isfinite(value)):
            return "value must be a finite number"
    return wire_problem(payload)
