"""The one seam between the core and its fast paths, chosen once when a client is made.

The core (bucketing, conditions, the variant function, the exposure tables) is complete in pure
Python: :data:`PLAIN` is that engine. ``arbiter._fast`` makes the same engine with faster parts
handed in (conditions and targeting written out as generated functions, the hash, the exposure
table and ``assign()`` itself in C when the ``speedups`` extra is installed) that answers exactly
as this one does; the shared vectors run on both. Nothing in the core imports the fast paths: the client
hands its engine down, and the core asks it, never a module-level switch.
"""

from dataclasses import dataclass
from typing import Any, Callable, Dict, Mapping, Optional, Protocol, Sequence

from arbiter._core.bucketing.bucketing import Hash32, ordered_ranges
from arbiter._core.evaluation.conditions import CompiledCondition, Generate, compile_condition
from arbiter._core.evaluation.field_table import FieldTable
from arbiter._core.evaluation.variant_function import VariantOf
from arbiter._core.events import exposure_dedup
from arbiter._core.events.exposure_dedup import ExposureDedup, ExposureTable
from arbiter._core.events.targeting_tallies import Reached


class Assigner(Protocol):
    """A client's ``assign`` taken over by an engine, with the batch of exposure checks it keeps
    (``drain``), which the client decides before it queues any other event."""

    def assign(self, experiment: str, user: str, attributes: Any = None) -> Optional[str]: ...

    def drain(self) -> None: ...

    def discard(self) -> None: ...

    def pending(self) -> int: ...


#: Builds a targeted experiment's variant function: ``(condition, matches, saved_groups, bucket,
#: reached, reached_when_enrolled, field_table)``, or None for the core's.
Targeting = Callable[..., Optional[VariantOf]]
#: What the C assign finds for an experiment it leaves to the method (a draft, a stopped one).
BY_THE_METHOD = "by the method"


@dataclass(frozen=True)
class Engine:
    """The interface every engine keeps, and the one implementation of it: the pure core, with
    each faster part the caller hands in (None: "no faster form, use the core's")."""

    #: Named in logs and tests.
    name: str = "python"
    #: MurmurHash3_x86_32 of another implementation, or None for the pure one.
    hash32: Optional[Hash32] = None
    #: Writes a condition out as a function (``compile_condition``'s ``generate``).
    generated_condition: Optional[Generate] = None
    #: Writes a targeted experiment's variant function out: ``(condition, matches, saved_groups,
    #: bucket, reached, reached_when_enrolled, field_table)``, or None for the core's.
    generated_targeting: Optional[Targeting] = None
    #: The C exposure table class: ``(capacity, clock)``.
    c_table: Any = None
    #: The C ``assign()`` module: ``entry(...)`` and ``assigner(...)``.
    c_assign: Any = None

    def compile_condition(self, condition: Any) -> CompiledCondition:
        return compile_condition(condition, self.generated_condition)

    def targeting(
        self,
        targeting: CompiledCondition,
        saved_groups: Optional[Mapping[str, Any]],
        bucket: Callable[[str], Optional[str]],
        reached: Optional[Reached],
        reached_when_enrolled: bool,
        field_table: Optional[FieldTable],
    ) -> Optional[VariantOf]:
        """A targeted experiment's variant function, or None for the core's."""
        if self.generated_targeting is None:
            return None
        return self.generated_targeting(
            targeting.source, targeting.matches, saved_groups, bucket, reached, reached_when_enrolled, field_table
        )

    def new_table(self, capacity: int) -> ExposureTable:
        if self.c_table is not None:
            table: ExposureTable = self.c_table(capacity, exposure_dedup.wall_clock)
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
        """The experiment as the engine's own ``assign`` reads it, or None without one. ``plain``:
        ``(salt, bucket_count, ranges)`` of an experiment without holdouts, layer or targeting,
        which the C call buckets itself."""
        c = self.c_assign
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
        """An entry that sends the engine's own ``assign`` to the Python definition (for an
        experiment it must not decide itself), or None without one: any value that is not a C
        entry makes the C assign pass the call to the method."""
        return None if self.c_assign is None else BY_THE_METHOD

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
        """The engine's own ``assign``, or None: the client then assigns in Python (``method``).
        A check of a C exposure table waits in a batch, decided when the batch is full and by
        ``drain()``; ``expose`` then gets the call's time as ``at``."""
        c = self.c_assign
        if c is None:
            return None
        assigner: Assigner = c.assigner(
            entries, method, expose, expose_holdout, failed, track_exposures, exposure_attributes
        )
        return assigner


#: The pure-Python engine.
PLAIN = Engine()
