"""The library's one exception type."""


class ArbiterError(Exception):
    """Raised only by the constructor, when it has no API key. ``assign`` and ``track`` never raise."""
