"""Progress of long computations on stderr: a tqdm bar on a terminal, a plain line now and then otherwise.

Sweeps (cases), simulations (trials) and the balance tools (duels) share it.
``delay`` keeps quick runs silent: nothing shows before that many seconds.

>>> import io
>>> out = io.StringIO()
>>> p = Progress("lines", total=4, unit="case", desc="sweep", stream=out, every=0.0)
>>> p.update(4); p.close()
>>> out.getvalue().startswith("sweep: 4/4 cases (100.0%)")
True
"""

from __future__ import annotations

import math
import sys
import time
from datetime import timedelta
from typing import TextIO

from analysis.base.params import Choice

MODES = ("bar", "lines", "quiet")
DELAY = 2.0
"""Seconds before a command's progress shows (with an ETA) on stderr: quick runs stay silent."""


def auto_mode(quiet: bool = False, stream: TextIO | None = None) -> str:
    """``quiet`` if asked, a ``bar`` on a terminal, ``lines`` otherwise (logs, pipes)."""
    stream = stream if stream is not None else sys.stderr
    return "quiet" if quiet else "bar" if stream.isatty() else "lines"


def duration(seconds: float) -> str:
    """``H:MM:SS``, or ``?`` when unknown.

    >>> duration(3725.4), duration(float("nan"))
    ('1:02:05', '?')
    """
    return str(timedelta(seconds=round(seconds))) if math.isfinite(seconds) else "?"


class Progress:
    """Progress of ``total`` units on ``stream``: a tqdm bar (``bar``), a plain line every ``every`` seconds
    (``lines``), or nothing (``quiet``); nothing at all before ``delay`` seconds."""

    def __init__(self, mode: str, total: int, done: int = 0, unit: str = "case", desc: str = "sweep",
                 stream: TextIO | None = None, every: float = 10.0, delay: float = 0.0):
        self.mode = Choice(MODES).validate("progress", mode)
        self.stream = stream if stream is not None else sys.stderr
        self.total, self.first, self.done, self.every, self.delay = total, done, done, every, delay
        self.unit, self.desc = unit, desc
        self.start = self.last = time.monotonic()
        self.bar = None
        if self.mode == "bar":
            from tqdm import tqdm

            self.bar = tqdm(total=total, initial=done, unit=unit, desc=desc, file=self.stream, dynamic_ncols=True,
                            smoothing=0.1, delay=delay, unit_scale=unit == "trial")

    def note(self, text: str) -> None:
        """A one-off line (not in quiet mode)."""
        if self.bar is not None:
            self.bar.write(f"{self.desc}: {text}", file=self.stream)
        elif self.mode == "lines":
            print(f"{self.desc}: {text}", file=self.stream, flush=True)

    def update(self, count: int) -> None:
        """``count`` more units done."""
        self.done += count
        if self.bar is not None:
            self.bar.update(count)
            return
        now = time.monotonic()
        if self.mode != "lines" or now - self.start < self.delay:
            return
        if now - self.last >= self.every or self.done == self.total:
            elapsed = now - self.start
            rate = (self.done - self.first) / elapsed if elapsed > 0 else math.nan
            eta = (self.total - self.done) / rate if rate > 0 else math.nan
            print(f"{self.desc}: {self.done:,}/{self.total:,} {self.unit}s ({100 * self.done / self.total:.1f}%), "
                  f"{rate:,.1f} {self.unit}s/s, ETA {duration(eta)}", file=self.stream, flush=True)
            self.last = now

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
