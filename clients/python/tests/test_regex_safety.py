"""The patterns the client runs: every vector of testdata/regex-safety.json, the cross-check of
testdata/regex-random.json, and a hand-made config whose targeting pattern backtracks for ever."""

from typing import Any, Dict, List

import pytest

from arbiter._core.evaluation.conditions import CompiledCondition, _condition, compile_condition
from arbiter._core.evaluation.regex_portability import non_portable_construct
from arbiter._core.evaluation.regex_safety import MAX_SUBJECT_LENGTH, is_safe_pattern
from arbiter._fast.engine import choose_engine
from conftest import read_testdata
from support.fake_arbiter import FakeArbiter

FAST = choose_engine()

SAFETY = read_testdata("regex-safety.json")
RANDOM = read_testdata("regex-random.json")
HOSTILE = read_testdata("regex-hostile-config.json")


def _tree(condition: Any, attributes: Any) -> bool:
    """The closure tree alone, as compile_condition reads it: unreadable matches no one."""
    try:
        tree = _condition(condition)
    except Exception:
        return False
    return CompiledCondition(tree, condition).matches(attributes)


#: What evaluates a condition: the generated function compile_condition returns, and the tree.
EVALUATORS = {
    "compiled": lambda condition, attributes: FAST.compile_condition(condition).matches(attributes),
    "tree": _tree,
}


def test_the_files_hold_vectors() -> None:
    assert SAFETY["maxSubjectLength"] == MAX_SUBJECT_LENGTH
    kinds = {p["safe"] for p in SAFETY["patterns"]}
    assert kinds == {True, False}
    assert len(SAFETY["evaluations"]) >= 10
    assert len(RANDOM["patterns"]) == 1000


@pytest.mark.parametrize("vector", SAFETY["patterns"], ids=lambda v: v["pattern"])
def test_each_pattern_is_safe_or_not_as_the_vector_says(vector: Dict[str, Any]) -> None:
    assert is_safe_pattern(vector["pattern"]) is vector["safe"]
    for operator in ("$regex", "$regexi"):
        # An unsafe pattern reads as an invalid one: the whole condition matches no one.
        assert compile_condition({"v": {operator: vector["pattern"]}}).readable is vector["safe"]
        if not vector["safe"]:
            assert compile_condition({"v": {"$not": {operator: vector["pattern"]}}}).matches({"v": "x"}) is False


@pytest.mark.parametrize("evaluator", sorted(EVALUATORS))
def test_each_evaluation_at_the_length_cap_answers_as_the_vector_says(evaluator: str) -> None:
    evaluate = EVALUATORS[evaluator]
    got: List[Any] = []
    want: List[Any] = []
    for vector in SAFETY["evaluations"]:
        condition = {"v": {"$regex": vector["pattern"]}}
        got.append((vector["pattern"], len(vector["value"]), evaluate(condition, {"v": vector["value"]})))
        want.append((vector["pattern"], len(vector["value"]), vector["matches"]))
    assert got == want


def test_a_value_past_the_cap_never_matches_even_a_pattern_that_matches_anything() -> None:
    condition = compile_condition({"v": {"$regexi": ""}})
    assert condition.matches({"v": "x" * MAX_SUBJECT_LENGTH}) is True
    assert condition.matches({"v": "x" * (MAX_SUBJECT_LENGTH + 1)}) is False
    # Code points, not UTF-16 units or bytes: 1,024 emoji are within the cap.
    assert condition.matches({"v": "\U0001f600" * MAX_SUBJECT_LENGTH}) is True


@pytest.mark.parametrize("evaluator", sorted(EVALUATORS))
def test_every_random_pattern_matches_as_javascript_does(evaluator: str) -> None:
    evaluate = EVALUATORS[evaluator]
    mismatches = []
    for entry in RANDOM["patterns"]:
        operator = "$regexi" if entry["insensitive"] else "$regex"
        condition = {"v": {operator: entry["pattern"]}}
        for case in entry["values"]:
            if evaluate(condition, {"v": case["value"]}) is not case["matches"]:
                mismatches.append((entry["pattern"], operator, case))
    assert mismatches == []


@pytest.mark.usefixtures("assign_kind")
def test_a_hostile_pattern_in_a_served_config_is_never_run(fake: FakeArbiter, make_client: Any) -> None:
    fake.config = HOSTILE
    client = make_client(base_url=fake.url)
    assert client.ready(timeout=30)
    hostile = {"handle": "a" * 29 + "!"}
    # Without the rule this search takes minutes (2**29 ways to split the 'a's); with it the
    # pattern is never compiled, so the targeting matches no one.
    assert client.assign("hostile-handle", "user-1", hostile) is None
    assert client.assign("hostile-handle", "user-2", {"handle": "aaa"}) is None
    assert client.get_prompt("hostile-handle", "user-1", "default", attributes=hostile).fallback is True
    # The safe pattern beside it runs: the client evaluates targeting at all.
    assert client.assign("safe-handle", "user-2", {"handle": "aaa"}) in ("control", "treatment")
    assert client.assign("safe-handle", "user-1", hostile) is None


@pytest.mark.parametrize("evaluator", sorted(EVALUATORS))
def test_an_unportable_pattern_admits_no_one_though_re_would_match(evaluator: str) -> None:
    evaluate = EVALUATORS[evaluator]
    assert len(SAFETY["unportable"]) > 10
    admitted = []
    for vector in SAFETY["unportable"]:
        plain = {"v": {"$regex": vector["pattern"]}}
        beside = {"$or": [plain, {"v": vector["value"]}]}
        for condition in (plain, beside):
            if evaluate(condition, {"v": vector["value"]}):
                admitted.append((vector["pattern"], vector["reason"]))
    assert admitted == []


@pytest.mark.parametrize("vector", SAFETY["unportable"], ids=lambda v: v["pattern"])
def test_each_unportable_pattern_is_named_with_a_reason(vector: Dict[str, Any]) -> None:
    assert non_portable_construct(vector["pattern"]) is not None
