"""The ``speedups`` extra (``pip install arbiter-client[speedups]``, clients/python-speedups): the
C parts this client takes when they are installed and speak its interface."""

from typing import Any, Optional

#: The ``API_VERSION`` of ``arbiter_speedups`` this client takes its C parts from.
SPEEDUPS_API_VERSION = 2


def speaking_this_interface(speedups: Any) -> Optional[Any]:
    """``speedups`` when it speaks this client's interface (``API_VERSION`` 2); None for any
    other, so that a mismatched install costs speed, never the import of the client."""
    return speedups if getattr(speedups, "API_VERSION", None) == SPEEDUPS_API_VERSION else None


try:
    import arbiter_speedups

    #: The installed extra, when it speaks this client's interface; else None.
    INSTALLED: Optional[Any] = speaking_this_interface(arbiter_speedups)
except ImportError:  # the plain install: no runtime dependency
    INSTALLED = None
