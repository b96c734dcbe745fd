"""One (item, variant, repeat): the task run inside an evaluation scope, the custom scorers, and
the result row the server stores.

What the task raises is the result's ``error`` and never escapes (``Exception`` only: Ctrl-C and
``SystemExit`` still stop the run). Scorer functions run in a scope of their own, thrown away:
a model call a scorer makes is neither the task's cost nor online traffic.
"""

import asyncio
import inspect
import json
import math
import time
from concurrent.futures import Executor
from contextlib import contextmanager
from contextvars import copy_context
from typing import Any, Callable, Dict, Iterator, Mapping, Optional, Tuple

from arbiter._core.constants import MAX_ERROR_LENGTH
from arbiter._core.events.event_validation import free_form_problem, text_problem
from arbiter._evaluation.types import ScoreFunction, ScorerInput, TaskInput
from arbiter.integrations._evaluation_scope import EvaluationScope, current_evaluation

#: At most this much compact JSON per output (the server's bound).
OUTPUT_MAX_BYTES = 256 * 1024
#: The server stores model names up to this length.
MODEL_MAX_LENGTH = 200
#: Said of the task when the blocking ``evaluate`` gets an awaitable back.
ASYNC_TASK_IN_SYNC = "the task returned an awaitable: use AsyncArbiter's evaluate() for an async task"

ScoreFunctions = Mapping[str, ScoreFunction]


class _CaseRun:
    """One case's task: the evaluation scope its model calls record in (current only while the
    task runs), its wall time, and what it gave: an output, or the error it raised."""

    def __init__(self) -> None:
        self.scope = EvaluationScope()
        self.output: Any = None
        self.error: Optional[BaseException] = None
        self.wall_ms = 0.0

    @contextmanager
    def running(self) -> Iterator[None]:
        """The task's block: what it raises (``Exception`` only) is kept as the error."""
        token = current_evaluation.set(self.scope)
        started = time.perf_counter()
        try:
            yield
        except Exception as err:
            self.output, self.error = None, err
        finally:
            current_evaluation.reset(token)
            self.wall_ms = (time.perf_counter() - started) * 1000

    def scored(self, case: TaskInput, scorers: ScoreFunctions) -> Iterator[Tuple[str, ScoreFunction, ScorerInput]]:
        """Each scorer with what it reads; none when the task failed, which is not scored."""
        if self.error is None:
            scoring = ScorerInput(case.item, case.variant, self.output, case.repeat)
            for name, score in scorers.items():
                yield name, score, scoring

    def row(self, case: TaskInput, scores: Dict[str, float]) -> Dict[str, Any]:
        return result_row(case, self.output, self.error, self.scope.measurements(), self.wall_ms, scores)


def run_case(task: Callable[[TaskInput], Any], scorers: ScoreFunctions, case: TaskInput) -> Dict[str, Any]:
    """For ``evaluate``: runs on a worker thread, in a copy of the caller's context."""
    run = _CaseRun()
    with run.running():
        run.output = task(case)
        if inspect.isawaitable(run.output):
            _discard(run.output)
            raise TypeError(ASYNC_TASK_IN_SYNC)
    scores: Dict[str, float] = {}
    for name, score, scoring in run.scored(case, scorers):
        value = _in_throwaway_scope(score, scoring)
        if inspect.isawaitable(value):
            _discard(value)
            value = None
        _keep_score(scores, name, value)
    return run.row(case, scores)


async def arun_case(
    task: Callable[[TaskInput], Any],
    task_is_async: bool,
    scorers: ScoreFunctions,
    case: TaskInput,
    threads: Executor,
) -> Dict[str, Any]:
    """For ``aevaluate``: an asyncio task of its own, so the scope set here is this case's alone.
    A sync task (or scorer) runs on ``threads`` so that the loop keeps running the others."""
    loop = asyncio.get_running_loop()
    run = _CaseRun()
    with run.running():
        if task_is_async:
            run.output = task(case)
        else:
            run.output = await loop.run_in_executor(threads, copy_context().run, task, case)
        if inspect.isawaitable(run.output):
            run.output = await run.output
    scores: Dict[str, float] = {}
    for name, score, scoring in run.scored(case, scorers):
        throwaway = current_evaluation.set(EvaluationScope())
        try:
            if is_async_callable(score):
                value: Any = score(scoring)
            else:
                value = await loop.run_in_executor(threads, copy_context().run, score, scoring)
            if inspect.isawaitable(value):
                value = await value
        except Exception:
            value = None
        finally:
            current_evaluation.reset(throwaway)
        _keep_score(scores, name, value)
    return run.row(case, scores)


def result_row(
    case: TaskInput,
    output: Any,
    error: Optional[BaseException],
    measured: Dict[str, Any],
    wall_ms: float,
    scores: Dict[str, float],
) -> Dict[str, Any]:
    """The row of ``POST /v1/offline-runs/{run_id}/results``. An output the server would refuse
    makes the result a failure that says why, rather than a row refused at upload."""
    row: Dict[str, Any] = {"item_id": case.item["id"], "variant": case.variant, "repeat": case.repeat}
    problem = None if error is not None or output is None else output_problem(output)
    if error is not None:
        row["error"] = error_text(error)
    elif problem is not None:
        row["error"] = "the task's output cannot be stored: %s" % problem
    elif output is not None:
        row["output"] = output
    # The task's own time when no wrapped call reported one.
    row["latency_ms"] = measured.get("latency_ms", round(max(0.0, wall_ms), 3))
    for name in ("input_tokens", "output_tokens", "cost"):
        if name in measured:
            row[name] = measured[name]
    model = measured.get("model")
    if isinstance(model, str) and len(model) <= MODEL_MAX_LENGTH and text_problem(model) is None:
        row["model"] = model
    if scores and "error" not in row:
        row["scores"] = scores
    return row


def output_problem(output: Any) -> Optional[str]:
    """Why the server would refuse this output, or None: the text rule, the free-form JSON
    limits for objects and arrays, and 256 KiB of JSON."""
    if isinstance(output, str):
        problem = text_problem(output)
    elif isinstance(output, (dict, list, tuple)):
        # The server checks the output as a member of an object, one level down.
        problem = free_form_problem({"output": output}, "the output")
    else:
        problem = None
    if problem is not None:
        return problem
    try:
        size = len(json.dumps(output, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8"))
    except (TypeError, ValueError) as err:
        return "it is not JSON (%s)" % err
    if size > OUTPUT_MAX_BYTES:
        return "%d bytes as JSON, more than %d" % (size, OUTPUT_MAX_BYTES)
    return None


def error_text(err: BaseException) -> str:
    """The exception's message (its type's name when it has none), as storable text cut to
    ``MAX_ERROR_LENGTH``."""
    text = str(err) or type(err).__name__
    # NUL and lone surrogates are the two things stored text may not hold.
    text = text.replace("\x00", "\ufffd").encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return text if len(text) <= MAX_ERROR_LENGTH else text[: MAX_ERROR_LENGTH - 1] + "\u2026"


def is_async_callable(fn: Any) -> bool:
    """An ``async def`` function, or an object whose ``__call__`` is one."""
    if inspect.iscoroutinefunction(fn):
        return True
    call = type(fn).__dict__.get("__call__") if not inspect.isroutine(fn) else None
    return call is not None and inspect.iscoroutinefunction(call)


def _in_throwaway_scope(score: ScoreFunction, scoring: ScorerInput) -> Any:
    token = current_evaluation.set(EvaluationScope())
    try:
        return score(scoring)
    except Exception:
        return None
    finally:
        current_evaluation.reset(token)


def _keep_score(scores: Dict[str, float], name: str, value: Any) -> None:
    """A number (a bool counts 1 or 0) that is finite; anything else gives no value."""
    if isinstance(value, (int, float)):
        try:
            number = float(value)
        except OverflowError:  # an int past a double's range
            return
        if math.isfinite(number):
            scores[name] = number


def _discard(awaitable: Any) -> None:
    """A coroutine nobody awaits warns at garbage collection; closing it says it was meant."""
    close = getattr(awaitable, "close", None)
    if callable(close):
        close()
