"""One exposure per user, experiment and UTC day, in bounded memory
(docs/decisions/clients.md#exposure-de-duplication-in-the-clients)."""

import threading
import time
from array import array
from typing import Callable, Optional, Protocol

#: Seconds since the epoch. A table reads it when it is made: a test replaces it first to move
#: the UTC day.
wall_clock: Callable[[], float] = time.time

SECONDS_A_DAY = 86_400
#: Slots of a new or cleared table; it doubles from here as it fills.
INITIAL_SLOTS = 256


class ExposureTable(Protocol):
    """An experiment's (or a holdout's) table of exposures sent today: ``ExposureDedup`` below,
    or the same table in C from the ``speedups`` extra."""

    def first_today(self, user: str, variant: Optional[str]) -> bool: ...

    def slot_count(self) -> int: ...

    def reset_after_fork(self) -> None: ...

    def __len__(self) -> int: ...


class _Unexposed:
    """The table of an experiment that sends no exposure of its own (a draft, a stopped one):
    nobody is ever due one."""

    def first_today(self, user: str, variant: Optional[str]) -> bool:
        return False

    def slot_count(self) -> int:
        return 0

    def reset_after_fork(self) -> None:
        pass

    def __len__(self) -> int:
        return 0


#: The one table of every experiment that sends no exposure of its own.
UNEXPOSED: ExposureTable = _Unexposed()

#: ``(capacity)`` -> an empty table: the pure one below, or the C one of the fast engine.
NewTable = Callable[[int], ExposureTable]


class ExposureDedup:
    """The (user id, variant) pairs of one experiment sent an exposure on the current UTC day.

    Each pair is a 64-bit fingerprint in an ``array('q')`` with open addressing (linear probing,
    0 = empty): 8 bytes a slot, at most three slots in four filled, so that a probe soon meets an
    empty one. The fingerprint is the interpreter's own hash of the ``(user, variant)`` tuple:
    one C call over the strings' hashes, which CPython computes once per ``str`` and keeps in
    it, where a hash of ours would run in Python. It is salted per process, which is harmless
    since fingerprints never leave it. The one pair whose fingerprint is 0 reads as already
    recorded (one missing exposure, odds of 2**-64 a pair).

    ``first_today`` runs on every ``assign`` of an exposed user, from any thread, without a lock:
    it reads the array once and probes that array, so a table grown or cleared meanwhile by
    another thread cannot send it out of bounds. Recording takes the lock and looks again, so
    one caller per fingerprint and day records it and sends its exposure.
    """

    __slots__ = ("_capacity", "_max_slots", "_slots", "_count", "_day_ends_at", "_clock", "_lock")

    def __init__(self, capacity: int) -> None:
        #: Fingerprints held before the table is cleared.
        self._capacity = capacity
        #: Three in four of them filled at the capacity.
        self._max_slots = -(-capacity * 4 // 3)
        self._slots = _empty(min(INITIAL_SLOTS, self._max_slots))
        self._count = 0
        #: The UTC midnight that ends the day the table holds, in epoch seconds; a call at or
        #: past it starts a new day. -inf: the first call starts one.
        self._day_ends_at = float("-inf")
        self._clock = wall_clock
        self._lock = threading.Lock()

    def first_today(self, user: str, variant: Optional[str]) -> bool:
        """True when ``(user, variant)`` was not recorded yet on today's UTC day: it is recorded
        now, and the caller sends the exposure. False when it was. ``variant`` None is the user's
        targeting tally (arbiter._core.events.targeting_tallies), which no exposure's pair can equal."""
        fingerprint = hash((user, variant))
        if self._clock() < self._day_ends_at:
            slots = self._slots
            n = len(slots)
            i = fingerprint % n
            seen = slots[i]
            while seen != fingerprint:
                if not seen:
                    return self._record(fingerprint)
                i += 1
                if i == n:
                    i = 0
                seen = slots[i]
            return False
        return self._record(fingerprint)

    def _record(self, fingerprint: int) -> bool:
        with self._lock:
            now = self._clock()
            # A call that read the clock just before midnight and arrives after another started
            # the new day counts on the new day: its event is stamped after this point too.
            if now >= self._day_ends_at:
                self._clear()
                self._day_ends_at = (now // SECONDS_A_DAY + 1) * SECONDS_A_DAY
            if _contains(self._slots, fingerprint):
                return False
            if self._count >= self._capacity:
                # Forgetting everyone keeps memory bounded, at the price of one repeat exposure
                # per user of this fill.
                self._clear()
            slots = self._slots
            if (self._count + 1) * 4 > len(slots) * 3:
                slots = self._grown(slots)
            _put(slots, fingerprint)
            # A grown table is published only once filled.
            self._slots = slots
            self._count += 1
            return True

    def reset_after_fork(self) -> None:
        """The lock may have been held by a thread the fork left behind."""
        self._lock = threading.Lock()

    def slot_count(self) -> int:
        """Slots of the current array, 8 bytes each: the table's memory."""
        return len(self._slots)

    def __len__(self) -> int:
        return self._count

    def _clear(self) -> None:
        """A new, small array: the memory of a full day is given back."""
        self._slots = _empty(min(INITIAL_SLOTS, self._max_slots))
        self._count = 0

    def _grown(self, slots: "array[int]") -> "array[int]":
        bigger = _empty(min(len(slots) * 2, self._max_slots))
        for fingerprint in slots:
            if fingerprint:
                _put(bigger, fingerprint)
        return bigger


def _empty(size: int) -> "array[int]":
    # Repeating one zero allocates exactly ``size`` slots; building from bytes over-allocates 6 %.
    return array("q", [0]) * size


def _contains(slots: "array[int]", fingerprint: int) -> bool:
    n = len(slots)
    i = fingerprint % n
    while True:
        seen = slots[i]
        if seen == fingerprint:
            return True
        if not seen:
            return False
        i += 1
        if i == n:
            i = 0


def _put(slots: "array[int]", fingerprint: int) -> None:
    n = len(slots)
    i = fingerprint % n
    while slots[i]:
        i += 1
        if i == n:
            i = 0
    slots[i] = fingerprint
