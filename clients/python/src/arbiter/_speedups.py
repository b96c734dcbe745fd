"""The ``speedups`` extra (``pip install arbiter-client[speedups]``, clients/python-speedups): the
C parts this client takes when they are installed and speak its interface."""

from typing import Any, Optional

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
