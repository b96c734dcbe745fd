"""``assign()`` in C, from the ``speedups`` extra (docs/decisions/clients.md#pythons-assign-in-c-in-the-speedups-extra).

``Arbiter.assign`` is the definition; the C call takes the same steps with the same callbacks
into the client, and buckets an experiment without holdouts, layer or targeting itself. Without
the extra nothing here is used.
"""

from typing import Any, Callable, Dict, Optional, Protocol, Sequence

from ._bucketing import ordered_ranges
from ._exposure_dedup import ExposureTable
from ._speedups import INSTALLED, speaks_this_interface
from ._targeting_tallies import Reached
from ._variant_function import VariantOf

#: ``assign(experiment, user, attributes=None)``, as the client's method.
Assign = Callable[..., Optional[str]]


class _Accelerated:
    """The C types of one imported ``arbiter_speedups``."""

    __slots__ = ("assigner", "entry")

    def __init__(self, speedups: Any) -> None:
        self.assigner: Callable[..., Any] = speedups.Assigner
        self.entry: Callable[..., Any] = speedups.AssignEntry


def accelerated(speedups: Any) -> Optional[_Accelerated]:
    """The C assign of an imported ``arbiter_speedups`` that speaks this client's interface;
    None for any other (or None)."""
    if not speaks_this_interface(speedups):
        return None
    return _Accelerated(speedups)


#: The C assign, when the ``speedups`` extra is installed; else None.
ACCELERATED = accelerated(INSTALLED)


def assign_entry(
    id_: str,
    variant: VariantOf,
    exposures: ExposureTable,
    reached: Optional[Reached],
    plain: Optional[Sequence[Any]],
) -> Any:
    """The experiment as the C assign reads it, or None without the extra. ``plain``: ``(salt,
    bucket_count, ranges)`` of an experiment without holdouts, layer or targeting, which the C
    call buckets itself."""
    c = ACCELERATED
    if c is None:
        return None
    if plain is not None:
        salt, bucket_count, ranges = plain
        try:
            return c.entry(id_, variant, exposures, reached, (salt, bucket_count, *ordered_ranges(ranges)))
        except (UnicodeEncodeError, ValueError, OverflowError):
            pass  # a salt only the pure hash may take: the variant function buckets it
    return c.entry(id_, variant, exposures, reached)


class Assigner(Protocol):
    """A client's ``assign`` in C, with the batch of checks it keeps (``drain``)."""

    def assign(self, experiment: str, user: str, attributes: Any = None) -> Optional[str]: ...

    def drain(self) -> None: ...

    def discard(self) -> None: ...

    def pending(self) -> int: ...


def accelerated_assigner(
    entries: Dict[str, Any],
    method: Assign,
    expose: Callable[..., None],
    expose_holdout: Any,
    failed: Callable[[Exception], None],
    track_exposures: bool,
    exposure_attributes: bool,
) -> Optional[Assigner]:
    """A client's assign in C over the store's ``entries``, or None without the extra. A check of
    a C exposure table waits in a batch, decided when the batch is full and by ``drain()``, which
    the client calls before it queues any other event and before its stats, flushes and close;
    ``expose`` then gets the call's time as ``at``."""
    c = ACCELERATED
    if c is None:
        return None
    assigner: Assigner = c.assigner(
        entries, method, expose, expose_holdout, failed, track_exposures, exposure_attributes
    )
    return assigner
