"""What the client sends its requests through: the standard library's urllib by default, or the
``http_client`` a host hands in (a proxy, a TLS context, a test double)."""

import urllib.request
from typing import Any, Optional, Protocol, Union


class Opener(Protocol):
    """An ``urllib.request.OpenerDirector``, as ``urllib.request.build_opener(...)`` makes."""

    def open(self, fullurl: urllib.request.Request, data: Optional[bytes] = None, timeout: float = ...) -> Any: ...


class Send(Protocol):
    """A callable with ``urllib.request.urlopen``'s contract: it takes the request and a
    ``timeout`` in seconds and returns a response (a context manager with ``status``, ``headers``
    and ``read()``) or raises ``urllib.error.HTTPError`` for an error status; any other exception
    counts as a network failure and is retried."""

    def __call__(self, request: urllib.request.Request, /, *, timeout: float) -> Any: ...


#: The ``http_client`` option: an opener or a callable.
HttpClient = Union[Opener, Send]


def sender_of(http_client: Optional[HttpClient]) -> Send:
    """The one call the transport makes per attempt. Raises TypeError for anything else, at
    construction, where the mistake is made."""
    if http_client is None:
        return urllib.request.build_opener().open
    open_method = getattr(http_client, "open", None)
    if callable(open_method):
        return open_method  # type: ignore[no-any-return]
    if callable(http_client):
        return http_client
    raise TypeError(
        "http_client must be an opener (urllib.request.build_opener(...)) or a callable like"
        " urllib.request.urlopen, not %s" % type(http_client).__name__
    )
