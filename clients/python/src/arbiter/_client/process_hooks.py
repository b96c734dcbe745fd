"""Process events every live client must react to: interpreter exit and ``os.fork()``.

One ``atexit`` hook and one at-fork hook serve all clients, registered with the first client
(never at import), and hold them weakly so that a dropped client can be collected.
"""

import atexit
import os
import threading
import weakref
from typing import Any

_clients: "weakref.WeakSet[Any]" = weakref.WeakSet()
_registered = False
_lock = threading.Lock()


def track_client(client: Any) -> None:
    """``client`` must have ``_at_exit()`` and ``_after_fork_in_child()``."""
    global _registered
    with _lock:
        _clients.add(client)
        if not _registered:
            _registered = True
            atexit.register(_at_exit)
            if hasattr(os, "register_at_fork"):
                os.register_at_fork(after_in_child=_after_fork_in_child)


def forget_client(client: Any) -> None:
    _clients.discard(client)


def _at_exit() -> None:
    for client in list(_clients):
        client._at_exit()


def _after_fork_in_child() -> None:
    global _lock
    # The lock may have been held by a thread of the parent, which does not exist here.
    _lock = threading.Lock()
    for client in list(_clients):
        client._after_fork_in_child()
