"""A loopback HTTP server on a free port, run on a background thread."""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, List, Optional, Type


class _Server(ThreadingHTTPServer):
    # The default backlog of 5 resets connections when a test opens dozens at once.
    request_queue_size = 128
    daemon_threads = True


class LoopbackServer:
    def __init__(self, handler: Type[BaseHTTPRequestHandler], port: int = 0) -> None:
        self._handler = handler
        self._port = port
        self._httpd: Optional[ThreadingHTTPServer] = None
        #: What the handler chose to keep of the requests it served (``self.server.owner``).
        self.received: List[Any] = []

    def start(self) -> "LoopbackServer":
        httpd = _Server(("127.0.0.1", self._port), self._handler)
        httpd.owner = self  # type: ignore[attr-defined]
        self._port = httpd.server_address[1]
        self._httpd = httpd
        threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True).start()
        return self

    def stop(self) -> None:
        """Stops listening: new connections are refused until ``start`` is called again."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    @property
    def port(self) -> int:
        return self._port

    @property
    def url(self) -> str:
        return "http://127.0.0.1:%d" % self._port


def free_port() -> int:
    """A port nothing listens on (connections to it are refused)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
