"""The one seam between the core and its fast paths, chosen once when a client is made.

The core (bucketing, conditions, the variant function, the exposure tables) is complete in pure
Python: :data:`PLAIN` is that engine. ``arbiter._fast`` offers a faster engine of the same shape
(conditions and targeting written out as generated functions, the hash, the exposure table and
``assign()`` itself in C when the ``speedups`` extra is installed) that answers exactly as this
one does; the shared vectors run on both. Nothing in the core imports the fast paths: the client
hands its engine down, and the core asks it, never a module-level switch.
"""

from typing import Any, Callable, Dict, Mapping, Optional, Protocol, Sequence

from arbiter._core.bucketing.bucketing import Hash32
from arbiter._core.evaluation.conditions import CompiledCondition, compile_condition
from arbiter._core.evaluation.field_table import FieldTable
from arbiter._core.evaluation.variant_function import VariantOf
from arbiter._core.events.exposure_dedup import ExposureDedup, ExposureTable
from arbiter._core.events.targeting_tallies import Reached


class Assigner(Protocol):
    """A client's ``assign`` taken over by an engine, with the batch of exposure checks it keeps
    (``drain``), which the client decides before it queues any other event."""

    def assign(self, experiment: str, user: str, attributes: Any = None) -> Optional[str]: ...

    def drain(self) -> None: ...

    def discard(self) -> None: ...

    def pending(self) -> int: ...


class Engine:
    """The pure-Python engine, and the interface every engine keeps: each method may return a
    faster equivalent, or what this one returns (None: "no faster form, use the core's")."""

    #: Named in logs and tests.
    name = "python"
    #: MurmurHash3_x86_32 of another implementation, or None for the pure one.
    hash32: Optional[Hash32] = None

    def compile_condition(self, condition: Any) -> CompiledCondition:
        return compile_condition(condition)

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
        return None

    def new_table(self, capacity: int) -> ExposureTable:
        return ExposureDedup(capacity)

    def assign_entry(
        self,
        id_: str,
        variant: VariantOf,
        exposures: ExposureTable,
        reached: Optional[Reached],
        plain: Optional[Sequence[Any]],
    ) -> Any:
        """The experiment as the engine's own ``assign`` reads it, or None without one."""
        return None

    def method_entry(self) -> Any:
        """An entry that sends the engine's own ``assign`` to the Python definition (for an
        experiment it must not decide itself), or None without one."""
        return None

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
        """The engine's own ``assign``, or None: the client then assigns in Python (``method``)."""
        return None


#: The pure-Python engine.
PLAIN = Engine()
