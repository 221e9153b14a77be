"""Workers that never outlive their command: worker counts checked against a cap, and process pools whose
workers exit when their parent dies.

Every worker process started by :func:`process_pool` runs a watchdog thread
that polls its parent's pid: when the parent is gone — even killed with
SIGKILL, which no handler can catch — the worker's parent changes and the
worker exits within :data:`WATCH_EVERY` seconds, so a killed sweep or design
search leaves nothing behind.  Workers also ignore Ctrl-C and SIGTERM (sent to
the whole process group, say): the parent decides, and keeps what finished.

>>> check_workers(2, "threads")
2
>>> check_workers(0, "threads")
Traceback (most recent call last):
...
analysis.base.params.ParamError: workers = 0 is not allowed; allowed: an integer >= 1
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from concurrent.futures import InvalidStateError, ProcessPoolExecutor

from analysis.base.params import ParamError

WATCH_EVERY = 0.25
"""Seconds between a worker's checks that its parent is alive."""
MANAGER_WAIT = 5.0
"""Seconds :func:`stop_now` waits for a stopped pool's manager thread."""
PER_CORE = {"threads": 4, "processes": 2}
"""At most this many workers per core: threads (Monte Carlo) share one process; processes each hold a copy of
the library (about 150 MB)."""


def cores() -> int:
    """The cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


def max_workers(kind: str) -> int:
    """The most workers of ``kind`` (``threads`` or ``processes``) this machine takes."""
    return PER_CORE[kind] * cores()


def check_workers(workers: object, kind: str) -> int:
    """A worker count: an integer from 1 to :func:`max_workers`, else one line naming the cap."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ParamError("workers", workers, "an integer >= 1")
    cap = max_workers(kind)
    if workers > cap:
        raise ParamError("workers", workers, f"at most {cap} {kind} ({PER_CORE[kind]} per core, "
                                             f"{cores()} core{'s' * (cores() > 1)} here)")
    return workers


def process_pool(workers: int, method: str = "spawn") -> ProcessPoolExecutor:
    """A pool of ``workers`` processes started with ``method`` (``spawn``, ``fork``, ``forkserver``) whose workers
    ignore Ctrl-C and SIGTERM and exit when this process dies."""
    context = multiprocessing.get_context(method)
    return ProcessPoolExecutor(workers, mp_context=context, initializer=_worker_start, initargs=(os.getpid(),))


def stop_now(pool: ProcessPoolExecutor) -> None:
    """Cancel the pool's waiting work and kill its workers (they ignore Ctrl-C and SIGTERM), so an interrupted
    command exits at once instead of waiting for the tasks in flight.

    The pool's manager thread then fails the work still pending; Python 3.11 does not skip the cancelled tasks
    there and its thread dies printing a traceback (an ``InvalidStateError``), which would follow the command's
    one-line message: the thread is waited for with that one error kept quiet."""
    workers = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for process in workers:
        process.kill()
    if manager is None:
        return
    before = threading.excepthook

    def quiet(args: threading.ExceptHookArgs) -> None:
        if not (args.thread is manager and args.exc_type is InvalidStateError):
            before(args)

    threading.excepthook = quiet
    try:
        manager.join(timeout=MANAGER_WAIT)
    finally:
        threading.excepthook = before


def fork_or_spawn() -> str:
    """``fork`` where the platform has it (quick to start: the parent's imports are shared), else ``spawn``."""
    return "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"


def _worker_start(parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    threading.Thread(target=_watch, args=(parent,), name="dicelab-parent-watch", daemon=True).start()


def _watch(parent: int) -> None:
    """Exit this worker as soon as ``parent`` is no longer its parent (it died; the worker was re-parented)."""
    while os.getppid() == parent:
        time.sleep(WATCH_EVERY)
    os._exit(1)
