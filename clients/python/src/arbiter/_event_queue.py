"""Events waiting for a flush, in arrival order."""

import threading
from collections import deque
from typing import Deque, List

from ._queued_event import QueuedEvent


class EventQueue:
    """Bounded, so that a long outage without an offline store costs memory up to ``capacity``
    and no more; what does not fit is counted, since a silent drop would look like traffic that
    never happened."""

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._items: Deque[QueuedEvent] = deque()
        self._lock = threading.Lock()
        self.dropped = 0

    def __len__(self) -> int:
        return len(self._items)

    def push(self, event: QueuedEvent) -> bool:
        """False when the queue was full and the event was dropped."""
        with self._lock:
            if len(self._items) >= self._capacity:
                self.dropped += 1
                return False
            self._items.append(event)
            return True

    def take(self, count: int) -> List[QueuedEvent]:
        """Removes and returns up to ``count`` of the oldest events."""
        with self._lock:
            n = min(count, len(self._items))
            return [self._items.popleft() for _ in range(n)]

    def reset_after_fork(self) -> None:
        """In a forked child the events belong to the parent, which delivers them."""
        self._lock = threading.Lock()
        self._items.clear()
