"""What both clients are: ``Arbiter`` (blocking) and ``AsyncArbiter`` (coroutines) share this
base. ``assign``, ``get_prompt``, ``get_variables`` and ``track`` answer from memory and never
raise; the network is touched only by the background poller and the event pipeline, and by the
waits each client offers in its own idiom (``ready``, ``flush``, ``close``, ``evaluate``)."""

import logging
import os
import threading
import time
import uuid
from datetime import datetime, timezone
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, Mapping, Optional, Set, Tuple, TypeVar

from arbiter._client.deprecated_options import accepts_deprecated_options
from arbiter._client.process_hooks import forget_client, track_client
from arbiter._core import constants as C
from arbiter._core.config.config_store import ConfigStore
from arbiter._core.errors import ArbiterError
from arbiter._core.evaluation.layers_holdouts import CompiledHoldout
from arbiter._core.evaluation.prepared_attributes import Attributes, unwrap
from arbiter._core.evaluation.variant_function import ExposeHoldout
from arbiter._core.events.event_queue import EventQueue
from arbiter._core.events.event_validation import is_wire_user_id, track_problem, wire_problem
from arbiter._core.events.exposure_attributes import exposure_metadata
from arbiter._core.events.offline_store import FileOfflineStore
from arbiter._core.events.queued_event import serialize
from arbiter._core.events.targeting_tallies import TargetingTallies, tallies_wanted
from arbiter._core.prompts import Prompts
from arbiter._core.types import ClientStats, EventType, PromptResult
from arbiter._evaluation.evaluate import Evaluation
from arbiter._evaluation.offline_api import OfflineApi
from arbiter._fast.engine import choose_engine
from arbiter._transport.event_pipeline import EventPipeline
from arbiter._transport.http_client import HttpClient, sender_of
from arbiter._transport.poller import ConfigPoller
from arbiter._transport.retry_policy import RetryPolicy
from arbiter._transport.tallies import send_tallies
from arbiter._transport.transport import Transport
from arbiter.integrations._model_call import FinishModelCall
from arbiter.integrations._model_call_recorder import ModelCallRecorder
from arbiter.integrations._user_context import AsUser, WithPrompt, current_attributes, current_user
from arbiter.integrations._wrap import ANY_PROVIDER, wrap_provider_client

_ASSIGN_DOC = """``assign(experiment, user, attributes=None)``: the variant key of ``user`` in ``experiment``
(name or id), or None: held out, not in the experiment's part of its layer, not targeted, not
enrolled, a draft, unknown experiment, or no config yet. None means the control behaviour. Local,
no network call, never raises; the first assignment of a user each UTC day queues one
``exposure`` event, and one to each holdout of the experiment it reaches. ``attributes`` are what
the experiment's targeting reads (None reads as none); the exposures carry them
(``metadata.attributes``) only with ``exposure_attributes=True``. With
``track_targeting_tallies`` (by default as ``track_exposures``), a check that reaches an
experiment's targeting counts its user, once a day, as matched or excluded in the counts the
flushes send (no user id)."""

#: ``evaluate``'s options after the three it requires, with their defaults.
EVALUATE_DEFAULTS: Dict[str, Any] = dict(
    scorers=None,
    repeats=1,
    concurrency=C.EVALUATION_CONCURRENCY,
    variants=None,
    run_id=None,
    dataset_version=None,
    note=None,
    on_progress=None,
)

T = TypeVar("T")
R = TypeVar("R")


class ClientBase:
    """The parts both clients share; see ``Arbiter`` for the options, which both take, and how
    they are given."""

    @accepts_deprecated_options
    def __init__(
        self,
        api_key: Optional[str] = None,
        *,
        base_url: Optional[str] = None,
        experiments: Optional[Iterable[str]] = None,
        offline_store_path: Optional[str] = None,
        track_exposures: bool = True,
        track_targeting_tallies: Optional[bool] = None,
        exposure_attributes: bool = False,
        record_model_text: bool = True,
        poll_interval: float = C.CONFIG_POLL_INTERVAL_MS / 1000,
        flush_interval: float = C.FLUSH_INTERVAL_MS / 1000,
        batch_size: int = C.EVENT_BATCH_SIZE,
        queue_capacity: int = C.EVENT_QUEUE_CAPACITY,
        exposure_dedup_capacity: int = C.EXPOSURE_DEDUP_CAPACITY,
        max_attempts: int = C.MAX_ATTEMPTS,
        retry_base_delay: float = C.RETRY_BASE_DELAY_MS / 1000,
        retry_max_delay: float = C.RETRY_MAX_DELAY_MS / 1000,
        retry_after_cap: float = C.RETRY_AFTER_CAP_MS / 1000,
        request_timeout: float = C.REQUEST_TIMEOUT_MS / 1000,
        http_client: Optional[HttpClient] = None,
        sleep: Optional[Callable[[float], None]] = None,
        logger: Optional[logging.Logger] = None,
    ) -> None:
        key, url = _key_and_url(api_key, base_url)
        send = sender_of(http_client)  # a wrong type fails here, before any thread starts
        self._init_state()
        self._log = logger if logger is not None else logging.getLogger("arbiter")
        self._prefetch = list(experiments or [])
        self._track_exposures = track_exposures
        #: Users who reached each targeted experiment's targeting today; None when not tallied.
        #: The default follows ``track_exposures``: a caller who sends no exposures keeps no
        #: per-user memory unless it asks for tallies. The secret key only (``tallies_wanted``).
        wanted = tallies_wanted(track_targeting_tallies, track_exposures, key, self._log)
        self._tallies = TargetingTallies() if wanted else None
        #: Whether an exposure carries its call's attributes as ``metadata.attributes``.
        self._exposure_attributes = bool(exposure_attributes)
        #: The fast paths, chosen once here (``arbiter._core.engine``): the core asks it, and
        #: nothing replaces a method of this instance afterwards.
        self._engine = choose_engine()
        # With exposures on, an enrolled user is tallied with its new exposure (in ``assign``);
        # with them off, the variant function tallies every check itself.
        self._store = ConfigStore(
            max(1, int(exposure_dedup_capacity)), self._tallies, not track_exposures, self._engine
        )
        #: The store's dict itself (it never replaces it), one attribute read from ``assign``.
        self._experiments = self._store.experiments
        self._queue = EventQueue(queue_capacity)
        policy = RetryPolicy(max(1, max_attempts), retry_base_delay, retry_max_delay, retry_after_cap)
        transport = Transport(url, key, request_timeout, policy, send, sleep if sleep is not None else time.sleep)
        self._api_key = key
        self._offline = OfflineApi(transport)
        self._poller = ConfigPoller(transport, self._store, poll_interval, self._log)
        self._pipeline = self._event_pipeline(transport, offline_store_path, batch_size, flush_interval)
        self._recorder_and_assign(record_model_text, track_exposures)
        self._poller.start()
        self._pipeline.start()
        track_client(self)

    def _init_state(self) -> None:
        self._closed = False
        self._close_lock = threading.Lock()
        #: One log line per stretch of drops from a full queue.
        self._overflowing = False
        self._dropped_after_close = 0
        self._unstorable = 0
        #: Warnings that would otherwise repeat on every call.
        self._warned: Set[str] = set()

    def _event_pipeline(
        self, transport: Transport, offline_store_path: Optional[str], batch_size: int, flush_interval: float
    ) -> EventPipeline:
        return EventPipeline(
            transport,
            self._queue,
            FileOfflineStore(offline_store_path, C.OFFLINE_STORE_CAPACITY) if offline_store_path else None,
            self._log,
            min(max(1, batch_size), C.MAX_EVENT_BATCH_SIZE),
            flush_interval,
            self._poller.note_server_version,
            None if self._tallies is None else self._tally_sender(self._tallies, transport),
            self._drain_pending_exposures,
        )

    def _recorder_and_assign(self, record_model_text: bool, track_exposures: bool) -> None:
        """The recorder of model calls and the ``assign`` the engine offers (or the Python one)."""
        #: Hears of each holdout an assignment reaches; None when assign sends no exposures.
        self._holdout_exposer: Optional[ExposeHoldout] = self._expose_holdout if track_exposures else None
        # A recorded model call sends its exposures whatever track_exposures says, as it always has.
        self._recorder = ModelCallRecorder(
            self._store,
            record_model_text,
            self._enqueue,
            self._warn_once,
            self._expose_holdout,
            self._exposure_payload,
        )
        # With the speedups extra, assign() is the same steps in C (bench/python-client/RESULTS.md),
        # its exposure checks batched: they are drained before any other event is queued, and
        # before stats, flushes and close.
        #: The engine's own assign, or None: ``assign`` then runs ``_assign_python``.
        self._engine_assigner = self._engine.assigner(
            self._store.accelerated,
            self._assign_python,
            self._expose,
            self._holdout_exposer,
            self._assign_failed,
            track_exposures,
            self._exposure_attributes,
        )
        assigner = self._engine_assigner
        #: What ``assign`` calls: chosen here, once.
        self._assign_with: Callable[..., Optional[str]] = self._assign_python if assigner is None else assigner.assign
        self._drain_exposures: Callable[[], None] = _nothing if assigner is None else assigner.drain
        self._discard_exposures: Callable[[], None] = _nothing if assigner is None else assigner.discard

    # -- assignment ------------------------------------------------------------------------

    if TYPE_CHECKING:

        def assign(self, experiment: str, user: str, attributes: Optional[Attributes] = None) -> Optional[str]: ...

    else:
        # What the client chose at construction (``_assign_with``: the engine's own assign, or
        # ``_assign_python``), read by a C getter: ``client.assign(...)`` costs no Python frame
        # more than the chosen call, and nothing is set over a method of the instance. A
        # subclass's own ``assign`` method overrides this as any method would.
        assign = property(attrgetter("_assign_with"), doc=_ASSIGN_DOC)

    def _assign_python(self, experiment: str, user: str, attributes: Optional[Attributes] = None) -> Optional[str]:
        """``assign`` in Python: the definition, which the engine's own ``assign`` follows step by step."""
        try:
            entry = self._experiments.get(experiment)
            if entry is None or not isinstance(user, str):
                return None
            variant = entry.variant(user, attributes, self._holdout_exposer)
            if variant is not None and self._track_exposures and entry.exposures.first_today(user, variant):
                self._expose(entry.id, user, variant, attributes)
                # An exposure already in the table has its tally beside it: only a new one
                # looks the tally up.
                if entry.reached is not None:
                    entry.reached(user, True)
            return variant
        except Exception as err:
            self._assign_failed(err)
            return None

    def _assign_failed(self, err: Exception) -> None:
        self._warn_once("assign", "assign failed, returning None: %r" % (err,))

    @property
    def prompts(self) -> Prompts:
        """Stored prompts by name (docs/prompts.md): ``prompts.get(name, user, default)`` resolves on
        the polled config, a covering experiment's exposure going through ``assign``."""
        found: Optional[Prompts] = self.__dict__.get("_prompts")
        if found is None:
            found = Prompts(lambda: self._store.prompt_index, self.assign, self._warn_once)
            self.__dict__["_prompts"] = found
        return found

    def get_prompt(
        self, experiment: str, user: str, default: str, attributes: Optional[Attributes] = None
    ) -> PromptResult:
        """The prompt of the user's variant, or ``default`` (with ``fallback=True``) when there
        is no config, no variant, or the variant has no prompt."""
        variant = self.assign(experiment, user, attributes)
        prompt = self._variant_field(experiment, variant, "prompt")
        if isinstance(prompt, str):
            return PromptResult(variant, prompt, False)
        return PromptResult(variant, default, True)

    def get_variables(
        self,
        experiment: str,
        user: str,
        defaults: Mapping[str, Any],
        attributes: Optional[Attributes] = None,
    ) -> Dict[str, Any]:
        """The variables of the user's variant merged over ``defaults``, as a new dict."""
        try:
            merged = dict(defaults)
        except Exception as err:  # not a mapping: the caller still gets the variant's variables
            self._warn_once("get_variables", "get_variables: defaults is not a mapping: %r" % (err,))
            merged = {}
        variables = self._variant_field(experiment, self.assign(experiment, user, attributes), "variables")
        if isinstance(variables, dict):
            merged.update(variables)
        return merged

    # -- events ----------------------------------------------------------------------------

    def track(self, event: EventType, payload: Optional[Mapping[str, Any]] = None, **fields: Any) -> None:
        """Queues an event with a fresh ``event_id`` and the current time, and returns at once.

        ``payload`` and keyword ``fields`` (which win) hold the wire fields: ``experiment_id``
        (name or id), ``user_id`` and, for a business event, ``business_metric`` and ``value``.
        Sent in background batches; see the README for retries and the offline store. Never
        raises: an event the API would refuse is dropped with a log line.
        """
        try:
            merged: Dict[str, Any] = dict(payload or {}, **fields)
            problem = track_problem(event, merged)
            if problem is not None:
                self._log.warning("track(%s): %s, event dropped", event, problem)
                return
            # The canonical id keeps an experiment's events together should it ever be renamed.
            entry = self._experiments.get(merged["experiment_id"])
            if entry is not None:
                merged["experiment_id"] = entry.id
            self._enqueue(event, merged, checked=True)
        except Exception as err:
            self._warn_once("track", "track failed: %r" % (err,))

    def stats(self) -> ClientStats:
        self._drain_pending_exposures()
        counts = self._pipeline.counts
        return ClientStats(
            queued=len(self._queue),
            sent=counts["sent"],
            dropped=self._queue.dropped + counts["dropped"] + self._dropped_after_close,
            spilled=counts["spilled"],
            replayed=counts["replayed"],
            expired=counts["expired"],
        )

    # -- model calls -----------------------------------------------------------------------

    def wrap(self, client: T, experiment: str) -> T:
        """A view of an ``OpenAI``, ``AsyncOpenAI``, ``Anthropic`` or ``AsyncAnthropic`` client:
        calls to ``chat.completions.create``, ``responses.create`` and ``messages.create``
        (streaming included) made inside ``as_user(user)`` record an ``exposure`` and a
        ``model_call``. Calls outside ``as_user``, or for users not enrolled, pass through
        unrecorded. The client itself is not changed."""

        def hook(reader: Any, params: Dict[str, Any], invoke: Callable[[], Any]) -> Any:
            return self._recorder.through_wrap(
                experiment, current_user.get(), current_attributes.get(), reader, params, invoke
            )

        result: T = wrap_provider_client(client, hook)
        return result

    def as_user(self, user: str, attributes: Optional[Attributes] = None) -> AsUser:
        """``with arbiter.as_user(user, attributes):`` makes ``user`` the user of wrapped-client
        and framework-integration calls inside, assigned with ``attributes``, across ``await``
        and per thread and asyncio task (``contextvars``)."""
        return AsUser(user, attributes)

    def with_prompt(self, prompt: Any) -> WithPrompt:
        """``with arbiter.with_prompt(prompt):`` (``prompt`` as ``prompts.get`` answered it): each
        ``model_call`` recorded inside (``wrap``, ``intercept_model_call``, the framework
        integrations) carries the prompt's ``prompt_name`` and ``prompt_version`` in its metadata.
        A default (no version) records none. Follows ``await`` as ``as_user`` does."""
        return WithPrompt(prompt)

    def intercept_model_call(
        self,
        experiment: str,
        user: str,
        fn: Callable[[Optional[str]], R],
        attributes: Optional[Attributes] = None,
    ) -> R:
        """The explicit form of ``wrap``: calls ``fn(variant)`` (None when not enrolled or no
        config yet) and records an ``exposure`` and a ``model_call`` with the latency of ``fn``
        and the tokens and model found in its result (OpenAI and Anthropic shapes, streams
        included). An ``fn`` that returns an awaitable gives an awaitable. Errors of ``fn`` are
        recorded, then raised."""
        result: R = self._recorder.explicit(experiment, user, attributes, ANY_PROVIDER, fn)
        return result

    def _begin_model_run(self, experiment: str, user: Optional[str]) -> Optional[FinishModelCall]:
        """For the framework integrations (``arbiter.integrations``): queues the exposure under
        ``assign``'s rule and returns how to finish the ``model_call``, or None when the call is
        not part of the experiment. Inside an ``evaluate`` task the call is measured for the task's
        result instead, whatever ``user`` is."""
        # The attributes of the enclosing as_user, when it runs for this user.
        attributes = current_attributes.get() if current_user.get() == user else None
        return self._recorder.begin_run(experiment, user, lambda e, u: self.assign(e, u, attributes), attributes)

    # -- the waits, which each client offers in its own idiom ------------------------------

    def _ready_blocking(self, timeout: Optional[float]) -> bool:
        if not self._poller.first_attempt.wait(timeout):
            return False
        return self._config_ready()

    def _config_ready(self) -> bool:
        """After the first load attempt: whether every experiment named in ``experiments`` is in
        the config (a missing one is logged)."""
        if not self._store.loaded:
            return False
        missing = [name for name in self._prefetch if name not in self._experiments]
        if missing:
            self._warn_once("ready-missing", "ready(): not in the config: %s" % ", ".join(missing))
        return not missing

    def _flush_blocking(self, timeout: Optional[float] = None) -> None:
        try:
            self._pipeline.flush(None if timeout is None else time.monotonic() + timeout)
        except Exception as err:
            self._log.error("flush failed: %r", err)

    def _close_blocking(self, timeout: Optional[float] = None) -> None:
        # The exposures of the calls made so far are events of before the close.
        self._drain_pending_exposures()
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        try:
            forget_client(self)
            self._poller.close()
            self._pipeline.close(None if timeout is None else time.monotonic() + timeout)
        except Exception as err:
            self._log.error("close failed: %r", err)

    def _evaluation(self, options: Dict[str, Any]) -> Evaluation:
        """The ``evaluate`` call's keyword options over their defaults, checked by ``Evaluation``.
        ``options`` may be the call's ``locals()``: its ``self`` is not an option."""
        given = {name: value for name, value in options.items() if name != "self"}
        return Evaluation(self._api_key, **dict(EVALUATE_DEFAULTS, **given))

    # -- internals -------------------------------------------------------------------------

    def _variant_field(self, experiment: str, variant: Optional[str], name: str) -> Any:
        if variant is None:
            return None
        entry = self._experiments.get(experiment)
        spec = None if entry is None else entry.variants.get(variant)
        return None if spec is None else spec.get(name)

    def _expose_holdout(
        self, holdout: CompiledHoldout, user: str, variant: str, attributes: Optional[Attributes] = None
    ) -> None:
        if holdout.exposures.first_today(user, variant):
            self._expose(holdout.id, user, variant, attributes)

    def _expose(
        self,
        experiment_id: str,
        user: str,
        variant: str,
        attributes: Optional[Attributes] = None,
        at: Optional[float] = None,
    ) -> None:
        """``at``: the time of the call that exposed the user (epoch seconds), when the exposure
        is queued after it (the C assign's batch); now otherwise."""
        if not is_wire_user_id(user):
            self._warn_once(
                "unstorable-user",
                "assign: a user id the API cannot store (empty, over %d characters, NUL or an unpaired"
                " surrogate) is bucketed but sends no exposure" % C.MAX_USER_ID_LENGTH,
            )
            return
        payload = {"experiment_id": experiment_id, "user_id": user, "variant": variant}
        self._enqueue("exposure", self._exposure_payload(payload, attributes), at=at)

    def _exposure_payload(self, payload: Dict[str, Any], attributes: Optional[Attributes]) -> Dict[str, Any]:
        """An exposure's fields, with the call's attributes as ``metadata.attributes`` when
        ``exposure_attributes`` is on and some were passed. Attributes the API would refuse are
        left out (one warning, then a debug line each time); the exposure is sent all the same.
        A ``PreparedAttributes`` sends what it was made from, as passing that would."""
        attributes = unwrap(attributes)
        if not self._exposure_attributes or attributes is None:
            return payload
        metadata, problem = exposure_metadata(attributes)
        if metadata is not None:
            return dict(payload, metadata=metadata)
        message = "exposure sent without its attributes: %s" % problem
        if "exposure-attributes" in self._warned:
            self._log.debug(message)
        else:
            self._warn_once("exposure-attributes", message)
        return payload

    def _enqueue(
        self, event_type: str, payload: Dict[str, Any], checked: bool = False, at: Optional[float] = None
    ) -> None:
        """``checked``: ``track`` has already told the caller why an event is refused; ``at``: the
        event's time (epoch seconds) when not now."""
        # The exposures of earlier assign() calls go first: events keep the order of the calls.
        self._drain_exposures()
        if self._closed:
            self._dropped_after_close += 1
            self._warn_once("closed", "events after close() are dropped")
            return
        # Exposures and model calls made for the caller: one the API would refuse is not queued.
        problem = None if checked else wire_problem(payload)
        if problem is not None:
            self._log.warning("%s not recorded: %s", event_type, problem)
            return
        event = dict(payload)
        event["event_id"] = str(uuid.uuid4())
        event["type"] = event_type
        event["timestamp"] = _now_iso() if at is None else _iso(at)
        try:
            queued = serialize(event)
        except (TypeError, ValueError) as err:
            self._log.warning("track(%s): the payload is not JSON (%s), event dropped", event_type, err)
            return
        if not self._queue.push(queued, event_type == "exposure"):
            if not self._overflowing:
                self._log.warning("event queue full (%d): dropping events, see stats()", len(self._queue))
            self._overflowing = True
            return
        self._overflowing = False
        self._pipeline.notify()

    def _drain_pending_exposures(self) -> None:
        """The C assign's batch of exposure checks, decided and queued (a flush begins so)."""
        try:
            self._drain_exposures()
        except Exception as err:  # the C call warns per failure; this is a bug's last net
            self._assign_failed(err)

    def _tally_sender(self, tallies: TargetingTallies, transport: Transport) -> Callable[[Optional[float]], None]:
        def send(deadline: Optional[float]) -> None:
            send_tallies(tallies, transport, self._log, deadline)

        return send

    def _warn_once(self, key: str, message: str) -> None:
        if key in self._warned:
            return
        self._warned.add(key)
        self._log.warning(message)

    def _at_exit(self) -> None:
        """Delivers the queue of a host that never called ``close()``, within a deadline."""
        self._close_blocking(C.EXIT_FLUSH_DEADLINE_MS / 1000)

    def _after_fork_in_child(self) -> None:
        """A client used after ``os.fork()`` starts its own threads; the parent's queued events
        stay the parent's to deliver."""
        self._close_lock = threading.Lock()
        self._discard_exposures()
        self._store.reset_after_fork()
        self._queue.reset_after_fork()
        if self._tallies is not None:
            self._tallies.reset_after_fork()
        store = self._pipeline._store
        if store is not None:
            store.reset_after_fork()
        self._poller.restart_after_fork()
        self._pipeline.restart_after_fork()


def _key_and_url(api_key: Optional[str], base_url: Optional[str]) -> Tuple[str, str]:
    """Read at construction, never at import: a test or a host may set them late."""
    key = api_key if api_key is not None else os.environ.get("ARBITER_API_KEY")
    if not key:
        raise ArbiterError("No API key: pass Arbiter(api_key=...) or set the ARBITER_API_KEY environment variable.")
    return key, base_url or os.environ.get("ARBITER_BASE_URL") or C.DEFAULT_BASE_URL


def _now_iso() -> str:
    """ISO 8601 in UTC with milliseconds, as JavaScript's ``toISOString`` writes it."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")[:-6] + "Z"


def _iso(at: float) -> str:
    """``at`` (epoch seconds) as ``_now_iso`` writes the present."""
    return datetime.fromtimestamp(at, timezone.utc).isoformat(timespec="milliseconds")[:-6] + "Z"


def _nothing() -> None:
    """What drains the exposures of a client without the C assign: it queues them in the call."""
