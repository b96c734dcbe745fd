"""Speaks enough of OpenAI's (Chat Completions, Responses) and Anthropic's (Messages) HTTP
protocols, JSON and SSE, for the real SDKs to parse its answers.

The answer echoes the last user message, so a test can tell whose call a recorded event is.
"""

import json
import time
from http.server import BaseHTTPRequestHandler
from typing import Any, Dict, List, Optional, Tuple

from .http_server import LoopbackServer

#: Answers are held back this long, so that concurrent calls interleave.
RESPONSE_DELAY_S = 0.02
STREAM_GAP_S = 0.003
#: A request for this model fails with 400 in the provider's error format.
FAILING_MODEL = "model-that-fails"
USAGE = {"input": 11, "output": 7}
#: Per model, what the answer reports instead: ``input`` and ``output`` totals, and the
#: ``cached`` input and ``reasoning`` output among them (Anthropic's cache read is apart).
USAGE_BY_MODEL: Dict[str, Dict[str, int]] = {}

Event = Tuple[Optional[str], Any]


def answer_text(body: Dict[str, Any]) -> str:
    messages = body.get("messages") or [{"content": body.get("input", "")}]
    last = messages[-1].get("content") if isinstance(messages[-1], dict) else ""
    if isinstance(last, list):
        last = "".join(part.get("text", "") for part in last if isinstance(part, dict))
    return "Echo: %s" % (last if isinstance(last, str) else "")


def _chat(model: str, body: Dict[str, Any]) -> Tuple[Any, List[Event]]:
    text = answer_text(body)
    counts = USAGE_BY_MODEL.get(model, USAGE)
    usage: Dict[str, Any] = {
        "prompt_tokens": counts["input"],
        "completion_tokens": counts["output"],
        "total_tokens": counts["input"] + counts["output"],
    }
    if model in USAGE_BY_MODEL:
        usage["prompt_tokens_details"] = {"cached_tokens": counts.get("cached", 0)}
        usage["completion_tokens_details"] = {"reasoning_tokens": counts.get("reasoning", 0)}
    base = {"id": "chatcmpl-1", "created": 1, "model": model}

    def chunk(delta: Dict[str, Any], finish: Optional[str]) -> Dict[str, Any]:
        return dict(
            base, object="chat.completion.chunk", choices=[{"index": 0, "delta": delta, "finish_reason": finish}]
        )

    stream: List[Event] = [
        (None, chunk({"role": "assistant", "content": text[:5]}, None)),
        (None, chunk({"content": text[5:]}, None)),
        (None, chunk({}, "stop")),
    ]
    if (body.get("stream_options") or {}).get("include_usage"):
        stream.append((None, dict(base, object="chat.completion.chunk", choices=[], usage=usage)))
    stream.append((None, "[DONE]"))
    json_body = dict(
        base,
        object="chat.completion",
        usage=usage,
        choices=[{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
    )
    return json_body, stream


def _responses(model: str, body: Dict[str, Any]) -> Tuple[Any, List[Event]]:
    text = answer_text(body)
    counts = USAGE_BY_MODEL.get(model, USAGE)
    usage = {
        "input_tokens": counts["input"],
        "output_tokens": counts["output"],
        "total_tokens": counts["input"] + counts["output"],
        "input_tokens_details": {"cached_tokens": counts.get("cached", 0)},
        "output_tokens_details": {"reasoning_tokens": counts.get("reasoning", 0)},
    }

    def response(status: str, with_usage: bool) -> Dict[str, Any]:
        output = (
            [
                {
                    "type": "message",
                    "id": "msg_1",
                    "status": "completed",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                }
            ]
            if status == "completed"
            else []
        )
        return {
            "id": "resp_1",
            "object": "response",
            "created_at": 1,
            "model": model,
            "status": status,
            "output": output,
            "usage": usage if with_usage else None,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
        }

    at = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
    sequence = [
        {"type": "response.created", "response": response("in_progress", False)},
        dict(at, type="response.output_text.delta", delta=text),
        dict(at, type="response.output_text.done", text=text),
        {"type": "response.completed", "response": response("completed", True)},
    ]
    return response("completed", True), [(e["type"], dict(e, sequence_number=i)) for i, e in enumerate(sequence)]


def _messages(model: str, body: Dict[str, Any]) -> Tuple[Any, List[Event]]:
    text = answer_text(body)
    counts = USAGE_BY_MODEL.get(model, USAGE)
    # Anthropic counts the cache read apart from input_tokens.
    cache = {"cache_read_input_tokens": counts["cached"]} if "cached" in counts else {}
    uncached = counts["input"] - counts.get("cached", 0)

    def message(usage: Dict[str, int], content: List[Any], stop: Optional[str]) -> Dict[str, Any]:
        return {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": usage,
        }

    stream: List[Event] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": message(dict(cache, input_tokens=uncached, output_tokens=1), [], None),
            },
        ),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        ),
        (
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": counts["output"]},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    full = message(
        dict(cache, input_tokens=uncached, output_tokens=counts["output"]),
        [{"type": "text", "text": text}],
        "end_turn",
    )
    return full, stream


ROUTES = {"/v1/chat/completions": _chat, "/v1/responses": _responses, "/v1/messages": _messages}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        # Appending to a list is atomic: concurrent requests each land once.
        self.server.owner.received.append((self.path, body))  # type: ignore[attr-defined]
        time.sleep(RESPONSE_DELAY_S)
        route = ROUTES.get(self.path.split("?")[0])
        if route is None:
            return self._send(404, "application/json", b"{}")
        anthropic = self.path.startswith("/v1/messages")
        if body.get("model") == FAILING_MODEL:
            error = (
                {"type": "error", "error": {"type": "invalid_request_error", "message": "bad model"}}
                if anthropic
                else {"error": {"message": "bad model", "type": "invalid_request_error", "code": None}}
            )
            return self._send(400, "application/json", json.dumps(error).encode())
        full, stream = route(str(body.get("model")), body)
        if not body.get("stream"):
            return self._send(200, "application/json", json.dumps(full).encode())
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for name, data in stream:
            time.sleep(STREAM_GAP_S)
            head = "event: %s\n" % name if name else ""
            payload = data if isinstance(data, str) else json.dumps(data)
            self.wfile.write(("%sdata: %s\n\n" % (head, payload)).encode())
            self.wfile.flush()

    def _send(self, status: int, kind: str, data: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("x-request-id", "req_1")
        self.end_headers()
        self.wfile.write(data)


def start_fake_llm() -> LoopbackServer:
    return LoopbackServer(_Handler).start()
