import time
from typing import Callable


def wait_until(predicate: Callable[[], bool], what: str, guard_s: float = 30.0) -> None:
    """Polls ``predicate``; the guard only turns a hang into a failure, it is not a bound tested."""
    end = time.monotonic() + guard_s
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError("never happened: " + what)
        time.sleep(0.01)
