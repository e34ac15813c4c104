"""Progress bars, one helper for every stage: tqdm's bar on a terminal; where stderr is not a terminal (a log file,
a pipe), a plain line now and then instead, with no redraws (``\\r``) and no remaining-time estimate, which in a
file reads as a stall ("1:20:00" left) when a stage is only between updates."""

from __future__ import annotations

import functools
import sys
import time
from typing import IO, Any, Callable, Iterable, Optional

LOG_INTERVAL_S = 30.0  # seconds between two lines of a bar in a log file (plus its first and its last)
_clock = time.monotonic
LOG_FORMAT = "{desc}: {n_fmt}/{total_fmt} {unit}, {elapsed} elapsed{postfix}"


def progress_bar(iterable: Optional[Iterable] = None, *, enabled: bool = True, **kwargs: Any) -> Any:
    """A tqdm bar over ``iterable`` (``kwargs``: tqdm's own, e.g. total, desc, unit, leave); a silent one when not
    ``enabled``. On a terminal tqdm's bar as it is; elsewhere plain lines (``LOG_INTERVAL_S`` apart)."""
    from tqdm.auto import tqdm

    if not enabled:
        return tqdm(iterable, disable=True, **kwargs)
    stream = kwargs.pop("file", None) or sys.stderr
    if _is_terminal(stream):
        return tqdm(iterable, file=stream, **{"dynamic_ncols": True, **kwargs})
    kwargs.pop("dynamic_ncols", None)
    # tqdm hands every update's status to _Lines, which keeps one line an interval
    return _log_lines_class()(iterable, file=_Lines(stream), mininterval=0, bar_format=LOG_FORMAT,
                              **{**kwargs, "leave": True})


def _is_terminal(stream: IO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


class _Lines:
    """The file a log-line bar writes to: each status a line of its own, at most one per interval; tqdm's bare
    ``\\n`` / ``\\r`` (written when a bar closes) print the last status held back, so the end is always there."""

    def __init__(self, stream: IO) -> None:
        self.stream = stream
        self.last_line = ""
        self.pending = ""
        self.printed_at: Optional[float] = None

    def status(self, text: str) -> None:
        text = text.strip()
        if not text or text == self.last_line:
            return
        if self.printed_at is None or _clock() - self.printed_at >= LOG_INTERVAL_S:
            self._print(text)
        else:
            self.pending = text

    def _print(self, text: str) -> None:
        self.stream.write(text + "\n")
        self.stream.flush()
        self.last_line, self.pending, self.printed_at = text, "", _clock()

    def write(self, text: str) -> None:
        if text.strip():
            self.status(text)
        elif self.pending:
            self._print(self.pending)

    def flush(self) -> None:
        self.stream.flush()


@functools.lru_cache(maxsize=None)
def _log_lines_class() -> type:
    """tqdm, printing its status through ``_Lines`` (made on first use: tqdm is imported only by a bar)."""
    from tqdm.std import tqdm

    class LogLines(tqdm):
        @staticmethod
        def status_printer(file: Any) -> Callable[[str], None]:
            return file.status if isinstance(file, _Lines) else tqdm.status_printer(file)

    return LogLines
