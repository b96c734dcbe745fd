"""The config's layers and holdouts, compiled once per config load
(docs/wire-format.md#who-enters-an-experiment-holdouts-layers-targeting).

Both hash a user with the frozen bucketing function under their own salt and bucket count; the
ranges come from the server, never from a weight or a percent. A range check here is the same
pre-hashed assigner an experiment uses, with one label for "in range".
"""

from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from arbiter._core.bucketing.bucketing import Hash32, Range, make_assigner
from arbiter._core.events.exposure_dedup import ExposureTable, NewTable

#: user id -> the label of the range that holds the user's bucket, or None.
InRange = Callable[[str], Optional[str]]

HELD_OUT = "holdout"
GENERAL = "general"


class CompiledLayer:
    """A layer: its salt and bucket count, for the ranges each experiment in it owns."""

    __slots__ = ("name", "salt", "bucket_count", "hash32")

    def __init__(self, name: str, salt: str, bucket_count: int, hash32: Optional[Hash32] = None) -> None:
        self.name = name
        self.salt = salt
        #: The C hash of the engine the client chose, or None for the pure one.
        self.hash32 = hash32
        self.bucket_count = bucket_count

    def owner_of(self, ranges: List[Range]) -> InRange:
        """user id -> ``"in"`` when the user's layer bucket is in ``ranges``, else None."""
        return make_assigner(self.salt, self.bucket_count, ranges, self.hash32)


class CompiledHoldout:
    """A holdout: who it holds out, and who was sent its exposure today."""

    __slots__ = ("id", "held", "exposures")

    def __init__(self, id: str, held: InRange, exposures: ExposureTable) -> None:
        self.id = id
        #: user id -> ``HELD_OUT`` when the user's bucket is in the holdout's ranges, else None.
        self.held = held
        #: (user, ``holdout``/``general``) sent today; survives config refreshes, as an
        #: experiment's does, so a refresh does not re-send the day's exposures.
        self.exposures = exposures


def compile_layers(raw: Any, hash32: Optional[Hash32] = None) -> Dict[str, Optional[CompiledLayer]]:
    """Layers by name. A malformed entry that still has a name maps to None: the experiments in
    it let no one in, as with a layer the config does not carry."""
    out: Dict[str, Optional[CompiledLayer]] = {}
    for entry in raw if isinstance(raw, list) else []:
        if not isinstance(entry, dict):
            continue
        name, hashing = entry.get("name"), _hashing(entry)
        if not isinstance(name, str):
            continue
        out[name] = None if hashing is None else CompiledLayer(name, *hashing, hash32)
    return out


def compile_holdouts(
    raw: Any,
    previous: Mapping[str, CompiledHoldout],
    exposure_dedup_capacity: int,
    new_table: NewTable,
    hash32: Optional[Hash32] = None,
) -> Dict[str, Optional[CompiledHoldout]]:
    """Holdouts by id. A malformed entry that still has an id maps to None: an experiment that
    names it is left out of the config (control behaviour for everyone) rather than let the
    users the holdout should keep out into the experiment."""
    out: Dict[str, Optional[CompiledHoldout]] = {}
    for entry in raw if isinstance(raw, list) else []:
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            continue
        id_, hashing = entry["id"], _hashing(entry)
        ranges = parse_ranges(entry.get("ranges"), HELD_OUT)
        if ranges is None or hashing is None:
            out[id_] = None
            continue
        before = previous.get(id_)
        out[id_] = CompiledHoldout(
            id_,
            make_assigner(hashing[0], hashing[1], ranges, hash32),
            before.exposures if before is not None else new_table(exposure_dedup_capacity),
        )
    return out


def parse_ranges(raw: Any, label: str) -> Optional[List[Range]]:
    """``[{start, end}, …]`` as labelled ranges, or None when it is not such a list."""
    if not isinstance(raw, list):
        return None
    ranges: List[Range] = []
    for r in raw:
        if not isinstance(r, dict) or not is_int(r.get("start")) or not is_int(r.get("end")):
            return None
        ranges.append((label, r["start"], r["end"]))
    return ranges


def never(user: str) -> Optional[str]:
    """The layer check of a layer the config does not carry: no one is in it."""
    return None


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _hashing(entry: Dict[str, Any]) -> Optional[Tuple[str, int]]:
    """``(salt, bucket_count)`` of a layer or holdout, or None when either is unusable."""
    salt, bucket_count = entry.get("salt"), entry.get("bucket_count")
    if not isinstance(salt, str) or not isinstance(bucket_count, int) or isinstance(bucket_count, bool):
        return None
    return (salt, bucket_count) if 1 <= bucket_count <= 0xFFFFFFFF else None
