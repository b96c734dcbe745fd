"""The condition evaluator (targeting): every case of GrowthBook's own evalCondition cases and of
Arbiter's shared vectors, read in place from testdata/, and properties over random conditions."""

import json
import math
import os
import random
import sys
from collections import OrderedDict
from typing import Any, Dict, List, Optional

import pytest

from arbiter._core.evaluation.conditions import _condition, eval_condition
from arbiter._core.evaluation.json_values import compare_text, js_number_string, number_form, same_value, string_form
from arbiter._core.evaluation.version_string import padded_version_string
from arbiter._fast.condition_source import generated_condition, generated_targeting
from arbiter._fast.engine import choose_engine
from conftest import REPO_ROOT

#: The engine a client chooses: generated conditions, as every client runs them.
FAST = choose_engine()


def cases(*path: str) -> List[List[Any]]:
    with open(os.path.join(REPO_ROOT, "testdata", *path), encoding="utf-8") as f:
        doc = json.load(f)
    return doc["evalCondition"]  # type: ignore[no-any-return]


GROWTHBOOK = cases("growthbook", "eval-condition.json")
ARBITER = cases("conditions.json")


def case_id(case: List[Any]) -> str:
    return str(case[0])


def test_the_files_hold_cases() -> None:
    assert len(GROWTHBOOK) == 248
    assert len(ARBITER) >= 300
    assert all(len(case) in (4, 5) and isinstance(case[3], bool) for case in GROWTHBOOK + ARBITER)


def check(case: List[Any]) -> None:
    name, condition, attributes, expected = case[:4]
    groups: Optional[Dict[str, Any]] = case[4] if len(case) > 4 else None
    assert eval_condition(attributes, condition, groups) is expected, name
    # The same compiled condition, matched twice, gives the same answer.
    compiled = FAST.compile_condition(condition)
    assert compiled.matches(attributes, groups) is expected, name
    assert compiled.matches(attributes, groups) is expected, name


def test_every_readable_condition_of_the_files_is_written_out_as_one_function() -> None:
    """So the cases above check the generated function, not the tree it falls back to."""
    written = 0
    for case in GROWTHBOOK + ARBITER:
        condition = case[1]
        if not FAST.compile_condition(condition).readable:
            continue
        function = generated_condition(condition, _condition(condition))
        assert function is not None or condition == {}, case[0]
        written += function is not None
    assert written > 400


@pytest.mark.parametrize("case", GROWTHBOOK, ids=case_id)
def test_growthbook_case(case: List[Any]) -> None:
    check(case)


@pytest.mark.parametrize("case", ARBITER, ids=case_id)
def test_arbiter_case(case: List[Any]) -> None:
    check(case)


# --- Python's own pitfalls ------------------------------------------------------------------------


def test_true_is_not_one_and_one_is_not_true() -> None:
    assert not eval_condition({"a": True}, {"a": {"$eq": 1}})
    assert not eval_condition({"a": 1}, {"a": {"$eq": True}})
    assert not eval_condition({"a": True}, {"a": {"$in": [1]}})
    assert not eval_condition({"a": 1}, {"a": {"$in": [True]}})
    assert not eval_condition({"a": [False]}, {"a": {"$in": [0]}})
    assert eval_condition({"a": 0}, {"a": {"$in": [False, 0]}})
    assert eval_condition({"a": True}, {"a": {"$type": "boolean"}})
    assert not eval_condition({"a": True}, {"a": {"$type": "number"}})
    assert not eval_condition({"a": {"x": True}}, {"a": {"x": 1}})


def test_numbers_compare_as_doubles() -> None:
    assert eval_condition({"n": 1}, {"n": {"$in": [1.0]}})
    assert eval_condition({"n": 2**53 + 1}, {"n": {"$eq": 2**53}})  # as JavaScript rounds both
    assert eval_condition({"n": 10**400}, {"n": {"$gt": 1e308}})  # an infinity, not an error
    assert eval_condition({"n": 10**400}, {"n": "Infinity"})
    assert not eval_condition({"n": math.nan}, {"n": {"$eq": math.nan}})
    assert not eval_condition({"n": math.nan}, {"n": {"$in": [math.nan]}})
    assert not eval_condition({"n": math.nan}, {"n": {"$gte": 0}})
    assert eval_condition({"n": math.nan}, {"n": False})  # NaN is falsy, as in JavaScript


def test_object_key_order_never_matters() -> None:
    a = OrderedDict([("x", 1), ("y", 2)])
    b = OrderedDict([("y", 2), ("x", 1)])
    assert eval_condition({"o": a}, {"o": {"$eq": b}})
    assert eval_condition({"o": a}, {"o": {"$in": [b]}})


def test_tuples_read_as_arrays() -> None:
    assert eval_condition({"tags": ("a", "b")}, {"tags": {"$all": ["b"]}})
    assert eval_condition({"tags": ("a", "b")}, {"tags": ["a", "b"]})
    assert eval_condition({"tags": ("a", "b")}, {"tags": {"$type": "array", "$size": 2}})


def test_values_that_are_not_json_match_nothing_and_never_raise() -> None:
    odd: List[Any] = [object(), {1, 2}, b"bytes", 1j, len, float]
    for value in odd:
        assert not eval_condition({"a": value}, {"a": {"$eq": "x"}})
        assert not eval_condition({"a": value}, {"a": {"$gt": 0}})
        assert not eval_condition({"a": value}, {"a": {"$regex": ""}})
        assert eval_condition({"a": value}, {"a": {"$exists": True}})
        assert eval_condition({"a": value}, {"a": {"$nin": [None]}})
    assert not eval_condition({"a": 1}, {"a": {"$eq": object()}})  # not JSON: unreadable
    assert not eval_condition({"a": 1}, {1: 1})  # keys are strings


def test_attributes_may_be_any_mapping_or_nothing() -> None:
    from types import MappingProxyType

    assert eval_condition(MappingProxyType({"a": 1}), {"a": 1})
    assert eval_condition(None, {"a": {"$exists": False}})
    assert not eval_condition("not a mapping", {"a": 1})
    assert eval_condition({}, {})


def test_saved_groups_that_are_not_a_mapping_match_no_one() -> None:
    assert not eval_condition({"id": "u1"}, {"id": {"$inGroup": "g"}}, ["g"])  # type: ignore[arg-type]


def test_deep_nesting_matches_no_one_without_raising() -> None:
    condition: Dict[str, Any] = {"a": 1}
    for _ in range(sys.getrecursionlimit() + 100):
        condition = {"$not": condition}
    assert not eval_condition({"a": 1}, condition)
    assert not eval_condition({"a": 2}, condition)
    deep: Any = 1
    for _ in range(sys.getrecursionlimit() + 100):
        deep = [deep]
    assert not eval_condition({"a": deep}, {"a": {"$eq": deep}})


def test_a_changed_saved_group_is_read_afresh() -> None:
    compiled = FAST.compile_condition({"id": {"$inGroup": "beta"}})
    assert compiled.matches({"id": "u1"}, {"beta": ["u1"]})
    assert not compiled.matches({"id": "u1"}, {"beta": ["u2"]})
    assert compiled.matches({"id": "u2"}, {"beta": ["u2"]})


def test_readable_tells_an_unreadable_condition() -> None:
    assert FAST.compile_condition({"a": {"$gt": 1}}).readable
    assert not FAST.compile_condition({"a": {"$gt": [1]}}).readable
    assert not FAST.compile_condition([]).readable


# --- the value forms ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "number, text",
    [
        (0, "0"),
        (-0.0, "0"),
        (1.0, "1"),
        (-1.5, "-1.5"),
        (123456789, "123456789"),
        (0.1, "0.1"),
        (0.1 + 0.2, "0.30000000000000004"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (123e18, "123000000000000000000"),
        (1.5e21, "1.5e+21"),
        (1e-6, "0.000001"),
        (1.5e-6, "0.0000015"),
        (1e-7, "1e-7"),
        (1.5e-7, "1.5e-7"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (2**53 + 1, "9007199254740992"),
        (10**400, "Infinity"),
        (-(10**400), "-Infinity"),
        (math.nan, "NaN"),
    ],
)
def test_numbers_print_as_in_javascript(number: Any, text: str) -> None:
    assert js_number_string(number) == text


def test_string_and_number_forms() -> None:
    assert string_form(True) == "true" and string_form(None) is None and string_form([1]) is None
    assert number_form("1e3") == 1000 and number_form("+.5") == 0.5 and number_form("5.") == 5
    for text in ["", " 1", "1 ", "0x10", "1_0", "Infinity", "NaN", "\u0661", "1e", "."]:
        assert math.isnan(number_form(text)), text
    assert same_value(None, None) and not same_value(None, False) and not same_value(0, False)


def test_strings_order_by_utf16_code_units() -> None:
    assert compare_text("\U0001f600", "\uff61") < 0  # a surrogate pair sorts below U+E000..U+FFFF
    assert compare_text("\u00e9", "z") > 0
    assert compare_text("ab", "abc") < 0 and compare_text("x", "x") == 0


def test_padded_version_strings() -> None:
    assert padded_version_string("v1.2.3+build") == "    1-    2-    3-~"
    assert padded_version_string("1.0.0-rc.1") == "    1-    0-    0-rc-    1"
    assert padded_version_string(2) == "    2"
    assert padded_version_string(None) == "    0"
    assert padded_version_string("") == "    0"
    assert padded_version_string("1.2.\u0661") == "    1-    2-\u0661-~"  # only ASCII digits pad


# --- properties over random conditions ------------------------------------------------------------

OPERATORS = [
    "$eq", "$ne", "$lt", "$lte", "$gt", "$gte", "$in", "$nin", "$ini", "$nini", "$all", "$alli",
    "$exists", "$type", "$size", "$elemMatch", "$not", "$regex", "$regexi", "$veq", "$vne", "$vgt",
    "$vgte", "$vlt", "$vlte", "$inGroup", "$notInGroup", "$foo", "$and", "$or",
]  # fmt: skip
FIELDS = ["a", "b", "a.b", "c.d.e", "$groups", ""]
STRINGS = ["", "a", "A", "1", "1.2.3", "v2.0.0-rc.1", "true", "null", "é", "\U0001f600", "(", "[a-", "^a.*$", "g"]
TYPES = ["string", "number", "boolean", "null", "array", "object", "undefined"]


def random_scalar(rng: random.Random) -> Any:
    kind = rng.randrange(7)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, 1, -1, 2**60, 10**400, -0.0, 1.5, 1e21, math.inf, math.nan])
    if kind == 3:
        return rng.randint(-5, 5)
    return rng.choice([*STRINGS, *TYPES])


def random_json(rng: random.Random, depth: int) -> Any:
    kind = rng.randrange(10) if depth > 0 else 0
    if kind < 6:
        return random_scalar(rng)
    if kind < 8:
        return [random_json(rng, depth - 1) for _ in range(rng.randrange(4))]
    return {rng.choice([*FIELDS, "b", "d", "e"]): random_json(rng, depth - 1) for _ in range(rng.randrange(4))}


def random_operand(rng: random.Random, depth: int) -> Any:
    if rng.random() < 0.4:
        return random_value(rng, depth - 1)
    return random_json(rng, depth)


def random_value(rng: random.Random, depth: int) -> Any:
    """A condition value: mostly operator objects, sometimes a literal or a mixed object."""
    roll = rng.random()
    if depth <= 0 or roll < 0.3:
        return random_json(rng, 1)
    if roll < 0.35:
        return {"$eq": 1, "b": 2}
    return {rng.choice(OPERATORS): random_operand(rng, depth - 1) for _ in range(rng.randrange(1, 3))}


def random_condition(rng: random.Random, depth: int) -> Any:
    roll = rng.random()
    if roll < 0.03:
        return random_json(rng, 1)  # not a condition at all, mostly
    condition: Dict[str, Any] = {}
    for _ in range(rng.randrange(4)):
        key = rng.choice(["$and", "$or", "$nor", "$not", *FIELDS]) if depth > 0 else rng.choice(FIELDS)
        if key in ("$and", "$or", "$nor"):
            condition[key] = [random_condition(rng, depth - 1) for _ in range(rng.randrange(3))]
        elif key == "$not":
            condition[key] = random_condition(rng, depth - 1)
        else:
            condition[key] = random_value(rng, depth)
    return condition


def random_groups(rng: random.Random) -> Any:
    return rng.choice([None, {}, {"g": [random_scalar(rng) for _ in range(3)], "a": "x", "b": None}])


def test_random_conditions_never_raise_and_negate_consistently() -> None:
    rng = random.Random(29)
    readable = unreadable = matched = 0
    for _ in range(20000):
        condition = random_condition(rng, 3)
        attributes = random_json(rng, 3)
        if rng.random() < 0.8:
            attributes = {field: random_json(rng, 2) for field in rng.sample(FIELDS, rng.randrange(4))}
        groups = random_groups(rng)
        result = eval_condition(attributes, condition, groups)
        assert isinstance(result, bool)
        negated = eval_condition(attributes, {"$not": condition}, groups)
        either = eval_condition(attributes, {"$or": [condition, {"$not": condition}]}, groups)
        if FAST.compile_condition(condition).readable:
            readable += 1
            matched += result
            assert negated is not result, (condition, attributes)
            assert either, (condition, attributes)
            assert eval_condition(attributes, {"$nor": [condition]}, groups) is negated
            assert eval_condition(attributes, {"$and": [condition, condition]}, groups) is result
        else:
            unreadable += 1
            # An unreadable condition matches no one, even negated.
            assert not result and not negated and not either, (condition, attributes)
    # The generator reaches both kinds, and matches as well as misses.
    assert readable > 2000 and unreadable > 2000 and 200 < matched < readable


def test_the_generated_functions_answer_as_the_tree() -> None:
    """Random conditions, top-level fields with each operator included, on random attributes:
    the generated condition, and the variant function assign() uses, agree with the tree."""
    rng = random.Random(2911)
    compared = matched = 0
    for _ in range(8000):
        condition = random_condition(rng, 3)
        if not isinstance(condition, dict) or not FAST.compile_condition(condition).readable:
            continue
        tree = _condition(condition)
        groups = random_groups(rng) or {}
        function = generated_condition(condition, tree)
        targeted = generated_targeting(condition, FAST.compile_condition(condition).matches, groups, lambda user: "in")
        if function is None or targeted is None:
            assert condition == {}
            continue
        for _ in range(4):
            attributes = {field: random_json(rng, 2) for field in rng.sample(FIELDS, rng.randrange(4))}
            if rng.random() < 0.5:
                attributes["a"] = rng.choice([*STRINGS, 2**53, 2**53 + 1, -(2**53) - 1, 1.5, 3, True, None])
            try:
                want: Any = tree(attributes, groups)
            except RecursionError:
                continue
            assert function(attributes, groups) is want, (condition, attributes, groups)
            assert targeted("user", attributes) == ("in" if want else None), (condition, attributes, groups)
            compared += 1
            matched += want
    assert compared > 5000 and 500 < matched < compared
