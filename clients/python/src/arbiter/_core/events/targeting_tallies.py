"""Distinct users per experiment and UTC day whose check reached the experiment's targeting, sent
as counts to ``POST /v1/targeting-tallies``
(docs/decisions/targeting.md#the-share-of-users-targeting-excluded)."""

import logging
import threading
import time
from typing import Callable, Dict, List, Optional, Tuple, TypedDict

from arbiter._core.events import exposure_dedup
from arbiter._core.events.exposure_dedup import SECONDS_A_DAY, ExposureTable

#: ``POST /v1/targeting-tallies`` takes at most this many tallies a request.
MAX_TALLIES_PER_REQUEST = 1_000
#: (experiment, day) pairs kept unsent while the API is unreachable: a few days of a hundred
#: targeted experiments many times over. Past it a new pair is not counted, rather than memory grow.
MAX_PENDING_TALLIES = 10_000

#: ``POST /v1/targeting-tallies`` takes the secret key only.
SECRET_KEY_PREFIX = "svc_sk_"


def tallies_wanted(asked: Optional[bool], exposing: bool, api_key: str, logger: logging.Logger) -> bool:
    """Whether a client tallies: as ``asked`` (None: as ``exposing``), and only with the secret key,
    the one key the route takes: with any other, no tally is counted or sent, and an explicit
    ``True`` gets one warning here rather than a refusal at every flush."""
    if not (exposing if asked is None else asked):
        return False
    if api_key.startswith(SECRET_KEY_PREFIX):
        return True
    if asked:
        logger.warning(
            "track_targeting_tallies: targeting tallies need the secret key (svc_sk_...); with this key they are off"
        )
    return False


#: ``(user, matched)``: a check of ``user`` reached an experiment's targeting and matched it or
#: not. Counted when it is the user's first of the UTC day.
Reached = Callable[[str, bool], None]


class Tally(TypedDict):
    """One experiment's users on one UTC day, as the API takes them."""

    experiment_id: str
    #: ``YYYY-MM-DD``, UTC.
    day: str
    matched: int
    excluded: int


class TargetingTallies:
    """``matched`` users entered the targeting; ``excluded`` ones got None and sent no exposure,
    so only this count tells the server of them. A user is remembered in the experiment's exposure
    table under a fingerprint of its own (``(user, None)``: no variant key is None, so a tally never
    suppresses an exposure); the first check of the day counts, and a table full for the day
    forgets everyone, so a user may then count twice. The counts carry no user id.

    Counting runs on any thread: it takes the lock, which only a user's first check of the day
    reaches.
    """

    def __init__(self) -> None:
        self._pending: Dict[Tuple[str, str], List[int]] = {}
        #: Checks not counted because ``MAX_PENDING_TALLIES`` pairs were waiting.
        self.dropped = 0
        self._clock = exposure_dedup.wall_clock
        self._day_ends_at = float("-inf")
        self._day = ""
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._pending)

    def reached_in(self, experiment_id: str, exposures: ExposureTable) -> Reached:
        """What an experiment's variant function calls on each check that reaches its targeting."""
        first_today = exposures.first_today
        count = self.count

        def reached(user: str, matched: bool) -> None:
            if first_today(user, None):
                count(experiment_id, matched)

        return reached

    def count(self, experiment_id: str, matched: bool) -> None:
        """Counts a user whose check the exposure table found first of the day."""
        with self._lock:
            key = (experiment_id, self._today())
            tally = self._pending.get(key)
            if tally is None:
                if len(self._pending) >= MAX_PENDING_TALLIES:
                    self.dropped += 1
                    return
                tally = self._pending[key] = [0, 0]
            tally[0 if matched else 1] += 1

    def take(self) -> List[Tally]:
        """Everything counted so far, taken out: sent now or ``restore``\\ d."""
        with self._lock:
            taken, self._pending = self._pending, {}
        return [
            Tally(experiment_id=experiment_id, day=day, matched=matched, excluded=excluded)
            for (experiment_id, day), (matched, excluded) in taken.items()
        ]

    def restore(self, tallies: List[Tally]) -> None:
        """Puts back tallies that could not be sent, added to what was counted since."""
        with self._lock:
            for t in tallies:
                matched, excluded = t["matched"], t["excluded"]
                key = (t["experiment_id"], t["day"])
                kept = self._pending.get(key)
                if kept is None:
                    if len(self._pending) >= MAX_PENDING_TALLIES:
                        self.dropped += matched + excluded
                        continue
                    kept = self._pending[key] = [0, 0]
                kept[0] += matched
                kept[1] += excluded

    def reset_after_fork(self) -> None:
        """The parent sends what it counted; the lock may have been held by a thread left behind."""
        self._lock = threading.Lock()
        self._pending = {}

    def _today(self) -> str:
        now = self._clock()
        if now >= self._day_ends_at:
            self._day_ends_at = (now // SECONDS_A_DAY + 1) * SECONDS_A_DAY
            self._day = time.strftime("%Y-%m-%d", time.gmtime(now))
        return self._day
