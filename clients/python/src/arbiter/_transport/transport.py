"""The one place that makes HTTP requests: through the standard library's urllib, or the host's
``http_client``."""

import json
import random
import socket
import time
import urllib.error
import urllib.request
from typing import Any, Callable, Dict, Mapping, NamedTuple, Optional, Tuple

from arbiter._transport.http_client import Send
from arbiter._transport.retry_policy import RetryPolicy, is_retryable_status, parse_retry_after, retry_delay


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
    """Never raises: every outcome, network failures included, is a value the caller looks at.
    Durations are in seconds."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        timeout: float,
        policy: RetryPolicy,
        send: Send,
        sleep: Callable[[float], None],
    ) -> None:
        self._base_url = base_url.rstrip("/")
        self._api_key = api_key
        self._timeout = timeout
        self._policy = policy
        self._send = send
        self._sleep = sleep

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
            timeout = self._timeout
            if deadline is not None:
                timeout = min(timeout, deadline - time.monotonic())
                if timeout <= 0:
                    return Result("unreachable", detail="no time left: %s" % detail)
            outcome, retry_after = self._attempt(method, path, body, headers or {}, timeout)
            if outcome.kind != "retry":
                return outcome
            detail = outcome.detail
            if attempt < self._policy.max_attempts:
                delay = retry_delay(attempt, retry_after, self._policy, random.random())
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
            with self._send(req, timeout=timeout) as res:
                status, answer_headers, text = _status_of(res), res.headers, res.read()
        except urllib.error.HTTPError as err:
            status, answer_headers, text = err.code, err.headers, _read_and_close(err)
        except (socket.timeout, TimeoutError):
            return Result("retry", detail="timed out after %.0f ms" % (timeout * 1000)), None
        except urllib.error.URLError as err:
            return Result("retry", detail=_describe(err.reason)), None
        except Exception as err:  # connection reset, bad status line, remote closed, ...
            return Result("retry", detail=_describe(err)), None
        return _classify(status, answer_headers, text)


def _classify(status: int, headers: Any, text: bytes) -> Tuple[Result, Optional[float]]:
    """The outcome of an answer, whether the sender returned it or raised it as an HTTPError
    (urllib's openers raise for every status outside 2xx; a host's callable may not)."""
    if 200 <= status < 300:
        return Result("ok", status, dict(headers.items()) if headers is not None else {}, _parse_json(text)), None
    if status == 304:
        return Result("not-modified", status), None
    detail = "HTTP %d%s" % (status, _problem_detail(text))
    if is_retryable_status(status):
        retry_after = parse_retry_after(headers.get("Retry-After") if headers is not None else None, time.time())
        return Result("retry", status, detail=detail), retry_after
    return Result("refused", status, detail=detail), None


def _status_of(response: Any) -> int:
    """``http.client.HTTPResponse`` has ``status``; urllib's other responses ``code``."""
    status = getattr(response, "status", None)
    return status if isinstance(status, int) else int(getattr(response, "code", 0))


def _read_and_close(err: urllib.error.HTTPError) -> bytes:
    try:
        return err.read()
    except Exception:
        return b""
    finally:
        err.close()


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

    from arbiter._version import __version__

    return "arbiter-client-python/%s (Python %s)" % (__version__, platform.python_version())


_USER_AGENT = _user_agent()
