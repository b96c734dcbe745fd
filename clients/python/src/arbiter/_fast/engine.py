"""The fast engine: the core's engine (``arbiter._core.engine``) with each part replaced by a
faster one that answers the same. Conditions and targeting are generated Python functions
(``condition_source``, always available); the hash, the exposure table and ``assign()`` are C
from the ``speedups`` extra when it is installed and speaks this client's interface."""

from arbiter._core.engine import Engine
from arbiter._fast import accelerated_assign, speedups
from arbiter._fast.condition_source import generated_condition, generated_targeting


def choose_engine() -> Engine:
    """The engine a new client runs on: the fast one, with whichever C parts are installed."""
    return Engine(
        "fast",
        hash32=speedups.ACCELERATED_HASH,
        generated_condition=generated_condition,
        generated_targeting=generated_targeting,
        c_table=accelerated_assign.ACCELERATED_TABLE,
        c_assign=accelerated_assign.ACCELERATED,
    )
