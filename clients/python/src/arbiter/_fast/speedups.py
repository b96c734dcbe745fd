"""The ``speedups`` extra (``pip install arbiter-client[speedups]``, clients/python-speedups): the
C parts this client takes when they are installed and speak its interface, and ``mmh3``'s
MurmurHash3_x86_32."""

from typing import Any, Optional

from arbiter._core.bucketing.bucketing import Hash32

#: The ``API_VERSION`` of ``arbiter_speedups`` this client takes its C parts from.
SPEEDUPS_API_VERSION = 2


def speaks_this_interface(speedups: Any) -> bool:
    """Whether ``speedups`` speaks this client's interface (``API_VERSION`` 2). A mismatched
    install is passed over: it costs speed, never the import of the client."""
    return getattr(speedups, "API_VERSION", None) == SPEEDUPS_API_VERSION


try:
    import arbiter_speedups

    #: The installed extra, whichever interface it speaks; None when it is not installed.
    INSTALLED: Optional[Any] = arbiter_speedups
except ImportError:  # the plain install: no runtime dependency
    INSTALLED = None

#: ``hash(key, seed, signed)`` of the ``mmh3`` C extension: the same MurmurHash3_x86_32, about 2x
#: faster per call than the pure-Python hash. None when the extra is not installed.
try:
    from mmh3 import hash as _mmh3_hash

    ACCELERATED_HASH: Optional[Hash32] = _mmh3_hash
except ImportError:  # the plain install: no runtime dependency
    ACCELERATED_HASH = None
