"""When and how long to wait before a request is tried again (STYLE 12)."""

import email.utils
import re
from typing import NamedTuple, Optional

from ._constants import RETRY_JITTER


class RetryPolicy(NamedTuple):
    max_attempts: int
    base_delay_ms: float
    max_delay_ms: float
    retry_after_cap_ms: float


def is_retryable_status(status: int) -> bool:
    """Only answers that may succeed unchanged are retried: a timeout (408), a throttle (429)
    or a server fault (5xx). Any other 4xx would fail the same way again."""
    return status == 408 or status == 429 or status >= 500


def retry_delay_ms(retry: int, retry_after_ms: Optional[float], policy: RetryPolicy, random: float) -> float:
    """Milliseconds before retry number ``retry`` (1 = the first retry).

    A server's ``Retry-After`` wins, up to the cap; otherwise capped exponential backoff,
    shortened by up to 25 % at random so that many clients failing together do not come back
    together. ``random`` is in [0, 1).
    """
    if retry_after_ms is not None:
        return min(retry_after_ms, policy.retry_after_cap_ms)
    exponential: float = min(policy.base_delay_ms * 2.0 ** (retry - 1), policy.max_delay_ms)
    return exponential * (1 - RETRY_JITTER * random)


_SECONDS = re.compile(r"^\d+(\.\d+)?$")


def parse_retry_after(value: Optional[str], now_s: float) -> Optional[float]:
    """``Retry-After`` as delta-seconds or an HTTP date (RFC 9110 §10.2.3), in milliseconds;
    None when absent or unreadable."""
    if value is None:
        return None
    text = value.strip()
    if _SECONDS.match(text):
        return float(text) * 1000
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, (when.timestamp() - now_s) * 1000)
