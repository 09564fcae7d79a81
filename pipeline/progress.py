"""A progress bar for a person at a terminal: pages read and lines matched, the page it is on,
and an estimate of the time left. Nothing is drawn when the output is not a terminal.

    reading pages   12/40 [#######.................]  sheet-12.png p1  ~0:34 left
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["ProgressBar", "terminal_progress"]

WIDTH = 24


class ProgressBar:
    """Draws one line per stage on `out`, redrawn in place (at most every `every` seconds)."""

    def __init__(self, out: TextIO, every: float = 0.1) -> None:
        self._out = out
        self._every = every
        self._stage = ""
        self._total = 0
        self._done = 0
        self._started_at = 0.0
        self._done_at_start = 0
        self._drawn_at = 0.0
        self._open = False  # a line is drawn and not yet ended

    def start(self, stage: str, total: int, done: int = 0) -> None:
        self._finish_line()
        self._stage, self._total, self._done = stage, total, done
        self._done_at_start = done
        self._started_at = time.monotonic()
        self._drawn_at = 0.0
        if total:
            self._draw("")

    def advance(self, label: str, n: int = 1) -> None:
        if not self._total:
            return
        self._done = min(self._total, self._done + n)
        now = time.monotonic()
        if self._done >= self._total or now - self._drawn_at >= self._every:
            self._draw(label)
        if self._done >= self._total:
            self._finish_line()

    def close(self) -> None:
        self._finish_line()

    def _draw(self, label: str) -> None:
        self._drawn_at = time.monotonic()
        filled = WIDTH * self._done // self._total if self._total else WIDTH
        bar = "#" * filled + "." * (WIDTH - filled)
        width = len(str(self._total))
        text = f"\r{self._stage:<14} {self._done:>{width}}/{self._total} [{bar}]"
        if label:
            text += f"  {label}"
        left = self._seconds_left()
        if left is not None:
            text += f"  ~{int(left) // 60}:{int(left) % 60:02d} left"
        self._out.write(text + "\x1b[K")
        self._out.flush()
        self._open = True

    def _seconds_left(self) -> float | None:
        done_here = self._done - self._done_at_start
        if done_here <= 0 or self._done >= self._total:
            return None
        elapsed = time.monotonic() - self._started_at
        return elapsed / done_here * (self._total - self._done)

    def _finish_line(self) -> None:
        if self._open:
            self._out.write("\n")
            self._out.flush()
            self._open = False


def terminal_progress(out: TextIO | None = None) -> ProgressBar | None:
    """A progress bar on `out` (stderr) when it is a terminal; None (quiet) when it is not."""
    out = out if out is not None else sys.stderr
    isatty = getattr(out, "isatty", None)
    return ProgressBar(out) if isatty is not None and isatty() else None
