"""Running numba kernels in reproducible, parallel chunks, in flat memory, with progress and Ctrl-C.

A simulation of ``n`` trials is cut into chunks of a fixed size
(:data:`CHUNK`); chunk ``i`` draws from its own stream, the ``i``-th child of
``SeedSequence(seed)``.  Chunks run on a thread pool (the kernels release the
GIL), a few tasks per thread at a time, and their count arrays are added up in
chunk order as they finish, so memory does not grow with ``n`` and the same
seed gives the same numbers whatever the number of workers.  A task runs
consecutive chunks until it has worked about :data:`TASK_SECONDS` (measured on
the run's first tasks), so a short kernel (a check: a chunk in a fraction of a
millisecond) is not held back by the pool's cost per task; the chunks and their
streams are the same, hence the numbers.

Ctrl-C, SIGTERM and a cancel (:mod:`analysis.base.interrupt`) stop at a chunk
boundary: :class:`Stopped` carries the counts of the first ``k`` chunks, exactly
what a run of ``n = k * CHUNK`` trials with the same seed gives (all of them when
the tasks already running held every chunk: the stop is still reported, so a
batch stops).

Kernel convention (QuantEcon's pattern): ``_kernel(*arrays_and_scalars, n,
rng) -> int64[:]`` counts, compiled with ``@njit(cache=True, nogil=True)``;
no validation or printing inside.  A loop whose inlined helpers take arrays
reads them through :func:`sims.dice._unowned` views: numba's reference counts
of arrays shared by the threads would otherwise be atomic calls in the loop.

>>> import numpy as np
>>> from numba import njit
>>> @njit(nogil=True)
... def _sixes(n, rng):
...     out = np.zeros(1, dtype=np.int64)
...     for _ in range(n):
...         out[0] += int(rng.random() * 6.0) == 5
...     return out
>>> a = run_chunks(lambda n, rng: _sixes(n, rng), 200_000, seed=7, workers=1)
>>> b = run_chunks(lambda n, rng: _sixes(n, rng), 200_000, seed=7, workers=2)
>>> bool((a == b).all()), bool(0.16 < a[0] / 200_000 < 0.17)
(True, True)
"""

from __future__ import annotations

import itertools
import signal
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any, Callable, Iterator

import numpy as np

from analysis.base.interrupt import Interrupted, deferred, raised
from analysis.base.params import DicelabError
from analysis.base.pool import check_workers, cores

CHUNK = 1 << 16
TASK_SECONDS = 0.02
"""How long one task of consecutive chunks should work (see the module docstring)."""
MAX_GROUP = 64
"""The most chunks one task runs."""
MAX_N = 10**10
IN_FLIGHT = 4
"""Chunks submitted and not yet added up, per thread: enough to keep every thread busy, few enough that memory
stays flat (a slow chunk holds back at most this many finished ones)."""
SPAWN_BATCH = 1024
"""Child streams made at a time (a billion trials need 15,000 of them; they are made as the run reaches them)."""
Seed = int | np.random.SeedSequence | np.random.Generator | None
Call = Callable[[int, np.random.Generator], np.ndarray]


class Stopped(Interrupted):
    """Ctrl-C, SIGTERM or a cancel during :func:`run_chunks`: ``counts`` of the first chunks, ``n`` trials in them."""

    def __init__(self, counts: np.ndarray, n: int, signum: int = signal.SIGINT):
        super().__init__(signum)
        self.args = (f"interrupted after {n:,} trials",)
        self.counts, self.n = counts, n


def seed_sequence(seed: Seed) -> np.random.SeedSequence:
    """The root SeedSequence of a computation (``seed``: int, SeedSequence, Generator or None).

    The seed goes once through ``np.random.default_rng``; a Generator given
    by the caller is advanced (its next draws seed the root), so reusing it
    gives fresh but reproducible numbers.

    >>> seed_sequence(1).entropy
    1
    """
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if seed is not None and not isinstance(seed, (int, np.integer, np.random.Generator)) or isinstance(seed, bool):
        raise DicelabError(f"seed = {seed!r} is not allowed; allowed: a non-negative integer, a SeedSequence or a Generator")
    try:
        rng = np.random.default_rng(seed)
    except ValueError:
        raise DicelabError(f"seed = {seed!r} is not allowed; allowed: a non-negative integer") from None
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(rng.integers(0, 2**63, size=4).tolist())
    return rng.bit_generator.seed_seq  # type: ignore[return-value]


def default_workers() -> int:
    """All cores this process may use."""
    return cores()


def check_n(n: int) -> int:
    """Validate a sample size."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= MAX_N:
        raise DicelabError(f"n = {n!r} is not allowed; allowed: an integer in 1..{MAX_N}")
    return int(n)


def _streams(root: np.random.SeedSequence, n: int, chunk: int) -> Iterator[tuple[int, np.random.Generator]]:
    """``(size, generator)`` of each chunk: the root's children in order, spawned :data:`SPAWN_BATCH` at a time as
    the run reaches them (the same children as one ``spawn`` of them all)."""
    count = -(-n // chunk)
    for start in range(0, count, SPAWN_BATCH):
        for i, child in enumerate(root.spawn(min(SPAWN_BATCH, count - start)), start):
            yield min(chunk, n - i * chunk), np.random.Generator(np.random.PCG64(child))


class _CompileNotice:
    """Says :data:`COMPILING` the first time numba compiles a kernel in this process (a cold cache)."""

    def __init__(self) -> None:
        from numba.core import event

        self.say: Callable[[str], None] | None = None
        self.said = False
        notice = self

        class Listener(event.Listener):
            def on_start(self, ev: Any) -> None:
                if notice.say is not None and not notice.said:
                    notice.said = True
                    notice.say(COMPILING)

            def on_end(self, ev: Any) -> None:
                pass

        event.register("numba:compile", Listener())


COMPILING = "compiling kernels (first run only)…"
_notice: _CompileNotice | None = None


def announce_compiling(say: Callable[[str], None]) -> None:
    """Have ``say(COMPILING)`` called once, when numba first compiles a kernel in this process: with a warm cache
    (``sims/__pycache__``) it never is."""
    global _notice
    if _notice is None:
        _notice = _CompileNotice()
    _notice.say = say


def _task(call: Call, items: list[tuple[int, np.random.Generator]]) -> tuple[np.ndarray, float, int]:
    """The counts of consecutive chunks, summed; the seconds they took and how many they were."""
    start = time.perf_counter()
    total = call(*items[0])
    for item in items[1:]:
        total = total + call(*item)
    return total, time.perf_counter() - start, len(items)


def run_chunks(call: Call, n: int, seed: Seed = None, workers: int | None = None, chunk: int = CHUNK,
               progress: Any = None) -> np.ndarray:
    """Sum of ``call(size, rng)`` over the chunks of ``n`` trials, each with its own stream.

    ``workers`` threads (default: the cores; at most :func:`analysis.base.pool.max_workers`);
    ``progress`` (a :class:`analysis.base.progress.Progress`) hears of every finished chunk.
    Raises :class:`Stopped` on Ctrl-C, SIGTERM or a cancel once at least one chunk is done (before that:
    :class:`~analysis.base.interrupt.Interrupted`).
    """
    n = check_n(n)
    workers = check_workers(default_workers() if workers is None else workers, "threads")
    count = -(-n // chunk)
    streams = _streams(seed_sequence(seed), n, chunk)
    total: np.ndarray | None = None
    done_n = next_index = submitted = 0
    group = 1
    running: dict[Future, tuple[int, int]] = {}
    finished: dict[int, tuple[int, np.ndarray]] = {}
    with deferred() as halt, ThreadPoolExecutor(max_workers=min(workers, count)) as pool:
        try:
            while True:
                while not halt[0] and submitted - next_index < IN_FLIGHT * workers \
                        and (items := list(itertools.islice(streams, group))):
                    running[pool.submit(_task, call, items)] = (submitted, sum(size for size, _ in items))
                    submitted += 1
                if not running:
                    break
                done, _ = wait(running, timeout=0.2, return_when=FIRST_COMPLETED)
                for future in done:
                    index, size = running.pop(future)
                    part, seconds, chunks = future.result()
                    finished[index] = (size, part)
                    group = max(1, min(MAX_GROUP, int(TASK_SECONDS * chunks / max(seconds, 1e-9))))
                while next_index in finished:
                    size, part = finished.pop(next_index)
                    total = part.copy() if total is None else total + part
                    done_n += size
                    next_index += 1
                    if progress is not None:
                        progress.update(size)
        finally:
            for future in running:
                future.cancel()
    if halt[0]:
        if total is None:
            raise raised(int(halt[0]))
        raise Stopped(total, done_n, int(halt[0]))
    assert total is not None
    return total
