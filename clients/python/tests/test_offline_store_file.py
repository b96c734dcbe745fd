"""The file store on its own: what a crash mid-append leaves behind must not cost later events."""

import json
from typing import Any

from arbiter._core.events.offline_store import FileOfflineStore
from arbiter._core.events.queued_event import QueuedEvent, serialize


def event(n: int) -> QueuedEvent:
    return serialize(
        {
            "event_id": "e%d" % n,
            "type": "business_event",
            "experiment_id": "x",
            "user_id": "u",
            "timestamp": "2026-11-22T12:00:%02d.000Z" % n,
            "business_metric": "m",
            "value": n,
        }
    )


def test_first_append_after_a_torn_last_line_starts_a_line_of_its_own(tmp_path: Any) -> None:
    path = str(tmp_path / "spill.ndjson")
    with open(path, "w", encoding="utf-8") as f:
        # A crash mid-append left half a line, without its newline, after a whole one.
        f.write(event(1).line + "\n" + event(9).line[:20])
    store = FileOfflineStore(path, 100)
    assert [e.event_id for e in store.peek(10)] == ["e1"]
    store.append([event(2)])
    store.append([event(3)])
    assert FileOfflineStore(path, 100).peek(10) == [event(1), event(2), event(3)]
    with open(path, encoding="utf-8") as f:
        whole = [line for line in f.read().split("\n") if line and line.endswith("}")]
    assert [json.loads(line)["event_id"] for line in whole] == ["e1", "e2", "e3"]


def test_appends_to_a_whole_file_add_no_empty_lines(tmp_path: Any) -> None:
    path = str(tmp_path / "spill.ndjson")
    store = FileOfflineStore(path, 100)
    store.append([event(1)])
    store.append([event(2), event(3)])
    with open(path, encoding="utf-8") as f:
        assert f.read() == "".join(event(n).line + "\n" for n in (1, 2, 3))
