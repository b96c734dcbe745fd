"""Arbiter's Python client: local assignment on a cached config, prompts and variables per
variant, background event delivery, and ``wrap`` for the OpenAI and Anthropic SDKs.

>>> from arbiter import Arbiter
>>> arbiter = Arbiter()  # key from ARBITER_API_KEY
"""

from ._client import Arbiter
from ._errors import ArbiterError
from ._types import ClientStats, EventType, PromptResult, TrackPayload
from ._user_context import AsUser
from ._version import __version__

__all__ = [
    "Arbiter",
    "ArbiterError",
    "AsUser",
    "ClientStats",
    "EventType",
    "PromptResult",
    "TrackPayload",
    "__version__",
]
