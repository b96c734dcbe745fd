"""The real server (``arbiter serve``) and the API caller of the client's own tests
(clients/python/tests/support), shared rather than copied."""

import os
import sys
from typing import Iterator

import pytest

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO_ROOT, "clients", "python", "tests"))

from support.arbiter_server import ArbiterServer  # noqa: E402


@pytest.fixture(scope="session")
def server() -> Iterator[ArbiterServer]:
    running = ArbiterServer(REPO_ROOT).start()
    yield running
    running.stop()
