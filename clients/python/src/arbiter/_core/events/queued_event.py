"""An event as it waits for delivery: already serialized, so it cannot change after ``track``."""

import json
from typing import Any, Dict, List, NamedTuple


class QueuedEvent(NamedTuple):
    event_id: str
    #: ISO 8601, taken when the event was enqueued; replays keep it.
    timestamp: str
    #: The event as one line of JSON: the request body's element and the offline store's line.
    line: str


def serialize(event: Dict[str, Any]) -> QueuedEvent:
    """Raises ValueError or TypeError for what JSON cannot carry (NaN, objects), which
    ``track`` turns into a dropped event and a log line."""
    line = json.dumps(event, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return QueuedEvent(event["event_id"], event["timestamp"], line)


def batch_body(batch: List[QueuedEvent]) -> bytes:
    return ('{"events":[' + ",".join(e.line for e in batch) + "]}").encode("utf-8")
