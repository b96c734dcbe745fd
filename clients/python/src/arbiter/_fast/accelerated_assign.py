"""``assign()`` and the exposure table in C, from the ``speedups`` extra
(docs/decisions/clients.md#pythons-assign-in-c-in-the-speedups-extra).

``Arbiter.assign`` is the definition; the C call takes the same steps with the same callbacks
into the client, and buckets an experiment without holdouts, layer or targeting itself. Without
the extra nothing here is used.
"""

from typing import Any, Callable, Optional

from arbiter._core.events.exposure_dedup import ExposureTable
from arbiter._fast.speedups import INSTALLED, speaks_this_interface


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


def accelerated_table(speedups: Any) -> Optional[Callable[[int, Callable[[], float]], ExposureTable]]:
    """The C exposure table of an imported ``arbiter_speedups`` that speaks this client's
    interface; None for any other (or None). Same sizes, same days, same answers as the pure
    table; in C a check is one call, where the pure probe costs about as much as the
    ``assign()`` around it (bench/python-client/RESULTS.md)."""
    if not speaks_this_interface(speedups):
        return None
    table: Callable[[int, Callable[[], float]], ExposureTable] = speedups.ExposureTable
    return table


#: The C assign, when the ``speedups`` extra is installed; else None. Read when an engine is
#: chosen (a test replaces it first to choose the pure assign).
ACCELERATED = accelerated(INSTALLED)

#: The C exposure table, when the ``speedups`` extra is installed; else None. Read likewise.
ACCELERATED_TABLE = accelerated_table(INSTALLED)
