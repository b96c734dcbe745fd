from typing import Callable, Dict, Optional, Sequence, Tuple

API_VERSION: int

class ExposureTable:
    def __init__(self, capacity: int, clock: Optional[Callable[[], float]] = ...) -> None: ...
    def first_today(self, user: str, variant: Optional[str], /) -> bool: ...
    def slot_count(self) -> int: ...
    def reset_after_fork(self) -> None: ...
    def __len__(self) -> int: ...

class AssignEntry:
    def __init__(
        self,
        id: str,
        variant: Callable[..., Optional[str]],
        exposures: object,
        reached: Optional[Callable[[str, bool], object]],
        plain: Optional[Tuple[str, int, Sequence[int], Sequence[int], Sequence[str]]] = ...,
    ) -> None: ...

class Assigner:
    def __init__(
        self,
        entries: Dict[str, AssignEntry],
        method: Callable[..., Optional[str]],
        expose: Callable[[str, str, str, object], object],
        expose_holdout: object,
        failed: Callable[[Exception], object],
        track_exposures: bool,
    ) -> None: ...
    def assign(self, experiment: str, user: str, attributes: object = ...) -> Optional[str]: ...
