"""Model calls made while an evaluation task runs, measured for that task's result.

``evaluate`` runs each task with a scope in a ``ContextVar``: it follows the task through
``await`` and stays apart per thread and per asyncio task, so concurrent tasks never see each
other's calls. A wrapped client or a framework integration that finds a scope reports the call
there instead of sending an exposure and a ``model_call``: offline runs are not online traffic.
"""

import threading
from contextvars import ContextVar
from typing import Any, Dict, List, Optional

from arbiter.integrations._model_call import FinishModelCall
from arbiter.integrations._model_call_measure import Measure

current_evaluation: "ContextVar[Optional[EvaluationScope]]" = ContextVar("arbiter_evaluation", default=None)


class EvaluationScope:
    """The calls of one task run. Thread-safe: a task may fan its calls out to threads of its own."""

    __slots__ = ("_lock", "_calls")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        #: One slot per call in the order the calls started; filled when each one ends.
        self._calls: List[Optional[Measure]] = []

    def begin(self) -> FinishModelCall:
        """Reserves the call's place, so that "the first call's model" is the first call made,
        whichever ends first."""
        with self._lock:
            index = len(self._calls)
            self._calls.append(None)

        def finish(measure: Measure, latency_ms: float) -> None:
            with self._lock:
                self._calls[index] = dict(measure, latency_ms=latency_ms)

        return finish

    def measurements(self) -> Dict[str, Any]:
        """``latency_ms``, ``input_tokens``, ``output_tokens``, ``cost`` and ``model`` of the calls
        that have ended: sums, and the first call's model. Each is left out when no call reported
        it (``latency_ms`` too, when no call ended: the task's own time is used then). A call that
        failed counts with what it measured; only an exception the task raises fails the result."""
        with self._lock:
            ended = [call for call in self._calls if call is not None]
        out: Dict[str, Any] = {}
        if ended:
            out["latency_ms"] = round(sum(call["latency_ms"] for call in ended), 3)
        for name in ("input_tokens", "output_tokens"):
            counts = [call[name] for call in ended if isinstance(call.get(name), (int, float))]
            if counts:
                out[name] = int(sum(counts))
        costs = [call["cost_usd"] for call in ended if isinstance(call.get("cost_usd"), (int, float))]
        if costs:
            out["cost"] = sum(costs)
        models = [call["model"] for call in ended if isinstance(call.get("model"), str) and call["model"]]
        if models:
            out["model"] = models[0]
        return out
