"""Where a fixed play of a game sends the fight: each state's visits, the ends, the rounds (RULES.md sections 7-8).

The play is a chain over the game's states: per state its ways out (``sedge[s]
.. sedge[s + 1]`` into ``to``, with probability ``q``: the way's chance times
the strategies' weight of its option).  Rounds begin at the round-start
states, and the states inside a round never loop among themselves, so cutting
the ways into round starts leaves an acyclic graph: :func:`cut_order` ranks it
(Kahn's order).  Then

- :func:`flow` takes the graph's strongly connected components sources first.
  A component is a block of conditions and its rounds: its round starts' visits
  solve a small dense system (one pass per round start gives its row: where a
  round from it starts the next one), the states inside a round get their
  visits in one pass in rank order, and what leaves goes on to later
  components.  The work is a few passes over each component, where one sparse
  factorisation of the whole chain fills in past any memory.
- :func:`sweep_rounds` plays the rounds one after the other, all the mass of
  a round in one sequential pass over the states renumbered by rank
  (:func:`round_graph`), for the distribution of rounds.

>>> sedge = np.array([0, 2, 2])          # state 0 (a round start): a coin, heads ends (state 1), tails repeats
>>> to, q = np.array([1, 0]), np.array([0.5, 0.5])
>>> start, end = np.array([True, False]), np.array([False, True])
>>> rank, ok = cut_order(sedge, to, q, start, end)
>>> visits, stalemate, lost, _ = flow(sedge, to, q, start, end, np.array([True, True]), np.array([0, 1]),
...                                   np.array([0, 1, 2]), 0, False)
>>> visits.tolist(), stalemate
([2.0, 1.0], 0.0)
"""

from __future__ import annotations

import numpy as np
from numba import njit

ROW_STORE = 1 << 22
"""The most numbers (8 bytes each) :func:`flow` keeps of the components' rows between its two passes."""
ROUNDS_WORK = 1e8
"""Once 99.9% of the fights have ended, the rounds distribution stops after this many ways followed in all (the rest
is its tail; the mean rounds is exact either way)."""



@njit(cache=True)
def cut_order(sedge: np.ndarray, to: np.ndarray, q: np.ndarray, is_start: np.ndarray,
              is_end: np.ndarray) -> tuple[np.ndarray, bool]:
    """Each state's rank in a topological order of the play's ways, the ways into round starts cut (ends: -1);
    False when the states inside a round loop among themselves."""
    n = is_start.size
    indeg = np.zeros(n, dtype=np.int64)
    for s in range(n):
        for e in range(sedge[s], sedge[s + 1]):
            if q[e] > 0.0 and not is_start[to[e]] and not is_end[to[e]]:
                indeg[to[e]] += 1
    rank = np.full(n, -1, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    head, tail = 0, 0
    for s in range(n):
        if not is_end[s] and indeg[s] == 0:
            queue[tail] = s
            tail += 1
    while head < tail:
        s = queue[head]
        rank[s] = head
        head += 1
        for e in range(sedge[s], sedge[s + 1]):
            t = to[e]
            if q[e] > 0.0 and not is_start[t] and not is_end[t]:
                indeg[t] -= 1
                if indeg[t] == 0:
                    queue[tail] = t
                    tail += 1
    inner = 0
    for s in range(n):
        inner += not is_end[s]
    return rank, tail == inner


@njit(cache=True)
def can_end(sedge: np.ndarray, to: np.ndarray, q: np.ndarray, is_end: np.ndarray) -> np.ndarray:
    """Mask of the states from which the play can reach an end (an end itself included): a search back from the
    ends along the ways it takes.

    >>> can_end(np.array([0, 1, 2, 2, 2]), np.array([2, 1]), np.array([1.0, 1.0]), np.array([False, False, True,
    ...         False])).tolist()
    [True, False, True, False]
    """
    n = is_end.size
    ptr = np.zeros(n + 1, dtype=np.int64)
    for s in range(n):
        for e in range(sedge[s], sedge[s + 1]):
            if q[e] != 0.0:
                ptr[to[e] + 1] += 1
    for s in range(n):
        ptr[s + 1] += ptr[s]
    fill = ptr[:-1].copy()
    src = np.empty(ptr[n], dtype=np.int64)
    for s in range(n):
        for e in range(sedge[s], sedge[s + 1]):
            if q[e] != 0.0:
                src[fill[to[e]]] = s
                fill[to[e]] += 1
    return marked(ptr, src, is_end)


@njit(cache=True)
def marked(ptr: np.ndarray, nbr: np.ndarray, seed: np.ndarray) -> np.ndarray:
    """Mask of the nodes reachable from the ``seed`` mask along a CSR graph (node ``s``'s neighbours are
    ``nbr[ptr[s]:ptr[s + 1]]``), a depth-first search.

    >>> marked(np.array([0, 1, 1, 2]), np.array([1, 0]), np.array([True, False, False])).tolist()
    [True, True, False]
    """
    seen = seed.copy()
    stack = np.empty(seed.size, dtype=np.int64)
    top = 0
    for s in range(seed.size):
        if seed[s]:
            stack[top] = s
            top += 1
    while top > 0:
        top -= 1
        t = stack[top]
        for i in range(ptr[t], ptr[t + 1]):
            s = nbr[i]
            if not seen[s]:
                seen[s] = True
                stack[top] = s
                top += 1
    return seen


@njit(cache=True)
def _rows(lo: int, size: int, members: np.ndarray, loc: np.ndarray, sidx: np.ndarray, starts: np.ndarray,
          sedge: np.ndarray, to: np.ndarray, q: np.ndarray, is_start: np.ndarray, h: np.ndarray,
          mass: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per round start of a component: where its round starts the next one inside the component (a row of the
    dense matrix) and the ``h`` its round brings from outside the component (``h`` of later components known)."""
    ns = starts.size
    rows = np.zeros((ns, ns))
    out = np.zeros(ns)
    for a in range(ns):
        s = starts[a]
        first = size
        for e in range(sedge[s], sedge[s + 1]):
            t = to[e]
            if loc[t] < 0:
                out[a] += q[e] * h[t]
            elif is_start[t]:
                rows[a, sidx[loc[t]]] += q[e]
            else:
                mass[loc[t]] += q[e]
                first = min(first, loc[t])
        for i in range(first, size):
            m = mass[i]
            if m == 0.0:
                continue
            mass[i] = 0.0
            s2 = members[lo + i]
            for e in range(sedge[s2], sedge[s2 + 1]):
                t = to[e]
                if loc[t] < 0:
                    out[a] += m * q[e] * h[t]
                elif is_start[t]:
                    rows[a, sidx[loc[t]]] += m * q[e]
                else:
                    mass[loc[t]] += m * q[e]
    return rows, out


@njit(cache=True)
def flow(sedge: np.ndarray, to: np.ndarray, q: np.ndarray, is_start: np.ndarray, is_end: np.ndarray,
         live: np.ndarray, members: np.ndarray, mptr: np.ndarray, start: int,
         want_h: bool) -> tuple[np.ndarray, float, float, np.ndarray]:
    """The play's expected visits of every state from ``start`` (an end: the mass it absorbs; a state that cannot
    reach an end, ``live`` false: the mass that enters it, once, which is the stalemate), P(stalemate), the mass
    the ways lost (rows summing to less than 1), and with ``want_h`` each state's P(reaching an end).  ``members``
    lists the components sources first (``mptr``: where each starts), each in rank order (:func:`cut_order`)."""
    n = is_start.size
    inflow = np.zeros(n)
    inflow[start] = 1.0
    visits = np.zeros(n)
    loc = np.full(n, -1, dtype=np.int64)
    mass = np.zeros(n)
    h = np.zeros(n)
    stalemate = 0.0
    n_comp = mptr.size - 1
    sptr = _row_store(is_start, is_end, live, members, mptr) if want_h else np.full(n_comp + 1, -1, dtype=np.int64)
    kept = sptr[n_comp] >= 0
    store = np.empty(max(sptr[n_comp], 0))
    if want_h:  # P(reaching an end) first: its pass keeps each component's rows for the visits
        _reach(sedge, to, q, is_start, is_end, live, members, mptr, loc, mass, is_end.astype(np.float64), h, store,
               sptr, kept)
    for k in range(n_comp):
        lo, size = mptr[k], mptr[k + 1] - mptr[k]
        s = members[lo]
        if is_end[s] or not live[s]:
            for i in range(size):
                s = members[lo + i]
                visits[s] = inflow[s]
                if not is_end[s]:
                    stalemate += inflow[s]
            continue
        if size == 1:
            stay = 0.0
            for e in range(sedge[s], sedge[s + 1]):
                if to[e] == s:
                    stay += q[e]
            v = inflow[s] / (1.0 - stay)
            visits[s] = v
            for e in range(sedge[s], sedge[s + 1]):
                if to[e] != s:
                    inflow[to[e]] += v * q[e]
            continue
        starts, sidx = _place(lo, size, members, loc, is_start)
        y0 = np.zeros(starts.size)
        for i in range(size):
            s = members[lo + i]
            if is_start[s]:
                y0[sidx[i]] += inflow[s]
            else:
                mass[i] += inflow[s]
        _spread(lo, size, members, loc, sidx, sedge, to, q, is_start, mass, visits, inflow, y0, 0)
        if kept:
            rows = store[sptr[k]: sptr[k + 1]].reshape(starts.size, starts.size)
        else:
            rows, _ = _rows(lo, size, members, loc, sidx, starts, sedge, to, q, is_start, h, mass)
        v = np.linalg.solve(np.eye(starts.size) - rows.T, y0)
        for a in range(starts.size):
            s = starts[a]
            visits[s] = v[a]
            for e in range(sedge[s], sedge[s + 1]):
                t = to[e]
                if loc[t] < 0:
                    inflow[t] += v[a] * q[e]
                elif not is_start[t]:
                    mass[loc[t]] += v[a] * q[e]
        _spread(lo, size, members, loc, sidx, sedge, to, q, is_start, mass, visits, inflow, y0, 1)
        for i in range(size):
            loc[members[lo + i]] = -1
    lost = 0.0
    for s in range(n):
        if live[s] and not is_end[s]:
            out = 0.0
            for e in range(sedge[s], sedge[s + 1]):
                out += q[e]
            lost += visits[s] * max(1.0 - out, 0.0)
    if want_h and not kept:
        _reach(sedge, to, q, is_start, is_end, live, members, mptr, loc, mass, is_end.astype(np.float64), h, store,
               sptr, False)
    return visits, stalemate, lost, h


@njit(cache=True)
def _row_store(is_start: np.ndarray, is_end: np.ndarray, live: np.ndarray, members: np.ndarray,
               mptr: np.ndarray) -> np.ndarray:
    """Where each component's rows (:func:`_rows`, a square of its round starts) go in one flat store, or all -1
    when the store would pass :data:`ROW_STORE` numbers (the rows are then made twice)."""
    n_comp = mptr.size - 1
    sptr = np.zeros(n_comp + 1, dtype=np.int64)
    for k in range(n_comp):
        lo, size = mptr[k], mptr[k + 1] - mptr[k]
        ns = 0
        if size > 1 and not is_end[members[lo]] and live[members[lo]]:
            for i in range(size):
                ns += is_start[members[lo + i]]
        sptr[k + 1] = sptr[k] + ns * ns
    if sptr[n_comp] > ROW_STORE:
        sptr[:] = -1
    return sptr


@njit(cache=True)
def _place(lo: int, size: int, members: np.ndarray, loc: np.ndarray,
           is_start: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Number a component's members (``loc``) and its round starts: their states and each member's start index."""
    sidx = np.full(size, -1, dtype=np.int64)
    ns = 0
    for i in range(size):
        s = members[lo + i]
        loc[s] = i
        if is_start[s]:
            sidx[i] = ns
            ns += 1
    starts = np.empty(ns, dtype=np.int64)
    for i in range(size):
        if sidx[i] >= 0:
            starts[sidx[i]] = members[lo + i]
    return starts, sidx


@njit(cache=True)
def _spread(lo: int, size: int, members: np.ndarray, loc: np.ndarray, sidx: np.ndarray, sedge: np.ndarray,
            to: np.ndarray, q: np.ndarray, is_start: np.ndarray, mass: np.ndarray, visits: np.ndarray,
            inflow: np.ndarray, y0: np.ndarray, solved: int) -> None:
    """One pass over a component's states inside a round, in rank order: each adds its mass to its visits and
    sends it on (out of the component to ``inflow``; to a round start: to ``y0`` unless the starts are
    ``solved``, whose visits already count every return)."""
    for i in range(size):
        m = mass[i]
        if m == 0.0:
            continue
        mass[i] = 0.0
        s = members[lo + i]
        visits[s] += m
        for e in range(sedge[s], sedge[s + 1]):
            t = to[e]
            if loc[t] < 0:
                inflow[t] += m * q[e]
            elif is_start[t]:
                if not solved:
                    y0[sidx[loc[t]]] += m * q[e]
            else:
                mass[loc[t]] += m * q[e]


@njit(cache=True)
def _reach(sedge: np.ndarray, to: np.ndarray, q: np.ndarray, is_start: np.ndarray, is_end: np.ndarray,
           live: np.ndarray, members: np.ndarray, mptr: np.ndarray, loc: np.ndarray, mass: np.ndarray,
           at_end: np.ndarray, h: np.ndarray, store: np.ndarray, sptr: np.ndarray, keep: bool) -> None:
    """Each state's expected ``at_end`` of the end it reaches (0 where it never ends) into ``h``: with ``at_end``
    1 at every end, P(reaching an end); with a game's payoffs, the play's value.  Components sinks first: a
    component's round starts solve a small system, then its other states in reverse rank order.  With ``keep``
    each component's rows of that system go into ``store`` at ``sptr`` (:func:`_row_store`)."""
    for k in range(mptr.size - 2, -1, -1):
        lo, size = mptr[k], mptr[k + 1] - mptr[k]
        s = members[lo]
        if is_end[s] or not live[s]:
            for i in range(size):
                h[members[lo + i]] = at_end[members[lo + i]] if is_end[members[lo + i]] else 0.0
            continue
        if size == 1:
            stay, got = 0.0, 0.0
            for e in range(sedge[s], sedge[s + 1]):
                if to[e] == s:
                    stay += q[e]
                else:
                    got += q[e] * h[to[e]]
            h[s] = got / (1.0 - stay)
            continue
        starts, sidx = _place(lo, size, members, loc, is_start)
        rows, out = _rows(lo, size, members, loc, sidx, starts, sedge, to, q, is_start, h, mass)
        if keep:
            store[sptr[k]: sptr[k + 1]] = rows.ravel()
        hs = np.linalg.solve(np.eye(starts.size) - rows, out)
        for a in range(starts.size):
            h[starts[a]] = hs[a]
        for i in range(size - 1, -1, -1):
            s = members[lo + i]
            if is_start[s]:
                continue
            got = 0.0
            for e in range(sedge[s], sedge[s + 1]):
                got += q[e] * h[to[e]]
            h[s] = got
        for i in range(size):
            loc[members[lo + i]] = -1


@njit(cache=True)
def round_graph(sedge: np.ndarray, to: np.ndarray, q: np.ndarray, is_start: np.ndarray, is_end: np.ndarray,
                live: np.ndarray, rank: np.ndarray, start: int) -> tuple[np.ndarray, ...]:
    """The play renumbered for :func:`sweep_rounds`: the states by rank (every way inside a round leads to a later
    position), each live round start a between-round state whose round begins at its own position.

    Returns the between-round state the fight begins at (when ``start`` is not a round start, an extra one whose
    "round" is what happens before the first round begins), then :func:`sweep_rounds`'s ``first``, ``r_start``,
    ``r_cnt``, ``r_end``, ``r_tgt`` and ``r_p``.  A way into a state that cannot end (``live`` false) is left out:
    that mass is the stalemate."""
    n = is_start.size
    n_pos = 0
    for s in range(n):
        n_pos += rank[s] >= 0
    order = np.empty(n_pos, dtype=np.int64)
    between = np.full(n, -1, dtype=np.int64)
    n_b = 0
    for s in range(n):
        if rank[s] >= 0:
            order[rank[s]] = s
        if is_start[s] and live[s] and not is_end[s]:
            between[s] = n_b
            n_b += 1
    extra = not is_start[start] and rank[start] >= 0
    first = np.empty(n_b + extra, dtype=np.int64)
    for s in range(n):
        if between[s] >= 0:
            first[between[s]] = rank[s]
    b0 = between[start]
    if extra:
        first[n_b] = rank[start]
        b0 = n_b
    r_start = np.zeros(n_pos + 1, dtype=np.int64)
    r_end = np.zeros(n_pos)
    r_tgt = np.empty(to.size, dtype=np.int64)
    r_p = np.empty(to.size)
    j = 0
    for i in range(n_pos):
        s = order[i]
        for e in range(sedge[s], sedge[s + 1]):
            t = to[e]
            if q[e] <= 0.0 or not (is_end[t] or live[t]):
                continue  # a way the play never takes (it may lead back: only the ways taken are in rank order)
            if is_end[t]:
                r_end[i] += q[e]
                continue
            r_tgt[j], r_p[j] = (-1 - between[t], q[e]) if is_start[t] else (rank[t], q[e])
            j += 1
        r_start[i + 1] = j
    return b0, first, r_start, np.diff(r_start), r_end, r_tgt[:j], r_p[:j]


@njit(cache=True, nogil=True)
def sweep_rounds(first: np.ndarray, r_start: np.ndarray, r_cnt: np.ndarray, r_end: np.ndarray,
            r_tgt: np.ndarray, r_p: np.ndarray, b0: int, p_end: float, tol: float, work: float, max_rounds: int,
            skip: float) -> np.ndarray:
    """P(first out in round t) over a graph of the rounds (:func:`round_graph`) from the between-round state ``b0``: the
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


@njit(cache=True)
def values_of(sedge: np.ndarray, to: np.ndarray, q: np.ndarray, is_start: np.ndarray, is_end: np.ndarray,
              live: np.ndarray, members: np.ndarray, mptr: np.ndarray, at_end: np.ndarray) -> np.ndarray:
    """The play's value at every state: the expected ``at_end`` of the end it reaches (0 where it never ends),
    by :func:`_reach` (``members`` and ``mptr`` as for :func:`flow`)."""
    n = is_start.size
    h = np.zeros(n)
    _reach(sedge, to, q, is_start, is_end, live, members, mptr, np.full(n, -1, dtype=np.int64), np.zeros(n), at_end,
           h, np.empty(0), np.full(mptr.size, -1, dtype=np.int64), False)
    return h
