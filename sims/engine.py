"""Running numba kernels in reproducible, parallel chunks.

A simulation of ``n`` trials is cut into chunks of a fixed size
(:data:`CHUNK`); chunk ``i`` draws from its own stream, the ``i``-th child of
``SeedSequence(seed)``.  Chunks run on a thread pool (the kernels release the
GIL) and their count arrays are summed in chunk order, so the same seed gives
the same numbers whatever the number of workers.

Kernel convention (QuantEcon's pattern): ``_kernel(*arrays_and_scalars, n,
rng) -> int64[:]`` counts, compiled with ``@njit(cache=True, nogil=True)``;
no validation or printing inside.

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

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

import numpy as np

from analysis.params import DicelabError

CHUNK = 1 << 16
MAX_N = 10**10
Seed = int | np.random.SeedSequence | np.random.Generator | None


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
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


def check_n(n: int) -> int:
    """Validate a sample size."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= MAX_N:
        raise DicelabError(f"n = {n!r} is not allowed; allowed: an integer in 1..{MAX_N}")
    return int(n)


def run_chunks(call: Callable[[int, np.random.Generator], np.ndarray], n: int, seed: Seed = None,
               workers: int | None = None, chunk: int = CHUNK) -> np.ndarray:
    """Sum of ``call(size, rng)`` over the chunks of ``n`` trials, each with its own stream."""
    n = check_n(n)
    workers = default_workers() if workers is None else workers
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise DicelabError(f"workers = {workers!r} is not allowed; allowed: an integer >= 1")
    sizes = [chunk] * (n // chunk) + ([n % chunk] if n % chunk else [])
    children = seed_sequence(seed).spawn(len(sizes))
    gens = [np.random.Generator(np.random.PCG64(c)) for c in children]
    if workers == 1 or len(sizes) == 1:
        parts = [call(size, g) for size, g in zip(sizes, gens)]
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            parts = list(pool.map(call, sizes, gens))
    return np.sum(parts, axis=0)
