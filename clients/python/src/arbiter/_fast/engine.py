"""The fast engine: the core's engine (``arbiter._core.engine``) with each part replaced by a
faster one that answers the same. Conditions and targeting are generated Python functions
(``condition_source``, always available); the hash, the exposure table and ``assign()`` are C
from the ``speedups`` extra when it is installed and speaks this client's interface."""

from typing import Any, Callable, Dict, Mapping, Optional, Sequence

from arbiter._core.bucketing.bucketing import Hash32, ordered_ranges
from arbiter._core.engine import Assigner, Engine
from arbiter._core.evaluation.conditions import CompiledCondition, compile_condition
from arbiter._core.evaluation.field_table import FieldTable
from arbiter._core.evaluation.variant_function import VariantOf
from arbiter._core.events import exposure_dedup
from arbiter._core.events.exposure_dedup import ExposureDedup, ExposureTable
from arbiter._core.events.targeting_tallies import Reached
from arbiter._fast import accelerated_assign, speedups
from arbiter._fast.condition_source import generated_condition, generated_targeting

#: What the C assign finds for an experiment it leaves to the method (a draft, a stopped one).
BY_THE_METHOD = "by the method"


class FastEngine(Engine):
    """``c_assign``/``c_table``/``hash32``: the C parts, each None when not installed."""

    name = "fast"

    def __init__(self, c_assign: Any, c_table: Any, hash32: Optional[Hash32]) -> None:
        self._c_assign = c_assign
        self._c_table = c_table
        self.hash32 = hash32

    def compile_condition(self, condition: Any) -> CompiledCondition:
        return compile_condition(condition, generated_condition)

    def targeting(
        self,
        targeting: CompiledCondition,
        saved_groups: Optional[Mapping[str, Any]],
        bucket: Callable[[str], Optional[str]],
        reached: Optional[Reached],
        reached_when_enrolled: bool,
        field_table: Optional[FieldTable],
    ) -> Optional[VariantOf]:
        return generated_targeting(
            targeting.source, targeting.matches, saved_groups, bucket, reached, reached_when_enrolled, field_table
        )

    def new_table(self, capacity: int) -> ExposureTable:
        if self._c_table is not None:
            table: ExposureTable = self._c_table(capacity, exposure_dedup.wall_clock)
            return table
        return ExposureDedup(capacity)

    def assign_entry(
        self,
        id_: str,
        variant: VariantOf,
        exposures: ExposureTable,
        reached: Optional[Reached],
        plain: Optional[Sequence[Any]],
    ) -> Any:
        """``plain``: ``(salt, bucket_count, ranges)`` of an experiment without holdouts, layer or
        targeting, which the C call buckets itself."""
        c = self._c_assign
        if c is None:
            return None
        if plain is not None:
            salt, bucket_count, ranges = plain
            try:
                return c.entry(id_, variant, exposures, reached, (salt, bucket_count, *ordered_ranges(ranges)))
            except (UnicodeEncodeError, ValueError, OverflowError):
                pass  # a salt only the pure hash may take: the variant function buckets it
        return c.entry(id_, variant, exposures, reached)

    def method_entry(self) -> Any:
        """Any value that is not a C entry: the C assign passes the call to the method."""
        return None if self._c_assign is None else BY_THE_METHOD

    def assigner(
        self,
        entries: Dict[str, Any],
        method: Callable[..., Optional[str]],
        expose: Callable[..., None],
        expose_holdout: Any,
        failed: Callable[[Exception], None],
        track_exposures: bool,
        exposure_attributes: bool,
    ) -> Optional[Assigner]:
        """A check of a C exposure table waits in a batch, decided when the batch is full and by
        ``drain()``; ``expose`` then gets the call's time as ``at``."""
        c = self._c_assign
        if c is None:
            return None
        assigner: Assigner = c.assigner(
            entries, method, expose, expose_holdout, failed, track_exposures, exposure_attributes
        )
        return assigner


def choose_engine() -> Engine:
    """The engine a new client runs on: the fast one, with whichever C parts are installed."""
    return FastEngine(accelerated_assign.ACCELERATED, accelerated_assign.ACCELERATED_TABLE, speedups.ACCELERATED_HASH)
