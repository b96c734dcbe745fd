"""Moves events from the queue to the API on a background thread."""

import logging
import threading
import time
from datetime import datetime, timezone
from typing import Any, Callable, Dict, List, Optional, Tuple

from arbiter._core.constants import MAX_EVENT_BATCH_BYTES, MAX_FLUSH_INTERVAL_MS, OFFLINE_REPLAY_WINDOW_MS
from arbiter._core.events.event_queue import EventQueue
from arbiter._core.events.offline_store import FileOfflineStore
from arbiter._core.events.queued_event import QueuedEvent, batch_body
from arbiter._transport.transport import Transport


class EventPipeline:
    """One drain runs at a time; each sends what was queued when it began, so a steady stream of
    ``track`` calls cannot keep a ``flush()`` waiting forever. Delivery is at least once: a batch
    whose answer was lost is sent again with the same ids and the server keeps one copy."""

    def __init__(
        self,
        transport: Transport,
        queue: EventQueue,
        store: Optional[FileOfflineStore],
        logger: logging.Logger,
        batch_size: int,
        flush_interval: float,
        on_ack: Callable[[Any], None],
        after_drain: Optional[Callable[[Optional[float]], None]] = None,
        before_drain: Optional[Callable[[], None]] = None,
    ) -> None:
        """``after_drain(deadline)`` sends what rides along with the events (targeting tallies)
        once they went through; ``before_drain()`` queues what is due before a drain takes the
        queue (the exposures the C assign decides in batches)."""
        self.counts: Dict[str, int] = {"sent": 0, "dropped": 0, "spilled": 0, "replayed": 0, "expired": 0}
        self._transport = transport
        self._queue = queue
        self._store = store
        self._log = logger
        self._batch_size = batch_size
        #: Seconds between background flushes while the API answers...
        self._flush_interval = flush_interval
        #: ...and the current one, which backs off while it does not.
        self._interval = flush_interval
        self._on_ack = on_ack
        self._after_drain = after_drain
        self._before_drain = before_drain
        self._drain_lock = threading.Lock()
        self._wake = threading.Event()
        self._closed = False
        self._thread: Optional[threading.Thread] = None
        #: Whether the store may hold events; starts true because a previous run may have left some.
        self._store_may_hold_events = True
        #: One line per outage, not one per batch.
        self._outage: Optional[str] = None
        #: The batch being sent, so that a shutdown that cannot wait for it can spill it.
        self._in_flight: List[QueuedEvent] = []

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="arbiter-flush", daemon=True)
        self._thread.start()

    def restart_after_fork(self) -> None:
        """Threads do not survive a fork and a lock may have been held by one that is gone."""
        self._drain_lock = threading.Lock()
        self._wake = threading.Event()
        self._in_flight = []
        if not self._closed:
            self.start()

    def notify(self) -> None:
        """Called after an enqueue; a full batch is sent without waiting for the interval."""
        if len(self._queue) >= self._batch_size:
            self._wake.set()

    def flush(self, deadline: Optional[float] = None) -> bool:
        """Sends, spills or drops everything queued before the call. Never raises. With a
        ``deadline`` (a ``time.monotonic()`` instant) what the API has not taken by then is
        spilled; returns False when a running drain held the queue past the deadline."""
        timeout = -1.0 if deadline is None else max(0.0, deadline - time.monotonic())
        if not self._drain_lock.acquire(timeout=timeout):
            return False
        try:
            self._drain(deadline)
        except Exception as err:  # a bug must not reach the host
            self._log.error("flush failed: %s", err)
        finally:
            self._drain_lock.release()
        return True

    def close(self, deadline: Optional[float]) -> None:
        self._closed = True
        self._wake.set()
        if not self.flush(deadline):
            # The drain that holds the queue is stuck on the network: keep its batch and the
            # rest. Should it get through after all, the server stores each event id once.
            stranded = list(self._in_flight) + self._queue.take(len(self._queue))
            if stranded:
                self._spill(stranded, "shutdown deadline reached")

    def _run(self) -> None:
        while not self._closed:
            self._wake.wait(self._interval)
            self._wake.clear()
            if self._closed:
                return
            self.flush()

    def _drain(self, deadline: Optional[float]) -> None:
        if self._before_drain is not None:
            self._before_drain()
        left = len(self._queue)
        reachable = True
        detail = ""
        while left > 0:
            batch = self._queue.take(min(self._batch_size, left))
            if not batch:
                break
            left -= len(batch)
            # Once the API failed in this drain, the rest goes straight to the store: retrying
            # each batch against a server that is down only delays the host.
            if reachable:
                outcome, why = self._send(batch, deadline)
                if outcome != "unreachable":
                    continue
                reachable, detail = False, why
            self._spill(batch, detail)
        if reachable and deadline is None and self._store is not None and self._store_may_hold_events:
            reachable = self._replay(self._store)
        # An API that just failed the events is not tried again for the tallies: they wait.
        if reachable and self._after_drain is not None:
            self._after_drain(deadline)
        # The interval backs off while the API is down, and snaps back once it answers.
        if reachable:
            self._interval = self._flush_interval
        else:
            cap = max(MAX_FLUSH_INTERVAL_MS / 1000, self._flush_interval)
            self._interval = min(self._interval * 2, cap)
        if reachable and self._outage is not None:
            self._log.warning("events: API reachable again")
            self._outage = None

    def _send(self, batch: List[QueuedEvent], deadline: Optional[float]) -> Tuple[str, str]:
        body = batch_body(batch)
        if len(body) > MAX_EVENT_BATCH_BYTES and len(batch) > 1:
            half = (len(batch) + 1) // 2
            first = self._send(batch[:half], deadline)
            if first[0] == "unreachable":
                # The caller spills the whole batch; a half that got through is stored once.
                return first
            return self._send(batch[half:], deadline)
        self._in_flight = batch
        try:
            result = self._transport.request("POST", "/v1/events", body=body, deadline=deadline)
        finally:
            self._in_flight = []
        if result.kind == "unreachable":
            return "unreachable", result.detail
        if result.kind == "ok":
            self.counts["sent"] += len(batch)
            self._read_ack(result.body, len(batch))
            return "sent", ""
        detail = result.detail if result.kind == "refused" else "unexpected 304"
        self.counts["dropped"] += len(batch)
        self._log.warning("dropped %d events: the API refused them (%s)", len(batch), detail)
        return "refused", detail

    def _read_ack(self, body: Any, size: int) -> None:
        if not isinstance(body, dict):
            return
        rejected = body.get("rejected")
        if isinstance(rejected, list) and rejected:
            first = rejected[0].get("detail") if isinstance(rejected[0], dict) else rejected[0]
            self._log.warning("%d of %d events rejected by the API, first: %s", len(rejected), size, first)
        self._on_ack(body.get("config_version"))

    def _spill(self, batch: List[QueuedEvent], reason: str) -> None:
        if self._store is None:
            self.counts["dropped"] += len(batch)
            self._log.warning("dropped %d events, API unreachable and no offline store: %s", len(batch), reason)
            return
        try:
            overflow = self._store.append(batch)
        except Exception as err:
            self.counts["dropped"] += len(batch)
            self._log.warning("dropped %d events, the offline store failed: %s", len(batch), err)
            return
        self._store_may_hold_events = True
        self.counts["spilled"] += len(batch)
        if overflow > 0:
            self.counts["dropped"] += overflow
            self._log.warning("offline store full: dropped its %d oldest events", overflow)
        if self._outage is None:
            self._log.warning("API unreachable, events kept in the offline store for replay: %s", reason)
        self._outage = reason

    def _replay(self, store: FileOfflineStore) -> bool:
        """Sends spilled events, oldest first; False when the API failed again."""
        try:
            while True:
                events = store.peek(self._batch_size)
                if not events:
                    self._store_may_hold_events = False
                    return True
                cutoff = time.time() - OFFLINE_REPLAY_WINDOW_MS / 1000
                fresh = [e for e in events if _epoch(e.timestamp) >= cutoff]
                stale = [e for e in events if not _epoch(e.timestamp) >= cutoff]
                if stale:
                    store.remove([e.event_id for e in stale])
                    self.counts["expired"] += len(stale)
                    self._log.warning("discarded %d spilled events older than the 24 h replay window", len(stale))
                if not fresh:
                    continue
                outcome, _ = self._send(fresh, None)
                if outcome == "unreachable":
                    return False
                store.remove([e.event_id for e in fresh])
                if outcome == "sent":
                    self.counts["replayed"] += len(fresh)
        except Exception as err:
            # The store could not be read or cleaned: stop here rather than resend the same events.
            self._log.warning("offline store replay stopped: %s", err)
            return True


def _epoch(timestamp: str) -> float:
    """Seconds since the epoch of an ISO 8601 instant; NaN (never fresh) when unreadable."""
    try:
        text = timestamp[:-1] + "+00:00" if timestamp.endswith("Z") else timestamp
        when = datetime.fromisoformat(text)
    except (ValueError, TypeError):
        return float("nan")
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when.timestamp()
