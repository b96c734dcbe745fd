"""A view of an OpenAI or Anthropic client whose model-call methods go through a hook.

The client itself is not modified, so unwrapped uses elsewhere in the host stay as they were.
"""

import types
from typing import Any, Callable, Dict, FrozenSet, List, Tuple

from arbiter.integrations._model_call_measure import ProviderReader
from arbiter.integrations._wrap_anthropic import ANTHROPIC_METHODS, anthropic_reader
from arbiter.integrations._wrap_openai import OPENAI_METHODS, openai_reader

#: Runs one intercepted provider call; ``invoke`` makes the real call.
CallHook = Callable[[ProviderReader, Dict[str, Any], Callable[[], Any]], Any]

_READERS: Dict[str, ProviderReader] = {}
for _path in OPENAI_METHODS:
    _READERS[_path] = openai_reader
for _path in ANTHROPIC_METHODS:
    _READERS[_path] = anthropic_reader


def _parents() -> FrozenSet[str]:
    """Every resource on the way to an intercepted method: ``chat``, ``chat.completions``, ..."""
    out = set()
    for path in _READERS:
        parts = path.split(".")
        for i in range(1, len(parts)):
            out.add(".".join(parts[:i]))
    return frozenset(out)


_PARENTS = _parents()

#: Both readers together, for ``intercept_model_call``, where the provider is not known.
ANY_PROVIDER: Tuple[ProviderReader, ...] = (openai_reader, anthropic_reader)


class _View:
    """Attribute reads go to the real object, except on the way to an intercepted method."""

    __slots__ = ("_arbiter_target", "_arbiter_path", "_arbiter_hook", "_arbiter_made")

    def __init__(self, target: Any, path: str, hook: CallHook) -> None:
        object.__setattr__(self, "_arbiter_target", target)
        object.__setattr__(self, "_arbiter_path", path)
        object.__setattr__(self, "_arbiter_hook", hook)
        # Repeated reads return the same view, as they would on the real client.
        object.__setattr__(self, "_arbiter_made", {})

    def __getattr__(self, name: str) -> Any:
        target = self._arbiter_target
        value = getattr(target, name)
        at = name if self._arbiter_path == "" else self._arbiter_path + "." + name
        made: Dict[str, Tuple[Any, Any]] = self._arbiter_made
        hit = made.get(at)
        if hit is not None and hit[0] is value:
            return hit[1]
        reader = _READERS.get(at)
        if reader is not None and callable(value):
            view: Any = _intercepted(value, reader, self._arbiter_hook)
        elif at in _PARENTS and value is not None:
            view = _View(value, at, self._arbiter_hook)
        elif self._arbiter_path in _PARENTS and isinstance(value, types.MethodType) and value.__self__ is target:
            # A helper of a resource (``chat.completions.stream()``) that calls ``self.create``
            # runs with the view as ``self``, so that its calls are recorded too.
            view = types.MethodType(value.__func__, self)
        else:
            return value
        made[at] = (value, view)
        return view

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._arbiter_target, name, value)

    def __dir__(self) -> List[str]:
        return dir(self._arbiter_target)

    def __repr__(self) -> str:
        return "<arbiter view of %r>" % (self._arbiter_target,)


def _intercepted(method: Callable[..., Any], reader: ProviderReader, hook: CallHook) -> Callable[..., Any]:
    def intercepted(*args: Any, **kwargs: Any) -> Any:
        return hook(reader, kwargs, lambda: method(*args, **kwargs))

    intercepted.__name__ = getattr(method, "__name__", "create")
    intercepted.__doc__ = getattr(method, "__doc__", None)
    return intercepted


def wrap_provider_client(client: Any, hook: CallHook) -> Any:
    return _View(client, "", hook)
