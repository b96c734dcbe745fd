"""The last config the API served, compiled for lookups on the hot path."""

import threading
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from ._bucketing import BUCKETING_VERSION, Range, make_assigner
from ._conditions import CompiledCondition, compile_condition
from ._exposure_dedup import ExposureDedup


class CompiledExperiment:
    """One experiment of the config."""

    __slots__ = ("id", "name", "variant_of", "targeting", "saved_groups", "variants", "exposures")

    def __init__(
        self,
        id: str,
        name: str,
        variant_of: Callable[[str], Optional[str]],
        targeting: Optional[CompiledCondition],
        variants: Dict[str, Mapping[str, Any]],
        exposures: ExposureDedup,
        saved_groups: Optional[Mapping[str, Any]] = None,
    ) -> None:
        self.id = id
        self.name = name
        #: user id -> variant key or None by the bucket alone, with ``salt:`` pre-hashed.
        self.variant_of = variant_of
        #: Who may enter (docs/wire-format.md); None when everyone may.
        self.targeting = targeting
        #: The config's saved groups by key, for ``$inGroup``; None when it has none.
        self.saved_groups = saved_groups
        #: variant key -> the variant's wire object (``prompt``, ``variables``).
        self.variants = variants
        #: Who was sent an exposure today, with which variant; survives config refreshes.
        self.exposures = exposures

    def variant(self, user: str, attributes: Optional[Mapping[str, Any]] = None) -> Optional[str]:
        """The user's variant, or None when the targeting does not match ``attributes`` (None
        reads as no attributes) or the bucket is in no range. Targeting first, as the server
        and every client order it."""
        targeting = self.targeting
        if targeting is not None and not targeting.matches({} if attributes is None else attributes, self.saved_groups):
            return None
        return self.variant_of(user)


class ConfigStore:
    """Name and id map to the same compiled entry, so both address forms bucket identically.

    ``experiments`` is one dict for the life of the store, updated in place key by key, so a
    reader on another thread sees either the old or the new entry of an experiment, never none.
    A document that cannot be used never replaces a good one: the last known config keeps serving.
    """

    def __init__(self, exposure_dedup_capacity: int) -> None:
        self._exposure_dedup_capacity = exposure_dedup_capacity
        self.experiments: Dict[str, CompiledExperiment] = {}
        self.version: Optional[int] = None
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
            by_name: Dict[str, CompiledExperiment] = {}
            skipped: List[str] = []
            groups = body.get("saved_groups")
            for raw in body["experiments"]:
                compiled = _compile(
                    raw, current, groups if isinstance(groups, dict) else None, self._exposure_dedup_capacity
                )
                if compiled is None:
                    skipped.append(str(raw.get("name", raw.get("id")) if isinstance(raw, dict) else raw))
                    continue
                by_name[compiled.name] = compiled
            nxt = dict(by_name)
            # Ids are set after names so that an id wins should a name ever equal another id.
            for compiled in by_name.values():
                nxt[compiled.id] = compiled
            current.update(nxt)
            for key in [k for k in current if k not in nxt]:
                del current[key]
            version = body.get("config_version")
            self.version = version if isinstance(version, int) else 0
            self.etag = etag if etag else '"%d"' % self.version
        return None, skipped

    def reset_after_fork(self) -> None:
        self._lock = threading.Lock()
        for entry in self.experiments.values():
            entry.exposures.reset_after_fork()


def _compile(
    raw: Any,
    previous: Mapping[str, CompiledExperiment],
    saved_groups: Optional[Mapping[str, Any]],
    exposure_dedup_capacity: int,
) -> Optional[CompiledExperiment]:
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
        if not _is_int(r.get("start")) or not _is_int(r.get("end")):
            return None
        ranges.append((r["variant"], r["start"], r["end"]))
    variants: Dict[str, Mapping[str, Any]] = {}
    for v in raw_variants:
        if isinstance(v, dict) and isinstance(v.get("key"), str):
            variants[v["key"]] = v
    before = previous.get(id_)
    return CompiledExperiment(
        id=id_,
        name=name,
        variant_of=make_assigner(salt, bucket_count, ranges),
        targeting=_targeting(raw.get("targeting")),
        variants=variants,
        exposures=before.exposures if before is not None else ExposureDedup(exposure_dedup_capacity),
        saved_groups=saved_groups,
    )


def _targeting(targeting: Any) -> Optional[CompiledCondition]:
    """Absent or {} lets everyone in; any other value is a condition, compiled once here (one
    that cannot be read, a non-object included, lets no one in)."""
    if targeting is None or (isinstance(targeting, dict) and not targeting):
        return None
    return compile_condition(targeting)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
