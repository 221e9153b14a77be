"""2K's exact duel: the distribution of rounds, iterated over the solved chain's states round by round."""

from __future__ import annotations

import numpy as np
from numba import njit

from analysis.systems.onesix.steps import K_BETWEEN, K_END


@njit(cache=True, nogil=True)
def _round_graph(s_kind: np.ndarray, s_start: np.ndarray, s_len: np.ndarray, e_tgt: np.ndarray, e_p: np.ndarray,
                 e_code: np.ndarray, order: np.ndarray, n_order: int, n: int) -> tuple[np.ndarray, ...]:
    """The followed states renumbered for :func:`_rounds`: the states inside a round by their position in
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


@njit(cache=True, nogil=True)
def _rounds(first: np.ndarray, r_start: np.ndarray, r_cnt: np.ndarray, r_end: np.ndarray,
            r_tgt: np.ndarray, r_p: np.ndarray, b0: int, p_end: float, tol: float, work: float, max_rounds: int,
            skip: float) -> np.ndarray:
    """P(first out in round t) over the graph of :func:`_round_graph` from the between-round state ``b0``: the
    rounds iterated until the fights still going weigh less than ``tol``, or ``work`` edge visits are spent once
    99.9% of the fights that end have ended (then the distribution is cut); a state holding less than ``skip`` of
    the fights still going is not followed.  What the distribution misses of the fights that end is
    ``rounds_tail``."""
    n_order, n_b = r_cnt.size, first.size
    mass = np.zeros(n_order)
    b_mass = np.zeros(n_b)
    b_list = np.empty(n_b, dtype=np.int64)
    flag = np.zeros(n_b, dtype=np.int8)
    b_list[0] = b0
    n_list = 1
    b_mass[b0] = 1.0
    out = np.zeros(64)
    visits = 0.0
    t = 0
    alive = 1.0
    ended = 0.0
    while alive >= tol and t < max_rounds:
        if visits > work and ended >= 0.999 * p_end:
            return out[:t]
        if t == out.size:
            grown = np.zeros(2 * out.size)
            grown[:t] = out
            out = grown
        for r in range(n_list):
            b = b_list[r]
            flag[b] = 0
            m = b_mass[b]
            b_mass[b] = 0.0
            if m > 0.0 and first[b] >= 0:
                mass[first[b]] += m
        n_list = 0
        absorbed = 0.0
        floor = skip * alive
        for i in range(n_order):
            m = mass[i]
            if m == 0.0:
                continue
            mass[i] = 0.0
            if m < floor:
                continue
            visits += r_cnt[i]
            absorbed += m * r_end[i]
            for e in range(r_start[i], r_start[i + 1]):
                target = r_tgt[e]
                q = m * r_p[e]
                if target >= 0:
                    mass[target] += q
                else:
                    b = -1 - target
                    b_mass[b] += q
                    if not flag[b]:
                        flag[b] = 1
                        b_list[n_list] = b
                        n_list += 1
        out[t] = absorbed
        ended += absorbed
        t += 1
        alive = 0.0
        for r in range(n_list):
            alive += b_mass[b_list[r]]
    return out[:t]

