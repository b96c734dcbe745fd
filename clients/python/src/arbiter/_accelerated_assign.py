"""``assign()`` in C, from the ``speedups`` extra (docs/decisions.md#pythons-assign-in-c-in-the-speedups-extra).

``Arbiter.assign`` is the definition; the C call takes the same steps with the same callbacks
into the client, and buckets an experiment without holdouts, layer or targeting itself. Without
the extra nothing here is used.
"""

from typing import Any, Callable, Dict, Optional, Sequence

from ._bucketing import ordered_ranges
from ._exposure_dedup import SPEEDUPS_API_VERSION, ExposureTable
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
    """The C assign of an imported ``arbiter_speedups`` speaking this client's interface; None
    for any other, so that a mismatched install costs speed, never the import."""
    if getattr(speedups, "API_VERSION", None) != SPEEDUPS_API_VERSION:
        return None
    return _Accelerated(speedups)


try:  # pip install arbiter-client[speedups] (clients/python-speedups)
    import arbiter_speedups

    #: The C assign, when the extra is installed and speaks this client's interface; else None.
    ACCELERATED = accelerated(arbiter_speedups)
except ImportError:  # the plain install: no runtime dependency
    ACCELERATED = None


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


def accelerated_assign(
    entries: Dict[str, Any],
    method: Assign,
    expose: Callable[[str, str, str, Any], None],
    expose_holdout: Any,
    failed: Callable[[Exception], None],
    track_exposures: bool,
) -> Optional[Assign]:
    """A client's assign in C over the store's ``entries``, or None without the extra."""
    c = ACCELERATED
    if c is None:
        return None
    assign: Assign = c.assigner(entries, method, expose, expose_holdout, failed, track_exposures).assign
    return assign
