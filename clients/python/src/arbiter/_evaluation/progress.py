"""``evaluate``'s progress: the caller's ``on_progress`` after each result, and on a terminal one
line redrawn on stderr (``evaluate <experiment>: 37/120 (31%), ETA 12s``). Nothing is printed
when stderr is not a terminal: a CI log or a pipe gets no carriage returns."""

import time
from typing import Callable, Optional, TextIO

from arbiter._core.constants import EVALUATION_PROGRESS_REDRAW_MS
from arbiter._evaluation.types import EvaluationProgress

#: ``on_progress`` still hears of every result.
REDRAW_INTERVAL_S = EVALUATION_PROGRESS_REDRAW_MS / 1000


class Progress:
    def __init__(
        self,
        label: str,
        done: int,
        total: int,
        on_progress: Optional[Callable[[EvaluationProgress], None]],
        stream: Optional[TextIO],
    ) -> None:
        self._label = label
        self.done = done
        self._total = total
        self._on_progress = on_progress
        self._stream = stream if stream is not None and _is_terminal(stream) else None
        #: The ETA is this attempt's pace: results an earlier attempt stored took no time here.
        self._first_done = done
        self._started = time.monotonic()
        self._drawn_at: Optional[float] = None

    def advance(self) -> None:
        """One more result. What ``on_progress`` raises goes to the caller of ``evaluate``."""
        self.done += 1
        if self._stream is not None:
            now = time.monotonic()
            if self._drawn_at is None or now - self._drawn_at >= REDRAW_INTERVAL_S or self.done >= self._total:
                self._draw(now)
        if self._on_progress is not None:
            self._on_progress(EvaluationProgress(self.done, self._total))

    def start(self) -> None:
        if self._stream is not None:
            self._draw(time.monotonic())

    def end(self) -> None:
        """Ends the line, so that what the host prints next starts on its own."""
        if self._stream is not None and self._drawn_at is not None:
            self._write("\n")
            self._drawn_at = None

    def _draw(self, now: float) -> None:
        self._drawn_at = now
        self._write("\r" + line(self._label, self.done, self._total, self._eta(now)) + "\x1b[K")

    def _eta(self, now: float) -> Optional[float]:
        ran = self.done - self._first_done
        if ran <= 0:
            return None
        return (now - self._started) / ran * (self._total - self.done)

    def _write(self, text: str) -> None:
        stream = self._stream
        if stream is None:
            return
        try:
            stream.write(text)
            stream.flush()
        except Exception:  # a closed or broken terminal stops the line, never the run
            self._stream = None


def line(label: str, done: int, total: int, eta_s: Optional[float]) -> str:
    percent = 100 * done // total if total else 100
    text = "evaluate %s: %d/%d (%d%%)" % (label, done, total, percent)
    return text if eta_s is None else "%s, ETA %s" % (text, _duration(eta_s))


def _duration(seconds: float) -> str:
    whole = round(seconds)
    if whole < 60:
        return "%ds" % whole
    if whole < 3600:
        return "%dm%02ds" % divmod(whole, 60)
    hours, rest = divmod(whole, 3600)
    return "%dh%02dm" % (hours, rest // 60)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except Exception:
        return False
