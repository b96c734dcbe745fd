"""Events waiting for a flush, in arrival order."""

import threading
from collections import deque
from typing import Deque, List, Tuple

from arbiter._core.events.queued_event import QueuedEvent


class EventQueue:
    """Bounded, so that a long outage without an offline store costs memory up to ``capacity``
    and no more; what does not fit is counted, since a silent drop would look like traffic that
    never happened.

    A full queue drops exposures first (docs/decisions/clients.md#exposure-de-duplication-in-the-clients):
    the next day's ``assign`` sends a user's exposure again, while a model call or a business
    event is gone for good. Exposures and the other events wait in two lines, each entry with its
    arrival number, so that the oldest exposure leaves in constant time and ``take`` still hands
    out everything in arrival order.
    """

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._exposures: Deque[Tuple[int, QueuedEvent]] = deque()
        self._others: Deque[Tuple[int, QueuedEvent]] = deque()
        self._arrivals = 0
        self._lock = threading.Lock()
        self.dropped = 0

    def __len__(self) -> int:
        return len(self._exposures) + len(self._others)

    def push(self, event: QueuedEvent, exposure: bool) -> bool:
        """False when the queue was full: the event was dropped, or, for an event that is not an
        ``exposure``, the oldest queued exposure was dropped to make room for it."""
        with self._lock:
            self._arrivals += 1
            line = self._exposures if exposure else self._others
            if len(self._exposures) + len(self._others) < self._capacity:
                line.append((self._arrivals, event))
                return True
            self.dropped += 1
            if not exposure and self._exposures:
                self._exposures.popleft()
                line.append((self._arrivals, event))
            return False

    def take(self, count: int) -> List[QueuedEvent]:
        """Removes and returns up to ``count`` of the oldest events."""
        with self._lock:
            exposures, others = self._exposures, self._others
            taken: List[QueuedEvent] = []
            while len(taken) < count:
                if exposures and (not others or exposures[0][0] < others[0][0]):
                    taken.append(exposures.popleft()[1])
                elif others:
                    taken.append(others.popleft()[1])
                else:
                    break
            return taken

    def reset_after_fork(self) -> None:
        """In a forked child the events belong to the parent, which delivers them."""
        self._lock = threading.Lock()
        self._exposures.clear()
        self._others.clear()
