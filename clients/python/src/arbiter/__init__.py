"""Arbiter's Python client: local assignment on a cached config, prompts and variables per
variant, background event delivery, ``wrap`` for the OpenAI and Anthropic SDKs, and
``evaluate`` for offline runs of a dataset through an experiment's variants.

>>> from arbiter import Arbiter
>>> arbiter = Arbiter()  # key from ARBITER_API_KEY
"""

from ._client import Arbiter
from ._errors import ArbiterError
from ._evaluation_types import (
    DatasetItem,
    EvaluationProgress,
    OfflineRun,
    Scorer,
    ScorerInput,
    TaskInput,
)
from ._prepared_attributes import PreparedAttributes
from ._types import ClientStats, EventType, PromptResult, TrackPayload
from ._user_context import AsUser
from ._version import __version__

__all__ = [
    "Arbiter",
    "ArbiterError",
    "AsUser",
    "ClientStats",
    "DatasetItem",
    "EvaluationProgress",
    "EventType",
    "OfflineRun",
    "PreparedAttributes",
    "PromptResult",
    "Scorer",
    "ScorerInput",
    "TaskInput",
    "TrackPayload",
    "__version__",
]
