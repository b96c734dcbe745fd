"""How the condition language reads attribute values: the string and number forms of a value, its
truthiness, equality and ordering.

GrowthBook's JavaScript evaluator gets these from JavaScript's own coercions; they are written out
here so that Python gives the same answers (docs/wire-format.md#conditions-and-values).
Attributes are JSON values as :mod:`json` reads them: ``dict``, ``list`` (or ``tuple``), ``str``,
``int``, ``float``, ``bool`` and ``None``. ``bool`` is tested before ``int`` everywhere: ``True`` is
a boolean, never the number 1. Numbers are compared as IEEE doubles, as JavaScript has no other
kind, so ``1`` equals ``1.0`` and integers beyond 2**53 round as they do there.
"""

import math
import re
from typing import Any, Optional

#: The Python types that read as a JSON array.
ARRAY_TYPES = (list, tuple)

#: A plain decimal number, in full: no whitespace, no hex, no ``Infinity``, no ``_``, not empty.
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")

NAN = float("nan")


def is_number(value: Any) -> bool:
    """A JSON number: an ``int`` or ``float`` that is not a ``bool``."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def to_double(value: Any) -> float:
    """A number as JavaScript holds it: an IEEE double (an ``int`` too large is an infinity)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def js_number_string(value: Any) -> str:
    """A number formatted as JavaScript's ``String(number)`` does (Number::toString): the shortest
    digits that read back as the same double, in plain notation for decimal exponents from -6 to
    20 and in scientific notation (``1e+21``, ``1.5e-7``) beyond."""
    x = to_double(value)
    if x != x:
        return "NaN"
    if x == 0:
        return "0"  # -0 too
    if x < 0:
        return "-" + js_number_string(-x)
    if math.isinf(x):
        return "Infinity"
    # repr gives the shortest round-tripping digits, as "123.0", "0.0001", "1e+21" or "1.5e-07".
    mantissa, _, exponent = repr(x).partition("e")
    whole, _, fraction = mantissa.partition(".")
    all_digits = whole + fraction
    significant = all_digits.lstrip("0")
    # x = 0.<digits> * 10**n
    n = len(whole) + int(exponent or "0") - (len(all_digits) - len(significant))
    digits = significant.rstrip("0")
    k = len(digits)
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * -n + digits
    e = n - 1
    head = digits if k == 1 else digits[0] + "." + digits[1:]
    return head + "e" + ("+" if e >= 0 else "-") + str(abs(e))


def string_form(value: Any) -> Optional[str]:
    """The string a value reads as where a string is expected (string shorthand, ``$regex``, the
    version operators): a string itself, a number as JavaScript prints it, ``true`` or ``false``;
    null, arrays and objects have none."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if is_number(value):
        return js_number_string(value)
    return None


def number_form(value: Any) -> float:
    """The number a value reads as where a number is expected (number shorthand, ordering against
    a number): null or missing is 0, booleans are 1 and 0, a string only if it is a plain decimal;
    anything else is NaN, which no comparison accepts."""
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return to_double(value)
    if isinstance(value, str):
        return float(value) if _DECIMAL.fullmatch(value) else NAN
    return NAN


def truthy(value: Any) -> bool:
    """JavaScript truthiness over JSON values: "", 0, NaN, false and null are false; arrays and
    objects are true."""
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return len(value) > 0
    if isinstance(value, (int, float)):
        return value != 0 and value == value
    return True


def same_value(a: Any, b: Any) -> bool:
    """Equality of two JSON values: same type and value; numbers by value (1 equals 1.0, 0 equals
    -0); arrays element by element in order; objects by their keys in any order. Missing is null."""
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, str):
        return isinstance(b, str) and a == b
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)):
        return isinstance(b, (int, float)) and to_double(a) == to_double(b)
    if isinstance(a, ARRAY_TYPES):
        if not isinstance(b, ARRAY_TYPES) or len(a) != len(b):
            return False
        return all(same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        if not isinstance(b, dict) or len(a) != len(b):
            return False
        return all(key in b and same_value(item, b[key]) for key, item in a.items())
    return False


def compare_text(a: str, b: str) -> int:
    """-1, 0 or 1: two strings in the order of their UTF-16 code units, as JavaScript orders them.
    That is code point order except that a character above U+FFFF (a surrogate pair) sorts below
    U+E000..U+FFFF; big-endian UTF-16 bytes compare in exactly that order."""
    if a == b:
        return 0
    if a.isascii() and b.isascii():
        return -1 if a < b else 1
    units_a = a.encode("utf-16-be", "surrogatepass")
    units_b = b.encode("utf-16-be", "surrogatepass")
    return -1 if units_a < units_b else 1


def compare(actual: Any, expected: Any) -> Optional[int]:
    """The ordering operators: -1, 0 or 1, or None when the two do not compare. Two strings compare
    by UTF-16 code units; otherwise both sides read as numbers (:func:`number_form`), and an array
    or object on either side never compares."""
    if isinstance(actual, str) and isinstance(expected, str):
        return compare_text(actual, expected)
    if isinstance(actual, (dict, list, tuple)) or isinstance(expected, (dict, list, tuple)):
        return None
    a = number_form(actual)
    b = number_form(expected)
    if a < b:
        return -1
    if a > b:
        return 1
    if a == b:
        return 0
    return None


def type_name(value: Any) -> str:
    """The name ``$type`` knows a value by: string, number, boolean, null, array or object."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, ARRAY_TYPES):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "unknown"
