"""Arbiter experiments as OpenFeature flags, resolved locally by an ``Arbiter`` client.

A flag key is an experiment's name or id (``EXPERIMENT``: the variant key as a string, its
variables as an object) or ``EXPERIMENT:VARIABLE`` (the value of one variable). The context's
targeting key is the user id; its other attributes are what targeting reads. The user's variant
comes from ``assign``, which sends the day's exposure as it always does."""

import datetime
import threading
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from arbiter import Arbiter, AsyncArbiter
from arbiter._client.flag_hooks import FlagExperiment, flag_hooks
from openfeature.evaluation_context import EvaluationContext
from openfeature.event import ProviderEventDetails
from openfeature.exception import ErrorCode
from openfeature.flag_evaluation import FlagResolutionDetails, Reason
from openfeature.hook import Hook
from openfeature.provider import AbstractProvider, Metadata
from openfeature.track import TrackingEventDetails

Kind = Union[type, Tuple[type, ...]]
_OBJECT: Kind = (dict, list)


class ArbiterProvider(AbstractProvider):
    """The OpenFeature provider of an ``Arbiter``. ``close_client``: whether the provider's
    shutdown closes the client (flushing what it queued); true by default."""

    def __init__(
        self, client: Union[Arbiter, AsyncArbiter], close_client: bool = True, ready_timeout: float = 30.0
    ) -> None:
        super().__init__()
        self._client = client
        self._hooks = flag_hooks(client)
        self._close_client = close_client
        self._ready_timeout = ready_timeout
        self._stop_watching: Optional[Callable[[], None]] = None
        self._lock = threading.Lock()
        self._state = "ready"
        self._version: Optional[int] = None

    def get_metadata(self) -> Metadata:
        return Metadata(name="arbiter")

    def get_provider_hooks(self) -> List[Hook]:
        return []

    def initialize(self, evaluation_context: EvaluationContext) -> None:
        """Waits for the first config load (at most ``ready_timeout`` seconds); raises (the
        provider's ERROR state) when it failed. Polls go on: a later load makes it READY."""
        self._hooks.wait_first_attempt(self._ready_timeout)
        with self._lock:
            self._state = "ready" if self._hooks.loaded else "error"
            self._version = self._hooks.version
            if self._stop_watching is None:
                self._stop_watching = self._hooks.on_poll(self._polled)
        if not self._hooks.loaded:
            raise RuntimeError("the Arbiter config could not be loaded")

    def shutdown(self) -> None:
        """Stops watching the config and, unless told not to, closes the client: it flushes."""
        if self._stop_watching is not None:
            self._stop_watching()
            self._stop_watching = None
        if self._close_client:
            self._hooks.close_client()

    # -- events ------------------------------------------------------------------------------

    def _polled(self, outcome: str) -> None:
        """READY when a config loads after none could be (or the API answers after STALE);
        CONFIGURATION_CHANGED when another version is installed; STALE when a poll fails with a
        config loaded; ERROR when it fails with none. Once per change of state."""
        emit: List[Callable[[], None]] = []
        with self._lock:
            loaded = self._hooks.loaded
            if outcome == "failed":
                state = "stale" if loaded else "error"
                if state != self._state:
                    self._state = state
                    details = ProviderEventDetails(message="the Arbiter API cannot be reached")
                    emit.append(
                        lambda: (self.emit_provider_stale if state == "stale" else self.emit_provider_error)(details)
                    )
            elif loaded:
                if self._state != "ready":
                    self._state = "ready"
                    emit.append(lambda: self.emit_provider_ready(ProviderEventDetails()))
                version = self._hooks.version
                if version != self._version:
                    before, self._version = self._version, version
                    if before is not None:
                        emit.append(lambda: self.emit_provider_configuration_changed(ProviderEventDetails()))
        for event in emit:
            event()

    # -- resolution --------------------------------------------------------------------------

    def resolve_boolean_details(
        self, flag_key: str, default_value: bool, evaluation_context: Optional[EvaluationContext] = None
    ) -> FlagResolutionDetails[bool]:
        return self._resolve(flag_key, bool, default_value, evaluation_context, lambda v: v)

    def resolve_string_details(
        self, flag_key: str, default_value: str, evaluation_context: Optional[EvaluationContext] = None
    ) -> FlagResolutionDetails[str]:
        return self._resolve(flag_key, str, default_value, evaluation_context, lambda v: v)

    def resolve_integer_details(
        self, flag_key: str, default_value: int, evaluation_context: Optional[EvaluationContext] = None
    ) -> FlagResolutionDetails[int]:
        return self._resolve(flag_key, int, default_value, evaluation_context, lambda v: v)

    def resolve_float_details(
        self, flag_key: str, default_value: float, evaluation_context: Optional[EvaluationContext] = None
    ) -> FlagResolutionDetails[float]:
        return self._resolve(flag_key, (int, float), default_value, evaluation_context, float)

    def resolve_object_details(
        self,
        flag_key: str,
        default_value: Union[Sequence[Any], Mapping[str, Any]],
        evaluation_context: Optional[EvaluationContext] = None,
    ) -> FlagResolutionDetails[Union[Sequence[Any], Mapping[str, Any]]]:
        return self._resolve(flag_key, _OBJECT, default_value, evaluation_context, lambda v: v)

    def _resolve(
        self,
        flag_key: str,
        kind: Kind,
        default: Any,
        context: Optional[EvaluationContext],
        convert: Callable[[Any], Any],
    ) -> FlagResolutionDetails[Any]:
        hooks = self._hooks
        if not hooks.loaded:
            return _failed(default, ErrorCode.PROVIDER_NOT_READY, "the Arbiter config is not loaded yet")
        experiment_key, colon, variable = flag_key.partition(":")
        experiment = hooks.experiment(experiment_key)
        if experiment is None:
            return _failed(default, ErrorCode.FLAG_NOT_FOUND, "no experiment %s in the config" % experiment_key)
        if not colon and kind not in (str, _OBJECT):
            return _failed(default, ErrorCode.TYPE_MISMATCH, "%s is a string (the variant key) or an object" % flag_key)
        metadata: Dict[str, Union[str, int]] = {"experimentId": experiment.id, "configVersion": hooks.version or 0}
        if experiment.status == "draft":
            return FlagResolutionDetails(default, reason=Reason.DISABLED, flag_metadata=metadata)
        user = context.targeting_key if context is not None else None
        if not isinstance(user, str) or user == "":
            return _failed(default, ErrorCode.TARGETING_KEY_MISSING, "the context has no targeting key (the user id)")
        variant = self._client.assign(experiment.id, user, _attributes(context))
        if variant is None:
            return FlagResolutionDetails(default, reason=Reason.DEFAULT, flag_metadata=metadata)
        return _answer(experiment, variant, variable if colon else None, kind, default, metadata, convert)

    # -- tracking ----------------------------------------------------------------------------

    def track(
        self,
        tracking_event_name: str,
        evaluation_context: Optional[EvaluationContext] = None,
        tracking_event_details: Optional[TrackingEventDetails] = None,
    ) -> None:
        """A business event named ``tracking_event_name`` for the context's user, in the
        experiment ``details.attributes["experiment"]`` (name or id), with ``details.value``; the
        other attributes go in its metadata. Without a user or experiment: dropped, one warning."""
        user = evaluation_context.targeting_key if evaluation_context is not None else None
        attributes = dict(tracking_event_details.attributes) if tracking_event_details is not None else {}
        experiment = attributes.pop("experiment", None)
        if not isinstance(user, str) or not user or not isinstance(experiment, str):
            self._hooks.warn_once(
                "openfeature-track",
                "track(%s): needs the context's targeting key and the details' experiment, event dropped"
                % tracking_event_name,
            )
            return
        fields: Dict[str, Any] = {"experiment_id": experiment, "user_id": user, "business_metric": tracking_event_name}
        value = tracking_event_details.value if tracking_event_details is not None else None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            fields["value"] = value
        if attributes:
            fields["metadata"] = attributes
        self._client.track("business_event", fields)


def _answer(
    experiment: FlagExperiment,
    variant: str,
    variable: Optional[str],
    kind: Kind,
    default: Any,
    metadata: Dict[str, Union[str, int]],
    convert: Callable[[Any], Any],
) -> FlagResolutionDetails[Any]:
    reason = Reason.STATIC if experiment.status == "stopped" else Reason.SPLIT
    variables = experiment.variables(variant)
    if variable is None:
        value: Any = variant if kind is str else dict(variables)
        return FlagResolutionDetails(value, variant=variant, reason=reason, flag_metadata=metadata)
    if variable not in variables:
        return FlagResolutionDetails(default, variant=variant, reason=Reason.DEFAULT, flag_metadata=metadata)
    value = variables[variable]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        details = _failed(default, ErrorCode.TYPE_MISMATCH, "%s of %s is not a %s" % (variable, experiment.name, kind))
        details.variant = variant
        details.flag_metadata = metadata
        return details
    return FlagResolutionDetails(convert(value), variant=variant, reason=reason, flag_metadata=metadata)


def _attributes(context: Optional[EvaluationContext]) -> Optional[Dict[str, Any]]:
    """The targeting attributes of a context, dates as ISO 8601 strings (the wire has no date type)."""
    if context is None:
        return None
    return {k: v.isoformat() if isinstance(v, datetime.datetime) else v for k, v in context.attributes.items()}


def _failed(default: Any, code: ErrorCode, message: str) -> FlagResolutionDetails[Any]:
    return FlagResolutionDetails(default, reason=Reason.ERROR, error_code=code, error_message=message)
