"""Computations off the request threads: a page never waits on a long duel, search or simulation, a cancel stops
the work for real, and the workers are shared fairly between the clients.

Each computation is a job keyed by what it computes (a page and its state):
the same key is computed once and kept for a while, so a shared link or a
back-and-forth answers at once.  A client's newer job for the same page stops
its older one.  A job runs under its own stop (:mod:`analysis.base.interrupt`)
and the app's limits (:data:`LIMITS`, the command line's guards of
:mod:`analysis.fights.budget`): a cancel halts its compiled kernels, chunk and
duel loops within a fraction of a second and its worker takes the next job.

Fair: every client (a browser window) has its own queue, and the workers take
the clients in turn; a client runs at most ``per_client`` jobs at once and
keeps at most :data:`MAX_WAITING` waiting; a spare worker serves only clients
with nothing running, so a cheap request never waits behind another client's
long jobs.  A job's error is its message: the library's one line, or one line
naming what went wrong, never a crash of the server.

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

import sys
import threading
import time
import traceback
from collections import Counter, OrderedDict, deque
from concurrent.futures import CancelledError, Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable

from analysis.base.interrupt import Stop, scope
from analysis.base.params import DicelabError
from analysis.fights.budget import Limits, limited

_current = threading.local()
KEEP = 64
"""Finished jobs kept for links opened again."""
MAX_WAITING = 16
"""Jobs one client may keep waiting; a further one is refused with a message."""
BUDGET_SECONDS = 300.0
"""The longest balance search the app starts, in estimated seconds (``dicelab design`` runs longer ones)."""
LIMITS = Limits(
    budget=BUDGET_SECONDS,
    past_memory="the app computes at most that (start it with DICELAB_MAX_MEMORY=GB to allow it), or the Monte "
                "Carlo method runs it in flat memory",
    past_budget="narrow the search here, or run it on the command line (dicelab design ... --budget SECONDS)",
)
"""The app's limits: the command line's memory ceiling, a longer time budget, and ways past them the app has."""
CANCELLED = "cancelled"


@dataclass
class Job:
    """One computation: its future, its stop, who wants it, when it was submitted and (for long ones) an estimate
    of its length in seconds."""

    key: Hashable
    client: Hashable = None
    future: Future = field(default_factory=Future)
    stop: Stop = field(default_factory=Stop)
    clients: set = field(default_factory=set)
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
        """``running`` (or waiting to), ``done``, ``error`` or ``cancelled``."""
        if self.future.cancelled() or self.stop.is_set():
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
    except KeyboardInterrupt:  # the job's stop: a cancel
        return "error", CANCELLED
    except MemoryError:
        return "error", "too large to compute here: it ran out of memory (narrow the setup)"
    except RecursionError:
        return "error", "too large to compute here: it recursed too deep (narrow the setup)"
    except Exception as err:  # noqa: BLE001 - the server must survive any computation
        traceback.print_exc(file=sys.stderr)
        return "error", f"internal error: {type(err).__name__}: {err}"


def _run(job: Job, fn: Callable[[], Any], limits: Limits) -> tuple[str, Any]:
    _current.job = job
    try:
        with scope(job.stop), limited(limits):
            return run_safely(fn)
    finally:
        _current.job = None


class Jobs:
    """Worker threads taking clients' jobs in turn, jobs deduplicated by key (see the module).

    ``workers`` threads take any client's jobs (at most ``per_client`` of one client at once, default all of
    them) and ``spare`` more only the jobs of clients with nothing running.  The threads are daemons: stopping
    the server never waits for a computation nobody will see.
    """

    def __init__(self, workers: int = 2, keep: int = KEEP, per_client: int | None = None, spare: int = 1,
                 waiting: int = MAX_WAITING, limits: Limits = LIMITS):
        self._cond = threading.Condition()
        self._queues: OrderedDict[Hashable, deque[tuple[Job, Callable[[], Any]]]] = OrderedDict()
        self._running: Counter[Hashable] = Counter()
        self._jobs: OrderedDict[Hashable, Job] = OrderedDict()
        self._slots: dict[Hashable, Hashable] = {}
        self._keep, self._waiting, self._limits = keep, waiting, limits
        self._per_client = workers if per_client is None else per_client
        self._closed = False
        for i in range(workers + spare):
            threading.Thread(target=self._work, args=(i >= workers,), name=f"dicelab-job-{i}", daemon=True).start()

    def submit(self, key: Hashable, fn: Callable[[], Any], slot: Hashable = None,
               estimate: float | None = None) -> Job:
        """The job computing ``fn()`` under ``key`` (an existing one when the key is known and not cancelled).

        ``slot`` is ``(client, page)``: the client's queue, and its newer job for the page stops the older."""
        client = slot[0] if isinstance(slot, tuple) and slot else slot
        with self._cond:
            job = self._jobs.get(key)
            if job is not None and job.status != "cancelled":
                self._jobs.move_to_end(key)
            elif len(self._queues.get(client, ())) >= self._waiting:
                job = Job(key, client)
                job.future.set_result(("error", f"too many computations are waiting for this window (at most "
                                                f"{self._waiting}); wait for them, or cancel one"))
                return job
            else:
                job = Job(key, client, estimate=estimate)
                self._queues.setdefault(client, deque()).append((job, fn))
                self._jobs[key] = job
                self._cond.notify_all()
            job.clients.add(client)
            if slot is not None:
                previous = self._jobs.get(self._slots.get(slot))
                if previous is not None and previous is not job:
                    self._release(previous, client)
                self._slots[slot] = key
            self._trim()
            return job

    def get(self, key: Hashable) -> Job | None:
        """The job of a key, if any."""
        with self._cond:
            return self._jobs.get(key)

    def cancel(self, key: Hashable, client: Hashable = None) -> None:
        """Stop a job (``client``: for that client only; the job stops when no other client wants it): a waiting
        job never starts, a running one halts at its next poll and its worker takes the next job."""
        with self._cond:
            job = self._jobs.get(key)
            if job is not None:
                self._release(job, client)

    def _release(self, job: Job, client: Hashable) -> None:
        """``client`` no longer wants ``job``; stopped when nobody does (or when ``client`` is ``None``); a finished
        job stays for links opened again."""
        job.clients.discard(client)
        if not job.future.done() and (client is None or not job.clients):
            job.stop.set()
            job.future.cancel()
            if self._jobs.get(job.key) is job:
                del self._jobs[job.key]
            self._cond.notify_all()

    def _trim(self) -> None:
        done = [k for k, j in self._jobs.items() if j.future.done()]
        for key in done[: max(0, len(done) - self._keep)]:
            del self._jobs[key]

    def _pick(self, spare: bool) -> tuple[Job, Callable[[], Any]] | None:
        """The next job this worker may take: the first eligible client in turn (cancelled jobs dropped)."""
        for client in list(self._queues):
            queue = self._queues[client]
            while queue and queue[0][0].status == "cancelled":
                queue.popleft()
            if not queue:
                del self._queues[client]
                continue
            if self._running[client] >= (1 if spare else self._per_client):
                continue
            self._queues.move_to_end(client)
            return queue.popleft()
        return None

    def _work(self, spare: bool) -> None:
        while True:
            with self._cond:
                while not self._closed and (item := self._pick(spare)) is None:
                    self._cond.wait()
                if self._closed:
                    return
                job, fn = item
                self._running[job.client] += 1
            try:
                if job.future.set_running_or_notify_cancel():
                    job.future.set_result(_run(job, fn, self._limits))
            finally:
                with self._cond:
                    self._running[job.client] -= 1
                    self._cond.notify_all()

    def close(self) -> None:
        """Stop every job and the workers."""
        with self._cond:
            self._closed = True
            for job in self._jobs.values():
                job.stop.set()
                job.future.cancel()
            self._cond.notify_all()


def report_estimate(seconds: float) -> None:
    """Called inside a job: how long the whole job should take (the progress bar's scale); a no-op elsewhere."""
    job = getattr(_current, "job", None)
    if job is not None:
        job.estimate = seconds
