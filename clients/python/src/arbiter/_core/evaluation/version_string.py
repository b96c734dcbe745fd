"""Versions for ``$veq $vne $vgt $vgte $vlt $vlte``: GrowthBook's padded version strings."""

import re
from typing import Any

from arbiter._core.evaluation.json_values import is_number, js_number_string

_SEPARATORS = re.compile(r"[-.]")
_NUMERIC_PART = re.compile(r"[0-9]+")


def padded_version_string(value: Any) -> str:
    """A version as a string whose plain string order (UTF-16 code units) is the version order:
    a leading ``v`` and any ``+build`` suffix are dropped, the rest splits on ``-`` and ``.``, a
    three-part version gains a ``~`` part (so a release sorts after its prereleases: ``~`` is the
    largest ASCII character), numeric parts are left-padded with spaces to five characters (so
    " 9" < "10"), and the parts are joined by ``-``. A number reads as its JavaScript string form;
    anything that is not a non-empty string or a number reads as "0"."""
    if is_number(value):
        text = js_number_string(value)
    elif isinstance(value, str) and value:
        text = value
    else:
        text = "0"
    if text.startswith("v"):
        text = text[1:]
    build = text.find("+")
    if build >= 0:
        text = text[:build]
    parts = _SEPARATORS.split(text)
    if len(parts) == 3:
        parts.append("~")
    return "-".join(part.rjust(5, " ") if _NUMERIC_PART.fullmatch(part) else part for part in parts)
