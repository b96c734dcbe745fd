"""The value types of ``evaluate``: what a task and a scorer function receive, the scorers, the
progress, and the run returned (docs/decisions/clients.md#offline-evaluation-in-the-clients-evaluate)."""

from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Dict, List, Literal, NamedTuple, Optional, TypedDict, Union


class DatasetItem(TypedDict):
    """One item of a dataset version, as ``GET /v1/datasets/{id}/items`` returns it."""

    id: str
    #: A string or a JSON object.
    input: Any
    #: Any JSON value; None when the item has none.
    expected_output: Any
    variables: Dict[str, Any]
    metadata: Dict[str, Any]
    group: Optional[str]


@dataclass(frozen=True)
class TaskInput:
    """What the task receives for one (item, variant, repeat)."""

    item: DatasetItem
    #: The variant key forced for this run of the task.
    variant: str
    #: The variant's prompt text, as ``get_prompt`` would give it; None when it has none.
    prompt: Optional[str]
    #: The variant's variables with the item's ``variables`` merged over them (a new dict).
    variables: Dict[str, Any]
    #: From 0.
    repeat: int


@dataclass(frozen=True)
class ScorerInput:
    """What a custom scorer's ``score`` function receives, after the task succeeded."""

    item: DatasetItem
    variant: str
    #: What the task returned.
    output: Any
    repeat: int


class EvaluationProgress(NamedTuple):
    """``on_progress``'s argument after each result; unpacks as ``done, total``."""

    #: Results of the run so far, those of an earlier, interrupted attempt included.
    done: int
    #: Items times variants times repeats.
    total: int


ScorerKind = Literal[
    "exact_match",
    "contains",
    "json_valid",
    "levenshtein",
    "numeric_close",
    "custom",
    "latency_ms",
    "total_tokens",
    "cost",
    "error_rate",
]

#: A custom scorer's function: a number (a bool counts as 1 or 0), or in ``aevaluate`` an
#: awaitable of one.
ScoreFunction = Callable[[ScorerInput], Union[float, Awaitable[float]]]


class _ScorerRequired(TypedDict):
    name: str
    kind: ScorerKind


class Scorer(_ScorerRequired, total=False):
    """A scorer of the run, sent to the server as given, except ``score``: a ``custom`` scorer may
    carry a function computed in the client, which is never sent."""

    direction: Literal["increase", "decrease"]
    non_inferiority_margin: float
    #: ``exact_match`` only; True when absent.
    case_sensitive: bool
    #: ``numeric_close`` only, and required there.
    tolerance: float
    score: ScoreFunction


class OfflineRun(TypedDict):
    """The run as ``GET /v1/offline-runs/{run_id}`` serves it (docs/decisions/offline-evaluation.md#offline-runs)."""

    id: str
    experiment_id: str
    experiment_version: int
    dataset_id: str
    dataset_version: int
    #: The baseline first.
    variants: List[str]
    baseline: str
    repeats: int
    scorers: List[Dict[str, Any]]
    note: Optional[str]
    status: Literal["running", "scoring", "complete", "failed"]
    failure_reason: Optional[str]
    item_count: int
    expected_results: int
    received_results: int
    coverage: Optional[Dict[str, Any]]
    #: Keyed ``<scorer>::<treatment>``.
    comparisons: Optional[Dict[str, Dict[str, Any]]]
    #: Non-determinism, keyed ``<scorer>::<variant>``.
    summary: Optional[Dict[str, Dict[str, Any]]]
    gates: Optional[Dict[str, Dict[str, Any]]]
    created_at: str
    completed_at: Optional[str]


#: The task of ``evaluate``: returns the output, a string or a JSON value.
Task = Callable[[TaskInput], Any]
