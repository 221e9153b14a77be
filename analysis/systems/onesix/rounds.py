"""2K's exact duel: its solved chain's states as a graph of rounds, for the distribution of rounds
(:func:`analysis.engine.flow.sweep_rounds`, which every game's rounds share)."""

from __future__ import annotations

import numpy as np
from numba import njit

from analysis.systems.onesix.steps import K_BETWEEN, K_END


@njit(cache=True, nogil=True)
def _round_graph(s_kind: np.ndarray, s_start: np.ndarray, s_len: np.ndarray, e_tgt: np.ndarray, e_p: np.ndarray,
                 e_code: np.ndarray, order: np.ndarray, n_order: int, n: int) -> tuple[np.ndarray, ...]:
    """The followed states renumbered for :func:`~analysis.engine.flow.sweep_rounds`: the states inside a round by their position in
    ``order`` (every way leads to a later position), the states between rounds apart.

    Returns (between: its index per state, -1 for the others; the first position of a round from each between-
    round state, -1 when not followed; per position: the ways' start, their edge count, the probability of ending
    the fight; per way: the target, a position or ``-1 - between index``, and its probability).  A way to a state
    not followed is left out (its mass is lost).
    """
    pos = np.full(n, -1, dtype=np.int64)
    for i in range(n_order):
        pos[order[i]] = i
    between = np.full(n, -1, dtype=np.int64)
    n_b = 0
    for s in range(n):
        if s_kind[s] == K_BETWEEN:
            between[s] = n_b
            n_b += 1
    first = np.full(n_b, -1, dtype=np.int64)
    for s in range(n):
        if between[s] >= 0 and s_start[s] >= 0:
            first[between[s]] = pos[e_tgt[s_start[s]]]
    r_start = np.zeros(n_order + 1, dtype=np.int64)
    r_cnt = np.empty(n_order, dtype=np.int64)
    r_end = np.zeros(n_order)
    for i in range(n_order):
        r_cnt[i] = s_len[order[i]]
    r_tgt = np.empty(r_cnt.sum(), dtype=np.int64)
    r_p = np.empty(r_tgt.size)
    j = 0
    for i in range(n_order):
        s = order[i]
        for e in range(s_start[s], s_start[s] + s_len[s]):
            t = e_tgt[e]
            if e_code[e] == K_END:
                r_end[i] += e_p[e]
            elif e_code[e] % 3 == K_BETWEEN:
                r_tgt[j], r_p[j] = -1 - between[t], e_p[e]
                j += 1
            elif pos[t] >= 0:
                r_tgt[j], r_p[j] = pos[t], e_p[e]
                j += 1
        r_start[i + 1] = j
    return between, first, r_start, r_cnt, r_end, r_tgt, r_p
