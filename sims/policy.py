"""Solved strategies as the Monte Carlo kernels read them (RULES.md section 8): one side's policy tables packed
into flat arrays, and the draw of an action from them.

:func:`pack_tables` lays every :class:`~analysis.engine.decisions.PolicyTable` of a duel out as
``meta[side, kind] = (features, offset)``, ``codes[side, kind, f]`` (where the table's f-th feature sits in the
kernel's feature vector), ``lo_shape[side, kind, f] = (lowest value, values)`` and ``probs`` (one row of action
probabilities per cell, ``NaN``-padded).  Row 0 is empty: a decision a side has no table for points there and
plays action 0, its plain action; so does a cell the game never reaches.

>>> import numpy as np
>>> from analysis.engine.decisions import PolicyTable
>>> t = PolicyTable("stance", "a", ("keep", "drop"), ("wounds",), np.array([0]), np.array([2]),
...                 np.array([[1.0, 0.0], [0.0, 1.0]]))
>>> meta, codes, lo_shape, probs = pack_tables([t], ("stance",), 3)
>>> meta[0, 0].tolist(), int(_choose(0, 0, np.array([1]), meta, codes, lo_shape, probs, np.random.default_rng(0)))
([1, 1], 1)
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from numba import njit

from analysis.base.params import DicelabError
from analysis.engine.decisions import PolicyTable

MAX_ACTIONS = 8
"""The most actions of one decision a kernel draws from."""


def pack_tables(tables: Sequence[PolicyTable], kinds: Sequence[str], n_features: int,
                names: Sequence[str] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(meta, codes, lo_shape, probs) of ``tables`` (see the module docstring) for a kernel drawing the decisions
    ``kinds`` by index from a feature vector of ``n_features``: its features named ``names`` (a table's feature
    sits at its name's index), or, without names, each table's features in its own order."""
    meta = np.zeros((2, len(kinds), 2), dtype=np.int64)
    codes = np.zeros((2, len(kinds), n_features), dtype=np.int64)
    lo_shape = np.zeros((2, len(kinds), n_features, 2), dtype=np.int64)
    rows = [np.full((1, MAX_ACTIONS), np.nan)]
    offset = 1
    for t in tables:
        if t.decision not in kinds:
            raise DicelabError(f"decision {t.decision} ({t.side}) is not one the kernel draws: " + ", ".join(kinds))
        x, k = "ab".index(t.side), list(kinds).index(t.decision)
        meta[x, k] = (len(t.features), offset)
        for f, name in enumerate(t.features):
            codes[x, k, f] = f if names is None else list(names).index(name)
            lo_shape[x, k, f] = (t.lo[f], t.shape[f])
        block = np.full((t.probs.shape[0], MAX_ACTIONS), np.nan)
        block[:, :t.probs.shape[1]] = t.probs
        rows.append(block)
        offset += t.probs.shape[0]
    return meta, codes, lo_shape, np.concatenate(rows)


@njit(cache=True, nogil=True)
def _choose(x: int, kind: int, feats: np.ndarray, meta: np.ndarray, codes: np.ndarray, lo_shape: np.ndarray,
            probs: np.ndarray, rng: np.random.Generator) -> int:
    """An action of side ``x`` for decision ``kind`` drawn from its table at ``feats`` (action 0 where the table
    has no such cell: the game never reaches it, or the side has no table)."""
    cell = 0
    for f in range(meta[x, kind, 0]):
        v = feats[codes[x, kind, f]] - lo_shape[x, kind, f, 0]
        if v < 0 or v >= lo_shape[x, kind, f, 1]:
            return 0
        cell = cell * lo_shape[x, kind, f, 1] + v
    row = probs[meta[x, kind, 1] + cell]
    if np.isnan(row[0]):
        return 0
    u = rng.random()
    acc = 0.0
    for k in range(MAX_ACTIONS):
        if np.isnan(row[k]):
            break
        acc += row[k]
        if u < acc:
            return k
    return 0
