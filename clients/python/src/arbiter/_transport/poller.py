"""Keeps the ConfigStore fresh on a background thread."""

import contextlib
import logging
import threading
from typing import Any, Callable, List, Optional

from arbiter._core.config.config_store import ConfigStore
from arbiter._transport.transport import Transport


class ConfigPoller:
    """``GET /v1/config`` every interval with ``If-None-Match``, so an unchanged config costs a
    304 and no parsing. A failed poll leaves the last config serving."""

    def __init__(self, transport: Transport, store: ConfigStore, interval: float, logger: logging.Logger) -> None:
        self._transport = transport
        self._store = store
        #: Seconds between polls.
        self._interval = interval
        self._log = logger
        self._wake = threading.Event()
        self._closed = False
        #: Set once the first load attempt has ended, whatever its outcome.
        self.first_attempt = threading.Event()
        #: What the last problem logged was, so that an outage gives one line, not one per poll.
        #: A failed request counts by its kind alone (its detail changes within one outage: a
        #: reset connection, then refused ones); an unusable config by what is wrong with it.
        self._last_problem: Optional[str] = None
        #: Told each poll's outcome: ``changed`` (a new config installed), ``unchanged`` or
        #: ``failed`` (the API not reached, or a config that cannot be used). What the
        #: OpenFeature provider (``arbiter-openfeature``) turns into provider events.
        self.listeners: List[Callable[[str], None]] = []
        #: Called once the first attempt has ended (``when_first_attempted``).
        self._waiters: List[Callable[[], None]] = []
        self._waiters_lock = threading.Lock()

    def start(self) -> None:
        threading.Thread(target=self._run, name="arbiter-config", daemon=True).start()

    def restart_after_fork(self) -> None:
        self._wake = threading.Event()
        # A waiter belongs to an event loop of the parent; the lock may have been held at the fork.
        self._waiters_lock = threading.Lock()
        self._waiters = []
        if not self._closed:
            self.start()

    def when_first_attempted(self, callback: Callable[[], None]) -> None:
        """Calls ``callback`` once the first load attempt has ended: now when it has, else from
        the poller's thread (so it must only hand over, as ``call_soon_threadsafe`` does)."""
        with self._waiters_lock:
            if not self.first_attempt.is_set():
                self._waiters.append(callback)
                return
        callback()

    def _first_attempt_ended(self) -> None:
        with self._waiters_lock:
            self.first_attempt.set()
            waiters, self._waiters = self._waiters, []
        for callback in waiters:
            # A waiter whose event loop has closed raises: nobody is left to wake.
            with contextlib.suppress(Exception):
                callback()

    def note_server_version(self, version: Any) -> None:
        """An ingest ack carries the server's config version; a newer one means ours is stale.
        A wake-up during a fetch makes another fetch right after it: the running one may have
        left before the change it is asked about."""
        if not isinstance(version, int) or isinstance(version, bool):
            return
        mine = self._store.version
        if mine is None or version > mine:
            self._wake.set()

    def close(self) -> None:
        self._closed = True
        self._wake.set()

    def _run(self) -> None:
        while not self._closed:
            self._wake.clear()
            outcome = "failed"
            try:
                outcome = self._fetch_once()
            except Exception as err:  # a bug must not end polling
                self._problem("refresh-failed", "config refresh failed: %s" % err)
            finally:
                if not self.first_attempt.is_set():
                    self._first_attempt_ended()
            self._tell(outcome)
            self._wake.wait(self._interval)

    def _tell(self, outcome: str) -> None:
        for listener in list(self.listeners):
            try:
                listener(outcome)
            except Exception as err:
                self._log.warning("config listener failed: %r", err)

    def _fetch_once(self) -> str:
        etag = self._store.etag
        result = self._transport.request("GET", "/v1/config", headers={} if etag is None else {"If-None-Match": etag})
        if result.kind == "not-modified":
            self._recovered()
            return "unchanged"
        if result.kind == "ok":
            fatal, skipped = self._store.replace(result.body, _header(result.headers, "etag"))
            if fatal is not None:
                self._problem("not used: %s" % fatal, "config not used: %s" % fatal)
                return "failed"
            if skipped:
                self._log.warning("config: malformed experiments left out: %s", ", ".join(skipped))
            self._recovered()
            return "changed"
        if self._store.loaded:
            self._problem(
                "refresh-failed",
                "config refresh failed, serving config version %s: %s" % (self._store.version, result.detail),
            )
        else:
            self._problem(
                "not-loaded", "config could not be loaded, assign() returns None until it is: %s" % result.detail
            )
        return "failed"

    def _problem(self, key: str, message: str) -> None:
        if key != self._last_problem:
            self._log.warning(message)
        self._last_problem = key

    def _recovered(self) -> None:
        if self._last_problem is not None:
            self._log.warning("config: API reachable again")
        self._last_problem = None


def _header(headers: Any, name: str) -> Optional[str]:
    for key, value in headers.items():
        if key.lower() == name:
            return str(value)
    return None
