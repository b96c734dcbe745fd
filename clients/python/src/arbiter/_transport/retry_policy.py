"""When and how long to wait before a request is tried again. Durations are in seconds."""

import email.utils
import re
from typing import NamedTuple, Optional

from arbiter._core.constants import RETRY_JITTER


class RetryPolicy(NamedTuple):
    max_attempts: int
    base_delay: float
    max_delay: float
    retry_after_cap: float


def is_retryable_status(status: int) -> bool:
    """Only answers that may succeed unchanged are retried: a timeout (408), a throttle (429)
    or a server fault (5xx). Any other 4xx would fail the same way again."""
    return status == 408 or status == 429 or status >= 500


def retry_delay(retry: int, retry_after: Optional[float], policy: RetryPolicy, random: float) -> float:
    """Seconds before retry number ``retry`` (1 = the first retry).

    A server's ``Retry-After`` wins, up to the cap; otherwise capped exponential backoff,
    shortened by up to 25 % at random so that many clients failing together do not come back
    together. ``random`` is in [0, 1).
    """
    if retry_after is not None:
        return min(retry_after, policy.retry_after_cap)
    exponential: float = min(policy.base_delay * 2.0 ** (retry - 1), policy.max_delay)
    return exponential * (1 - RETRY_JITTER * random)


_SECONDS = re.compile(r"^\d+(\.\d+)?$")


def parse_retry_after(value: Optional[str], now: float) -> Optional[float]:
    """``Retry-After`` as delta-seconds or an HTTP date (RFC 9110 §10.2.3), in seconds from
    ``now`` (seconds since the epoch); None when absent or unreadable."""
    if value is None:
        return None
    text = value.strip()
    if _SECONDS.match(text):
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - now)
