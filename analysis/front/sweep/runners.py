"""Where a sweep's batches run: in this process, in local worker processes (which die with it), or on a Dask
cluster; a few batches per worker are in flight at a time, so the cases waiting to run are never all in memory."""

from __future__ import annotations

import re
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Iterator

from analysis.base.extras import need
from analysis.base.params import DicelabError, ParamError
from analysis.base.pool import check_workers, cores, process_pool, stop_now
from analysis.front.sweep.config import Method
from analysis.front.sweep.expand import Case
from analysis.front.sweep.work import run_batch

Batches = Iterator[list[Case]]
Results = Iterator[list[tuple[int, dict[str, Any]]]]
IN_FLIGHT = 4
"""Batches queued per worker."""


class LocalRunner:
    """Batches in this process (one worker) or in a pool of ``workers`` spawned processes."""

    def __init__(self, workers: int | None = None):
        self.slots = check_workers(cores() if workers is None else workers, "processes")

    def __enter__(self) -> "LocalRunner":
        return self

    def __exit__(self, *exc: Any) -> None:
        pass

    def run(self, method: Method, jobs: Batches, count: int) -> Results:
        """The results of ``count`` batches ``jobs``, as they finish."""
        if self.slots == 1 or count <= 1:
            for job in jobs:
                yield run_batch(method, job)
            return
        pool = process_pool(min(self.slots, count), "spawn")
        running: set[Future] = set()
        finished = False
        try:
            while True:
                while len(running) < IN_FLIGHT * self.slots and (job := next(jobs, None)) is not None:
                    running.add(pool.submit(run_batch, method, job))
                if not running:
                    break
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    yield future.result()
            finished = True
        except BrokenProcessPool:
            raise DicelabError("the worker processes died or could not start (a script that runs a sweep needs "
                               "an `if __name__ == \"__main__\":` guard); try --workers 1") from None
        finally:
            if finished:
                pool.shutdown()
            else:
                stop_now(pool)


SCHEDULER = re.compile(r"^(?:(?:tcp|tls|ws|wss|ucx)://)?(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):(\d{1,5})$"
                       r"|^inproc://[\w./-]+$")
"""A Dask scheduler's address: ``[protocol://]host:port`` in ASCII (or an in-process ``inproc://`` one)."""


def check_scheduler(address: str) -> str:
    """A scheduler address of the right form, refused before anything tries to reach it.

    >>> check_scheduler("tcp://127.0.0.1:8786")
    'tcp://127.0.0.1:8786'
    >>> check_scheduler("🎲")
    Traceback (most recent call last):
    ...
    analysis.base.params.ParamError: scheduler = '🎲' is not allowed; allowed: a Dask scheduler's address, [tcp://]host:port, e.g. tcp://host:8786
    """
    match = SCHEDULER.match(address) if isinstance(address, str) else None
    if match is None or int(match.group(1) or 0) > 65535:
        raise ParamError("scheduler", address, "a Dask scheduler's address, [tcp://]host:port, e.g. tcp://host:8786")
    return address


class DaskRunner:
    """Batches as tasks on a Dask distributed cluster (``dask.distributed.Client(address)``)."""

    def __init__(self, address: str):
        self.address = check_scheduler(address)
        self.slots = 1

    def __enter__(self) -> "DaskRunner":
        Client = need("dask.distributed", "distributed", f"running a sweep on the Dask scheduler {self.address!r}").Client
        try:
            self.client = Client(self.address, timeout="10s", set_as_default=False)
        except (OSError, TimeoutError, ValueError) as err:
            raise DicelabError(f"scheduler = {self.address!r} cannot be reached ({err}); allowed: the address of a "
                               "running Dask scheduler, e.g. tcp://host:8786") from None
        self.slots = max(1, sum(self.client.nthreads().values()))
        return self

    def __exit__(self, *exc: Any) -> None:
        self.client.close()

    def run(self, method: Method, jobs: Batches, count: int) -> Results:
        """The results of ``count`` batches ``jobs``, as they finish."""
        from dask.distributed import as_completed

        queue = as_completed([], loop=self.client.loop)
        pending: set[Any] = set()
        try:
            for job in jobs:
                future = self.client.submit(run_batch, method, job, pure=False)
                pending.add(future)
                queue.add(future)
                if len(pending) >= IN_FLIGHT * self.slots:
                    done = next(queue)
                    pending.discard(done)
                    yield done.result()
            for done in queue:
                pending.discard(done)
                yield done.result()
        finally:
            self.client.cancel(list(pending))
