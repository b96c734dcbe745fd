"""What the fake Arbiter stored, read the way the integration tests read it."""

from typing import Any, Dict, List

from arbiter import Arbiter

from .fake_arbiter import FakeArbiter


def events_of(fake: FakeArbiter, client: Arbiter, kind: str) -> List[Dict[str, Any]]:
    """The events of one type the fake server stored, after the client flushed."""
    client.flush()
    return [e for e in fake.stored.values() if e["type"] == kind]
