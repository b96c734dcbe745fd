"""A local Arbiter API that serves a config and takes events, and injects faults on demand.

It keeps every request body it received (``attempts``) and, separately, what it acknowledged
(``stored``: event id -> event, one entry per id, as the real server's idempotency keeps it;
``acknowledged``: how many times a 202 covered each id).
"""

import json
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler
from typing import Any, Dict, List, Optional, Tuple, Union

from .http_server import LoopbackServer

#: Faults for ``POST /v1/events``, consumed one per request:
#:   "ok" (202), ("status", code, headers), ("hang", seconds): no answer for that long,
#:   "drop": read the body and close the connection without an answer,
#:   "store-then-drop": store the events, then close without an answer (the ack is lost),
#:   "store-then-die": store the events, stop listening and close without an answer: the
#:   server dies mid-flush, and every later connection is refused.
Action = Union[str, Tuple[Any, ...]]

EXPERIMENT_ID = "0b6f1c9e-7c1a-4d3e-9a43-0c1a2b3c4d5e"
EXPERIMENT_NAME = "checkout-prompt"


def config_document(version: int = 1) -> Dict[str, Any]:
    return {
        "config_version": version,
        "bucketing_version": "1",
        "experiments": [
            {
                "id": EXPERIMENT_ID,
                "name": EXPERIMENT_NAME,
                "version": 1,
                "salt": "s-8f2a",
                "bucket_count": 10000,
                "ranges": [
                    {"variant": "control", "start": 0, "end": 5000},
                    {"variant": "concise", "start": 5000, "end": 10000},
                ],
                "variants": [
                    {"key": "control", "prompt": "You are a helpful assistant.", "variables": {"temperature": 0.7}},
                    {"key": "concise", "prompt": "Answer in one sentence.", "variables": {"temperature": 0.2}},
                ],
            }
        ],
    }


class FakeArbiter:
    def __init__(self, port: int = 0) -> None:
        self.lock = threading.Lock()
        self.actions: List[Action] = []
        self.attempts: List[List[Dict[str, Any]]] = []
        self.stored: Dict[str, Dict[str, Any]] = {}
        self.acknowledged: "Counter[str]" = Counter()
        self.config = config_document()
        self.config_statuses: List[int] = []
        self.api_keys: List[Optional[str]] = []
        #: Every request's headers, in arrival order.
        self.headers: List[Dict[str, str]] = []
        #: Every tally of ``POST /v1/targeting-tallies`` answered 200, in arrival order.
        self.tallies: List[Dict[str, Any]] = []
        #: How many tallies each ``POST /v1/targeting-tallies`` carried, faults included.
        self.tally_requests: List[int] = []
        #: Statuses for the next ``POST /v1/targeting-tallies`` requests, used up in order (the
        #: events' ``actions`` are left alone).
        self.tally_faults: List[int] = []
        #: While not set, config requests wait: a test sees the client before its first load.
        self.config_released = threading.Event()
        self.config_released.set()
        self._server = LoopbackServer(_Handler, port)

    def start(self) -> "FakeArbiter":
        self._server.start()
        self._server._httpd.fake = self  # type: ignore[union-attr]
        return self

    def stop(self) -> None:
        self._server.stop()

    @property
    def url(self) -> str:
        return self._server.url

    def plan(self, *actions: Action) -> None:
        with self.lock:
            self.actions.extend(actions)

    def next_action(self) -> Action:
        with self.lock:
            return self.actions.pop(0) if self.actions else "ok"

    def store(self, events: List[Dict[str, Any]]) -> None:
        with self.lock:
            for e in events:
                self.stored.setdefault(e["event_id"], e)

    def acknowledge(self, events: List[Dict[str, Any]]) -> None:
        with self.lock:
            for e in events:
                self.acknowledged[e["event_id"]] += 1


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    @property
    def fake(self) -> FakeArbiter:
        return self.server.fake  # type: ignore[attr-defined,no-any-return]

    def do_GET(self) -> None:
        fake = self.fake
        fake.api_keys.append(self.headers.get("X-API-Key"))
        fake.headers.append(dict(self.headers.items()))
        fake.config_released.wait()
        if self.path != "/v1/config":
            return self._json(404, {"title": "not found"})
        etag = '"%d"' % fake.config["config_version"]
        if self.headers.get("If-None-Match") == etag:
            fake.config_statuses.append(304)
            self.send_response(304)
            self.send_header("ETag", etag)
            self.end_headers()
            return
        fake.config_statuses.append(200)
        self._json(200, fake.config, {"ETag": etag})

    def do_POST(self) -> None:
        fake = self.fake
        fake.api_keys.append(self.headers.get("X-API-Key"))
        fake.headers.append(dict(self.headers.items()))
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path == "/v1/targeting-tallies":
            return self._tally(body["tallies"])
        events = body["events"]
        with fake.lock:
            fake.attempts.append(events)
        action = fake.next_action()
        if action in ("drop", "store-then-drop", "store-then-die"):
            if action != "drop":
                fake.store(events)
            if action == "store-then-die":
                self.server.socket.close()  # refused from now on
                threading.Thread(target=fake.stop, daemon=True).start()
            self.close_connection = True
            self.connection.close()
            return
        if isinstance(action, tuple) and action[0] == "hang":
            time.sleep(action[1])
            return
        if isinstance(action, tuple) and action[0] == "status":
            headers = action[2] if len(action) > 2 else {}
            return self._json(action[1], {"title": "fault", "status": action[1], "detail": "injected"}, headers)
        fake.store(events)
        fake.acknowledge(events)
        self._json(202, {"accepted": len(events), "config_version": fake.config["config_version"], "rejected": []})

    def _tally(self, tallies: List[Dict[str, Any]]) -> None:
        fake = self.fake
        with fake.lock:
            fake.tally_requests.append(len(tallies))
            # As the real route: the secret key only.
            if not (self.headers.get("X-API-Key") or "").startswith("svc_sk_"):
                status: Optional[int] = 401
            else:
                status = fake.tally_faults.pop(0) if fake.tally_faults else None
            if status is None:
                fake.tallies.extend(tallies)
        if status is not None:
            return self._json(status, {"title": "fault", "status": status, "detail": "injected"})
        self._json(200, {"accepted": len(tallies), "rejected": []})

    def _json(self, status: int, body: Any, headers: Optional[Dict[str, str]] = None) -> None:
        data = json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            pass  # the client gave up (timeout): nothing to answer
