"""``http_client``: every request goes through the opener or callable the host hands in, and what
it raises or returns is treated as urllib's own answers are (retried, refused or delivered)."""

import email.message
import urllib.request
from typing import Any, List, Tuple

import pytest

from arbiter import Arbiter
from support.fake_arbiter import EXPERIMENT_NAME, FakeArbiter


def track_one(client: Arbiter, user: str = "u-1") -> None:
    client.track("business_event", experiment_id=EXPERIMENT_NAME, user_id=user, business_metric="m", value=1)


class Via(urllib.request.BaseHandler):
    """An opener's handler that marks every request, as a proxy or signing handler would."""

    def http_request(self, request: urllib.request.Request) -> urllib.request.Request:
        request.add_header("X-Via", "host-opener")
        return request


def test_an_opener_carries_every_request(fake: FakeArbiter, make_client: Any) -> None:
    client = make_client(base_url=fake.url, http_client=urllib.request.build_opener(Via()))
    assert client.ready(timeout=30) is True
    track_one(client)
    client.flush()
    assert len(fake.stored) == 1
    assert [h.get("X-Via") for h in fake.headers] == ["host-opener", "host-opener"]  # config, events


class Answer:
    """A response as a host's callable may return it: an error status without raising."""

    def __init__(self, status: int, body: bytes = b"{}") -> None:
        self.status = status
        self.headers = email.message.Message()
        self._body = body

    def read(self) -> bytes:
        return self._body

    def __enter__(self) -> "Answer":
        return self

    def __exit__(self, *exc: Any) -> None:
        pass


def test_a_callable_is_called_with_the_request_and_timeout_and_its_faults_are_retried(
    fake: FakeArbiter, make_client: Any
) -> None:
    calls: List[Tuple[str, str, float]] = []
    faults: List[Any] = [ConnectionResetError("injected reset"), Answer(503)]

    def send(request: urllib.request.Request, *, timeout: float) -> Any:
        calls.append((request.get_method(), request.full_url, timeout))
        if request.get_method() == "POST" and faults:
            fault = faults.pop(0)
            if isinstance(fault, Exception):
                raise fault
            return fault
        return urllib.request.urlopen(request, timeout=timeout)

    waits: List[float] = []
    client = make_client(base_url=fake.url, http_client=send, sleep=waits.append, request_timeout=2.5)
    assert client.ready(timeout=30) is True
    track_one(client)
    client.flush()
    posts = [c for c in calls if c[0] == "POST"]
    assert posts == [("POST", fake.url + "/v1/events", 2.5)] * 3
    assert calls[0] == ("GET", fake.url + "/v1/config", 2.5)
    assert len(waits) == 2  # one wait before each retry
    assert len(fake.attempts) == 1 and len(fake.stored) == 1  # the faults never reached the server
    assert client.stats()["sent"] == 1


def test_a_refusal_a_callable_returns_drops_the_batch(fake: FakeArbiter, make_client: Any, warnings_log: Any) -> None:
    def send(request: urllib.request.Request, *, timeout: float) -> Any:
        if request.get_method() == "POST":
            return Answer(400, b'{"detail": "bad batch"}')
        return urllib.request.urlopen(request, timeout=timeout)

    client = make_client(base_url=fake.url, http_client=send)
    track_one(client)
    client.flush()
    assert client.stats()["dropped"] == 1
    assert any("HTTP 400: bad batch" in r.getMessage() for r in warnings_log.records)


def test_urlopen_itself_is_a_valid_http_client(fake: FakeArbiter, make_client: Any) -> None:
    client = make_client(base_url=fake.url, http_client=urllib.request.urlopen)
    assert client.ready(timeout=30) is True
    assert client.assign(EXPERIMENT_NAME, "u-1") is not None


def test_anything_else_is_refused_at_construction() -> None:
    with pytest.raises(TypeError, match="http_client must be an opener"):
        Arbiter(api_key="k", base_url="http://127.0.0.1:9", http_client="http://proxy")  # type: ignore[arg-type]
