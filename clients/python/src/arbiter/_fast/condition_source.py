"""A top-level condition as one generated Python function, for speed.

The closure tree of :mod:`arbiter._core.evaluation.conditions` costs a Python call per clause and per operator,
which in CPython is most of a five-clause condition (bench/python-client/RESULTS.md). Here the
top level is written out as the source of one function: each field is read inline (a dot path
part by part), and the common operators (``$in``, ``$nin``, numeric ``$lt``/``$lte``/``$gt``/
``$gte``, ``$exists``, and the kept answers of ``$regex``/``$regexi`` and the version operators)
are tested inline on their common case, which is exactly what their closure does first; every
other case and every other operator calls the closure. So the function answers as the tree does
by construction, and the shared vectors check it.

``assign()`` goes one step further (:func:`generated_targeting`): the condition and the bucket
(the ``speedups`` assigner's ASCII case) are one function, the experiment's variant function, so
the condition adds its tests to ``assign()`` and no call.

Only names are written into the source (``k0``, ``s1``, ``f2``…): every key and operand of the
condition is passed in as a value of the function's namespace, never as source text.
"""

from bisect import bisect_right
from typing import Any, Callable, Dict, List, Optional

from arbiter._core.bucketing.bucketing import AsciiParts
from arbiter._core.evaluation.conditions import (
    SavedGroups,
    _condition,
    _Matcher,
    _Members,
    _operator,
    _path_part,
    _value,
    regex_test,
    remembering,
    version_test,
)
from arbiter._core.evaluation.field_table import FieldTable
from arbiter._core.evaluation.json_values import to_double
from arbiter._core.evaluation.prepared_attributes import PreparedAttributes

#: Integers whose double is exact, so that ``int < float`` in Python (exact) agrees with JavaScript
#: comparing two doubles. Others take the closure, which converts.
_EXACT = 1 << 53

_LOGICAL = ("$and", "$or", "$nor", "$not")
_ORDER_SYMBOLS = {"$lt": "<", "$lte": "<=", "$gt": ">", "$gte": ">="}
_VERSION_NAMES = frozenset(("$veq", "$vne", "$vlt", "$vlte", "$vgt", "$vgte"))


class _Source:
    """The lines of a function, and the values its names stand for."""

    def __init__(self, fail: str) -> None:
        self.lines: List[str] = []
        self.names: Dict[str, Any] = {}
        #: The statement that ends the function when a clause fails.
        self.fail = fail

    def name(self, prefix: str, value: Any) -> str:
        label = "%s%d" % (prefix, len(self.names))
        self.names[label] = value
        return label

    def line(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def function(self, signature: str, label: str) -> Any:
        text = "def %s:\n%s\n" % (signature, "\n".join(self.lines))
        namespace: Dict[str, Any] = dict(self.names)
        exec(compile(text, "<arbiter %s>" % label, "exec"), namespace)
        return namespace[signature.split("(")[0]]


def generated_condition(condition: Dict[str, Any], tree: _Matcher) -> Optional[_Matcher]:
    """The condition as one function of ``(attributes, groups)``, or None for ``{}`` (nothing to
    write out). ``tree`` is the condition's closure tree, already compiled (so the condition is
    readable); the function falls back to it for attributes that are not a dict."""
    if not condition:
        return None
    src = _Source("return False")
    src.line(1, "if type(attributes) is not dict:")
    src.line(2, "return %s(attributes, groups)" % src.name("tree", tree))
    _clauses(src, 1, condition)
    src.line(1, "return True")
    function: _Matcher = src.function("condition(attributes, groups)", "condition")
    return function


def generated_targeting(
    condition: Any,
    matches: Callable[[Any, Optional[SavedGroups]], bool],
    saved_groups: Optional[SavedGroups],
    bucket: Callable[[str], Optional[str]],
    reached: Optional[Callable[[str, bool], None]] = None,
    reached_when_enrolled: bool = False,
    table: Optional[FieldTable] = None,
) -> Optional[Callable[..., Optional[str]]]:
    """The variant function of a targeted experiment: ``(user, attributes=None,
    expose_holdout=None)`` -> ``bucket(user)`` when ``condition`` holds for the attributes, else
    None. Attributes that are not a dict go through ``matches`` (the compiled condition's). None
    when the condition is not a non-empty object (the caller then calls ``matches``).

    With ``reached`` (targeting tallies), an excluded user is told to ``reached(user, False)``
    and a matched one not enrolled to ``reached(user, True)``, as is an enrolled one with
    ``reached_when_enrolled``; without it the function is the one it was before tallies.

    With ``table`` (the config's field table), a :class:`PreparedAttributes` takes a path of its
    own, written out beside the dict's: the same tests, each on ``values[i]`` (a tuple slot)
    instead of a field read. A dict never goes near it (that branch is under ``type(attributes)
    is not dict``). Without a table, or for a prepared object of something that is not a
    mapping, the prepared object is unwrapped and matched as what it was made from."""
    if not isinstance(condition, dict) or not condition:
        return None
    src = _Source("return None")
    tally = None if reached is None else src.name("reached", reached)
    if tally is not None:
        # reached() returns None: a failing clause tallies the user and answers None.
        src.fail = "return %s(user, False)" % tally
    groups = src.name("groups", {} if saved_groups is None else saved_groups)
    bucket_name = src.name("bucket", bucket)
    src.line(1, "if type(attributes) is not dict:")
    if table is not None and _reads_only(condition, table):
        _prepared_targeting(src, condition, table, groups, bucket, tally, reached_when_enrolled)
    src.line(
        2,
        "if not %s({} if attributes is None else attributes, %s):"
        % (src.name("matches", matches), src.name("saved", saved_groups)),
    )
    src.line(3, src.fail)
    _return_matched(src, 2, "%s(user)" % bucket_name, tally, reached_when_enrolled)
    # Only attributes nested deeper than the stack make a test raise: that user is not targeted.
    src.line(1, "try:")
    _clauses(src, 2, condition, groups)
    src.line(1, "except Exception:")
    src.line(2, src.fail)
    _bucket(src, 1, bucket, tally, reached_when_enrolled)
    function: Callable[..., Optional[str]] = src.function(
        "targeted(user, attributes=None, expose_holdout=None)", "targeting"
    )
    return function


def _bucket(
    src: _Source,
    depth: int,
    bucket: Callable[[str], Optional[str]],
    tally: Optional[str],
    when_enrolled: bool,
) -> None:
    """Returns the variant of a user the targeting matched: the accelerated assigner's ASCII
    case written out (one call less), any other id through the assigner itself."""
    bucket_name = src.name("bucket", bucket)
    parts = getattr(bucket, "ascii_parts", None)
    if isinstance(parts, AsciiParts):
        src.line(depth, "if user.isascii():")
        src.line(
            depth + 1,
            "b = %s(%s + user, 0, False) %% %s"
            % (src.name("hash", parts.hash32), src.name("prefix", parts.prefix), src.name("count", parts.bucket_count)),
        )
        src.line(depth + 1, "i = %s(%s, b) - 1" % (src.name("bisect", bisect_right), src.name("starts", parts.starts)))
        ends, variants = src.name("ends", parts.ends), src.name("variants", parts.variants)
        in_range = "%s[i] if i >= 0 and b < %s[i] else None" % (variants, ends)
        _return_matched(src, depth + 1, in_range, tally, when_enrolled)
    _return_matched(src, depth, "%s(user)" % bucket_name, tally, when_enrolled)


def _reads_only(condition: Dict[str, Any], table: FieldTable) -> bool:
    """Whether every top-level field of the condition has a slot in the table."""
    try:
        for key in condition:
            if key not in _LOGICAL:
                table.slot_of(key)
    except KeyError:
        return False
    return True


def _prepared_targeting(
    src: _Source,
    condition: Dict[str, Any],
    table: FieldTable,
    groups: str,
    bucket: Callable[[str], Optional[str]],
    tally: Optional[str],
    when_enrolled: bool,
) -> None:
    """The prepared branch: resolve once per table (kept on the prepared object), then the
    clauses on the values and the bucket. A prepared object of a non-dict (``_resolved`` None)
    is unwrapped for the lines that follow."""
    src.line(2, "if type(attributes) is %s:" % src.name("Prepared", PreparedAttributes))
    src.line(3, "values = attributes._resolved")
    src.line(3, "if values is not None:")
    src.line(4, "try:")
    src.line(5, "if values[0] is not %s:" % src.name("table", table))
    src.line(6, "values = %s(attributes)" % src.name("resolve", table.resolve))
    _clauses(src, 5, condition, groups, table)
    src.line(4, "except Exception:")
    src.line(5, src.fail)
    _bucket(src, 4, bucket, tally, when_enrolled)
    src.line(3, "attributes = attributes._attributes")


def _return_matched(src: _Source, depth: int, variant: str, tally: Optional[str], when_enrolled: bool) -> None:
    """Returns ``variant`` (an expression) for a user the targeting matched, tallied when asked."""
    if tally is None:
        src.line(depth, "return %s" % variant)
        return
    src.line(depth, "found = %s" % variant)
    if when_enrolled:
        src.line(depth, "%s(user, True)" % tally)
    else:
        src.line(depth, "if found is None:")
        src.line(depth + 1, "%s(user, True)" % tally)
    src.line(depth, "return found")


def _clauses(
    src: _Source, depth: int, condition: Dict[str, Any], groups: str = "groups", table: Optional[FieldTable] = None
) -> None:
    """Every key of the condition, in order, as tests of ``attributes`` (a dict), or with
    ``table`` of ``values`` (the prepared resolution; ``attributes`` the prepared object)."""
    path_part = src.name("part", _path_part)
    subject = "attributes"
    if table is None:
        src.line(depth, "get = attributes.get")
    elif any(key in _LOGICAL for key in condition):
        # The logical clauses match their closure tree against the dict the object was made from.
        src.line(depth, "whole = attributes._attributes")
        subject = "whole"
    for key, expected in condition.items():
        if key in _LOGICAL:
            whole = src.name("c", _condition({key: expected}))
            src.line(depth, "if not %s(%s, %s):" % (whole, subject, groups))
            src.line(depth + 1, src.fail)
            continue
        if table is None:
            _read_field(src, depth, key, path_part)
        else:
            src.line(depth, "v = values[%d]" % table.slot_of(key))
        if isinstance(expected, dict) and expected and all(k.startswith("$") for k in expected):
            for name, operand in expected.items():
                _operator_test(src, depth, name, operand, groups)
        else:
            src.line(depth, "if not %s(v, %s):" % (src.name("f", _value(expected, False)), groups))
            src.line(depth + 1, src.fail)


def _read_field(src: _Source, depth: int, path: str, path_part: str) -> None:
    """Writes ``v = <the field>``, through each part of a dot path as the tree reads it: a dict
    by its ``get``, anything else but None by ``_path_part``; a None stays None to the end."""
    parts = path.split(".")
    src.line(depth, "v = get(%s)" % src.name("k", parts[0]))
    for part in parts[1:]:
        key = src.name("k", part)
        src.line(depth, "if type(v) is dict:")
        src.line(depth + 1, "v = v.get(%s)" % key)
        src.line(depth, "elif v is not None:")
        src.line(depth + 1, "v = %s(v, %s)" % (path_part, key))


def _operator_test(src: _Source, depth: int, name: str, operand: Any, groups: str) -> None:
    fail = src.fail
    if name in ("$in", "$nin") and isinstance(operand, list):
        members = _Members(operand, False)
        strings, contains_any = src.name("s", members.strings), src.name("m", members.contains_any)
        # The closure's own first case: a string attribute, looked up in the strings.
        fails_when_found = name == "$nin"
        src.line(depth, "if type(v) is str:")
        src.line(depth + 1, "if v %s %s:" % ("in" if fails_when_found else "not in", strings))
        src.line(depth + 2, fail)
        src.line(depth, "elif %s%s(v):" % ("" if fails_when_found else "not ", contains_any))
        src.line(depth + 1, fail)
        return
    if name in _ORDER_SYMBOLS and isinstance(operand, (int, float)) and not isinstance(operand, bool):
        number = src.name("n", to_double(operand))
        closure = src.name("f", _operator(name, operand))
        # Python compares an int with a float exactly; JavaScript compares two doubles. They agree
        # for every int when the operand is below 2**53 in size (an int past it rounds to a double
        # past it too, so the order holds), and for ints of at most 2**53 in size whatever the
        # operand; the others take the closure.
        if abs(to_double(operand)) < _EXACT:
            src.line(depth, "if type(v) is int or type(v) is float:")
        else:
            src.line(depth, "if type(v) is int and -%d <= v <= %d or type(v) is float:" % (_EXACT, _EXACT))
        src.line(depth + 1, "if not v %s %s:" % (_ORDER_SYMBOLS[name], number))
        src.line(depth + 2, fail)
        src.line(depth, "elif not %s(v, %s):" % (closure, groups))
        src.line(depth + 1, fail)
        return
    if name == "$exists" and isinstance(operand, bool):
        src.line(depth, "if v is %s:" % ("None" if operand else "not None"))
        src.line(depth + 1, fail)
        return
    if name in ("$regex", "$regexi") or name in _VERSION_NAMES:
        passed, remembered = remembering(
            regex_test(name, operand) if name in ("$regex", "$regexi") else version_test(name, operand)
        )
        kept, fill = src.name("a", passed), src.name("f", remembered)
        # A string that passed before passes at once; anything else asks the test, which keeps
        # its answer. An unhashable value raises TypeError in the lookup and asks the test too.
        src.line(depth, "try:")
        src.line(depth + 1, "ok = v in %s" % kept)
        src.line(depth, "except TypeError:")
        src.line(depth + 1, "ok = False")
        src.line(depth, "if not ok and not %s(v, %s):" % (fill, groups))
        src.line(depth + 1, fail)
        return
    src.line(depth, "if not %s(v, %s):" % (src.name("f", _operator(name, operand)), groups))
    src.line(depth + 1, fail)
