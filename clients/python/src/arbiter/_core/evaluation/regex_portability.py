"""Constructs that JavaScript ``RegExp``, Python ``re`` and ``java.util.regex`` read differently,
or that only one of them accepts (the portable subset of docs/wire-format.md's regular
expressions). A pattern outside the subset makes its condition unreadable in every evaluator,
so a pattern means the same in the server and the three clients or matches no one anywhere
(testdata/regex-safety.json's ``unportable`` cases).
"""

import re
from typing import List, Optional, Tuple, Union

_CLASS_ESCAPES = "dDwWsS"
_ESCAPES = _CLASS_ESCAPES + "bBnrtf"
_QUANTIFIER = re.compile(r"\{[0-9]+(?:,[0-9]*)?\}")
_HEX = "0123456789abcdefABCDEF"

#: A character class's members, in order: a character, a class escape (``\d``), or a bare ``-``.
_CHAR, _CLASS, _DASH = "char", "class", "dash"


def non_portable_construct(pattern: str) -> Optional[str]:
    """Why the pattern would not mean the same in every evaluator, or None when it would."""
    in_class = False
    atoms: List[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            escaped = _read_escape(pattern, i, in_class)
            if isinstance(escaped, str):
                return escaped
            if escaped is None:
                return None  # a trailing backslash is invalid everywhere
            end, atom = escaped
            if in_class:
                atoms.append(atom)
            i = end
            continue
        if in_class:
            if ch == "[":
                return '"[" inside a character class (Java reads a union)'
            if ch == "&" and pattern[i + 1 : i + 2] == "&":
                return '"&&" inside a character class (Java reads an intersection)'
            if ch == "]":
                in_class = False
                problem = _class_escape_range(atoms)
                if problem is not None:
                    return problem
            else:
                atoms.append(_DASH if ch == "-" else _CHAR)
            i += 1
            continue
        outside = _read_outside_class(pattern, i)
        if isinstance(outside, str):
            return outside
        if ch == "[":
            in_class = True
            atoms = []
        i = outside
    return None


def _read_escape(pattern: str, at: int, in_class: bool) -> Union[Tuple[int, str], str, None]:
    """The escape whose backslash is at ``at``: where it ends and what a class holds for it."""
    if at + 1 >= len(pattern):
        return None
    nxt = pattern[at + 1]
    if "0" <= nxt <= "9":
        return "\\%s: backreferences and octal escapes are read differently" % nxt
    if nxt.isascii() and nxt.isalpha():
        if nxt in "xu":
            digits = 2 if nxt == "x" else 4
            hex_digits = pattern[at + 2 : at + 2 + digits]
            if len(hex_digits) != digits or any(c not in _HEX for c in hex_digits):
                return "\\%s must be followed by %d hexadecimal digits" % (nxt, digits)
            return at + 2 + digits, _CHAR
        allowed = _CLASS_ESCAPES + "nrtf" if in_class else _ESCAPES
        if nxt not in allowed:
            return "\\%s is not an escape every client reads alike" % nxt
        return at + 2, _CLASS if nxt in _CLASS_ESCAPES else _CHAR
    if ord(nxt) > 0x7F:
        return "a backslash before a non-ASCII character"
    return at + 2, _CHAR


def _read_outside_class(pattern: str, at: int) -> Union[int, str]:
    """Outside a class, where the construct at ``at`` ends, or why it is not portable."""
    ch = pattern[at]
    if ch == "[":
        j = at + 1
        if pattern[j : j + 1] == "^":
            j += 1
        if pattern[j : j + 1] == "]":
            return 'a character class opening with "]" ("[]", "[^]")'
        return j
    if ch == "(" and pattern[at + 1 : at + 2] == "?":
        if pattern[at + 2 : at + 3] not in (":", "=", "!") or at + 2 >= len(pattern):
            return '"(?" other than "(?:", "(?=" or "(?!" (named groups, lookbehind, inline flags)'
        return at + 3
    if ch == "{":
        quantifier = _QUANTIFIER.match(pattern, at)
        if quantifier is None:
            return 'a "{" that is not a quantifier {n}, {n,} or {n,m}'
        return quantifier.end()
    return at + 1


def _class_escape_range(atoms: List[str]) -> Optional[str]:
    """A range with a class escape as an end (``[\\d-z]``): JavaScript reads its ``-`` as a
    literal and Python's ``re`` refuses it. Ranges are read left to right, as all three do."""
    k = 0
    while k < len(atoms):
        if k + 2 < len(atoms) and atoms[k + 1] == _DASH:
            if _CLASS in (atoms[k], atoms[k + 2]):
                return 'a range with a class escape as an end ("[\\d-z]")'
            k += 3
        else:
            k += 1
    return None
