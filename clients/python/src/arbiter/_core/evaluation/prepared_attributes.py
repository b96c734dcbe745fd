"""A user's attributes prepared once and read by index on every later call.

Most requests check many experiments for the same user. With a plain dict, every targeted check
reads its fields from the dict again (a ``dict.get`` a field, a call each in CPython, most of a
five-clause condition's cost). A :class:`PreparedAttributes` keeps, for the config it was last
used with, the value of every field any targeting of that config reads, so a later check reads a
tuple slot instead (see :mod:`arbiter._core.evaluation.field_table`).
"""

from typing import TYPE_CHECKING, Any, Mapping, Optional, Tuple, Union

#: Not resolved against any field table yet: slot 0 of a resolution is the table it belongs to.
_UNRESOLVED: Tuple[Any, ...] = (None,)


class PreparedAttributes:
    """An immutable, prepared form of a user's attributes, accepted wherever a plain attributes
    mapping is (``assign``, ``get_prompt``, ``get_variables``, ``as_user``, their async forms) and
    answered exactly as that mapping would be. Build one per request and pass it to every call.

    The top-level mapping is copied, so changing the caller's dict afterwards changes nothing
    here; nested values are not copied, and must not be changed once prepared. Never raises: a
    value that is not a mapping behaves as it does when passed directly.
    """

    __slots__ = ("_attributes", "_resolved")

    def __init__(self, attributes: Optional[Mapping[str, Any]] = None) -> None:
        if type(attributes) is dict:
            # The usual argument, on a path of its own: the same shallow copy as dict(attributes),
            # without the checks below (an isinstance against typing's Mapping costs several
            # times the copy). A dict subclass takes the Mapping path.
            _set_attributes(self, attributes.copy())
            _set_resolved(self, _UNRESOLVED)
            return
        raw: Any = attributes
        try:
            # isinstance reads an object's __class__, which a proxy or a broken object can raise
            # from: such a value, like a mapping that cannot be read, is kept as given, and the
            # plain path answers for it.
            if isinstance(attributes, PreparedAttributes):
                raw = attributes._attributes
            elif isinstance(attributes, Mapping):
                raw = dict(attributes)
        except Exception:
            raw = attributes
        #: The caller's attributes (a shallow copy when they were a mapping).
        _set_attributes(self, raw)
        #: ``(field table, value of field 0, value of field 1, ...)`` for the last table used, as
        #: one tuple so that a thread never sees one table's values paired with another table.
        #: None when the attributes are not a dict: those always take the plain path.
        _set_resolved(self, _UNRESOLVED if type(raw) is dict else None)

    if TYPE_CHECKING:
        _attributes: Any
        _resolved: Optional[Tuple[Any, ...]]

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("PreparedAttributes is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("PreparedAttributes is immutable")

    def __repr__(self) -> str:
        return "PreparedAttributes(%r)" % (self._attributes,)


#: The slots' own setters, as ``__init__`` sets them: they pass by the class's ``__setattr__``
#: (which refuses assignment to its callers) and cost less than ``object.__setattr__`` by name.
_set_attributes = PreparedAttributes.__dict__["_attributes"].__set__
_set_resolved = PreparedAttributes.__dict__["_resolved"].__set__

#: What every method that takes attributes accepts.
Attributes = Union[Mapping[str, Any], PreparedAttributes]


def unwrap(attributes: Any) -> Any:
    """The attributes a :class:`PreparedAttributes` was made from (copied), anything else as is."""
    return attributes._attributes if type(attributes) is PreparedAttributes else attributes
