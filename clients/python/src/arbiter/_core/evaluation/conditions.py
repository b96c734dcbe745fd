"""Targeting conditions: GrowthBook's condition language (MongoDB-style operators) with the
semantics written in docs/wire-format.md#the-condition-language-targeting.

A condition is compiled once into a tree of closures (:func:`compile_condition`) and then matched
against many users' attributes. Compiling also decides whether the condition is readable: an
unknown operator, an operand of the wrong type, a ``$regex`` that is not a valid pattern or is
unsafe (:mod:`arbiter._core.evaluation.regex_safety`), an object that mixes operators with field names, or a
non-object where a condition belongs makes the whole condition match no one, even under ``$not``,
``$nor`` or beside a passing ``$or`` branch. Matching never raises.
"""

import operator
import re
from typing import AbstractSet, Any, Callable, Dict, FrozenSet, List, Mapping, Optional, Sequence, Set, Tuple

from arbiter._core.evaluation.json_values import (
    ARRAY_TYPES,
    compare,
    compare_text,
    number_form,
    same_value,
    string_form,
    to_double,
    truthy,
    type_name,
)
from arbiter._core.evaluation.prepared_attributes import unwrap
from arbiter._core.evaluation.regex_portability import non_portable_construct
from arbiter._core.evaluation.regex_safety import MAX_SUBJECT_LENGTH, is_safe_pattern
from arbiter._core.evaluation.version_string import padded_version_string

#: Saved groups by key: the values ``$inGroup`` looks a user's attribute up in. A value that is not
#: a list reads as an empty group. The lists are read as immutable (they come from a parsed config,
#: replaced as a whole): a compiled condition keeps the last list it was given as a set, and a list
#: changed in place is not seen.
SavedGroups = Mapping[str, Any]

#: A compiled condition or condition value: (the attributes or the attribute value, saved groups).
_Matcher = Callable[[Any, SavedGroups], bool]

_NO_GROUPS: Dict[str, Any] = {}

#: The names ``$type`` accepts.
TYPE_NAMES: FrozenSet[str] = frozenset(("string", "number", "boolean", "null", "object", "array"))


class _Unreadable(Exception):
    """A condition the evaluator cannot read; it matches no one."""


class CompiledCondition:
    """A condition ready to be matched against attributes, again and again."""

    __slots__ = ("_match", "readable", "source")

    def __init__(self, match: Optional[_Matcher], source: Any = None) -> None:
        self._match = match
        #: Whether the condition could be read; one that could not matches no one.
        self.readable = match is not None
        #: The condition as given (JSON), for a caller that writes it into a function of its own.
        self.source = source

    def matches(self, attributes: Any, saved_groups: Optional[SavedGroups] = None) -> bool:
        """Whether the attributes satisfy the condition. Never raises."""
        match = self._match
        if match is None:
            return False
        try:
            if not isinstance(attributes, dict):
                attributes = unwrap(attributes)  # a PreparedAttributes matches as what it holds
                if not isinstance(attributes, dict) and isinstance(attributes, Mapping):
                    attributes = dict(attributes)
            return match(attributes, _NO_GROUPS if saved_groups is None else saved_groups)
        except Exception:
            # Only attributes nested deeper than the stack, or exotic mappings, get here.
            return False


#: ``(condition, tree)`` -> a faster matcher answering as ``tree`` does, or None: the code
#: generator of the fast paths (``arbiter._fast``), handed in by the engine the client chose.
Generate = Callable[[Any, _Matcher], Optional[_Matcher]]


def compile_condition(condition: Any, generate: Optional[Generate] = None) -> CompiledCondition:
    """Compiles a condition (a JSON object). Never raises: an unreadable one matches no one.
    ``generate`` may replace the closure tree by a function that answers the same."""
    try:
        tree = _condition(condition)
    except Exception:
        # _Unreadable; or a condition nested deeper than the stack (RecursionError), or one that is
        # not JSON at all and fails when read: neither can be evaluated either.
        return CompiledCondition(None, condition)
    if generate is None:
        return CompiledCondition(tree, condition)
    try:
        generated = generate(condition, tree)
    except Exception:
        generated = None  # the tree answers the same, only slower
    return CompiledCondition(tree if generated is None else generated, condition)


def eval_condition(attributes: Any, condition: Any, saved_groups: Optional[SavedGroups] = None) -> bool:
    """Whether the attributes satisfy the condition, given the saved groups. Never raises."""
    return compile_condition(condition).matches(attributes, saved_groups)


# --- conditions --------------------------------------------------------------------------------


def _condition(condition: Any) -> _Matcher:
    """A condition: an object whose keys are ``$and``/``$or``/``$nor``/``$not`` or field paths
    (any other key, even one starting with ``$``), all of which must hold."""
    if not isinstance(condition, dict):
        raise _Unreadable
    # Top-level fields are read here, in one loop, rather than each by a closure of its own: a
    # call less per clause, on the path every user takes.
    fields: List[Tuple[str, _Matcher]] = []
    clauses: List[_Matcher] = []
    for key, value in condition.items():
        if not isinstance(key, str):
            raise _Unreadable
        if key in ("$and", "$or", "$nor"):
            clauses.append(_logical(key, value))
        elif key == "$not":
            clauses.append(_negate(_condition(value)))
        elif "." in key:
            clauses.append(_nested_field(key, _value(value, False)))
        else:
            fields.append((key, _value(value, False)))
    if not fields:
        return _all_of(clauses)
    top = tuple(fields)

    def conjunction(attributes: Any, groups: SavedGroups) -> bool:
        get: Callable[[str], Any]
        if isinstance(attributes, dict):
            get = attributes.get
        elif isinstance(attributes, ARRAY_TYPES):
            get = _array_reader(attributes)
        else:
            get = _missing
        for key, value in top:  # noqa: SIM110 (a loop: all(<generator>) costs more per user)
            if not value(get(key), groups):
                return False
        return True

    if not clauses:
        return conjunction
    rest = _all_of(clauses)

    def conjunction_and_rest(attributes: Any, groups: SavedGroups) -> bool:
        return conjunction(attributes, groups) and rest(attributes, groups)

    return conjunction_and_rest


def _missing(key: str) -> None:
    """The attributes of what is not an object: every field is missing."""
    return None


def _logical(key: str, value: Any) -> _Matcher:
    if not isinstance(value, list):
        raise _Unreadable
    parts = tuple(_condition(item) for item in value)
    if key == "$and":
        return _all_of(parts)
    # An empty $or passes (and so an empty $nor fails), as in GrowthBook.
    if not parts:
        return _always(key == "$or")

    def any_of(attributes: Any, groups: SavedGroups) -> bool:
        return any(part(attributes, groups) for part in parts)

    return any_of if key == "$or" else _negate(any_of)


def _all_of(parts: Sequence[_Matcher]) -> _Matcher:
    if len(parts) == 1:
        return parts[0]
    frozen = tuple(parts)

    def all_of(subject: Any, groups: SavedGroups) -> bool:
        # A loop, not all(<generator>): this runs for every user, and a generator costs more.
        for part in frozen:  # noqa: SIM110
            if not part(subject, groups):
                return False
        return True

    return all_of


def _negate(inner: _Matcher) -> _Matcher:
    def negated(subject: Any, groups: SavedGroups) -> bool:
        return not inner(subject, groups)

    return negated


def _always(result: bool) -> _Matcher:
    def constant(subject: Any, groups: SavedGroups) -> bool:
        return result

    return constant


def _nested_field(path: str, value: _Matcher) -> _Matcher:
    """A dot path: the value through JSON objects' own keys, and arrays' canonical indexes in
    range and ``length``, as in both GrowthBook SDKs. A missing field (or a path through anything
    else, strings included) reads as null."""
    parts = tuple(path.split("."))

    def nested(attributes: Any, groups: SavedGroups) -> bool:
        current = attributes
        for part in parts:
            # Objects, the common case, are read here: a call less per part.
            current = current.get(part) if type(current) is dict else _path_part(current, part)
            if current is None:
                break
        return value(current, groups)

    return nested


# "0", "1", "12"; not "01", "-1", "+1" or " 1" (re's [0-9] is ASCII only).
_ARRAY_INDEX = re.compile(r"(?:0|[1-9][0-9]*)\Z")


def _path_part(current: Any, part: str) -> Any:
    """One part of a dot path; None when missing."""
    if isinstance(current, dict):
        return current.get(part)
    if isinstance(current, ARRAY_TYPES):
        return _array_part(current, part)
    return None


def _array_part(array: Sequence[Any], part: str) -> Any:
    if part == "length":
        return len(array)
    # At most 10 digits: no array is longer, and int() stays off huge digit strings.
    if len(part) <= 10 and _ARRAY_INDEX.match(part):
        index = int(part)
        if index < len(array):
            return array[index]
    return None


def _array_reader(array: Sequence[Any]) -> Callable[[str], Any]:
    """The top-level fields of an array (an element of an array, under ``$elemMatch``)."""

    def get(key: str) -> Any:
        return _array_part(array, key)

    return get


# --- condition values --------------------------------------------------------------------------


def _is_operator_object(value: Dict[Any, Any]) -> bool:
    """An object with at least one key, all of which start with ``$``."""
    return len(value) > 0 and all(isinstance(key, str) and key.startswith("$") for key in value)


def _value(expected: Any, insensitive: bool) -> _Matcher:
    """A condition value against an attribute value: shorthand equality (a string against the
    value's string form, a number against its number form, a boolean against its truthiness),
    an operator object, or any other value by equality. ``insensitive`` (inside ``$alli``) makes
    the string shorthand case-insensitive."""
    if isinstance(expected, str):
        return _string_shorthand(expected, insensitive)
    if isinstance(expected, bool):
        want = expected

        def boolean(actual: Any, groups: SavedGroups) -> bool:
            return actual is not None and truthy(actual) == want

        return boolean
    if isinstance(expected, (int, float)):
        number = to_double(expected)

        def numeric(actual: Any, groups: SavedGroups) -> bool:
            return number_form(actual) == number

        return numeric
    if isinstance(expected, dict) and any(isinstance(key, str) and key.startswith("$") for key in expected):
        if not _is_operator_object(expected):
            raise _Unreadable  # mixes operators with field names
        return _all_of([_operator(name, operand) for name, operand in expected.items()])
    _check_json(expected)
    literal = expected

    def equal(actual: Any, groups: SavedGroups) -> bool:
        return same_value(actual, literal)

    return equal


def _string_shorthand(expected: str, insensitive: bool) -> _Matcher:
    if insensitive:
        folded = expected.lower()

        def equal_folded(actual: Any, groups: SavedGroups) -> bool:
            text = string_form(actual)
            return text is not None and text.lower() == folded

        return equal_folded

    def equal_text(actual: Any, groups: SavedGroups) -> bool:
        if isinstance(actual, str):
            return actual == expected
        return string_form(actual) == expected

    return equal_text


def _check_json(value: Any) -> None:
    """A literal in a condition must be a JSON value."""
    if value is None or isinstance(value, (str, int, float)):
        return
    if isinstance(value, ARRAY_TYPES):
        for item in value:
            _check_json(item)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise _Unreadable
            _check_json(item)
        return
    raise _Unreadable


def _operator(name: str, operand: Any) -> _Matcher:
    build = _OPERATORS.get(name)
    if build is None:
        raise _Unreadable  # unknown operator (names are case-sensitive)
    return build(name, operand)


def _equality(name: str, operand: Any) -> _Matcher:
    _check_json(operand)
    if name == "$eq":

        def eq(actual: Any, groups: SavedGroups) -> bool:
            return same_value(actual, operand)

        return eq

    def ne(actual: Any, groups: SavedGroups) -> bool:
        return not same_value(actual, operand)

    return ne


#: The ordering operators, and the comparison each applies (to two doubles, or to -1/0/1 and 0).
_ORDER_TESTS: Dict[str, Callable[[Any, Any], bool]] = {
    "$lt": operator.lt,
    "$lte": operator.le,
    "$gt": operator.gt,
    "$gte": operator.ge,
}


def _is_string_or_number(value: Any) -> bool:
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


def _ordering(name: str, operand: Any) -> _Matcher:
    if not _is_string_or_number(operand):
        raise _Unreadable
    test = _ORDER_TESTS[name]
    if isinstance(operand, str):
        text = operand

        def ordered_text(actual: Any, groups: SavedGroups) -> bool:
            if isinstance(actual, str):
                return test(compare_text(actual, text), 0)
            result = compare(actual, text)
            return result is not None and test(result, 0)

        return ordered_text
    number = to_double(operand)

    def ordered_number(actual: Any, groups: SavedGroups) -> bool:
        # The common case first: a number against a number (NaN fails every test, as it should).
        kind = type(actual)
        if kind is float:
            return test(actual, number)
        if kind is int:
            return test(to_double(actual), number)
        if kind is str:
            return test(number_form(actual), number)
        result = compare(actual, number)
        return result is not None and test(result, 0)

    return ordered_number


#: The version operators, and the comparison each applies to -1/0/1 and 0.
_VERSION_TESTS: Dict[str, Callable[[Any, Any], bool]] = {
    "$veq": operator.eq,
    "$vne": operator.ne,
    "$vlt": operator.lt,
    "$vlte": operator.le,
    "$vgt": operator.gt,
    "$vgte": operator.ge,
}

#: Padded version strings of attribute values: few versions are in use at a time, so the padded
#: forms are kept, and all dropped when there are too many.
_VERSIONS: Dict[str, str] = {}
_MAX_VERSIONS = 1024


def _padded_version(value: Any) -> str:
    if type(value) is not str:
        return padded_version_string(value)
    padded = _VERSIONS.get(value)
    if padded is None:
        padded = padded_version_string(value)
        if len(_VERSIONS) >= _MAX_VERSIONS:
            _VERSIONS.clear()
        _VERSIONS[value] = padded
    return padded


def _version(name: str, operand: Any) -> _Matcher:
    # Few versions are in use at a time: this test's answer for each version string is kept.
    return _remembering_strings(version_test(name, operand))


def version_test(name: str, operand: Any) -> Callable[[Any], bool]:
    """The test of a version operator against one attribute value, answers not kept."""
    if not _is_string_or_number(operand):
        raise _Unreadable
    want = padded_version_string(operand)
    test = _VERSION_TESTS[name]

    want_ascii = want.isascii()

    def versioned_uncached(actual: Any) -> bool:
        padded = _padded_version(actual)
        if want_ascii and padded.isascii():
            return test(padded, want)  # ASCII strings: Python's order is the UTF-16 order
        return test(compare_text(padded, want), 0)

    return versioned_uncached


class _Members:
    """A list for ``$in`` and its kin, kept by JSON type so that ``True`` and ``1`` stay apart:
    strings, numbers (as doubles) and booleans in sets, arrays and objects in a tuple compared one
    by one. With ``insensitive``, strings are kept (and looked up) lowercased."""

    __slots__ = ("strings", "numbers", "booleans", "others", "has_null", "insensitive")

    def __init__(self, values: Sequence[Any], insensitive: bool) -> None:
        strings: Set[str] = set()
        numbers: Set[float] = set()
        booleans: Set[bool] = set()
        others: List[Any] = []
        has_null = False
        for value in values:
            if isinstance(value, str):
                strings.add(value.lower() if insensitive else value)
            elif isinstance(value, bool):
                booleans.add(value)
            elif isinstance(value, (int, float)):
                numbers.add(to_double(value))  # NaN is never found: it equals nothing
            elif value is None:
                has_null = True
            elif isinstance(value, (dict, list, tuple)):
                others.append(value)
            # Values that are not JSON equal nothing.
        self.strings: FrozenSet[str] = frozenset(strings)
        self.numbers: FrozenSet[float] = frozenset(numbers)
        self.booleans: FrozenSet[bool] = frozenset(booleans)
        self.others = tuple(others)
        self.has_null = has_null
        self.insensitive = insensitive

    def contains(self, value: Any) -> bool:
        kind = type(value)
        if kind is str:
            return (value.lower() if self.insensitive else value) in self.strings
        if value is None:
            return self.has_null
        if isinstance(value, str):
            return (value.lower() if self.insensitive else value) in self.strings
        if isinstance(value, bool):
            return value in self.booleans
        if isinstance(value, (int, float)):
            number = to_double(value)
            return number == number and number in self.numbers
        if isinstance(value, (dict, list, tuple)):
            return any(same_value(value, other) for other in self.others)
        return False

    def contains_any(self, actual: Any) -> bool:
        """An array attribute is in the list when any of its elements is (an array is never
        compared with the list's elements as a whole)."""
        if isinstance(actual, ARRAY_TYPES):
            return any(self.contains(element) for element in actual)
        return self.contains(actual)


def _membership(name: str, operand: Any) -> _Matcher:
    if not isinstance(operand, list):
        raise _Unreadable
    _check_json(operand)
    insensitive = name in ("$ini", "$nini")
    members = _Members(operand, insensitive)
    strings = members.strings
    contains_any = members.contains_any

    # A string attribute, the common case, is looked up here; anything else by the members.
    def is_in(actual: Any, groups: SavedGroups) -> bool:
        if type(actual) is str:
            return actual in strings
        return contains_any(actual)

    def is_in_folded(actual: Any, groups: SavedGroups) -> bool:
        if type(actual) is str:
            return actual.lower() in strings
        return contains_any(actual)

    matcher: _Matcher = is_in_folded if insensitive else is_in

    return matcher if name in ("$in", "$ini") else _negate(matcher)


def _group(name: str, operand: Any) -> _Matcher:
    if not isinstance(operand, str):
        raise _Unreadable
    key = operand
    # The groups are the same object from one call to the next while the config stays the same, so
    # the last group's members are kept, paired with the list they were made from (one tuple, so
    # that threads never see a list with another list's members).
    last: List[Tuple[Any, Optional[_Members]]] = [(None, None)]

    def members_of(groups: SavedGroups) -> Optional[_Members]:
        values = groups.get(key)
        if not isinstance(values, ARRAY_TYPES):
            return None
        made_from, members = last[0]
        if made_from is not values or members is None:
            members = _Members(values, False)
            last[0] = (values, members)
        return members

    def in_group(actual: Any, groups: SavedGroups) -> bool:
        members = members_of(groups)
        return members is not None and members.contains_any(actual)

    if name == "$inGroup":
        return in_group
    return _negate(in_group)


def _containment(name: str, operand: Any) -> _Matcher:
    """``$all``/``$alli``: every element of the operand (a condition value) matches some element of
    the array attribute."""
    if not isinstance(operand, list):
        raise _Unreadable
    wanted = tuple(_value(item, name == "$alli") for item in operand)

    def contains_all(actual: Any, groups: SavedGroups) -> bool:
        if not isinstance(actual, ARRAY_TYPES):
            return False
        return all(any(want(element, groups) for element in actual) for want in wanted)

    return contains_all


def _exists(name: str, operand: Any) -> _Matcher:
    if not isinstance(operand, bool):
        raise _Unreadable
    want = operand

    def exists(actual: Any, groups: SavedGroups) -> bool:
        return (actual is not None) == want

    return exists


def _type(name: str, operand: Any) -> _Matcher:
    if not isinstance(operand, str) or operand not in TYPE_NAMES:
        raise _Unreadable
    want = operand

    def has_type(actual: Any, groups: SavedGroups) -> bool:
        return type_name(actual) == want

    return has_type


def _size(name: str, operand: Any) -> _Matcher:
    length = _value(operand, False)

    def sized(actual: Any, groups: SavedGroups) -> bool:
        return isinstance(actual, ARRAY_TYPES) and length(len(actual), groups)

    return sized


def _elem_match(name: str, operand: Any) -> _Matcher:
    """Some element of the array attribute, other than null, matches: operators test the element
    itself, anything else is a condition on the element's fields."""
    if not isinstance(operand, dict):
        raise _Unreadable
    element_matches = _value(operand, False) if _is_operator_object(operand) else _condition(operand)

    def elem_match(actual: Any, groups: SavedGroups) -> bool:
        if not isinstance(actual, ARRAY_TYPES):
            return False
        # Null elements are skipped, as both GrowthBook SDKs skip them.
        return any(element_matches(element, groups) for element in actual if element is not None)

    return elem_match


def _not(name: str, operand: Any) -> _Matcher:
    return _negate(_value(operand, False))


def _regex(name: str, operand: Any) -> _Matcher:
    # Attributes that regexes read (locales, countries, plans) repeat from user to user.
    return _remembering_strings(regex_test(name, operand))


def regex_test(name: str, operand: Any) -> Callable[[Any], bool]:
    """The test of ``$regex``/``$regexi`` against one attribute value, answers not kept."""
    # An unsafe pattern (one that can backtrack for ever), or one the other evaluators would read
    # differently, is read as an invalid one: never run.
    if not isinstance(operand, str) or not is_safe_pattern(operand):
        raise _Unreadable
    if non_portable_construct(operand) is not None:
        raise _Unreadable
    try:
        pattern = re.compile(operand, re.IGNORECASE if name == "$regexi" else 0)
    except Exception:
        raise _Unreadable from None

    find = pattern.search

    def search(actual: Any) -> bool:
        text = actual if isinstance(actual, str) else string_form(actual)
        # A value past the cap is never searched: it does not match.
        return text is not None and len(text) <= MAX_SUBJECT_LENGTH and find(text) is not None

    return search


#: How many answers a test keeps per attribute string before it forgets them all.
_MAX_REMEMBERED = 1024


def _remembering_strings(test: Callable[[Any], bool]) -> _Matcher:
    return remembering(test)[1]


def remembering(test: Callable[[Any], bool]) -> Tuple[AbstractSet[str], _Matcher]:
    """A value test that is a pure function of its value, with its answers for string values
    kept (a set lookup instead of a regex search or a version padding and comparison): the
    strings that passed, which a caller may test membership in directly (only the matcher adds
    to it), and the matcher that fills them."""
    # Two sets rather than one dict of answers: ``v in passed`` is one bytecode, where
    # ``answers.get(v)`` is a method call, which is most of a kept answer's cost in CPython.
    passed: Set[str] = set()
    failed: Set[str] = set()

    def remembered(actual: Any, groups: SavedGroups) -> bool:
        if type(actual) is not str:
            return test(actual)
        if actual in passed:
            return True
        if actual in failed:
            return False
        answer = test(actual)
        if len(passed) + len(failed) >= _MAX_REMEMBERED:
            passed.clear()
            failed.clear()
        (passed if answer else failed).add(actual)
        return answer

    return passed, remembered


_OPERATORS: Dict[str, Callable[[str, Any], _Matcher]] = {
    "$eq": _equality,
    "$ne": _equality,
    "$lt": _ordering,
    "$lte": _ordering,
    "$gt": _ordering,
    "$gte": _ordering,
    "$veq": _version,
    "$vne": _version,
    "$vgt": _version,
    "$vgte": _version,
    "$vlt": _version,
    "$vlte": _version,
    "$in": _membership,
    "$nin": _membership,
    "$ini": _membership,
    "$nini": _membership,
    "$inGroup": _group,
    "$notInGroup": _group,
    "$all": _containment,
    "$alli": _containment,
    "$exists": _exists,
    "$type": _type,
    "$size": _size,
    "$elemMatch": _elem_match,
    "$not": _not,
    "$regex": _regex,
    "$regexi": _regex,
}
