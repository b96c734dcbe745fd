"""Why the API would refuse an event, found at ``track`` time.

A refusal found at flush time would cost the whole batch a round trip, and the caller's mistake
a log line far from its cause. The server refuses text PostgreSQL cannot store (NUL, unpaired
surrogates) and user ids over 256 characters; such events are never queued.
"""

import math
from typing import Any, Mapping, Optional

from ._constants import MAX_USER_ID_LENGTH
from ._utf8 import utf16_length

EVENT_TYPES = frozenset(("exposure", "model_call", "business_event"))


def is_wire_user_id(user: str) -> bool:
    """Any string buckets (the shared vectors include the empty one), but the API stores only
    user ids of 1 to 256 UTF-16 units of storable text, so no event is made for others."""
    return 1 <= len(user) and utf16_length(user) <= MAX_USER_ID_LENGTH and text_problem(user) is None


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


def track_problem(event: Any, payload: Any) -> Optional[str]:
    """Why the API would refuse this event, or None."""
    if not isinstance(event, str) or event not in EVENT_TYPES:
        return "unknown event type %r" % (event,)
    if not isinstance(payload, Mapping):
        return "payload is not a mapping"
    experiment = payload.get("experiment_id")
    if not isinstance(experiment, str) or experiment == "":
        return "experiment_id is missing"
    user = payload.get("user_id")
    if not isinstance(user, str) or not 1 <= utf16_length(user) <= MAX_USER_ID_LENGTH:
        return "user_id must be 1 to %d characters" % MAX_USER_ID_LENGTH
    if event == "business_event":
        metric = payload.get("business_metric")
        if not isinstance(metric, str) or metric == "":
            return "business_metric is missing"
        value = payload.get("value")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return "value must be a finite number"
    return _stored_text_problem(payload, "")


def _stored_text_problem(value: Any, where: str) -> Optional[str]:
    """The first string (keys included) the database could not store, or a number JSON cannot carry."""
    if isinstance(value, str):
        problem = text_problem(value)
        return None if problem is None else "%s %s" % (where.lstrip("."), problem)
    if isinstance(value, float) and not math.isfinite(value):
        return "%s is not a finite number" % where.lstrip(".")
    if isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(key, str) and text_problem(key) is not None:
                return "a key of %s %s" % (where.lstrip(".") or "the payload", text_problem(key))
            found = _stored_text_problem(item, "%s.%s" % (where, key))
            if found is not None:
                return found
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            found = _stored_text_problem(item, "%s[%d]" % (where, i))
            if found is not None:
                return found
    return None
