"""The user of wrapped model calls, carried by ``contextvars``.

A ContextVar follows the code that set it through ``await`` and stays apart per thread and per
asyncio task (each task runs in a copy of the context it was created in), so interleaved
requests of different users never see each other's user.
"""

from contextvars import ContextVar, Token
from types import TracebackType
from typing import List, Optional, Type

current_user: "ContextVar[Optional[str]]" = ContextVar("arbiter_user", default=None)


class AsUser:
    """``with arbiter.as_user(user):`` (or ``async with``): wrapped-client calls inside belong to ``user``."""

    __slots__ = ("_user", "_tokens")

    def __init__(self, user: str) -> None:
        self._user = user
        # A stack, so that one AsUser object may be entered again while it is active.
        self._tokens: "List[Token[Optional[str]]]" = []

    def __enter__(self) -> "AsUser":
        self._tokens.append(current_user.set(self._user))
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        current_user.reset(self._tokens.pop())

    async def __aenter__(self) -> "AsUser":
        return self.__enter__()

    async def __aexit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        self.__exit__(exc_type, exc, tb)
