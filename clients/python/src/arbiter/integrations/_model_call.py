"""Times one model call, and reads what it reports, without changing what the caller gets."""

import inspect
import time
from typing import Any, AsyncIterator, Awaitable, Callable, Iterator, Optional, Protocol, Sequence, TypeVar

from arbiter._core.constants import MAX_ERROR_LENGTH
from arbiter.integrations._model_call_measure import Measure, ProviderReader

T = TypeVar("T")
FinishModelCall = Callable[[Measure, float], None]


class ModelRunStarter(Protocol):
    """What a framework integration needs of a client (``Arbiter`` or ``AsyncArbiter``): to queue
    a run's exposure and learn how to finish its ``model_call`` (None: not recorded)."""

    def _begin_model_run(self, experiment: str, user: Optional[str]) -> Optional[FinishModelCall]: ...

    def _warn_once(self, key: str, message: str) -> None: ...


class ModelCall:
    """From the moment the call is made until its response is parsed or, for a stream, until the
    stream ends, breaks or fails. Whatever happens, ``finish`` runs once."""

    def __init__(self, readers: Sequence[ProviderReader], params: Any, finish: FinishModelCall) -> None:
        self._readers = readers
        self._finish = finish
        self._finished = False
        self.measure: Measure = {"error": None}
        self._started = time.perf_counter()
        if isinstance(params, dict) and isinstance(params.get("model"), str):
            self.measure["model"] = params["model"]
        try:
            for reader in readers:
                reader.read_request(params, self.measure)
        except Exception:
            pass

    def observe(self, result: Any) -> Any:
        """Observes what the provider method returned: a value, or an awaitable of one (async clients)."""
        if inspect.isawaitable(result):
            return self._observe_awaitable(result)
        return self.observe_value(result)

    async def _observe_awaitable(self, awaitable: Awaitable[T]) -> T:
        try:
            value = await awaitable
        except BaseException as err:
            self.fail(err)
            raise
        return self.observe_value(value)

    def fail(self, err: BaseException) -> None:
        self.measure["error"] = describe_error(err)
        self._end()

    def observe_value(self, value: T) -> T:
        try:
            if self._tap_stream(value):
                return value
            for reader in self._readers:
                reader.read_result(value, self.measure)
        except Exception:
            pass
        self._end()
        return value

    def _tap_stream(self, value: Any) -> bool:
        """Streams are observed as they are read. The SDKs' Stream and AsyncStream read through
        their ``_iterator``: replacing it on the instance keeps the object, its class, its
        response and its context manager as they were."""
        inner = getattr(value, "_iterator", None)
        if inner is not None and (hasattr(inner, "__next__") or hasattr(inner, "__anext__")):
            value._iterator = self._tapped(inner)
            return True
        return False

    def _tapped(self, inner: Any) -> Any:
        if hasattr(inner, "__anext__"):
            return self._tap_async(inner)
        return self._tap_sync(inner)

    def _tap_sync(self, inner: Iterator[Any]) -> Iterator[Any]:
        try:
            for chunk in inner:
                self._read_chunk(chunk)
                yield chunk
        except GeneratorExit:
            raise  # the caller stopped reading: a complete call as far as it went
        except BaseException as err:
            self.fail(err)
            raise
        finally:
            self._end()

    async def _tap_async(self, inner: AsyncIterator[Any]) -> AsyncIterator[Any]:
        try:
            async for chunk in inner:
                self._read_chunk(chunk)
                yield chunk
        except GeneratorExit:
            raise
        except BaseException as err:
            self.fail(err)
            raise
        finally:
            self._end()

    def _read_chunk(self, chunk: Any) -> None:
        try:
            for reader in self._readers:
                reader.read_chunk(chunk, self.measure)
        except Exception:
            pass

    def _end(self) -> None:
        if self._finished:
            return
        self._finished = True
        latency = round((time.perf_counter() - self._started) * 1000, 3)
        self._finish(self.measure, max(0.0, latency))


def describe_error(err: BaseException) -> str:
    text = "%s: %s" % (type(err).__name__, err)
    return text if len(text) <= MAX_ERROR_LENGTH else text[: MAX_ERROR_LENGTH - 1] + "\u2026"
