"""The last config the API served, compiled for lookups on the hot path."""

import threading
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from arbiter._core.bucketing.bucketing import BUCKETING_VERSION, Range, covered, make_assigner
from arbiter._core.engine import PLAIN, Engine
from arbiter._core.evaluation.conditions import CompiledCondition
from arbiter._core.evaluation.field_table import FieldTable, field_table_of
from arbiter._core.evaluation.layers_holdouts import (
    CompiledHoldout,
    CompiledLayer,
    InRange,
    compile_holdouts,
    compile_layers,
    is_int,
    never,
    parse_ranges,
)
from arbiter._core.evaluation.variant_function import VariantOf, make_variant
from arbiter._core.events.exposure_dedup import UNEXPOSED, ExposureTable
from arbiter._core.events.targeting_tallies import Reached, TargetingTallies
from arbiter._core.prompts import PromptIndex, prompt_index_of


class CompiledExperiment:
    """One experiment of the config."""

    __slots__ = ("id", "name", "variant", "variants", "exposures", "reached", "accelerated", "live")

    def __init__(
        self,
        id: str,
        name: str,
        variant: VariantOf,
        variants: Dict[str, Mapping[str, Any]],
        exposures: ExposureTable,
        reached: Optional[Reached] = None,
        accelerated: Any = None,
        live: bool = True,
    ) -> None:
        self.id = id
        self.name = name
        #: ``variant(user, attributes=None, expose_holdout=None)``: the user's variant, or None
        #: when a holdout holds the user out, the user is not in the experiment's part of its
        #: layer, the targeting does not match ``attributes`` (None reads as no attributes) or
        #: the bucket is in no range, decided in that order. ``expose_holdout`` hears of each
        #: holdout reached. A plain function, built for what the experiment uses
        #: (:func:`make_variant`), so an experiment without holdouts, layer or targeting pays
        #: for none of them.
        self.variant = variant
        #: variant key -> the variant's wire object (``prompt``, ``variables``).
        self.variants = variants
        #: Who was sent an exposure today, with which variant; survives config refreshes.
        self.exposures = exposures
        #: Tallies a check that reached the targeting (once a day); None without targeting or
        #: tallies. The variant function calls it for the checks it is told to; the caller for
        #: an enrolled user's when the variant function does not (see :func:`make_variant`).
        self.reached = reached
        #: The experiment as the C ``assign`` of the ``speedups`` extra reads it; None without it.
        self.accelerated = accelerated
        #: Whether the experiment is running: a draft or a stopped one sends no exposure of its
        #: own (its ``exposures`` is ``UNEXPOSED``) and records no model call.
        self.live = live


class ConfigStore:
    """Name and id map to the same compiled entry, so both address forms bucket identically.

    ``experiments`` is one dict for the life of the store, updated in place key by key, so a
    reader on another thread sees either the old or the new entry of an experiment, never none.
    A document that cannot be used never replaces a good one: the last known config keeps serving.
    ``accelerated`` is kept the same way, for the C ``assign``: each entry's ``accelerated``
    form by the same keys (empty without the ``speedups`` extra).
    """

    def __init__(
        self,
        exposure_dedup_capacity: int,
        tallies: Optional[TargetingTallies] = None,
        tally_enrolled: bool = False,
        engine: Engine = PLAIN,
    ) -> None:
        """``tallies``: where targeted experiments count the checks that reach their targeting
        (None: not counted); ``tally_enrolled``: whether the variant function counts an enrolled
        user's too, for a caller that sends no exposure to count it with; ``engine``: the fast
        paths the client chose (``arbiter._core.engine``), the pure-Python one by default."""
        self._engine = engine
        self._exposure_dedup_capacity = exposure_dedup_capacity
        self._tallies = tallies
        self._tally_enrolled = tally_enrolled
        self.experiments: Dict[str, CompiledExperiment] = {}
        self.accelerated: Dict[str, Any] = {}
        #: The config's holdouts by id (None: malformed), kept for their exposure tables.
        self.holdouts: Dict[str, Optional[CompiledHoldout]] = {}
        self.version: Optional[int] = None
        #: The current config's prompts (docs/wire-format.md#prompts); None before the first.
        self.prompt_index: Optional[PromptIndex] = None
        self.etag: Optional[str] = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self.version is not None

    def replace(self, body: Any, etag: Optional[str]) -> Tuple[Optional[str], List[str]]:
        """Installs a fetched document. Returns ``(fatal, skipped)``: a fatal problem leaves the
        previous config in place; a malformed experiment is left out and the rest is used."""
        if not isinstance(body, dict) or not isinstance(body.get("experiments"), list):
            return "config document has no experiments array", []
        # A hash version this build does not know would put users in the wrong arm; serving
        # nothing (control behaviour) is the safe answer.
        if str(body.get("bucketing_version")) != BUCKETING_VERSION:
            return (
                "config uses bucketing version %s, this client knows %s"
                % (body.get("bucketing_version"), BUCKETING_VERSION),
                [],
            )
        with self._lock:
            current = self.experiments
            groups = body.get("saved_groups")
            # Layers and holdouts are resolved here, once per load: an experiment's variant
            # function holds its own holdouts and layer check, and looks nothing up per call.
            holdouts = compile_holdouts(
                body.get("holdouts"),
                _present(self.holdouts),
                self._exposure_dedup_capacity,
                self._engine.new_table,
                self._engine.hash32,
            )
            shared = _Shared(
                groups if isinstance(groups, dict) else None,
                compile_layers(body.get("layers"), self._engine.hash32),
                holdouts,
                self._exposure_dedup_capacity,
                self._tallies,
                self._tally_enrolled,
                # Numbered before any experiment compiles: each variant function reads its
                # fields from a PreparedAttributes by these indexes.
                field_table_of(raw.get("targeting") for raw in body["experiments"] if isinstance(raw, dict)),
                self._engine,
            )
            by_name: Dict[str, CompiledExperiment] = {}
            skipped: List[str] = []
            for raw in body["experiments"]:
                compiled = _compile(raw, current, shared)
                if compiled is None:
                    skipped.append(str(raw.get("name", raw.get("id")) if isinstance(raw, dict) else raw))
                    continue
                by_name[compiled.name] = compiled
            nxt = dict(by_name)
            # Ids are set after names so that an id wins should a name ever equal another id.
            for compiled in by_name.values():
                nxt[compiled.id] = compiled
            _update_in_place(current, nxt)
            _update_in_place(self.accelerated, {k: e.accelerated for k, e in nxt.items() if e.accelerated is not None})
            self.holdouts = holdouts
            self.prompt_index = prompt_index_of(body)
            version = body.get("config_version")
            self.version = version if isinstance(version, int) else 0
            self.etag = etag if etag else '"%d"' % self.version
        return None, skipped

    def reset_after_fork(self) -> None:
        self._lock = threading.Lock()
        for entry in self.experiments.values():
            entry.exposures.reset_after_fork()
        for holdout in _present(self.holdouts).values():
            holdout.exposures.reset_after_fork()


def _update_in_place(current: Dict[str, Any], nxt: Mapping[str, Any]) -> None:
    """``current`` becomes ``nxt`` key by key: a reader sees each key's old or new value."""
    current.update(nxt)
    for key in [k for k in current if k not in nxt]:
        del current[key]


class _Shared:
    """What every experiment of one config document is compiled against."""

    __slots__ = (
        "saved_groups",
        "layers",
        "holdouts",
        "exposure_dedup_capacity",
        "tallies",
        "tally_enrolled",
        "field_table",
        "engine",
    )

    def __init__(
        self,
        saved_groups: Optional[Mapping[str, Any]],
        layers: Mapping[str, Optional[CompiledLayer]],
        holdouts: Mapping[str, Optional[CompiledHoldout]],
        exposure_dedup_capacity: int,
        tallies: Optional[TargetingTallies],
        tally_enrolled: bool,
        field_table: FieldTable,
        engine: Engine,
    ) -> None:
        self.field_table = field_table
        self.engine = engine
        self.saved_groups = saved_groups
        self.layers = layers
        self.holdouts = holdouts
        self.exposure_dedup_capacity = exposure_dedup_capacity
        self.tallies = tallies
        self.tally_enrolled = tally_enrolled


def _compile(raw: Any, previous: Mapping[str, CompiledExperiment], shared: _Shared) -> Optional[CompiledExperiment]:
    parsed = _parse(raw)
    if parsed is None:
        return None
    id_, name, salt, bucket_count, ranges, variants = parsed
    lifecycle = _lifecycle(raw, variants)
    holdouts = _holdouts(raw.get("holdouts"), shared.holdouts)
    usable, in_layer = _in_layer(raw.get("layer"), raw.get("layer_ranges"), shared.layers)
    coverage = _coverage(raw.get("coverage"))
    if lifecycle is None or holdouts is None or not usable or coverage is None:
        return None
    engine = shared.engine
    status, served = lifecycle
    if status == "draft":
        # Nothing is evaluated: no holdout is reached, so not even a holdout's exposure goes.
        return CompiledExperiment(id_, name, _not_started, variants, UNEXPOSED, None, engine.method_entry(), False)
    targeting = _targeting(raw.get("targeting"), engine)
    if served is not None:
        # Stopped: eligibility as while it ran (holdouts still expose), then the served variant
        # for every bucket; the experiment itself sends no exposure and counts no tally.
        variant = make_variant(
            _always(served),
            targeting,
            shared.saved_groups,
            holdouts,
            in_layer,
            None,
            False,
            shared.field_table,
            engine.targeting,
        )
        return CompiledExperiment(id_, name, variant, variants, UNEXPOSED, None, engine.method_entry(), False)
    # A running experiment keeps its table across refreshes (a draft that starts gets its first).
    before = previous.get(id_)
    kept = None if before is None or before.exposures is UNEXPOSED else before.exposures
    exposures = kept if kept is not None else engine.new_table(shared.exposure_dedup_capacity)
    reached = None if targeting is None or shared.tallies is None else shared.tallies.reached_in(id_, exposures)
    variant = make_variant(
        covered(make_assigner(salt, bucket_count, ranges, engine.hash32), salt, coverage),
        targeting,
        shared.saved_groups,
        holdouts,
        in_layer,
        reached,
        shared.tally_enrolled,
        shared.field_table,
        engine.targeting,
    )
    whole = targeting is None and not holdouts and in_layer is None and coverage >= 1
    plain = (salt, bucket_count, ranges) if whole else None
    accelerated = engine.assign_entry(id_, variant, exposures, reached, plain)
    return CompiledExperiment(id_, name, variant, variants, exposures, reached, accelerated, True)


def _parse(raw: Any) -> Optional[Tuple[str, str, str, int, List[Range], Dict[str, Mapping[str, Any]]]]:
    """``(id, name, salt, bucket_count, ranges, variants)``, or None when malformed."""
    if not isinstance(raw, dict):
        return None
    id_, name, salt, bucket_count = raw.get("id"), raw.get("name"), raw.get("salt"), raw.get("bucket_count")
    if not (isinstance(id_, str) and isinstance(name, str) and isinstance(salt, str)):
        return None
    if not isinstance(bucket_count, int) or isinstance(bucket_count, bool):
        return None
    if not 1 <= bucket_count <= 0xFFFFFFFF:
        return None
    raw_ranges, raw_variants = raw.get("ranges"), raw.get("variants")
    if not isinstance(raw_ranges, list) or not isinstance(raw_variants, list):
        return None
    ranges: List[Range] = []
    for r in raw_ranges:
        if not isinstance(r, dict) or not isinstance(r.get("variant"), str):
            return None
        if not is_int(r.get("start")) or not is_int(r.get("end")):
            return None
        ranges.append((r["variant"], r["start"], r["end"]))
    variants: Dict[str, Mapping[str, Any]] = {}
    for v in raw_variants:
        if isinstance(v, dict) and isinstance(v.get("key"), str):
            variants[v["key"]] = v
    return id_, name, salt, bucket_count, ranges, variants


#: The statuses a config entry may carry. An entry without one is running, so configs and offline
#: files from before the lifecycle keep working; archived experiments are absent from the config.
STATUSES = ("running", "draft", "stopped")


def _lifecycle(raw: Dict[str, Any], variants: Mapping[str, Any]) -> Optional[Tuple[str, Optional[str]]]:
    """``(status, served variant)``; the served variant only when stopped. None when malformed: a
    status this client does not know, or a stopped entry whose ``served_variant`` is not one of
    its variants (serving it would hand out a variant without its prompt and variables)."""
    status = raw.get("status", "running")
    if not isinstance(status, str) or status not in STATUSES:
        return None
    if status != "stopped":
        return status, None
    served = raw.get("served_variant")
    return (status, served) if isinstance(served, str) and served in variants else None


def _coverage(raw: Any) -> Optional[float]:
    """The share of eligible users who enter while it runs: absent is 1; None when it is not a
    number from 0 to 1 (the experiment is then left out, the control behaviour)."""
    if raw is None:
        return 1.0
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not 0 <= raw <= 1:
        return None
    return float(raw)


def _not_started(user: str, attributes: Any = None, expose_holdout: Any = None) -> Optional[str]:
    """A draft's variant function: no one, and nothing reached."""
    return None


def _always(served: str) -> Callable[[str], Optional[str]]:
    """The bucket of a stopped experiment: the served variant, whatever the user's bucket."""

    def bucket(user: str) -> Optional[str]:
        return served

    return bucket


def _holdouts(ids: Any, known: Mapping[str, Optional[CompiledHoldout]]) -> Optional[List[CompiledHoldout]]:
    """The experiment's holdouts in its order, or None when it cannot be used: ``holdouts`` is
    not a list of ids, or names a holdout the config carries malformed. An id the config does
    not carry holds no one out (docs/wire-format.md) and is skipped."""
    if ids is None:
        return []
    if not isinstance(ids, list):
        return None
    out: List[CompiledHoldout] = []
    for id_ in ids:
        if not isinstance(id_, str):
            return None
        if id_ not in known:
            continue
        holdout = known[id_]
        if holdout is None:
            return None
        out.append(holdout)
    return out


def _in_layer(
    layer: Any, raw_ranges: Any, layers: Mapping[str, Optional[CompiledLayer]]
) -> Tuple[bool, Optional[InRange]]:
    """``(usable, check)``: the experiment's layer check, None outside a layer; not usable when
    ``layer`` or ``layer_ranges`` has the wrong shape. A layer the config does not carry, or
    carries malformed, lets no one in; absent ``layer_ranges`` own no bucket."""
    if layer is None:
        return True, None
    if not isinstance(layer, str):
        return False, None
    ranges = [] if raw_ranges is None else parse_ranges(raw_ranges, "in")
    if ranges is None:
        return False, None
    compiled = layers.get(layer)
    if compiled is None or not ranges:
        return True, never
    return True, compiled.owner_of(ranges)


def _present(holdouts: Mapping[str, Optional[CompiledHoldout]]) -> Dict[str, CompiledHoldout]:
    return {k: v for k, v in holdouts.items() if v is not None}


def _targeting(targeting: Any, engine: Engine) -> Optional[CompiledCondition]:
    """Absent or {} lets everyone in; any other value is a condition, compiled once here (one
    that cannot be read, a non-object included, lets no one in)."""
    if targeting is None or (isinstance(targeting, dict) and not targeting):
        return None
    return engine.compile_condition(targeting)
