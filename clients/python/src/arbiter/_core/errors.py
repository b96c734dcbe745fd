"""The library's one exception type."""


class ArbiterError(Exception):
    """Raised by the constructor when it has no API key, and by ``evaluate``/``aevaluate``: for a
    publishable key, and for a request the API refuses. ``assign`` and ``track`` never raise."""
