"""The one place that talks HTTP, through the standard library's urllib."""

import json
import random
import socket
import time
import urllib.error
import urllib.request
from typing import Any, Dict, Mapping, NamedTuple, Optional, Tuple

from ._retry_policy import RetryPolicy, is_retryable_status, parse_retry_after, retry_delay_ms


class Result(NamedTuple):
    """The outcome of a request. ``kind`` is one of:

    - ``ok``: a 2xx answer (``body`` is its JSON, or None);
    - ``not-modified``: a 304;
    - ``refused``: a 4xx that retrying would not change;
    - ``unreachable``: every attempt failed on the network, by timeout or with a retryable status.
    """

    kind: str
    status: int = 0
    headers: Mapping[str, str] = {}
    body: Any = None
    detail: str = ""


class Transport:
    """Never raises: every outcome, network failures included, is a value the caller looks at."""

    def __init__(self, base_url: str, api_key: str, timeout_ms: float, policy: RetryPolicy) -> None:
        self._base_url = base_url.rstrip("/")
        self._api_key = api_key
        self._timeout_s = timeout_ms / 1000
        self._policy = policy
        self._opener = urllib.request.build_opener()
        self._sleep = time.sleep

    def request(
        self,
        method: str,
        path: str,
        body: Optional[bytes] = None,
        headers: Optional[Dict[str, str]] = None,
        deadline: Optional[float] = None,
    ) -> Result:
        """Sends the request, retrying as the policy says. ``body`` is sent unchanged on every
        attempt, so a retried batch carries the same event ids. ``deadline`` (a
        ``time.monotonic()`` instant) cuts attempts and waits short."""
        detail = "no attempt made"
        for attempt in range(1, self._policy.max_attempts + 1):
            timeout = self._timeout_s
            if deadline is not None:
                timeout = min(timeout, deadline - time.monotonic())
                if timeout <= 0:
                    return Result("unreachable", detail="no time left: %s" % detail)
            outcome, retry_after_ms = self._attempt(method, path, body, headers or {}, timeout)
            if outcome.kind != "retry":
                return outcome
            detail = outcome.detail
            if attempt < self._policy.max_attempts:
                delay = retry_delay_ms(attempt, retry_after_ms, self._policy, random.random()) / 1000
                if deadline is not None:
                    delay = min(delay, max(0.0, deadline - time.monotonic()))
                self._sleep(delay)
        return Result("unreachable", detail=detail)

    def _attempt(
        self, method: str, path: str, body: Optional[bytes], extra: Dict[str, str], timeout: float
    ) -> Tuple[Result, Optional[float]]:
        headers = {"Accept": "application/json", "X-API-Key": self._api_key, "User-Agent": _USER_AGENT}
        if body is not None:
            headers["Content-Type"] = "application/json"
        headers.update(extra)
        req = urllib.request.Request(self._base_url + path, data=body, headers=headers, method=method)
        try:
            with self._opener.open(req, timeout=timeout) as res:
                text = res.read()
                return Result("ok", res.status, dict(res.headers.items()), _parse_json(text)), None
        except urllib.error.HTTPError as err:
            try:
                text = err.read()
            except Exception:
                text = b""
            finally:
                err.close()
            status = err.code
            if status == 304:
                return Result("not-modified", status), None
            detail = "HTTP %d%s" % (status, _problem_detail(text))
            if is_retryable_status(status):
                retry_after = parse_retry_after(err.headers.get("Retry-After"), time.time())
                return Result("retry", status, detail=detail), retry_after
            return Result("refused", status, detail=detail), None
        except (socket.timeout, TimeoutError):
            return Result("retry", detail="timed out after %.0f ms" % (timeout * 1000)), None
        except urllib.error.URLError as err:
            return Result("retry", detail=_describe(err.reason)), None
        except Exception as err:  # connection reset, bad status line, remote closed, ...
            return Result("retry", detail=_describe(err)), None


def _describe(err: Any) -> str:
    if isinstance(err, BaseException):
        text = str(err)
        return "%s: %s" % (type(err).__name__, text) if text else type(err).__name__
    return str(err)


def _parse_json(text: bytes) -> Any:
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _problem_detail(text: bytes) -> str:
    """RFC 9457 problems carry the useful words in ``detail`` (or ``title``)."""
    body = _parse_json(text)
    if not isinstance(body, dict):
        return ""
    words = body.get("detail") if isinstance(body.get("detail"), str) else body.get("title")
    return ": %s" % words if isinstance(words, str) and words else ""


def _user_agent() -> str:
    import platform

    from ._version import __version__

    return "arbiter-client-python/%s (Python %s)" % (__version__, platform.python_version())


_USER_AGENT = _user_agent()
