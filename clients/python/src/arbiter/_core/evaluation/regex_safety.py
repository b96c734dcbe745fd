"""Which ``$regex``/``$regexi`` patterns the client runs, and on which values (the rule of
testdata/regex-safety.json, the same in every evaluator).

A pattern is unsafe when a group repeated more than once (``*``, ``+``, ``{n,}``, or ``{n,m}`` /
``{n}`` with a maximum of 2 or more) holds, at any depth, a quantifier (``*``, ``+``, ``?``,
``{..}``) or an alternation (``|``): the shape of catastrophic backtracking (``^(a+)+$``). Escaped
characters and characters inside a class never count. An unsafe pattern is never compiled: the
operator reads it as an invalid pattern. A string longer than :data:`MAX_SUBJECT_LENGTH` code
points is never searched: it does not match.

The check reads the pattern once, left to right, with a stack of the open groups: linear in the
pattern's length, whatever it holds.
"""

from typing import List, Optional, Tuple

#: The longest string, in code points (``len``), a pattern is searched in.
MAX_SUBJECT_LENGTH = 1024

_DIGITS = "0123456789"


def is_safe_pattern(pattern: str) -> bool:
    """Whether no group repeated more than once holds a quantifier or an alternation."""
    # One flag per open group (the outermost is the pattern itself): whether it holds a
    # quantifier or an alternation so far.
    holds: List[bool] = [False]
    i, end = 0, len(pattern)
    while i < end:
        ch = pattern[i]
        if ch == "\\":
            i += 2  # the escaped character is an atom, whatever it is
        elif ch == "[":
            i = _class_end(pattern, i)
        elif ch == "(":
            holds.append(False)
            i = _group_body(pattern, i + 1)
            continue
        elif ch == "|":
            holds[-1] = True
            i += 1
            continue
        elif ch == ")":
            inner = holds.pop() if len(holds) > 1 else False
            quantifier = _quantifier(pattern, i + 1)
            if quantifier is not None:
                if inner and quantifier[1]:
                    return False
                inner = True  # a quantified group is a quantifier in the group around it
                holds[-1] = holds[-1] or inner
                i = quantifier[0]
                continue
            holds[-1] = holds[-1] or inner
            i += 1
            continue
        else:
            i += 1
        # After an atom: a quantifier on it.
        quantifier = _quantifier(pattern, i)
        if quantifier is not None:
            holds[-1] = True
            i = quantifier[0]
    return True


def _class_end(pattern: str, start: int) -> int:
    """The index after the class opening at ``start`` (a ``]`` first in it closes it, as in
    JavaScript); the pattern's end when it never closes."""
    i, end = start + 1, len(pattern)
    if i < end and pattern[i] == "^":
        i += 1
    while i < end:
        ch = pattern[i]
        if ch == "\\":
            i += 2
        elif ch == "]":
            return i + 1
        else:
            i += 1
    return end


def _group_body(pattern: str, i: int) -> int:
    """The index of a group's first atom, past ``?:``, ``?=``, ``?!``, ``?<=``, ``?<!`` or
    ``?<name>``: the ``?`` of a group's kind is not a quantifier."""
    if not pattern.startswith("?", i):
        return i
    i += 1
    if pattern.startswith("<", i) and not pattern.startswith(("<=", "<!"), i):
        close = pattern.find(">", i)
        return len(pattern) if close < 0 else close + 1
    return i + (2 if pattern.startswith("<", i) else 1)


def _quantifier(pattern: str, i: int) -> Optional[Tuple[int, bool]]:
    """The quantifier at ``i``, if any: (the index after it and its lazy ``?``, whether it
    repeats more than once)."""
    if i >= len(pattern):
        return None
    ch = pattern[i]
    if ch in "*+":
        after, repeats = i + 1, True
    elif ch == "?":
        after, repeats = i + 1, False
    elif ch == "{":
        braces = _braces(pattern, i)
        if braces is None:
            return None  # a literal "{"
        after, repeats = braces
    else:
        return None
    if pattern.startswith("?", after):
        after += 1  # lazy
    return after, repeats


def _braces(pattern: str, i: int) -> Optional[Tuple[int, bool]]:
    """``{n}``, ``{n,}`` or ``{n,m}`` at ``i``: (the index after it, whether its maximum is 2 or
    more); None when the brace is a literal."""
    low_end = _digits_end(pattern, i + 1)
    if low_end == i + 1:
        return None
    if pattern.startswith("}", low_end):
        return low_end + 1, _at_least_two(pattern[i + 1 : low_end])
    if not pattern.startswith(",", low_end):
        return None
    high_end = _digits_end(pattern, low_end + 1)
    if not pattern.startswith("}", high_end):
        return None
    if high_end == low_end + 1:
        return high_end + 1, True  # {n,}
    return high_end + 1, _at_least_two(pattern[low_end + 1 : high_end])


def _digits_end(pattern: str, i: int) -> int:
    end = len(pattern)
    while i < end and pattern[i] in _DIGITS:
        i += 1
    return i


def _at_least_two(digits: str) -> bool:
    """Whether a decimal number is 2 or more, read without ``int`` (no bound on its digits)."""
    significant = digits.lstrip("0")
    return len(significant) > 1 or significant >= "2"
