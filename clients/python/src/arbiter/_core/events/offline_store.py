"""Spilled events in a file, newline-delimited JSON, oldest first.

The format of the Node client's file store (clients/typescript/src/internal/offline-store-file.ts):
one event object per line, exactly as sent on the wire, so either library replays the other's
file. Appends go to the end of the file; removals rewrite it through a temporary file and a
rename, so a crash leaves the old file or the new one, never half of one. A line cut short by a
crash mid-append is skipped on load, and the next append starts on a line of its own so that the
first event after it is not glued to it and lost.

Unlike the Node store, the file and not memory is the truth: after ``os.fork()`` (gunicorn,
Celery) parent and children share the path, so every operation holds an advisory lock on
``<path>.lock`` and re-reads the file when another process changed it.
"""

import json
import os
import threading
from contextlib import contextmanager
from typing import Iterator, List, Optional, Sequence, Tuple

from arbiter._core.events.queued_event import QueuedEvent

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: one process per file, as in Node
    fcntl = None  # type: ignore[assignment]

_Signature = Tuple[int, int, int]


class FileOfflineStore:
    """Every method may raise ``OSError``; the pipeline turns a failure into a dropped batch and
    one log line."""

    def __init__(self, path: str, capacity: int) -> None:
        self.path = path
        self._capacity = capacity
        self._lock = threading.Lock()
        self._events: List[QueuedEvent] = []
        self._signature: Optional[_Signature] = None

    def append(self, events: Sequence[QueuedEvent]) -> int:
        """Adds events; past the capacity the oldest go. Returns how many went."""
        with self._locked():
            held = self._load()
            overflow = max(0, len(held) + len(events) - self._capacity)
            if overflow > 0:
                self._rewrite((held + list(events))[overflow:])
            else:
                self._ensure_directory()
                fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
                with os.fdopen(fd, "a", encoding="utf-8") as f:
                    lead = "" if _ends_a_line(fd) else "\n"
                    f.write(lead + "".join(e.line + "\n" for e in events))
                held.extend(events)
                self._signature = _stat(self.path)
            return overflow

    def peek(self, limit: int) -> List[QueuedEvent]:
        """Up to ``limit`` of the oldest events, left in the store."""
        with self._locked():
            return self._load()[:limit]

    def remove(self, event_ids: Sequence[str]) -> None:
        """Removes the events with these ids; unknown ids are ignored."""
        with self._locked():
            gone = set(event_ids)
            held = self._load()
            kept = [e for e in held if e.event_id not in gone]
            if len(kept) != len(held):
                self._rewrite(kept)

    def reset_after_fork(self) -> None:
        self._lock = threading.Lock()

    @contextmanager
    def _locked(self) -> Iterator[None]:
        with self._lock:
            if fcntl is None:
                yield
                return
            self._ensure_directory()
            fd = os.open(self.path + ".lock", os.O_WRONLY | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                yield
            finally:
                os.close(fd)  # closing releases the lock

    def _load(self) -> List[QueuedEvent]:
        signature = _stat(self.path)
        if signature is not None and signature == self._signature:
            return self._events
        events: List[QueuedEvent] = []
        if signature is not None:
            with open(self.path, encoding="utf-8", errors="replace") as f:
                for raw in f:
                    event = _parse_line(raw)
                    if event is not None:
                        events.append(event)
        self._events = events
        self._signature = signature
        return events

    def _rewrite(self, events: List[QueuedEvent]) -> None:
        self._ensure_directory()
        temporary = "%s.%d.tmp" % (self.path, os.getpid())
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write("".join(e.line + "\n" for e in events))
        os.replace(temporary, self.path)
        self._events = events
        self._signature = _stat(self.path)

    def _ensure_directory(self) -> None:
        directory = os.path.dirname(self.path)
        if directory:
            os.makedirs(directory, exist_ok=True)


def _parse_line(raw: str) -> Optional[QueuedEvent]:
    line = raw.strip()
    if not line:
        return None
    try:
        event = json.loads(line)
    except ValueError:
        return None
    if not isinstance(event, dict) or not isinstance(event.get("event_id"), str):
        return None
    timestamp = event.get("timestamp")
    # Re-serialized, so that a line written by another library is sent exactly as it parsed.
    text = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
    return QueuedEvent(event["event_id"], timestamp if isinstance(timestamp, str) else "", text)


def _ends_a_line(fd: int) -> bool:
    """Whether the file is empty or ends in a newline; read from the file, not from what this
    process last saw, since another process (or a crash) may have written its tail."""
    size = os.fstat(fd).st_size
    if size == 0:
        return True
    os.lseek(fd, size - 1, os.SEEK_SET)
    return os.read(fd, 1) == b"\n"


def _stat(path: str) -> Optional[_Signature]:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)
