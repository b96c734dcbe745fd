"""``AsyncArbiter``: the client for asyncio code, as ``AsyncOpenAI`` is to ``OpenAI``. The same
options, the same core and the same answers as ``Arbiter``; its waits are coroutines that never
block the event loop. ``assign``, ``get_prompt``, ``get_variables``, ``track`` and ``stats`` are
the shared plain methods: they answer from memory and never wait, so there is nothing to await."""

import asyncio
from types import TracebackType
from typing import Any, Callable, Optional, Sequence, Type, TypeVar

from arbiter._client.base import ClientBase
from arbiter._core import constants as C
from arbiter._evaluation.evaluate import aevaluate
from arbiter._evaluation.types import EvaluationProgress, OfflineRun, Scorer, TaskInput

R = TypeVar("R")


class AsyncArbiter(ClientBase):
    """Arbiter's client for asyncio: ``await client.ready()``, ``await client.flush()``,
    ``await client.close()`` (or ``async with AsyncArbiter(...) as client``) and
    ``await client.evaluate(...)``. Takes ``Arbiter``'s options (see the README)."""

    async def ready(self, timeout: Optional[float] = None) -> bool:
        """Waits up to ``timeout`` seconds (forever when None) for the first config load, without
        holding the event loop or a thread: the poller wakes this coroutine when its first attempt
        ends. The same answer as ``Arbiter.ready``; never raises."""
        loop = asyncio.get_running_loop()
        attempted = loop.create_future()

        def wake() -> None:
            loop.call_soon_threadsafe(_settle, attempted)

        self._poller.when_first_attempted(wake)
        try:
            await asyncio.wait_for(attempted, timeout)
        except asyncio.TimeoutError:
            return False
        return self._config_ready()

    async def flush(self, timeout: Optional[float] = None) -> None:
        """Sends everything queued so far (or spills it); returns when done. The drain is the
        background flusher's own (one at a time, on a thread); this coroutine awaits its end.
        Never raises."""
        await _off_loop(self._flush_blocking, timeout)

    async def close(self, timeout: Optional[float] = None) -> None:
        """Stops polling and delivers what is queued (within ``timeout`` seconds when given).
        Idempotent; never raises."""
        await _off_loop(self._close_blocking, timeout)

    async def evaluate(
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
        """``Arbiter.evaluate`` as a coroutine: ``task`` and ``score`` functions may be ``async
        def`` (run as asyncio tasks, at most ``concurrency`` at once) or plain functions (run on
        threads); requests never block the event loop. Raises as ``Arbiter.evaluate`` does."""
        return await aevaluate(
            self._offline,
            self._log,
            # locals() is the call's arguments alone: the body binds no other name.
            self._evaluation(locals()),
        )

    async def __aenter__(self) -> "AsyncArbiter":
        return self

    async def __aexit__(
        self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        await self.close()


def _settle(future: "asyncio.Future[None]") -> None:
    if not future.done():
        future.set_result(None)


async def _off_loop(wait: Callable[[Optional[float]], R], timeout: Optional[float]) -> R:
    """Runs a blocking wait in the loop's default executor, so the event loop keeps running."""
    return await asyncio.get_running_loop().run_in_executor(None, wait, timeout)
