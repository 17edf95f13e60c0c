"""Progress people can read: rate, ETA and the current file, on a terminal or in a log.

On a terminal one line is redrawn at most 10 times a second; without one (a CI log, a
``nohup`` file, systemd's journal) a plain line is written about every
:data:`LOG_EVERY_S` seconds, and at the end of a run that wrote any — so an hour of
embedding is not an hour of silence, nor a million lines. The rate is measured over the last minute or so (an
exponential average), so the ETA follows a machine that got busier or freer.
"""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO

__all__ = ["LOG_EVERY_S", "Meter", "duration"]

#: Seconds between lines when stderr is not a terminal.
LOG_EVERY_S = float(os.environ.get("CITEWISE_PROGRESS_EVERY_S", "10"))
_REDRAW_S = 0.1
_HALF_LIFE_S = 20.0


def duration(seconds: float) -> str:
    """``"1h 02m"``, ``"4m 05s"``, ``"12s"``."""
    s = max(0, round(seconds))
    if s >= 3600:
        return f"{s // 3600}h {s % 3600 // 60:02d}m"
    if s >= 60:
        return f"{s // 60}m {s % 60:02d}s"
    return f"{s}s"


class Meter:
    """``meter(done, total)`` as a progress callback; ``meter.file(path)`` names the
    current file. ``unit``: what is counted (``files``, ``chunks embedded``)."""

    def __init__(self, unit: str, *, stream: TextIO | None = None,
                 tty: bool | None = None, every_s: float | None = None) -> None:
        self.unit = unit
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.every_s = LOG_EVERY_S if every_s is None else every_s
        self.started = time.monotonic()
        self._last_draw = 0.0
        self._last_t = self.started
        self._last_done = 0
        self._rate: float | None = None
        self._current = ""
        self._width = 0
        self.done = 0
        self.total = 0

    def file(self, path: str) -> None:
        self._current = path

    def rate(self) -> float:
        """Units per second, recent (0 before anything was done)."""
        return self._rate or 0.0

    def _update_rate(self, done: int, now: float) -> None:
        dt = now - self._last_t
        if dt <= 0.5 or done < self._last_done:
            return
        instant = (done - self._last_done) / dt
        weight = 1 - 0.5 ** (dt / _HALF_LIFE_S)
        self._rate = instant if self._rate is None else self._rate + weight * (instant - self._rate)
        self._last_t, self._last_done = now, done

    def line(self, width: int | None = None) -> str:
        done, total = self.done, self.total
        parts = [f"{done}/{total} {self.unit}" if total else f"{done} {self.unit}"]
        if total:
            parts[0] += f" ({100 * done // max(total, 1)}%)"
        rate = self.rate()
        if rate > 0:
            parts.append(f"{rate:.1f}/s")
            if total > done:
                parts.append(f"ETA {duration((total - done) / rate)}")
        parts.append(f"elapsed {duration(time.monotonic() - self.started)}")
        if self._current and done < total:
            path, room = self._current, (width or 0) - len(" · ".join(parts)) - 3
            if width is not None and len(path) > room:  # keep the file's end in view
                path = "…" + path[-(room - 1):] if room >= 12 else ""
            if path:
                parts.append(path)
        return " · ".join(parts)

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        self._update_rate(done, now)
        self.done, self.total = done, total
        finished = total > 0 and done >= total
        if self.tty:
            if finished or now - self._last_draw >= _REDRAW_S:
                self._draw(finished)
                self._last_draw = now
        elif now - max(self._last_draw, self.started) >= self.every_s or (
                finished and self._last_draw):
            # A log line every ``every_s`` s, and a last one if any was written: a run
            # shorter than that is said by its summary alone.
            self.stream.write(self.line() + "\n")
            self.stream.flush()
            self._last_draw = now

    def _draw(self, finished: bool) -> None:
        columns = _columns()
        text = self.line(columns - 1)
        if len(text) > columns - 1:
            text = text[: columns - 2] + "…"
        pad = max(0, self._width - len(text))
        self._width = len(text)
        self.stream.write("\r" + text + " " * pad + ("\n" if finished else ""))
        self.stream.flush()
        if finished:
            self._width = 0

    def end(self) -> None:
        """Leave the terminal line (an interrupted run)."""
        if self.tty and self._width:
            self.stream.write("\n")
            self.stream.flush()
            self._width = 0


def _columns() -> int:
    try:
        columns = os.get_terminal_size(sys.stderr.fileno()).columns
    except OSError:
        return 100
    return columns if columns > 0 else 100  # a pty that reports no size (script, some CI)
