"""The fields a config's targeting reads, numbered once per config load.

Every distinct field path read by any condition of one config (top-level clauses, those under
``$and``/``$or``/``$nor``/``$not``, ``$inGroup`` fields alike) gets an index. A
:class:`~arbiter._core.evaluation.prepared_attributes.PreparedAttributes` resolves all of them in one go the first
time it meets the table, and the generated variant functions then read ``values[i]``.
"""

from typing import Any, Callable, Dict, Iterable, List, Sequence, Tuple

from arbiter._core.evaluation.conditions import _path_part
from arbiter._core.evaluation.prepared_attributes import PreparedAttributes

_LOGICAL = ("$and", "$or", "$nor")
#: Sets the resolution on a PreparedAttributes, which refuses assignment to its callers.
_keep = object.__setattr__


class FieldTable:
    """The field paths of one compiled config, in index order. Compared by identity: a new config
    load makes a new table, and a prepared object resolved for the old one resolves again."""

    __slots__ = ("_index", "_paths", "_resolve")

    def __init__(self, paths: Iterable[str]) -> None:
        self._index: Dict[str, int] = {}
        for path in paths:
            self._index.setdefault(path, len(self._index))
        self._paths: Tuple[Tuple[str, ...], ...] = tuple(tuple(path.split(".")) for path in self._index)
        self._resolve = _resolver(self, self._paths)

    def __len__(self) -> int:
        return len(self._paths)

    def slot_of(self, path: str) -> int:
        """The slot of ``path`` in a resolution (slot 0 holds the table); KeyError when absent."""
        return self._index[path] + 1

    def resolve(self, prepared: PreparedAttributes) -> Tuple[Any, ...]:
        """Reads every field of the table from ``prepared``'s attributes (a dict), keeps the
        resolution on it and returns it. Each value is what the plain path's read gives: a dict
        by its ``get``, anything else but None by ``_path_part``, a None stays None to the end.
        An attribute that raises when read raises here, as it does on the plain path."""
        resolved: Tuple[Any, ...] = self._resolve(prepared)
        return resolved


def _resolver(table: FieldTable, paths: Sequence[Tuple[str, ...]]) -> Callable[[PreparedAttributes], Tuple[Any, ...]]:
    """``table.resolve`` written out as one function, every read inline (as the generated
    conditions read them): a loop over the paths costs several times more per field, and a
    PreparedAttributes built per request pays it once each. Only names are written into the
    source; the keys are values of its namespace."""
    names: Dict[str, Any] = {"table": table, "part": _path_part, "keep": _keep}
    lines = ["def resolve(prepared):", "    get = prepared._attributes.get"]
    for i, parts in enumerate(paths):
        key = "k%d_0" % i
        names[key] = parts[0]
        lines.append("    r%d = get(%s)" % (i, key))
        for j, part in enumerate(parts[1:], 1):
            key = "k%d_%d" % (i, j)
            names[key] = part
            lines.append("    if type(r%d) is dict:" % i)
            lines.append("        r%d = r%d.get(%s)" % (i, i, key))
            lines.append("    elif r%d is not None:" % i)
            lines.append("        r%d = part(r%d, %s)" % (i, i, key))
    lines.append("    r = (table,%s)" % "".join(" r%d," % i for i in range(len(paths))))
    lines.append("    keep(prepared, '_resolved', r)")
    lines.append("    return r")
    exec(compile("\n".join(lines) + "\n", "<arbiter field table>", "exec"), names)
    resolve: Callable[[PreparedAttributes], Tuple[Any, ...]] = names["resolve"]
    return resolve


def field_table_of(conditions: Iterable[Any]) -> FieldTable:
    """The table of every field path the conditions read, in the order first met."""
    paths: List[str] = []
    for condition in conditions:
        _collect(condition, paths, 0)
    return FieldTable(paths)


def _collect(condition: Any, into: List[str], depth: int) -> None:
    # A condition deeper than this is one the evaluator cannot read anyway.
    if not isinstance(condition, dict) or depth > 64:
        return
    for key, value in condition.items():
        if not isinstance(key, str):
            continue
        if key in _LOGICAL:
            for item in value if isinstance(value, list) else ():
                _collect(item, into, depth + 1)
        elif key == "$not":
            _collect(value, into, depth + 1)
        else:
            into.append(key)
