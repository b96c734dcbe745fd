"""``Arbiter``: the blocking client. Its waits (``ready``, ``flush``, ``close``, ``evaluate``)
block the calling thread; ``AsyncArbiter`` (``arbiter._client.asynchronous``) offers them as
coroutines. The ``a…`` methods of earlier releases remain as deprecated aliases."""

import asyncio
import warnings
from types import TracebackType
from typing import Any, Callable, Dict, Mapping, Optional, Sequence, Type, TypeVar

from arbiter._client.base import ClientBase
from arbiter._core import constants as C
from arbiter._core.evaluation.prepared_attributes import Attributes
from arbiter._core.types import EventType, PromptResult
from arbiter._evaluation.evaluate import aevaluate, evaluate
from arbiter._evaluation.types import EvaluationProgress, OfflineRun, Scorer, TaskInput

R = TypeVar("R")

_REMOVAL = "the next minor release of arbiter-client removes it"


class Arbiter(ClientBase):
    """Arbiter's Python client. See the README for every option and its default.

    Options after ``api_key`` are keyword-only. Durations are in seconds, as floats, like every
    ``timeout`` of this library: ``poll_interval``, ``flush_interval``, ``retry_base_delay``,
    ``retry_max_delay``, ``retry_after_cap`` and ``request_timeout``. ``http_client`` is an
    opener (``urllib.request.build_opener(...)``, for a proxy or a TLS context) or a callable
    with ``urllib.request.urlopen``'s contract; ``sleep`` is how the client waits between retries
    (``time.sleep``). 0.1.0's positional options and ``…_ms`` names still work, with a
    DeprecationWarning, until the next minor release. In asyncio code use ``AsyncArbiter``.
    """

    def ready(self, timeout: Optional[float] = None) -> bool:
        """Waits up to ``timeout`` seconds (forever when None) for the first config load. True
        when every experiment named in ``experiments`` is in the config; False when the load
        failed, timed out, or one is missing (logged). Never raises; polling goes on either way."""
        return self._ready_blocking(timeout)

    def flush(self, timeout: Optional[float] = None) -> None:
        """Sends everything queued so far (or spills it) and returns when done. With a
        ``timeout`` in seconds, what is not delivered by then is spilled or dropped. Never raises."""
        self._flush_blocking(timeout)

    def close(self, timeout: Optional[float] = None) -> None:
        """Stops polling and delivers what is queued (within ``timeout`` seconds when given).
        Events tracked afterwards are dropped. Idempotent; never raises."""
        self._close_blocking(timeout)

    def evaluate(
        self,
        *,
        experiment: str,
        dataset: str,
        task: Callable[[TaskInput], Any],
        scorers: Optional[Sequence[Scorer]] = None,
        repeats: int = 1,
        concurrency: int = C.EVALUATION_CONCURRENCY,
        variants: Optional[Sequence[str]] = None,
        run_id: Optional[str] = None,
        dataset_version: Optional[int] = None,
        note: Optional[str] = None,
        on_progress: Optional[Callable[[EvaluationProgress], None]] = None,
    ) -> OfflineRun:
        """Runs ``dataset`` (id or name) through the variants of ``experiment`` (id or name) as an
        offline run, and returns the completed run with its comparisons and gates.

        ``task(case)`` is called for each item, variant and repeat with a ``TaskInput`` (``item``,
        ``variant``, ``prompt``, ``variables``, ``repeat``) and returns the output, a string or a
        JSON value; what it raises is recorded as that result's ``error``. Model calls made inside
        it through a client from ``wrap`` are measured for the result (latency, tokens, model) and
        are not sent as online events. ``scorers`` go to the server as given; a ``custom`` one may
        carry ``score``, a function of a ``ScorerInput`` computed here. At most ``concurrency``
        tasks run at once, on threads. ``run_id`` resumes an interrupted run: only the results it
        lacks are run. ``on_progress`` hears of each result; on a terminal a progress line is
        drawn on stderr.

        Needs the org's secret key. Unlike ``assign``, it raises: ``ArbiterError`` for a
        publishable key (before any request) and for a request the API refuses.
        """
        return evaluate(
            self._offline,
            self._log,
            # locals() is the call's arguments alone: the body binds no other name.
            self._evaluation(locals()),
        )

    def __enter__(self) -> "Arbiter":
        return self

    def __exit__(
        self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        self.close()

    async def __aenter__(self) -> "Arbiter":
        return self

    async def __aexit__(
        self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        await _off_loop(self._close_blocking, None)

    # -- deprecated: the a… methods, which AsyncArbiter replaces ------------------------------

    async def aready(self, timeout: Optional[float] = None) -> bool:
        """Deprecated: ``await AsyncArbiter.ready()``."""
        _deprecated("aready", "await AsyncArbiter(...).ready()")
        return await _off_loop(self._ready_blocking, timeout)

    async def aassign(self, experiment: str, user: str, attributes: Optional[Attributes] = None) -> Optional[str]:
        """Deprecated: ``assign`` never waits; call it as it is (on either client)."""
        _deprecated("aassign", "assign(), which never waits")
        return self.assign(experiment, user, attributes)

    async def aget_prompt(
        self, experiment: str, user: str, default: str, attributes: Optional[Attributes] = None
    ) -> PromptResult:
        """Deprecated: ``get_prompt`` never waits; call it as it is (on either client)."""
        _deprecated("aget_prompt", "get_prompt(), which never waits")
        return self.get_prompt(experiment, user, default, attributes)

    async def aget_variables(
        self,
        experiment: str,
        user: str,
        defaults: Mapping[str, Any],
        attributes: Optional[Attributes] = None,
    ) -> Dict[str, Any]:
        """Deprecated: ``get_variables`` never waits; call it as it is (on either client)."""
        _deprecated("aget_variables", "get_variables(), which never waits")
        return self.get_variables(experiment, user, defaults, attributes)

    async def atrack(self, event: EventType, payload: Optional[Mapping[str, Any]] = None, **fields: Any) -> None:
        """Deprecated: ``track`` never waits; call it as it is (on either client)."""
        _deprecated("atrack", "track(), which never waits")
        self.track(event, payload, **fields)

    async def aflush(self, timeout: Optional[float] = None) -> None:
        """Deprecated: ``await AsyncArbiter.flush()``."""
        _deprecated("aflush", "await AsyncArbiter(...).flush()")
        await _off_loop(self._flush_blocking, timeout)

    async def aclose(self, timeout: Optional[float] = None) -> None:
        """Deprecated: ``await AsyncArbiter.close()``."""
        _deprecated("aclose", "await AsyncArbiter(...).close()")
        await _off_loop(self._close_blocking, timeout)

    async def aevaluate(self, **options: Any) -> OfflineRun:
        """Deprecated: ``await AsyncArbiter.evaluate(...)``, which takes the same options."""
        _deprecated("aevaluate", "await AsyncArbiter(...).evaluate(...)")
        return await aevaluate(self._offline, self._log, self._evaluation(options))


def _deprecated(name: str, instead: str) -> None:
    warnings.warn(
        "Arbiter.%s() is deprecated: use %s; %s." % (name, instead, _REMOVAL), DeprecationWarning, stacklevel=3
    )


async def _off_loop(wait: Callable[[Optional[float]], R], timeout: Optional[float]) -> R:
    """Runs a blocking wait in the loop's default executor, so the event loop keeps running."""
    return await asyncio.get_running_loop().run_in_executor(None, wait, timeout)
