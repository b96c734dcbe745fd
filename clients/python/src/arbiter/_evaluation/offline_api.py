"""The routes ``evaluate`` calls: the config, datasets' items and offline runs.

Unlike the background poller and flusher, these calls are made for an explicit request of the
caller, so a refusal raises ``ArbiterError`` with the problem's detail (after the transport's
retries for what may pass unchanged: timeouts, 408, 429, 5xx, the network).
"""

import json
from typing import Any, Dict, Iterator, List, Mapping, Optional, Set, Tuple
from urllib.parse import quote, urlencode

from arbiter._core.errors import ArbiterError
from arbiter._evaluation.types import DatasetItem, OfflineRun
from arbiter._transport.transport import Transport

#: The most items ``GET /v1/datasets/{id}/items`` serves a page.
ITEMS_PAGE_LIMIT = 1_000
#: The most items ``GET /v1/offline-runs/{run_id}/items`` serves a page.
RUN_ITEMS_PAGE_LIMIT = 500

#: (item id, variant, repeat): one result of a run.
Triple = Tuple[str, str, int]


class OfflineApi:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def config(self) -> Dict[str, Any]:
        body = self._call("GET", "/v1/config", what="reading the config")
        if not isinstance(body, dict) or not isinstance(body.get("experiments"), list):
            raise ArbiterError("evaluate: the config document has no experiments")
        return body

    def create_run(self, experiment: str, request: Mapping[str, Any]) -> OfflineRun:
        path = "/v1/experiments/%s/offline-runs" % _segment(experiment)
        run: OfflineRun = self._call("POST", path, request, what="creating the offline run")
        return run

    def run(self, run_id: str) -> OfflineRun:
        run: OfflineRun = self._call("GET", "/v1/offline-runs/%s" % _segment(run_id), what="reading run %s" % run_id)
        return run

    def items(self, dataset_id: str, version: int) -> Iterator[DatasetItem]:
        """Every item of the dataset version, by id, page by page."""
        after: Optional[str] = None
        while True:
            query: Dict[str, Any] = {"version": version, "limit": ITEMS_PAGE_LIMIT}
            if after is not None:
                query["starting_after"] = after
            path = "/v1/datasets/%s/items?%s" % (_segment(dataset_id), urlencode(query))
            page = self._call("GET", path, what="reading the dataset's items")
            data: List[DatasetItem] = page.get("data") or []
            yield from data
            if not page.get("has_more") or not data:
                return
            after = data[-1]["id"]

    def held(self, run_id: str) -> Set[Triple]:
        """The (item, variant, repeat) triples the run already holds a result for."""
        out: Set[Triple] = set()
        after: Optional[str] = None
        while True:
            query: Dict[str, Any] = {"sort": "item", "limit": RUN_ITEMS_PAGE_LIMIT}
            if after is not None:
                query["starting_after"] = after
            path = "/v1/offline-runs/%s/items?%s" % (_segment(run_id), urlencode(query))
            page = self._call("GET", path, what="reading the results of run %s" % run_id)
            data = page.get("data") or []
            for item in data:
                for variant, results in (item.get("variants") or {}).items():
                    out.update((item["id"], variant, result["repeat"]) for result in results)
            if not page.get("has_more") or not data:
                return out
            after = data[-1]["id"]

    def upload(self, run_id: str, rows: List[Dict[str, Any]]) -> Dict[str, Any]:
        """``{accepted, duplicates, conflicts, errors}``. A retried batch that had arrived comes
        back as duplicates, so retrying is safe."""
        path = "/v1/offline-runs/%s/results" % _segment(run_id)
        what = "uploading results of run %s" % run_id
        answer: Dict[str, Any] = self._call("POST", path, {"results": rows}, what=what)
        return answer

    def complete(self, run_id: str) -> OfflineRun:
        path = "/v1/offline-runs/%s/complete" % _segment(run_id)
        run: OfflineRun = self._call("POST", path, None, what="completing run %s" % run_id)
        return run

    def _call(self, method: str, path: str, body: Any = None, *, what: str) -> Any:
        data = None
        if body is not None:
            data = json.dumps(body, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
        elif method == "POST":
            data = b"{}"
        result = self._transport.request(method, path, data)
        if result.kind != "ok":
            raise ArbiterError("evaluate: %s failed: %s" % (what, result.detail or result.kind))
        return result.body


def _segment(value: str) -> str:
    """A name or id as one path segment: a name may hold any character."""
    return quote(value, safe="")
