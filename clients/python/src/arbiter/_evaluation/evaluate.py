"""``evaluate`` and ``aevaluate``: a dataset through the variants of an experiment, in the
application's own code, recorded as an offline run
(docs/decisions/clients.md#offline-evaluation-in-the-clients-evaluate).

At most ``concurrency`` tasks run at once: worker threads for ``evaluate``, asyncio tasks for
``aevaluate``. Results go up in batches as tasks finish. When the run is stopped — Ctrl-C, a
cancelled ``aevaluate``, an ``on_progress`` that raises, an upload that fails — the tasks
already running are let finish and every result in hand is uploaded before the exception goes
on, so that resuming with ``run_id`` runs each (item, variant, repeat) once.
"""

import asyncio
import logging
import sys
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextvars import copy_context
from typing import Any, Callable, Dict, Iterator, Optional, Sequence, Set, Union

from arbiter._core.errors import ArbiterError
from arbiter._evaluation.case import arun_case, is_async_callable, run_case
from arbiter._evaluation.offline_api import OfflineApi
from arbiter._evaluation.plan import Plan, prepare
from arbiter._evaluation.progress import Progress
from arbiter._evaluation.types import EvaluationProgress, OfflineRun, ScoreFunction, Scorer, TaskInput
from arbiter._evaluation.uploads import Uploads

PUBLISHABLE_KEY_PREFIX = "svc_pk_"


class Evaluation:
    """One call's arguments, checked before any request."""

    def __init__(
        self,
        api_key: str,
        *,
        experiment: str,
        dataset: str,
        task: Callable[[TaskInput], Any],
        scorers: Optional[Sequence[Scorer]],
        repeats: int,
        concurrency: int,
        variants: Optional[Sequence[str]],
        run_id: Optional[str],
        dataset_version: Optional[int],
        note: Optional[str],
        on_progress: Optional[Callable[[EvaluationProgress], None]],
    ) -> None:
        if api_key.startswith(PUBLISHABLE_KEY_PREFIX):
            raise ArbiterError(
                "evaluate needs the org's secret key (svc_sk_...): this client has a publishable key"
                " (svc_pk_...), which ships in client code and may not read datasets or write runs"
            )
        if not callable(task):
            raise TypeError("task must be callable, not %s" % type(task).__name__)
        self.scorers = list(scorers or [])
        #: The custom scorers computed in the client, by name.
        self.functions: Dict[str, ScoreFunction] = {}
        for scorer in self.scorers:
            score = scorer.get("score")
            if score is None:
                continue
            if not callable(score):
                raise TypeError("scorer %r: score must be callable" % scorer.get("name"))
            if scorer.get("kind") != "custom":
                raise ValueError("scorer %r: only a custom scorer may carry a score function" % scorer.get("name"))
            self.functions[scorer["name"]] = score
        self.experiment = experiment
        self.dataset = dataset
        self.task = task
        self.repeats = repeats
        self.concurrency = max(1, concurrency)
        self.variants = variants
        self.run_id = run_id
        self.dataset_version = dataset_version
        self.note = note
        self.on_progress = on_progress

    def prepare(self, api: OfflineApi) -> Union[Plan, OfflineRun]:
        return prepare(
            api,
            experiment=self.experiment,
            dataset=self.dataset,
            scorers=self.scorers,
            repeats=self.repeats,
            variants=self.variants,
            run_id=self.run_id,
            dataset_version=self.dataset_version,
            note=self.note,
        )

    def uploads(self, api: OfflineApi, plan: Plan, log: logging.Logger) -> Uploads:
        run = plan.run
        progress = Progress(self.experiment, plan.held, run["expected_results"], self.on_progress, sys.stderr)
        return Uploads(api, run["id"], progress, log)


def evaluate(api: OfflineApi, log: logging.Logger, evaluation: Evaluation) -> OfflineRun:
    if is_async_callable(evaluation.task):
        raise TypeError("evaluate() cannot run an async task: use AsyncArbiter, await client.evaluate(...)")
    plan = evaluation.prepare(api)
    if not isinstance(plan, Plan):
        return plan
    uploads = _started(evaluation.uploads(api, plan, log))
    caller = copy_context()
    workers = evaluation.concurrency
    pool = ThreadPoolExecutor(workers, thread_name_prefix="arbiter-evaluate")
    running: Set["Future[Dict[str, Any]]"] = set()

    def start(case: TaskInput) -> "Future[Dict[str, Any]]":
        # Each task sees the caller's context (an enclosing as_user, for one), in a copy of its
        # own: a Context may be entered by one thread at a time.
        return pool.submit(caller.copy().run, run_case, evaluation.task, evaluation.functions, case)

    try:
        while True:
            _top_up(running, plan.cases, workers, start)
            if not running:
                break
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            _take_finished(finished, running, uploads)
            uploads.send(uploads.full_batch())
    except BaseException:
        # A second Ctrl-C while the running tasks finish leaves at once.
        wait(running)
        _keep_landed(uploads, running)
        _save_what_ran(uploads, log)
        raise
    finally:
        pool.shutdown(wait=False)
    return uploads.complete()


async def aevaluate(api: OfflineApi, log: logging.Logger, evaluation: Evaluation) -> OfflineRun:
    loop = asyncio.get_running_loop()
    # The transport blocks: every request runs off the loop.
    plan = await loop.run_in_executor(None, evaluation.prepare, api)
    if not isinstance(plan, Plan):
        return plan
    uploads = _started(evaluation.uploads(api, plan, log))
    task_is_async = is_async_callable(evaluation.task)
    workers = evaluation.concurrency
    threads = ThreadPoolExecutor(workers, thread_name_prefix="arbiter-evaluate")
    running: Set["asyncio.Future[Dict[str, Any]]"] = set()

    def start(case: TaskInput) -> "asyncio.Future[Dict[str, Any]]":
        return asyncio.ensure_future(arun_case(evaluation.task, task_is_async, evaluation.functions, case, threads))

    try:
        while True:
            _top_up(running, plan.cases, workers, start)
            if not running:
                break
            finished, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            _take_finished(finished, running, uploads)
            batch = uploads.full_batch()
            if batch:
                await loop.run_in_executor(None, uploads.send, batch)
    except BaseException as stopped:
        if running:
            if isinstance(stopped, asyncio.CancelledError):
                # Cancelled: the tasks are cancelled too; what finished is still saved.
                for future in running:
                    future.cancel()
            await asyncio.wait(running)
        _keep_landed(uploads, running)
        await loop.run_in_executor(None, _save_what_ran, uploads, log)
        raise
    finally:
        threads.shutdown(wait=False)
    return await loop.run_in_executor(None, uploads.complete)


def _started(uploads: Uploads) -> Uploads:
    """The run's uploads, with its progress shown from now on."""
    uploads.progress.start()
    return uploads


def _top_up(running: "Set[Any]", cases: Iterator[TaskInput], workers: int, start: Callable[[TaskInput], Any]) -> None:
    """Starts the next cases until ``workers`` run (or the cases run out)."""
    while len(running) < workers:
        case = next(cases, None)
        if case is None:
            return
        running.add(start(case))


def _take_finished(finished: "Set[Any]", running: "Set[Any]", uploads: Uploads) -> None:
    """The finished tasks' rows to the uploads, in the order they are seen."""
    for future in finished:
        row = future.result()
        running.discard(future)
        uploads.add(row)


def _keep_landed(uploads: Uploads, running: "Set[Any]") -> None:
    """The results of tasks that finished (not those that were cancelled or broke)."""
    for future in running:
        if future.done() and not future.cancelled() and future.exception() is None:
            uploads.add(future.result(), announce=False)


def _save_what_ran(uploads: Uploads, log: logging.Logger) -> None:
    uploads.progress.end()
    rows = uploads.take_all()
    if rows and uploads.failed:
        # The transport has retried already: another attempt now would fail the same way.
        log.warning("evaluate: %d results were not saved", len(rows))
    elif rows:
        try:
            uploads.send(rows)
        except Exception as err:
            log.warning("evaluate: %d results were not saved: %s", len(rows), err)
    log.warning("evaluate: stopped before the end; resume with run_id=%r", uploads.run_id)
