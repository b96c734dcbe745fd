"""What one ``evaluate`` call has to run: the run (created, or read to resume), the prompts of its
pinned experiment version, and the (item, variant, repeat) triples it does not hold yet."""

from typing import Any, Dict, Iterator, List, Mapping, NamedTuple, Optional, Sequence, Set, Union

from arbiter._core.errors import ArbiterError
from arbiter._evaluation.offline_api import OfflineApi, Triple
from arbiter._evaluation.types import OfflineRun, Scorer, TaskInput


class Plan(NamedTuple):
    run: OfflineRun
    #: Item by item, then variant, then repeat: the order the tasks start in. Made as they are
    #: taken, so that a run of a million results holds no million inputs at once.
    cases: Iterator[TaskInput]
    #: Results the run held before this call (an interrupted attempt's).
    held: int


def prepare(
    api: OfflineApi,
    *,
    experiment: str,
    dataset: str,
    scorers: Sequence[Scorer],
    repeats: int,
    variants: Optional[Sequence[str]],
    run_id: Optional[str],
    dataset_version: Optional[int],
    note: Optional[str],
) -> Union[Plan, OfflineRun]:
    """The plan, or the run itself when ``run_id`` names one already past ``running``."""
    if run_id is not None:
        run = api.run(run_id)
        if run["status"] != "running":
            return run
        config = api.config()
        entry = _experiment_of(config, run["experiment_id"], experiment)
        if experiment not in (entry["id"], entry["name"]):
            raise ArbiterError(
                "evaluate: run %s belongs to experiment %s, not %s" % (run_id, entry["name"], experiment)
            )
        held = api.held(run["id"])
    else:
        # Read first, so that an experiment no client can see fails before a run is made.
        config = api.config()
        _experiment_of(config, experiment, experiment)
        run = api.create_run(experiment, _run_request(dataset, scorers, repeats, variants, dataset_version, note))
        entry = _experiment_of(config, run["experiment_id"], experiment)
        if entry.get("version") != run["experiment_version"]:
            # Changed between the two requests: the config of now is the one the run pinned.
            config = api.config()
            entry = _experiment_of(config, run["experiment_id"], experiment)
        held = set()
    if entry.get("version") != run["experiment_version"]:
        raise ArbiterError(
            "evaluate: run %s pinned version %s of experiment %s, and the config now serves version %s;"
            " its prompts are gone, so the run cannot be continued"
            % (
                run["id"],
                run["experiment_version"],
                entry["name"],
                entry.get("version"),
            )
        )
    items = list(api.items(run["dataset_id"], run["dataset_version"]))
    return Plan(run, _cases(run, entry, items, held), len(held))


def _run_request(
    dataset: str,
    scorers: Sequence[Scorer],
    repeats: int,
    variants: Optional[Sequence[str]],
    dataset_version: Optional[int],
    note: Optional[str],
) -> Dict[str, Any]:
    request: Dict[str, Any] = {"dataset_id": dataset, "repeats": repeats}
    # A scorer's function is the client's to call; the server gets the scorer without it.
    request["scorers"] = [{k: v for k, v in scorer.items() if k != "score"} for scorer in scorers]
    if variants is not None:
        request["variants"] = list(variants)
    if dataset_version is not None:
        request["dataset_version"] = dataset_version
    if note is not None:
        request["note"] = note
    return request


def _experiment_of(config: Mapping[str, Any], key: str, named: str) -> Mapping[str, Any]:
    for entry in config["experiments"]:
        if isinstance(entry, dict) and key in (entry.get("id"), entry.get("name")):
            return entry
    raise ArbiterError("evaluate: experiment %s is not in the config this key reads" % named)


def _cases(run: OfflineRun, entry: Mapping[str, Any], items: List[Any], held: Set[Triple]) -> Iterator[TaskInput]:
    by_key = {v.get("key"): v for v in entry.get("variants") or [] if isinstance(v, dict)}
    for item in items:
        for variant in run["variants"]:
            spec = by_key.get(variant) or {}
            prompt = spec.get("prompt")
            for repeat in range(run["repeats"]):
                if (item["id"], variant, repeat) in held:
                    continue
                # A new dict per task: one task changing its variables never reaches another.
                variables = dict(spec.get("variables") or {})
                variables.update(item.get("variables") or {})
                yield TaskInput(item, variant, prompt if isinstance(prompt, str) else None, variables, repeat)
