"""The offline file is the Node client's format: the Node client's own FileOfflineStore
(clients/typescript, run through tsx) reads what Python spilled, and Python replays what Node
wrote."""

import json
import os
import subprocess
from datetime import datetime, timezone
from typing import Any, Dict, List

from conftest import REPO_ROOT
from support.fake_arbiter import EXPERIMENT_NAME, FakeArbiter
from support.http_server import free_port

TSX = os.path.join(REPO_ROOT, "node_modules", ".bin", "tsx")
NODE_STORE = """
import { FileOfflineStore } from './clients/typescript/src/internal/offline-store-file.ts';
(async () => {
  const store = new FileOfflineStore(process.argv[1], 100000);
  const append = JSON.parse(process.argv[2]);
  if (append.length > 0) await store.append(append);
  process.stdout.write(JSON.stringify(await store.peek(100000)));
})();
"""


def node_store(path: str, append: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """Appends with the Node store (when given events), then returns what it reads."""
    out = subprocess.run(
        [TSX, "-e", NODE_STORE, path, json.dumps(append)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def test_node_reads_what_python_spilled(make_client: Any, tmp_path: Any) -> None:
    path = str(tmp_path / "spill.ndjson")
    client = make_client(base_url="http://127.0.0.1:%d" % free_port(), offline_store_path=path, max_attempts=1)
    client.track(
        "business_event",
        experiment_id=EXPERIMENT_NAME,
        user_id="caf\u00e9 \U0001f600",
        business_metric="revenue",
        value=19.99,
        metadata={"order": "A-17", "items": [1, 2]},
    )
    client.track(
        "model_call",
        experiment_id=EXPERIMENT_NAME,
        user_id="u-2",
        latency_ms=812.5,
        error=None,
        prompt="user: \u4f60\u597d",
        response="line 1\nline 2",
    )
    client.flush()
    with open(path, encoding="utf-8") as f:
        spilled = [json.loads(line) for line in f]
    assert len(spilled) == 2
    assert node_store(path, []) == spilled


def test_python_replays_what_node_wrote(fake: FakeArbiter, make_client: Any, tmp_path: Any) -> None:
    path = str(tmp_path / "from-node.ndjson")
    now = datetime.now(timezone.utc).isoformat(timespec="milliseconds")[:-6] + "Z"
    events = [
        {
            "experiment_id": EXPERIMENT_NAME,
            "user_id": "n-%d" % i,
            "business_metric": "checkout",
            "value": i,
            "event_id": "6f1c9e0b-0000-4000-8000-%012d" % i,
            "type": "business_event",
            "timestamp": now,
        }
        for i in range(3)
    ]
    assert node_store(path, events) == events
    client = make_client(base_url=fake.url, offline_store_path=path)
    client.flush()
    assert fake.stored == {e["event_id"]: e for e in events}
    assert client.stats()["replayed"] == 3
    assert node_store(path, []) == []
