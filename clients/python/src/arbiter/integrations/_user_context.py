"""The user of wrapped model calls, carried by ``contextvars``.

A ContextVar follows the code that set it through ``await`` and stays apart per thread and per
asyncio task (each task runs in a copy of the context it was created in), so interleaved
requests of different users never see each other's user.
"""

from contextvars import ContextVar, Token
from typing import Any, List, Optional, Tuple, TypeVar

from arbiter._core.evaluation.prepared_attributes import Attributes

current_user: "ContextVar[Optional[str]]" = ContextVar("arbiter_user", default=None)
#: The attributes given to the innermost ``as_user`` (what targeting reads), or None.
current_attributes: "ContextVar[Optional[Attributes]]" = ContextVar("arbiter_attributes", default=None)
#: The stored prompt of the innermost ``with_prompt``: ``(name, version)``, or None.
current_prompt: "ContextVar[Optional[Tuple[str, int]]]" = ContextVar("arbiter_prompt", default=None)

_Scope = TypeVar("_Scope", bound="_SyncScope")


class _SyncScope:
    """A scope entered with ``with`` or ``async with`` alike: entering sets context variables,
    which needs no awaiting, so ``async with`` does what ``with`` does. A scope says what it
    sets (``_set``) and how it puts back what was there (``_reset``); the protocol is here."""

    __slots__ = ()

    def _set(self) -> None:
        raise NotImplementedError

    def _reset(self) -> None:
        raise NotImplementedError

    def __enter__(self: _Scope) -> _Scope:
        self._set()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._reset()

    async def __aenter__(self: _Scope) -> _Scope:
        return self.__enter__()

    async def __aexit__(self, *exc_info: object) -> None:
        self._reset()


class AsUser(_SyncScope):
    """``with arbiter.as_user(user, attributes):`` (or ``async with``): wrapped-client calls
    inside belong to ``user``, assigned with ``attributes``."""

    __slots__ = ("_user", "_attributes", "_tokens")

    def __init__(self, user: str, attributes: Optional[Attributes] = None) -> None:
        self._user = user
        self._attributes = attributes
        # A stack, so that one AsUser object may be entered again while it is active.
        self._tokens: "List[Tuple[Token[Optional[str]], Token[Optional[Attributes]]]]" = []

    def _set(self) -> None:
        self._tokens.append((current_user.set(self._user), current_attributes.set(self._attributes)))

    def _reset(self) -> None:
        user_token, attributes_token = self._tokens.pop()
        current_attributes.reset(attributes_token)
        current_user.reset(user_token)


class WithPrompt(_SyncScope):
    """``with arbiter.with_prompt(prompt):`` (or ``async with``): the model calls recorded inside
    carry the prompt's ``prompt_name`` and ``prompt_version``; a default (no version) none."""

    __slots__ = ("_prompt", "_tokens")

    def __init__(self, prompt: Any) -> None:
        name = getattr(prompt, "name", None)
        version = getattr(prompt, "version", None)
        ok = isinstance(name, str) and isinstance(version, int) and not isinstance(version, bool)
        self._prompt: Optional[Tuple[str, int]] = (name, version) if ok else None  # type: ignore[assignment]
        self._tokens: "List[Token[Optional[Tuple[str, int]]]]" = []

    def _set(self) -> None:
        self._tokens.append(current_prompt.set(self._prompt))

    def _reset(self) -> None:
        current_prompt.reset(self._tokens.pop())
