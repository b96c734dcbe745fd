"""Arbiter's Python client: local assignment on a cached config, prompts and variables per
variant, background event delivery, ``wrap`` for the OpenAI and Anthropic SDKs, and
``evaluate`` for offline runs of a dataset through an experiment's variants.

>>> from arbiter import Arbiter
>>> arbiter = Arbiter()  # key from ARBITER_API_KEY

In asyncio code, ``AsyncArbiter`` takes the same options; its waits are coroutines.
"""

from arbiter._client.asynchronous import AsyncArbiter
from arbiter._client.sync import Arbiter
from arbiter._core.errors import ArbiterError
from arbiter._core.evaluation.prepared_attributes import PreparedAttributes
from arbiter._core.prompts import Prompts, ResolvedPrompt, render_prompt
from arbiter._core.types import ClientStats, EventType, PromptResult, TrackPayload
from arbiter._evaluation.types import (
    DatasetItem,
    EvaluationProgress,
    OfflineRun,
    Scorer,
    ScorerInput,
    TaskInput,
)
from arbiter._version import __version__
from arbiter.integrations._user_context import AsUser

__all__ = [
    "Arbiter",
    "ArbiterError",
    "AsUser",
    "AsyncArbiter",
    "ClientStats",
    "DatasetItem",
    "EvaluationProgress",
    "EventType",
    "OfflineRun",
    "PreparedAttributes",
    "PromptResult",
    "Prompts",
    "ResolvedPrompt",
    "Scorer",
    "ScorerInput",
    "TaskInput",
    "TrackPayload",
    "__version__",
    "render_prompt",
]
