"""Compiled stores the walks and solvers share: an array that outgrows its first guess, an open-addressing table of
integer keys, and the lowest set bit of a word (a bitset of positions still to visit, taken in order).

>>> import numpy as np
>>> slots, at = _rehash(np.array([7, 42, 5]), 8)
>>> i = _hash(42, 7)
>>> while slots[i] != 42:
...     i = (i + 1) & 7
>>> int(at[i]), _grown(np.arange(3), 5)[:3].tolist(), _lowest(np.int64(40))
(1, [0, 1, 2], 3)
"""

from __future__ import annotations

import numpy as np
from numba import njit

_DEBRUIJN = 0x03F79D71B4CB0A89
_LOWEST = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _LOWEST[(((1 << _i) * _DEBRUIJN) % (1 << 64)) >> 58] = _i


@njit(cache=True, nogil=True)
def _grown(a: np.ndarray, size: int) -> np.ndarray:
    """A copy of ``a`` with room for ``size`` items (a compiled walk's store outgrowing its first guess)."""
    out = np.empty(size, dtype=a.dtype)
    out[: a.size] = a
    return out


@njit(cache=True, nogil=True, inline="always")
def _hash(key: int, mask: int) -> int:
    """A slot of the state table (open addressing, linear probing; ``mask`` = its size - 1, a power of 2)."""
    h = key * -7046029254386353131  # Fibonacci hashing: 2^64 / golden ratio, wrapping
    return (h ^ (h >> 29)) & mask


@njit(cache=True, nogil=True)
def _rehash(states: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """A state table of ``size`` slots holding ``states`` (state ``k`` at its key's slot)."""
    slots, at = -np.ones(size, dtype=np.int64), np.zeros(size, dtype=np.int64)
    for k in range(states.size):
        i = _hash(states[k], size - 1)
        while slots[i] != -1:
            i = (i + 1) & (size - 1)
        slots[i], at[i] = states[k], k
    return slots, at


@njit(cache=True, nogil=True, inline="always")
def _lowest(word: int) -> int:
    """The position of the lowest set bit of a non-zero word (a De Bruijn multiply)."""
    low = word & -word
    return _LOWEST[((low * _DEBRUIJN) >> 58) & 63]
