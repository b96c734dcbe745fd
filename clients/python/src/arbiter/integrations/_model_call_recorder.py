"""Turns one model call into an ``exposure`` (when it starts) and a ``model_call`` (when it ends)."""

from typing import Any, Callable, Dict, NamedTuple, Optional, Sequence

from arbiter._core.config.config_store import ConfigStore
from arbiter._core.evaluation.prepared_attributes import Attributes
from arbiter._core.evaluation.variant_function import ExposeHoldout
from arbiter._core.events.event_validation import is_wire_user_id
from arbiter.integrations._evaluation_scope import current_evaluation
from arbiter.integrations._model_call import FinishModelCall, ModelCall
from arbiter.integrations._model_call_measure import Measure, ProviderReader
from arbiter.integrations._user_context import current_prompt

Enqueue = Callable[[str, Dict[str, Any]], None]
WarnOnce = Callable[[str, str], None]
#: ``(exposure fields, the call's attributes)`` -> the fields to send.
ExposurePayload = Callable[[Dict[str, Any], Optional[Attributes]], Dict[str, Any]]


class _Begun(NamedTuple):
    variant: Optional[str]
    call: ModelCall


class ModelCallRecorder:
    """For both ``wrap`` and ``intercept_model_call``. A call outside the experiment (user not
    enrolled, experiment unknown) runs unrecorded. Recording never changes what the caller gets
    back, errors included."""

    def __init__(
        self,
        store: ConfigStore,
        record_text: bool,
        enqueue: Enqueue,
        warn_once: WarnOnce,
        expose_holdout: ExposeHoldout,
        exposure_payload: ExposurePayload,
    ) -> None:
        self._store = store
        self._record_text = record_text
        self._enqueue = enqueue
        self._warn_once = warn_once
        #: Queues a holdout's exposure (once per user and day) for each holdout a call reaches.
        self._expose_holdout = expose_holdout
        #: An exposure's fields with the call's attributes, when ``exposure_attributes`` is on.
        self._exposure_payload = exposure_payload

    def through_wrap(
        self,
        experiment: str,
        user: Optional[str],
        attributes: Optional[Attributes],
        reader: ProviderReader,
        params: Dict[str, Any],
        invoke: Callable[[], Any],
    ) -> Any:
        """One call through a wrapped provider client; ``user`` and ``attributes`` come from ``as_user``.
        Inside an evaluation task the call is measured for the task's result and sends nothing."""
        scope = current_evaluation.get()
        if scope is not None:
            return _measured(ModelCall((reader,), params, scope.begin()), invoke)
        begun = None
        if user is None:
            self._warn_once("wrap-user", "wrap: model call outside as_user(), not recorded")
        else:
            begun = self._begin(experiment, user, attributes, (reader,), params)
        if begun is None:
            return invoke()
        return _measured(begun.call, invoke)

    def explicit(
        self,
        experiment: str,
        user: str,
        attributes: Optional[Attributes],
        readers: Sequence[ProviderReader],
        fn: Callable[[Optional[str]], Any],
    ) -> Any:
        begun = self._begin(experiment, user, attributes, readers, None)
        if begun is None:
            return fn(self._variant_of(experiment, user, attributes))
        try:
            result = fn(begun.variant)
        except BaseException as err:
            begun.call.fail(err)
            raise
        return begun.call.observe(result)

    def _begin(
        self,
        experiment: str,
        user: str,
        attributes: Optional[Attributes],
        readers: Sequence[ProviderReader],
        params: Any,
    ) -> Optional[_Begun]:
        """Records the exposure and returns the timer of the model_call, or None when the call is
        not part of the experiment. Without a config yet, the server works the variant out."""
        try:
            if not isinstance(user, str) or not is_wire_user_id(user):
                return None
            entry = self._store.experiments.get(experiment)
            if entry is None and self._store.loaded:
                self._warn_once("unknown:" + experiment, "experiment %s is not in the config" % experiment)
                return None
            variant = None if entry is None else entry.variant(user, attributes, self._expose_holdout)
            # A stopped experiment serves its variant but is no longer measured.
            if entry is not None and (variant is None or not entry.live):
                return None
            # Tallied as assign's checks are: the variant function counted the others.
            if entry is not None and entry.reached is not None:
                entry.reached(user, True)
            base: Dict[str, Any] = {"experiment_id": experiment if entry is None else entry.id, "user_id": user}
            # The model_call that follows carries no attributes, whatever the option says.
            exposure = dict(base) if variant is None else dict(base, variant=variant)
            self._enqueue("exposure", self._exposure_payload(exposure, attributes))
            return _Begun(variant, ModelCall(readers, params, self._finisher(base)))
        except Exception as err:
            self._warn_once("model-call", "model call not recorded: %s" % err)
            return None

    def begin_run(
        self,
        experiment: str,
        user: Optional[str],
        assign: Callable[[str, str], Optional[str]],
        attributes: Optional[Attributes] = None,
    ) -> Optional[FinishModelCall]:
        """For framework integrations, which see a call's start and end as callbacks rather than a
        function to run. The exposure follows ``assign``'s rule (once per user and experiment,
        unless ``track_exposures`` is off); before the first config, as in ``wrap``, the exposure
        goes without a variant and the server works it out. Returns how to finish the
        ``model_call``, or None when the call is not part of the experiment. Inside an evaluation
        task the run is measured for the task's result and sends nothing."""
        scope = current_evaluation.get()
        if scope is not None:
            return scope.begin()
        try:
            if not isinstance(user, str) or not is_wire_user_id(user):
                return None
            entry = self._store.experiments.get(experiment)
            if entry is None:
                if self._store.loaded:
                    self._warn_once("unknown:" + experiment, "experiment %s is not in the config" % experiment)
                    return None
                base: Dict[str, Any] = {"experiment_id": experiment, "user_id": user}
                self._enqueue("exposure", self._exposure_payload(dict(base), attributes))
            elif assign(experiment, user) is None or not entry.live:
                return None
            else:
                base = {"experiment_id": entry.id, "user_id": user}
            return self._finisher(base)
        except Exception as err:
            self._warn_once("model-call", "model call not recorded: %s" % err)
            return None

    def _finisher(self, base: Dict[str, Any]) -> FinishModelCall:
        # The stored prompt of the caller's ``with_prompt``, read where the call starts.
        prompt = current_prompt.get()

        def finish(measure: Measure, latency_ms: float) -> None:
            fields = dict(base, **_model_call_fields(measure, self._record_text))
            if prompt is not None:
                # docs/wire-format.md#prompts-on-model-calls: in the metadata, no field of its own.
                fields["metadata"] = dict(fields.get("metadata") or {}, prompt_name=prompt[0], prompt_version=prompt[1])
            fields["latency_ms"] = latency_ms
            self._enqueue("model_call", fields)

        return finish

    def _variant_of(self, experiment: str, user: str, attributes: Optional[Attributes]) -> Optional[str]:
        entry = self._store.experiments.get(experiment)
        return None if entry is None or not isinstance(user, str) else entry.variant(user, attributes)


def _measured(call: ModelCall, invoke: Callable[[], Any]) -> Any:
    try:
        result = invoke()
    except BaseException as err:
        call.fail(err)
        raise
    return call.observe(result)


def _model_call_fields(m: Measure, record_text: bool) -> Dict[str, Any]:
    out: Dict[str, Any] = {"error": m.get("error")}
    for name in ("model", "input_tokens", "output_tokens"):
        if name in m:
            out[name] = m[name]
    # A part goes only with its total and within it: the server refuses it otherwise.
    for part, whole in (("cached_input_tokens", "input_tokens"), ("reasoning_tokens", "output_tokens")):
        if part in m and whole in m and m[part] <= m[whole]:
            out[part] = m[part]
    if record_text:
        for name in ("prompt", "response"):
            if name in m:
                out[name] = m[name]
    # The event has no field of its own for it: streamed calls carry it in metadata.
    if "time_to_first_token_ms" in m:
        out["metadata"] = {"time_to_first_token_ms": m["time_to_first_token_ms"]}
    return out
