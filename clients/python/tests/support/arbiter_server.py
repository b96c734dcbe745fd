"""The real Arbiter server (``arbiter serve``) as a child process, and a small API caller."""

import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import urllib.error
import urllib.request
import uuid
from http.client import HTTPConnection
from typing import Any, Dict, List, NamedTuple, Optional, Tuple
from urllib.parse import urlparse

BIN = ["apps", "server", "bin", "arbiter.js"]


class ArbiterServer:
    def __init__(self, repo_root: str) -> None:
        self._bin = os.path.join(repo_root, *BIN)
        self._cwd = repo_root
        self.data_dir = tempfile.mkdtemp(prefix="arbiter-pyclient-")
        self.env = dict(
            os.environ,
            ARBITER_PORT="0",
            ARBITER_DATA_DIR=self.data_dir,
            ARBITER_SESSION_JWKS_URL="",
            ARBITER_DATABASE_URL="",
            ARBITER_SECRET_KEY="",
            ARBITER_LOG_LEVEL="warn",
            # 10,000 users are assigned twice through POST /v1/assign.
            ARBITER_RATE_LIMIT_SECRET_PER_MINUTE="10000000",
            ARBITER_RATE_LIMIT_PUBLISHABLE_PER_MINUTE="10000000",
        )
        self._process: Optional[subprocess.Popen[str]] = None
        self.url = ""
        self.output: List[str] = []

    def start(self) -> "ArbiterServer":
        node = shutil.which("node") or "node"
        self._process = subprocess.Popen(
            [node, self._bin, "serve"],
            cwd=self._cwd,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert self._process.stdout is not None
        for line in self._process.stdout:
            self.output.append(line)
            match = re.search(r"Arbiter is running at (http://\S+)", line)
            if match:
                self.url = match.group(1)
                break
        if not self.url:
            raise RuntimeError("arbiter serve did not start:\n" + "".join(self.output))
        # Keep reading so that the server never blocks on a full pipe.
        threading.Thread(target=self._drain, daemon=True).start()
        return self

    def _drain(self) -> None:
        assert self._process is not None and self._process.stdout is not None
        for line in self._process.stdout:
            self.output.append(line)

    def stop(self) -> None:
        self.stop_process()
        shutil.rmtree(self.data_dir, ignore_errors=True)

    def stop_process(self) -> None:
        """Ends the process and keeps its data: ``start`` again serves the same orgs."""
        if self._process is not None:
            self._process.terminate()
            try:
                self._process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self._process.kill()
            self._process = None

    def token(self, org: str) -> str:
        result = subprocess.run(
            ["node", self._bin, "token", "--email", "admin@%s.test" % org, "--org", org, "--role", "admin"],
            cwd=self._cwd,
            env=self.env,
            capture_output=True,
            text=True,
            check=True,
        )
        return result.stdout.strip()


class Api:
    """Calls the API as a dashboard user (session) or an SDK (key)."""

    def __init__(self, url: str, session: Optional[str] = None, key: Optional[str] = None) -> None:
        self.url = url
        self._headers = {"Content-Type": "application/json"}
        if session:
            self._headers["Authorization"] = "Bearer " + session
        if key:
            self._headers["X-API-Key"] = key

    def call(self, method: str, path: str, body: Any = None) -> Tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        # A request without a body says nothing of its type (the server refuses an empty JSON body).
        headers = self._headers if data is not None else {k: v for k, v in self._headers.items() if k != "Content-Type"}
        req = urllib.request.Request(self.url + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=30) as res:
                text = res.read()
                return res.status, json.loads(text) if text else None
        except urllib.error.HTTPError as err:
            text = err.read()
            return err.code, json.loads(text) if text else None


class AssignCaller:
    """``POST /v1/assign`` over one kept-alive connection per thread."""

    def __init__(self, url: str, key: str) -> None:
        parsed = urlparse(url)
        self._host, self._port = parsed.hostname or "127.0.0.1", parsed.port or 80
        self._key = key
        self._local = threading.local()

    def assign(
        self, experiment: str, user: str, attributes: Optional[Dict[str, Any]] = None
    ) -> Tuple[int, Dict[str, Any]]:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = HTTPConnection(self._host, self._port, timeout=30)
        request: Dict[str, Any] = {"experiment_id": experiment, "user_id": user}
        if attributes is not None:
            request["attributes"] = attributes
        body = json.dumps(request)
        conn.request(
            "POST", "/v1/assign", body=body, headers={"Content-Type": "application/json", "X-API-Key": self._key}
        )
        res = conn.getresponse()
        return res.status, json.loads(res.read())


def experiment_config(**overrides: Any) -> Dict[str, Any]:
    """A valid experiment (apps/server/test/support/harness.ts ``experimentConfig``)."""
    config: Dict[str, Any] = {
        "name": "py-exp",
        "salt": "salt-1",
        "bucket_count": 1000,
        "allocation": [{"variant": "control", "weight": 50}, {"variant": "treatment", "weight": 50}],
        "variants": [
            {"key": "control", "prompt": "You are helpful.", "variables": {"temperature": 0.7}},
            {"key": "treatment", "prompt": "Be concise.", "variables": {"temperature": 0.2}},
        ],
        "metrics": [
            {
                "name": "latency",
                "kind": "latency",
                "category": "guardrail",
                "method_default": "welch_t",
                "metric_version": 1,
                "shared_org_wide": False,
            },
            {
                "name": "checkout",
                "kind": "conversion",
                "category": "primary",
                "method_default": "two_proportion_z",
                "metric_version": 1,
                "shared_org_wide": True,
            },
        ],
    }
    config.update(overrides)
    return config


class Org(NamedTuple):
    """A new org of the server: a dashboard session and both keys."""

    session: Api
    publishable: str
    secret: str


def new_org(server: ArbiterServer) -> Org:
    session = Api(server.url, session=server.token("org-%s" % uuid.uuid4().hex[:8]))
    keys = {}
    for scope in ("publishable", "secret"):
        status, body = session.call("POST", "/v1/keys", {"scope": scope})
        assert status == 201, body
        keys[scope] = body["key"]
    return Org(session, keys["publishable"], keys["secret"])


def create_experiment(org: Org, **overrides: Any) -> Dict[str, Any]:
    status, body = org.session.call("POST", "/v1/experiments", experiment_config(**overrides))
    assert status == 201, body
    return body  # type: ignore[no-any-return]
