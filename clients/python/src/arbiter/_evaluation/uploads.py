"""Results on their way to the run: batches of up to ``EVENT_BATCH_SIZE`` rows sent as tasks
finish, then ``complete``."""

import logging
import time
from typing import Any, Dict, List

from arbiter._core.constants import EVALUATION_SCORING_POLL_MS, EVALUATION_SCORING_WAIT_MS, EVENT_BATCH_SIZE
from arbiter._core.errors import ArbiterError
from arbiter._evaluation.offline_api import OfflineApi
from arbiter._evaluation.progress import Progress
from arbiter._evaluation.types import OfflineRun

#: A run is ``scoring`` after ``complete`` answered when that answer was lost to a timeout and the
#: retry found the first still at work: it is read again until ``complete`` or ``failed``.
SCORING_POLL_INTERVAL_S = EVALUATION_SCORING_POLL_MS / 1000


class Uploads:
    def __init__(self, api: OfflineApi, run_id: str, progress: Progress, log: logging.Logger) -> None:
        self._api = api
        self.run_id = run_id
        self.progress = progress
        self._log = log
        self._pending: List[Dict[str, Any]] = []
        #: An upload failed after the transport's retries: sending again now would fail the same way.
        self.failed = False

    def add(self, row: Dict[str, Any], announce: bool = True) -> None:
        """Keeps one result; ``announce`` tells the progress (and ``on_progress``) of it."""
        self._pending.append(row)
        if announce:
            self.progress.advance()

    def full_batch(self) -> List[Dict[str, Any]]:
        """A batch to send now, or an empty list while fewer than a batch wait."""
        if len(self._pending) < EVENT_BATCH_SIZE:
            return []
        batch, self._pending = self._pending[:EVENT_BATCH_SIZE], self._pending[EVENT_BATCH_SIZE:]
        return batch

    def take_all(self) -> List[Dict[str, Any]]:
        rows, self._pending = self._pending, []
        return rows

    def send(self, rows: List[Dict[str, Any]]) -> None:
        """Sends ``rows`` in batches. Duplicates and conflicts (a batch retried after its answer
        was lost, or another process resuming the same run) are not errors: the first result
        stored is kept. A row the server refuses is logged; the run's coverage will show it
        missing."""
        for start in range(0, len(rows), EVENT_BATCH_SIZE):
            batch = rows[start : start + EVENT_BATCH_SIZE]
            try:
                answer = self._api.upload(self.run_id, batch)
            except ArbiterError as err:
                self._pending[:0] = rows[start:]
                self.failed = True
                raise ArbiterError(
                    "%s; %d results were not saved, the run keeps the others: resume with run_id=%r"
                    % (err, len(self._pending), self.run_id)
                ) from None
            except BaseException:
                # Kept, so that the log line of a stopped run counts them among the unsaved.
                self._pending[:0] = rows[start:]
                self.failed = True
                raise
            for refused in answer.get("errors") or []:
                row = batch[refused.get("index", 0)] if 0 <= refused.get("index", 0) < len(batch) else {}
                self._log.warning(
                    "evaluate: run %s refused the result of item %s, variant %s, repeat %s: %s",
                    self.run_id,
                    row.get("item_id"),
                    row.get("variant"),
                    row.get("repeat"),
                    refused.get("message"),
                )

    def complete(self) -> OfflineRun:
        """Sends what is left, completes the run and returns it finished."""
        self.send(self.take_all())
        self.progress.end()
        run = self._api.complete(self.run_id)
        deadline = time.monotonic() + EVALUATION_SCORING_WAIT_MS / 1000
        while run["status"] == "scoring":
            if time.monotonic() > deadline:
                raise ArbiterError(
                    "evaluate: run %s is still scoring after %d s; read it later with GET /v1/offline-runs/%s"
                    % (self.run_id, EVALUATION_SCORING_WAIT_MS // 1000, self.run_id)
                )
            time.sleep(SCORING_POLL_INTERVAL_S)
            run = self._api.run(self.run_id)
        return run
