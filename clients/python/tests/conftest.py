import json
import logging
import os
import sys
from typing import Any, Dict, Iterator, List

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from arbiter import Arbiter
from arbiter._fast import accelerated_assign as _accelerated_assign
from support.arbiter_server import ArbiterServer
from support.fake_arbiter import EXPERIMENT_NAME, FakeArbiter
from support.fake_llm import start_fake_llm
from support.http_server import LoopbackServer

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def read_testdata(name: str) -> Dict[str, Any]:
    """A file of the shared vectors (testdata/), the one copy every library reads in place."""
    with open(os.path.join(REPO_ROOT, "testdata", name), encoding="utf-8") as f:
        loaded: Dict[str, Any] = json.load(f)
    return loaded


#: Small delays (in seconds) so that retries, backoff and timeouts play out in milliseconds.
FAST = dict(
    request_timeout=0.3,
    retry_base_delay=0.005,
    retry_max_delay=0.02,
    retry_after_cap=0.05,
    flush_interval=3600.0,  # flushes come from flush(), so every test decides when
    poll_interval=3600.0,
)


@pytest.fixture(scope="session")
def server() -> Iterator[ArbiterServer]:
    """The real server (``arbiter serve``), one for the session: each test makes its own org."""
    running = ArbiterServer(REPO_ROOT).start()
    yield running
    running.stop()


@pytest.fixture
def fake() -> Iterator[FakeArbiter]:
    server = FakeArbiter().start()
    yield server
    server.stop()


class Clients:
    """Makes clients and closes them after the test."""

    def __init__(self) -> None:
        self.made: List[Arbiter] = []

    def __call__(self, **options: Any) -> Arbiter:
        merged = dict(FAST)
        merged.update(options)
        merged.setdefault("api_key", "svc_pk_test")
        client = Arbiter(**merged)
        self.made.append(client)
        return client


@pytest.fixture
def make_client() -> Iterator[Clients]:
    clients = Clients()
    yield clients
    for c in clients.made:
        c.close(timeout=5)


@pytest.fixture
def warnings_log(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.WARNING, logger="arbiter")
    return caplog


@pytest.fixture
def llm() -> Iterator[LoopbackServer]:
    """A local server speaking OpenAI's and Anthropic's protocols, for the model-call integrations."""
    server = start_fake_llm()
    yield server
    server.stop()


@pytest.fixture
def arbiter_client(fake: FakeArbiter, make_client: Any) -> Arbiter:
    """A client of the fake Arbiter with its experiment's config loaded."""
    client: Arbiter = make_client(base_url=fake.url, experiments=[EXPERIMENT_NAME])
    assert client.ready(timeout=30)
    return client


#: The speedups extra's C assign, which the tests install.
C_ASSIGN = _accelerated_assign.ACCELERATED


@pytest.fixture(params=["c", "python"])
def assign_kind(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Runs a test with the speedups extra's assign() in C and with the Python method (the plain
    install's): a module opts in with ``pytestmark = pytest.mark.usefixtures("assign_kind")``.
    A client takes the C assign when it is made and its config compiled, both in the test."""
    assert C_ASSIGN is not None, "arbiter-client-speedups is not installed"
    monkeypatch.setattr(_accelerated_assign, "ACCELERATED", C_ASSIGN if request.param == "c" else None)
    return str(request.param)
