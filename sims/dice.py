"""Dice for the numba kernels.

A die is ``floor(u * faces) + 1`` of one uniform ``u = rng.random()`` (53
bits, so the bias is below 1e-15); a sum of several dice is one draw from the
table of its equally likely outcomes (:func:`outcome_table`), one uniform per
2dX or 3d6 roll instead of one per die.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> counts = np.bincount([_die(6, rng) for _ in range(60_000)], minlength=7)[1:]
>>> bool(np.all(np.abs(counts / 60_000 - 1 / 6) < 0.006))
True
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.core import cgutils, types
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array


@njit(cache=True, nogil=True)
def _die(faces: int, rng: np.random.Generator) -> int:
    """A die 1..faces."""
    return int(rng.random() * faces) + 1


@njit(cache=True, nogil=True)
def _sample(table: np.ndarray, rng: np.random.Generator) -> int:
    """One value of a table of equally likely outcomes (e.g. the 36 sums of 2d6)."""
    return table[int(rng.random() * table.size)]


@intrinsic
def _unowned(typingctx, value):  # type: ignore[no-untyped-def]
    """A view of an array or a Generator without its owner's reference count, for a kernel's hot loop.

    numba counts references to every array or Generator a helper inlined at
    the IR level (``inline="always"``) receives, and a helper with branches
    keeps these counts (atomic calls) inside the loop: several per attack, and
    on arrays shared by every thread a chunk runs on, so the threads also fight
    over the count's cache line.  A view without an owner carries none.  Only
    for what some caller holds for the whole kernel (its arguments), never for
    an array the kernel allocates and then drops.

    >>> @njit
    ... def last(a):
    ...     return _unowned(a)[-1]
    >>> int(last(np.arange(5)))
    4
    """
    if not isinstance(value, (types.Array, types.NumPyRandomGeneratorType)):
        return None

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        if isinstance(value, types.NumPyRandomGeneratorType):
            view = cgutils.create_struct_proxy(value)(context, builder, value=args[0])
            view.meminfo = cgutils.get_null_value(view.meminfo.type)
            return view._getvalue()
        src = make_array(value)(context, builder, value=args[0])
        view = make_array(value)(context, builder)
        populate_array(view, data=src.data, shape=src.shape, strides=src.strides, itemsize=src.itemsize,
                       meminfo=None)
        return view._getvalue()
    return value(value), codegen


def outcome_table(faces: tuple[int, ...] | range, n: int) -> np.ndarray:
    """Every equally likely sum of ``n`` dice with these faces, as a lookup table.

    >>> outcome_table(range(1, 7), 2).size, int(outcome_table(range(1, 7), 2).sum())
    (36, 252)
    """
    sums = np.zeros(1, dtype=np.int64)
    for _ in range(n):
        sums = (sums[:, None] + np.asarray(list(faces), dtype=np.int64)[None, :]).ravel()
    return sums
