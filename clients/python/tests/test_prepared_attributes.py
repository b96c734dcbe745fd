"""PreparedAttributes: answers exactly as the plain attributes do, on every path (the condition
vectors through a variant function with a field table, both assigners; a config update; the
shallow copy; values that are not mappings)."""

import collections
import types
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional

import pytest

import arbiter
from arbiter import PreparedAttributes
from arbiter._core.bucketing.bucketing import make_assigner
from arbiter._core.config.config_store import ConfigStore
from arbiter._core.evaluation.field_table import field_table_of
from arbiter._core.evaluation.variant_function import make_variant
from arbiter._core.events.targeting_tallies import TargetingTallies
from arbiter._fast.engine import choose_engine
from test_conditions import ARBITER, GROWTHBOOK, case_id

#: The engine a client chooses (generated targeting, the C hash of the speedups extra).
FAST = choose_engine()

#: Every bucket is in range: the variant function answers "in" exactly when the targeting holds.
_EVERYONE = [("in", 0, 1)]
#: The accelerated assigner (its ASCII case written into the variant function) and the pure one.
ASSIGNERS: Dict[str, Callable[[str], Optional[str]]] = {
    "speedups": make_assigner("salt", 1, _EVERYONE, FAST.hash32),
    "pure": make_assigner("salt", 1, _EVERYONE, None),
}


def test_the_accelerated_assigner_is_the_one_written_out() -> None:
    assert hasattr(ASSIGNERS["speedups"], "ascii_parts")
    assert not hasattr(ASSIGNERS["pure"], "ascii_parts")


def test_it_is_exported() -> None:
    assert "PreparedAttributes" in arbiter.__all__
    assert arbiter.PreparedAttributes is PreparedAttributes


@pytest.mark.parametrize("assigner", sorted(ASSIGNERS))
@pytest.mark.parametrize("case", GROWTHBOOK + ARBITER, ids=case_id)
def test_condition_case_prepared(case: List[Any], assigner: str) -> None:
    name, condition, attributes, expected = case[:4]
    groups: Optional[Dict[str, Any]] = case[4] if len(case) > 4 else None
    table = field_table_of([condition])
    variant = make_variant(
        ASSIGNERS[assigner], FAST.compile_condition(condition), groups, field_table=table, generate=FAST.targeting
    )
    want = "in" if expected else None
    prepared = PreparedAttributes(attributes)
    assert variant("user-1", attributes) == want, name  # the plain path, for reference
    assert variant("user-1", prepared) == want, name
    assert variant("user-\u00e9", prepared) == want, name  # resolved already; a non-ASCII id
    if isinstance(attributes, dict) and condition and FAST.compile_condition(condition).readable:
        # So the case checked the values path, not a fallback to the dict.
        assert prepared._resolved is not None and prepared._resolved[0] is table, name
    # A different table (another config) resolves again and answers the same.
    other = make_variant(
        ASSIGNERS[assigner],
        FAST.compile_condition(condition),
        groups,
        field_table=field_table_of([{"zz": 1}, condition]),
        generate=FAST.targeting,
    )
    assert other("user-1", prepared) == want, name


def test_a_dict_is_resolved_once_per_table_and_read_by_index() -> None:
    condition = {"plan": {"$in": ["pro"]}, "app.version": {"$vgte": "2.0.0"}, "$or": [{"country": "US"}]}
    table = field_table_of([condition])
    variant = make_variant(
        ASSIGNERS["speedups"], FAST.compile_condition(condition), None, field_table=table, generate=FAST.targeting
    )
    prepared = PreparedAttributes({"plan": "pro", "app": {"version": "2.1.0"}, "country": "US"})
    assert variant("u", prepared) == "in"
    resolved = prepared._resolved
    assert resolved == (table, "pro", "2.1.0", "US")
    assert variant("u", prepared) == "in"
    assert prepared._resolved is resolved  # read, not resolved again


def _config(version: int, targeting: Dict[str, Any]) -> Dict[str, Any]:
    return {
        "config_version": version,
        "bucketing_version": "1",
        "experiments": [
            {
                "id": "e-1",
                "name": "exp",
                "salt": "s",
                "bucket_count": 1,
                "ranges": [{"variant": "on", "start": 0, "end": 1}],
                "variants": [{"key": "on"}],
                "targeting": targeting,
            }
        ],
    }


def test_a_prepared_object_reused_across_a_config_update_answers_as_the_dict() -> None:
    store = ConfigStore(100, TargetingTallies(), engine=FAST)
    plain = {"plan": "pro", "country": "DE", "age": 30}
    prepared = PreparedAttributes(plain)
    configs = [
        {"plan": {"$in": ["pro"]}},
        {"country": {"$in": ["US"]}, "plan": "pro"},  # new fields: now excluded
        {"age": {"$gte": 18}, "$not": {"country": "US"}},
    ]
    got, want = [], []
    for version, targeting in enumerate(configs, 1):
        assert store.replace(_config(version, targeting), None)[0] is None
        variant = store.experiments["exp"].variant
        got.append(variant("user", prepared))
        want.append(variant("user", plain))
    assert got == want == ["on", None, "on"]


def test_the_top_level_is_copied() -> None:
    condition = {"plan": "pro"}
    variant = make_variant(
        ASSIGNERS["speedups"],
        FAST.compile_condition(condition),
        None,
        field_table=field_table_of([condition]),
        generate=FAST.targeting,
    )
    attributes: Dict[str, Any] = {"plan": "pro"}
    prepared = PreparedAttributes(attributes)
    attributes["plan"] = "free"
    del attributes["plan"]
    assert variant("u", prepared) == "in"
    assert variant("u", attributes) is None


class _OwnCopy(Dict[str, Any]):
    """A dict subclass whose copy is its own kind: a fast path for dicts must not take it."""

    def copy(self) -> "_OwnCopy":
        return _OwnCopy(self)


@pytest.mark.parametrize(
    "make",
    [dict, collections.OrderedDict, _OwnCopy, types.MappingProxyType],
    ids=lambda make: make.__name__,
)
def test_every_mapping_is_copied_into_a_plain_dict(make: Callable[[Dict[str, Any]], Mapping[str, Any]]) -> None:
    """A plain dict takes a path of its own (a copy, no isinstance checks); it must come out as
    every other mapping does: a new plain dict of the same items, in order, resolved by index."""
    items = {"plan": "pro", "app": {"version": "2.1.0"}, "country": "DE"}
    source = make(dict(items))
    prepared = PreparedAttributes(source)
    assert type(prepared._attributes) is dict
    assert prepared._attributes is not source
    assert list(prepared._attributes.items()) == list(items.items())
    assert prepared._attributes["app"] is source["app"]  # shallow
    assert prepared._resolved is not None


class _Unreadable(Mapping[str, Any]):
    """A mapping whose reading raises: copying it fails, and so does matching it today."""

    def __getitem__(self, key: str) -> Any:
        raise RuntimeError("no")

    def __iter__(self) -> Iterator[str]:
        raise RuntimeError("no")

    def __len__(self) -> int:
        return 1


class _ClassRaises:
    """An object whose __class__ raises, as a broken proxy's can: isinstance reads it."""

    @property  # type: ignore[misc]
    def __class__(self) -> Any:  # type: ignore[override]
        raise RuntimeError("no class")


@pytest.mark.parametrize(
    "bad",
    [
        None,
        42,
        "pro",
        ["plan"],
        ("pro",),
        object(),
        float("nan"),
        {1: "x"},
        types.MappingProxyType({"plan": "pro"}),
        _Unreadable(),
        pytest.param(_ClassRaises(), id="__class__ raises"),
    ],
    ids=repr,
)
def test_a_bad_value_never_raises_and_answers_as_itself(bad: Any) -> None:
    prepared = PreparedAttributes(bad)
    for condition in ({"plan": "pro"}, {"plan": {"$exists": False}}, {"0": {"$exists": True}}, {"$not": {"plan": "x"}}):
        variant = make_variant(
            ASSIGNERS["speedups"],
            FAST.compile_condition(condition),
            None,
            field_table=field_table_of([condition]),
            generate=FAST.targeting,
        )
        assert variant("u", prepared) == variant("u", bad), (bad, condition)


def test_it_is_immutable_and_repeats_what_it_holds() -> None:
    prepared = PreparedAttributes({"plan": "pro"})
    with pytest.raises(AttributeError):
        prepared._attributes = {}  # type: ignore[misc]
    with pytest.raises(AttributeError):
        prepared.other = 1  # type: ignore[attr-defined]
    assert repr(prepared) == "PreparedAttributes({'plan': 'pro'})"
    # Preparing a prepared object prepares what it holds.
    assert PreparedAttributes(prepared)._attributes == {"plan": "pro"}  # type: ignore[arg-type]


def test_the_field_table_numbers_every_field_any_condition_reads() -> None:
    table = field_table_of(
        [
            {"a": 1, "$or": [{"b.c": 2}, {"$not": {"d": {"$inGroup": "g"}}}], "$nor": [{"a": 3}]},
            None,
            {"e": {"$elemMatch": {"inner": 1}}, "$and": "not a list"},
        ]
    )
    assert [table.slot_of(p) for p in ("a", "b.c", "d", "e")] == [1, 2, 3, 4]
    assert len(table) == 4
    with pytest.raises(KeyError):
        table.slot_of("inner")
