"""Computations off the request threads: a page never waits on a long duel, search or simulation.

Each computation is a job keyed by what it computes (a page and its state):
the same key is computed once and kept for a while, so a shared link or a
back-and-forth answers at once.  A client's newer job for the same page
cancels its older one if that has not started yet.  A job's error is its
message: the library's one line, or one line naming what went wrong, never a
crash of the server.

>>> jobs = Jobs(workers=1)
>>> job = jobs.submit(("demo", 1), lambda: 6 * 7)
>>> job.wait(5), job.status, job.value
(True, 'done', 42)
>>> jobs.submit(("demo", 2), lambda: 1 / 0).wait(5)
True
>>> jobs.get(("demo", 2)).error
'internal error: ZeroDivisionError: division by zero'
>>> jobs.close()
"""

from __future__ import annotations

import queue
import sys
import threading
import time
import traceback
from collections import OrderedDict
from concurrent.futures import CancelledError, Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable

from analysis.base.params import DicelabError

_current = threading.local()
KEEP = 64
"""Finished jobs kept for links opened again."""


@dataclass
class Job:
    """One computation: its future, when it started and (for long ones) an estimate of its length in seconds."""

    key: Hashable
    future: Future = field(default_factory=Future)
    submitted: float = field(default_factory=time.monotonic)
    estimate: float | None = None

    def wait(self, seconds: float) -> bool:
        """Wait up to ``seconds``; whether the job has finished."""
        try:
            self.future.exception(timeout=seconds)
        except (FutureTimeout, CancelledError):
            pass
        return self.future.done()

    @property
    def status(self) -> str:
        """``running``, ``done``, ``error`` or ``cancelled``."""
        if self.future.cancelled():
            return "cancelled"
        if not self.future.done():
            return "running"
        return "error" if self.future.result()[0] == "error" else "done"

    @property
    def value(self) -> Any:
        """The result of a finished job."""
        return self.future.result()[1]

    @property
    def error(self) -> str | None:
        """The one-line message of a failed job."""
        kind, value = self.future.result()
        return value if kind == "error" else None

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.submitted


def run_safely(fn: Callable[[], Any]) -> tuple[str, Any]:
    """``("done", value)`` or ``("error", one line)``; an unexpected error is logged with its traceback."""
    try:
        return "done", fn()
    except DicelabError as err:
        return "error", str(err)
    except MemoryError:
        return "error", "too large to compute here: it ran out of memory (narrow the setup)"
    except RecursionError:
        return "error", "too large to compute here: it recursed too deep (narrow the setup)"
    except Exception as err:  # noqa: BLE001 - the server must survive any computation
        traceback.print_exc(file=sys.stderr)
        return "error", f"internal error: {type(err).__name__}: {err}"


def _run(job: Job, fn: Callable[[], Any]) -> tuple[str, Any]:
    _current.job = job
    try:
        return run_safely(fn)
    finally:
        _current.job = None


class Jobs:
    """A small pool of worker threads with jobs deduplicated by key.

    The threads are daemons: stopping the server never waits for a computation nobody will see.
    """

    def __init__(self, workers: int = 2, keep: int = KEEP):
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        for i in range(workers):
            threading.Thread(target=self._work, name=f"dicelab-job-{i}", daemon=True).start()
        self._workers = workers
        self._jobs: OrderedDict[Hashable, Job] = OrderedDict()
        self._slots: dict[Hashable, Hashable] = {}
        self._keep = keep
        self._lock = threading.Lock()

    def submit(self, key: Hashable, fn: Callable[[], Any], slot: Hashable = None,
               estimate: float | None = None) -> Job:
        """The job computing ``fn()`` under ``key`` (an existing one when the key is known and not cancelled)."""
        with self._lock:
            job = self._jobs.get(key)
            if job is not None and not job.future.cancelled():
                self._jobs.move_to_end(key)
            else:
                job = Job(key, estimate=estimate)
                self._queue.put((job, fn))
                self._jobs[key] = job
            if slot is not None:
                previous = self._jobs.get(self._slots.get(slot))
                if previous is not None and previous is not job:
                    previous.future.cancel()
                self._slots[slot] = key
            self._trim()
            return job

    def get(self, key: Hashable) -> Job | None:
        """The job of a key, if any."""
        with self._lock:
            return self._jobs.get(key)

    def cancel(self, key: Hashable) -> None:
        """Forget a job (a running one finishes in the background; its result is dropped)."""
        with self._lock:
            job = self._jobs.pop(key, None)
        if job is not None:
            job.future.cancel()

    def _trim(self) -> None:
        done = [k for k, j in self._jobs.items() if j.future.done()]
        for key in done[: max(0, len(done) - self._keep)]:
            del self._jobs[key]

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            job, fn = item
            if job.future.set_running_or_notify_cancel():
                job.future.set_result(_run(job, fn))

    def close(self) -> None:
        """Stop the workers once their current job is done; pending jobs are cancelled."""
        with self._lock:
            for job in self._jobs.values():
                job.future.cancel()
        for _ in range(self._workers):
            self._queue.put(None)


def report_estimate(seconds: float) -> None:
    """Called inside a job: how long the whole job should take (the progress bar's scale); a no-op elsewhere."""
    job = getattr(_current, "job", None)
    if job is not None:
        job.estimate = seconds
