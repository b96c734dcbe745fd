"""The user of wrapped model calls, carried by ``contextvars``.

A ContextVar follows the code that set it through ``await`` and stays apart per thread and per
asyncio task (each task runs in a copy of the context it was created in), so interleaved
requests of different users never see each other's user.
"""

from contextvars import ContextVar, Token
from types import TracebackType
from typing import List, Optional, Tuple, Type

from arbiter._core.evaluation.prepared_attributes import Attributes

current_user: "ContextVar[Optional[str]]" = ContextVar("arbiter_user", default=None)
#: The attributes given to the innermost ``as_user`` (what targeting reads), or None.
current_attributes: "ContextVar[Optional[Attributes]]" = ContextVar("arbiter_attributes", default=None)


class AsUser:
    """``with arbiter.as_user(user, attributes):`` (or ``async with``): wrapped-client calls
    inside belong to ``user``, assigned with ``attributes``."""

    __slots__ = ("_user", "_attributes", "_tokens")

    def __init__(self, user: str, attributes: Optional[Attributes] = None) -> None:
        self._user = user
        self._attributes = attributes
        # A stack, so that one AsUser object may be entered again while it is active.
        self._tokens: "List[Tuple[Token[Optional[str]], Token[Optional[Attributes]]]]" = []

    def __enter__(self) -> "AsUser":
        self._tokens.append((current_user.set(self._user), current_attributes.set(self._attributes)))
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        user_token, attributes_token = self._tokens.pop()
        current_attributes.reset(attributes_token)
        current_user.reset(user_token)

    async def __aenter__(self) -> "AsUser":
        return self.__enter__()

    async def __aexit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        self.__exit__(exc_type, exc, tb)
