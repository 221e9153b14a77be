"""2K's exact duel under the IN economy: the chain of :mod:`analysis.systems.onesix.chain` solved block by block.

Conditions only worsen, so the states are solved block of conditions by block
of conditions: inside a block every action or die face leads to a later state
except a round's end, whose few states (the carries) solve a small linear
system.  A state that cannot carry ``PRUNE`` of probability is not followed
(what reaches it is ``truncation``).  The distribution of rounds then iterates
the rounds over the same states (:mod:`analysis.systems.onesix.rounds` renumbers them,
:func:`analysis.engine.flow.sweep_rounds` sweeps them).
:func:`economy_duel` is the entry point.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace
from functools import lru_cache

import numba
import numpy as np
from numba import njit

from analysis.base import diskcache
from analysis.base.interrupt import run_kernel
from analysis.base.params import DicelabError
from analysis.engine import markov
from analysis.engine.flow import sweep_rounds
from analysis.engine.store import _DEBRUIJN, _LOWEST, _grown
from analysis.systems.onesix import rules as six
from analysis.systems.onesix.chain import (_block_ways, _decode, _edges, _encode, _live, _priority, hit_tables,
                                          ways_room)
from analysis.systems.onesix.rounds import _round_graph
from analysis.systems.onesix.steps import K_BETWEEN, K_END, K_MID, P_NP, P_NX, order_text, pack_fighter, pack_rules

PRUNE = 1e-17
"""A state that cannot carry this much probability is not followed (what reaches it is truncation)."""
ROUNDS_TOL = 1e-12
"""The rounds distribution is iterated until the fights still going weigh less than this..."""
WORK = 1e7
"""... or, once 99.9% of the fights that end have ended, this many edge visits are spent (the rest is
``rounds_tail``; the mean rounds is exact either way)."""
BLOCK_TOL = 1e-14
"""A block's rounds are iterated until what keeps looping in it is below this share of what flowed in..."""
SWEEPS = 200_000
"""... or this many rounds are spent (what is left then never ends: a stalemate)."""
SWEEP_FLOOR = 1e-16
"""Inside a block's rounds, a visit holding less than this share of the block's inflow goes no further (lost)."""
ROUNDS_SKIP = 1e-10
"""The rounds distribution does not follow a state holding less than this share of the fights still going."""
CAPACITY = 1 << 19
"""States the solver first makes room for (doubled as often as needed; its edges, first ten per state, grow as the
solver goes)."""
REGION = 32
"""Hash slots a block of conditions first gets (doubled whenever it is half full): a block's lookups stay close."""


SOLVED = 256
"""Chains kept solved in memory, by what they read (:func:`_chain_figures`)."""
_solved: OrderedDict[str, tuple] = OrderedDict()
DISK_KIND = "onesix-chain"
"""The disk store's name for solved 2K chains (:mod:`analysis.base.diskcache`)."""
SOURCES = ("systems/onesix/solver.py", "systems/onesix/chain.py", "systems/onesix/steps.py", "systems/onesix/rules.py",
           "systems/onesix/rounds.py", "engine/flow.py", "engine/store.py")
"""The modules the solver's kernels are compiled from (their source keys the disk store)."""


@lru_cache(maxsize=256)
def economy_duel(rules: six.Rules, a: six.Fighter, b: six.Fighter) -> tuple[markov.Solution, str, dict]:
    """The duel under the IN economy, exactly (less a reported truncation): the solution, how it was timed, and
    (``gear_faults``, a weapon that can break) its final pairs by the weapons' states: ``{(a broken, b broken):
    {(i, j): p}}``, else ``{}``.

    The compiled solver runs where no signal lands (:func:`analysis.base.interrupt.run_kernel`): Ctrl-C, SIGTERM
    or a cancel halt it within a block and raise :class:`~analysis.base.interrupt.Interrupted`.  Two duels whose
    chains read the same numbers (a variant or a policy the duel never consults: ``group_timing``, ``target``,
    armor wear without armor...) share one solve (:func:`_chain_figures`)."""
    pr = pack_rules(rules, a, b)
    ga, gb = 1 + a.breakable(rules), 1 + b.breakable(rules)
    na, nb = len(six.track(rules, a)) * ga, len(six.track(rules, b)) * gb
    if 3 * na * nb * int(pr[P_NX]) ** 2 * int(pr[P_NP]) ** 2 >= 2**62:
        raise DicelabError(f"onesix duel: tracks of {na} and {nb} conditions are too large for the exact chain; "
                           "allowed: shorter tracks, less armor wear or a shallower carry floor (or dicelab sim)")
    fs = np.stack([pack_fighter(rules, a), pack_fighter(rules, b)])
    codes, probs, lost, stuck, mean, states, rounds = _chain_figures(pr, fs, hit_tables(rules, a, b), na, nb)
    ta, tb = six.track(rules, a), six.track(rules, b)
    weapons: dict[tuple[int, int], dict[tuple[int, int], float]] = {}
    for code, p in zip(codes, probs):
        ia, ib = divmod(int(code), nb)
        part = weapons.setdefault((ia % ga, ib % gb), {})
        part[(ia // ga, ib // gb)] = part.get((ia // ga, ib // gb), 0.0) + float(p)
    pairs: dict[tuple[int, int], float] = {}
    for part in weapons.values():
        for pair, p in part.items():
            pairs[pair] = pairs.get(pair, 0.0) + p
    p_end = float(probs.sum())
    solution = markov.from_rounds(pairs, ta, tb, {t + 1: float(p) for t, p in enumerate(rounds) if p > 0},
                                  p_stalemate=float(stuck), truncation=float(lost), states=int(states),
                                  rounds_tail=max(p_end - float(rounds.sum()), 0.0))
    if p_end > 0 and stuck == 0:
        solution = replace(solution, mean_rounds=float(mean))
    return solution, order_text(rules, a, b), weapons if ga * gb > 1 else {}


def _chain_figures(pr: np.ndarray, fs: np.ndarray, tables: tuple[np.ndarray, ...], na: int,
                   nb: int) -> tuple[np.ndarray, np.ndarray, float, float, float, int, np.ndarray]:
    """The compiled solver's figures for these inputs (end codes, their probabilities, mass lost, P(stalemate),
    expected rounds, states, rounds distribution), kept by the digest of everything the solver reads: the last
    :data:`SOLVED` in memory, and on disk between runs (:mod:`analysis.base.diskcache`, with the solver's
    source), so equal inputs give the figures once solved."""
    knobs = np.array([PRUNE, ROUNDS_TOL, WORK, markov.MAX_ROUNDS, BLOCK_TOL, SWEEPS, ROUNDS_SKIP, SWEEP_FLOOR])
    key = diskcache.digest(np.array([na, nb]), knobs, pr, fs, *tables, stamp=_stamp())
    if key in _solved:
        _solved.move_to_end(key)
        return _solved[key]
    kept = diskcache.load(DISK_KIND, key)
    if kept is not None and len(kept) == 7:
        codes, probs, lost, stuck, mean, states, rounds = kept
        out = (codes, probs, float(lost), float(stuck), float(mean), int(states), rounds)
    else:
        cap = CAPACITY
        while True:
            status, *figures = run_kernel(_solve, pr, fs, *tables, ways_room(tables[1]), na, nb, PRUNE, ROUNDS_TOL,
                                          WORK, markov.MAX_ROUNDS, cap, 10 * cap, BLOCK_TOL, SWEEPS, ROUNDS_SKIP,
                                          SWEEP_FLOOR)
            if status == 0:
                break
            cap *= 2
        out = tuple(figures)
        diskcache.save(DISK_KIND, key, out)
    _solved[key] = out
    if len(_solved) > SOLVED:
        _solved.popitem(last=False)
    return out


def _stamp() -> bytes:
    """The solver's code, for the disk store: every module its kernels are compiled from, and numba's version."""
    return diskcache.code_stamp(SOURCES, f"numba {numba.__version__}")


def cache_clear() -> None:
    """Forget every solved duel (kept by the duel's fields and by what its chain reads)."""
    economy_duel.cache_clear()
    _solved.clear()


# ------------------------------------------------------------------ the compiled chain: the solver
# A state's fields are parallel arrays: s_key, s_kind, s_prio (processing priority), s_start / s_len (its edges;
# -1: not expanded), s_next (next state of its block), s_loc (position in its block's order), s_flag (queued);
# v_lost (probability its ways out miss), v_in (mass arriving from earlier blocks), v_bound (discovery bound).  An
# edge keeps its target (e_tgt), probability (e_p) and e_code: the target's kind, plus 3 when it is in another
# block of conditions (an end is always K_END).  The hash table gives each block of conditions a region of its
# own (t_base, t_mask), so that a block's lookups stay close in memory.  Indices of states and edges are 32-bit:
# the memory ceiling keeps a chain far below 2^31 of either, and halving the bytes fetched saves 2-19% of a duel.


@njit(cache=True, nogil=True, inline='always')
def _slot(table: np.ndarray, base: int, mask: int, key: int) -> int:
    """The slot of ``key`` in its region of the open-addressing ``table`` (rows: key + 1, state index; 0: empty):
    ``mask + 1`` slots from ``base``."""
    slot = ((key * 0x5851F42D4C957F2D) >> 20) & mask
    while table[base + slot, 0] != 0 and table[base + slot, 0] != key + 1:
        slot = (slot + 1) & mask
    return base + slot


@njit(cache=True, nogil=True)
def _region(table: np.ndarray, t_base: np.ndarray, t_mask: np.ndarray, t_top: np.ndarray, r: int, size: int) -> bool:
    """Give region ``r`` (the states of one block of conditions) ``size`` fresh slots at the end of the table (only
    the slots given out are ever written: the table's memory is what the states use), its keys moved there; False
    when the table is full."""
    top = t_top[0]
    if top + size > table.shape[0]:
        return False
    table[top:top + size] = 0
    old, old_mask = t_base[r], t_mask[r]
    t_base[r], t_mask[r], t_top[0] = top, size - 1, top + size
    if old >= 0:
        for i in range(old, old + old_mask + 1):
            if table[i, 0] != 0:
                slot = _slot(table, top, size - 1, table[i, 0] - 1)
                table[slot, 0], table[slot, 1] = table[i, 0], table[i, 1]
    return True


@njit(cache=True, nogil=True, inline='always')
def _state(key: int, slot: int, s_key: np.ndarray, s_kind: np.ndarray, s_prio: np.ndarray, s_start: np.ndarray,
           s_len: np.ndarray, s_next: np.ndarray, s_loc: np.ndarray, s_flag: np.ndarray, v_lost: np.ndarray,
           v_in: np.ndarray, v_bound: np.ndarray, n: int, table: np.ndarray, head: np.ndarray, pr: np.ndarray,
           na: int, nb: int) -> int:
    """Store the new state ``key`` as state ``n``, at the empty ``slot`` of the table (-1: an end, found by its pair
    of conditions instead) and linked to its block unless it ends the fight; its index, -1 when the store is full."""
    if n == s_key.size:
        return -1
    kind, ia, ib, xa, pa, xb, pb = _decode(key, pr, na, nb)
    block = ia * nb + ib
    s_key[n], s_kind[n], s_prio[n] = key, kind, _priority(kind, ia, ib, xa, pa, xb, pb, pr, nb)
    s_start[n], s_len[n], s_next[n], s_loc[n], s_flag[n] = -1, 0, -1, -1, 0
    v_lost[n], v_in[n], v_bound[n] = 0.0, 0.0, 0.0
    if kind != K_END:
        s_next[n] = head[block]
        head[block] = n
    if slot >= 0:
        table[slot, 0], table[slot, 1] = key + 1, n
    return n


@njit(cache=True, nogil=True)
def _heap_push(heap: np.ndarray, keys: np.ndarray, size: int, item: int, key: int) -> int:
    """Push ``item`` with priority ``key`` on a binary min-heap (the priorities kept beside the items)."""
    i = size
    while i > 0:
        parent = (i - 1) // 2
        if keys[parent] <= key:
            break
        heap[i], keys[i] = heap[parent], keys[parent]
        i = parent
    heap[i], keys[i] = item, key
    return size + 1


@njit(cache=True, nogil=True)
def _heap_pop(heap: np.ndarray, keys: np.ndarray, size: int) -> int:
    """Pop the item of least priority (the heap then holds ``size - 1`` items)."""
    top = heap[0]
    size -= 1
    item, key = heap[size], keys[size]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and keys[child + 1] < keys[child]:
            child += 1
        if keys[child] >= key:
            break
        heap[i], keys[i] = heap[child], keys[child]
        i = child
    heap[i], keys[i] = item, key
    return top



@njit(cache=True, nogil=True)
def _mark(lm: np.ndarray, bits: np.ndarray, i: int, q: float) -> None:
    """Add ``q`` to position ``i`` of a pass and mark it pending."""
    lm[i] += q
    bits[i >> 6] |= np.int64(1) << (i & 63)


@njit(cache=True, nogil=True)
def _sweep(lm: np.ndarray, bits: np.ndarray, m_local: int, w_start: np.ndarray, w_tgt: np.ndarray, w_p: np.ndarray,
           w_next: np.ndarray, visits: np.ndarray, later: np.ndarray, floor: float) -> float:
    """The rest of one round inside a block from the marked positions, in order (each way leads to a later
    position): every visit is added to ``visits``, the round's ends to ``later`` (per between-round state); a
    visit below ``floor`` goes no further.  Returns the mass stopped that way."""
    n_words = (m_local + 63) >> 6
    stopped = 0.0
    wi = 0
    while wi < n_words:
        word = bits[wi]
        if word == 0:
            wi += 1
            continue
        low = word & -word
        bits[wi] = word ^ low
        i = (wi << 6) + _LOWEST[((low * _DEBRUIJN) >> 58) & 63]
        m = lm[i]
        lm[i] = 0.0
        visits[i] += m
        if m < floor:
            for w in range(w_start[i], w_start[i + 1]):
                stopped += m * w_p[w]
            continue
        for w in range(w_start[i], w_start[i + 1]):
            if w_next[w]:
                later[w_tgt[w]] += m * w_p[w]
            else:
                _mark(lm, bits, w_tgt[w], m * w_p[w])
    return stopped


@njit(cache=True, nogil=True)
def _solve(pr: np.ndarray, fs: np.ndarray, stay: np.ndarray, start: np.ndarray, hits: np.ndarray, hp: np.ndarray,
           room: int, na: int, nb: int, prune: float, tol: float, work: float, max_rounds: int, cap: int,
           cap_edges: int, tol_block: float, max_sweeps: int, skip: float, sweep_floor: float, halt: np.ndarray):
    """The duel from two unhurt fighters with no carry, block of conditions by block of conditions.

    Conditions only worsen, so the blocks are solved in order: a block's states are found from what flows in
    (following only states that may carry ``prune`` of probability), its rounds are iterated with all of its
    inflow at once until what is left of the rounds that change nothing is below ``tol_block`` of that inflow
    (that rest is truncation; if ``max_sweeps`` rounds do not get there, it is stuck: a stalemate), and one
    pass sends everything that leaves the block on, from each
    state's total visits.  Then the rounds are iterated over the same states for their distribution.

    ``halt[0]`` is polled at every block and block round: once it is not 0 the solver stops (status 2).

    Returns (status: 0 fine, 1 the store is full, 2 halted; end codes, their probabilities, mass lost, P(stalemate),
    expected rounds, states expanded, P(first out in round t)).
    """
    s_key, s_kind, s_prio = np.empty(cap, dtype=np.int64), np.empty(cap, dtype=np.int8), np.empty(cap, dtype=np.int64)
    s_start, s_len = np.empty(cap, dtype=np.int32), np.empty(cap, dtype=np.int32)
    s_next, s_loc, s_flag = np.empty(cap, dtype=np.int32), np.empty(cap, dtype=np.int32), np.empty(cap, dtype=np.int8)
    v_lost, v_in, v_bound = np.empty(cap), np.empty(cap), np.empty(cap)
    n_regions = na * nb
    table = np.empty((8 * cap, 2), dtype=np.int64)
    t_base, t_mask = np.full(n_regions, -1, dtype=np.int64), np.zeros(n_regions, dtype=np.int64)
    t_used, t_top = np.zeros(n_regions, dtype=np.int64), np.zeros(1, dtype=np.int64)
    e_tgt = np.empty(cap_edges, dtype=np.int32)
    e_p = np.empty(cap_edges)
    e_code = np.empty(cap_edges, dtype=np.int8)
    head = np.full(na * nb, -1, dtype=np.int64)
    end_of = np.full(na * nb, -1, dtype=np.int64)
    heap = np.empty(cap, dtype=np.int32)
    heap_keys = np.empty(cap, dtype=np.int64)
    wy_p, wy_i, wy_start = np.empty(room), np.empty((5, room), dtype=np.int64), np.empty(5, dtype=np.int64)
    bk = np.empty(8192, dtype=np.int64)
    bp = np.empty(8192)
    order = np.empty(cap, dtype=np.int32)
    local = np.empty(cap, dtype=np.int32)
    lm = np.zeros(cap)
    bits = np.zeros((cap >> 6) + 1, dtype=np.int64)
    empty_rounds = np.zeros(0)
    no_codes = np.zeros(0, dtype=np.int64)
    n_order = 0
    n_edges = 0
    key = _encode(K_BETWEEN, 0, 0, 0, 0, 0, 0, pr, na, nb)
    _region(table, t_base, t_mask, t_top, 0, REGION)
    t_used[0] = 1
    s0 = _state(key, _slot(table, t_base[0], t_mask[0], key), s_key, s_kind, s_prio, s_start, s_len, s_next, s_loc,
                s_flag, v_lost, v_in, v_bound, 0, table, head, pr, na, nb)
    n = 1
    v_in[s0] = 1.0
    lost = 0.0
    stuck = 0.0
    rounds_acc = 0.0
    for c in range(na * nb):
        if halt[0] != 0:
            return 2, no_codes, empty_rounds, lost, stuck, 0.0, n, empty_rounds
        if head[c] < 0:
            continue
        if not _live(c // nb, c % nb, fs, pr, start):
            s = head[c]
            while s >= 0:
                stuck += v_in[s]
                s = s_next[s]
            continue
        # 1. find the block's states: a bound on the probability each may carry, in processing order
        _block_ways(c // nb, c % nb, fs, pr, stay, start, hits, hp, wy_p, wy_i, wy_start)
        size = 0
        s = head[c]
        while s >= 0:
            if v_in[s] > 0.0:
                v_bound[s] = v_in[s] if s_kind[s] == K_MID else max(v_in[s], 1.0)
                s_flag[s] = 1
                size = _heap_push(heap, heap_keys, size, s, s_prio[s])
            s = s_next[s]
        while size > 0:
            s = _heap_pop(heap, heap_keys, size)
            size -= 1
            s_flag[s] = 0
            if v_bound[s] < prune:
                continue
            if s_start[s] < 0:
                cnt = _edges(s_key[s], fs, pr, na, nb, stay, wy_p, wy_i, wy_start, bk, bp)
                if n_edges + cnt > e_tgt.size:
                    room_e = 2 * e_tgt.size + cnt
                    e_tgt, e_p, e_code = _grown(e_tgt, room_e), _grown(e_p, room_e), _grown(e_code, room_e)
                total = 0.0
                r_from = (s_key[s] // 3) % n_regions
                for i in range(cnt):
                    kind = bk[i] % 3
                    r = (bk[i] // 3) % n_regions
                    if kind == K_END:  # an end's key is its pair of conditions: no table
                        t = end_of[r]
                        if t < 0:
                            t = _state(bk[i], -1, s_key, s_kind, s_prio, s_start, s_len, s_next, s_loc, s_flag,
                                       v_lost, v_in, v_bound, n, table, head, pr, na, nb)
                            if t < 0:
                                return 1, no_codes, empty_rounds, lost, stuck, 0.0, n, empty_rounds
                            end_of[r] = t
                            n += 1
                        e_tgt[n_edges + i], e_p[n_edges + i], e_code[n_edges + i] = t, bp[i], K_END
                        total += bp[i]
                        continue
                    if t_base[r] < 0 and not _region(table, t_base, t_mask, t_top, r, REGION):
                        return 1, no_codes, empty_rounds, lost, stuck, 0.0, n, empty_rounds
                    slot = _slot(table, t_base[r], t_mask[r], bk[i])
                    t = table[slot, 1]
                    if table[slot, 0] == 0:
                        t = _state(bk[i], slot, s_key, s_kind, s_prio, s_start, s_len, s_next, s_loc, s_flag,
                                   v_lost, v_in, v_bound, n, table, head, pr, na, nb)
                        if t < 0:
                            return 1, no_codes, empty_rounds, lost, stuck, 0.0, n, empty_rounds
                        n += 1
                        t_used[r] += 1
                        if 2 * t_used[r] > t_mask[r] + 1 and not _region(table, t_base, t_mask, t_top, r,
                                                                         2 * (t_mask[r] + 1)):
                            return 1, no_codes, empty_rounds, lost, stuck, 0.0, n, empty_rounds
                    e_tgt[n_edges + i], e_p[n_edges + i] = t, bp[i]
                    e_code[n_edges + i] = kind if r == r_from else kind + 3
                    total += bp[i]
                s_start[s], s_len[s] = n_edges, cnt
                v_lost[s] = max(1.0 - total, 0.0)
                n_edges += cnt
            for e in range(s_start[s], s_start[s] + s_len[s]):
                if e_code[e] >= K_END:
                    continue
                t = e_tgt[e]
                bound = v_bound[s] * e_p[e] if e_code[e] == K_MID else 1.0
                if bound > v_bound[t]:
                    v_bound[t] = bound
                    if not s_flag[t]:
                        s_flag[t] = 1
                        size = _heap_push(heap, heap_keys, size, t, s_prio[t])
        # 2. the block's order: its followed states by priority (the between-round ones first), and the ways
        # that stay in the block (to a later state of the round, or to the next round: w_next)
        m_all = 0
        s = head[c]
        while s >= 0:
            local[m_all] = s
            m_all += 1
            s = s_next[s]
        m_local = 0
        for i in range(m_all):
            m_local += s_start[local[i]] >= 0
        expanded = np.empty(m_local, dtype=np.int64)
        prios = np.empty(m_local, dtype=np.int64)
        j = 0
        for i in range(m_all):
            if s_start[local[i]] >= 0:
                expanded[j], prios[j] = local[i], s_prio[local[i]]
                j += 1
        rank = np.argsort(prios, kind="mergesort")
        members = np.empty(m_local, dtype=np.int64)
        n_between = 0
        for i in range(m_local):
            s = expanded[rank[i]]
            members[i] = s
            s_loc[s] = i
            if s_kind[s] == K_BETWEEN:
                n_between += 1
        w_start = np.zeros(m_local + 1, dtype=np.int64)
        w_lost = np.zeros(m_local)
        n_w = 0
        for i in range(m_local):
            s = members[i]
            w_lost[i] = v_lost[s]
            for e in range(s_start[s], s_start[s] + s_len[s]):
                if e_code[e] < K_END:
                    if s_loc[e_tgt[e]] >= 0:
                        n_w += 1
                    else:
                        w_lost[i] += e_p[e]
            w_start[i + 1] = n_w
        w_tgt = np.empty(n_w, dtype=np.int32)
        w_p = np.empty(n_w)
        w_next = np.empty(n_w, dtype=np.bool_)
        j = 0
        for i in range(m_local):
            s = members[i]
            for e in range(s_start[s], s_start[s] + s_len[s]):
                t = e_tgt[e]
                if e_code[e] < K_END and s_loc[t] >= 0:
                    w_tgt[j], w_p[j], w_next[j] = s_loc[t], e_p[e], e_code[e] == K_BETWEEN
                    j += 1
        # 3. the block's rounds, all of its inflow at once, until the rounds that change nothing die out
        visits = np.zeros(m_local)
        now = np.zeros(n_between)
        later = np.zeros(n_between)
        inflow = 0.0
        for i in range(m_all):
            s = local[i]
            if v_in[s] > 0.0:
                if s_loc[s] < 0:
                    lost += v_in[s]
                elif s_kind[s] == K_BETWEEN:
                    now[s_loc[s]] += v_in[s]
                else:
                    _mark(lm, bits, s_loc[s], v_in[s])
                inflow += v_in[s]
        done = False
        for _ in range(max_sweeps):
            if halt[0] != 0:
                return 2, no_codes, empty_rounds, lost, stuck, 0.0, n, empty_rounds
            for b in range(n_between):
                if now[b] > 0.0:
                    visits[b] += now[b]
                    rounds_acc += now[b]
                    for w in range(w_start[b], w_start[b + 1]):
                        _mark(lm, bits, w_tgt[w], now[b] * w_p[w])
            lost += _sweep(lm, bits, m_local, w_start, w_tgt, w_p, w_next, visits, later, sweep_floor * inflow)
            going = later.sum()
            now, later = later, now
            later[:] = 0.0
            if going <= tol_block * inflow:
                done = True
                break
        if done:
            lost += now.sum()
        else:
            stuck += now.sum()
        # 4. everything that leaves the block, sent on once from the total visits
        for i in range(n_between, m_local):
            s = members[i]
            order[n_order] = s
            n_order += 1
            m = visits[i]
            if m == 0.0:
                continue
            lost += m * w_lost[i]
            for e in range(s_start[s], s_start[s] + s_len[s]):
                if e_code[e] >= K_END:
                    v_in[e_tgt[e]] += m * e_p[e]
    n_end = 0
    for i in range(n):
        if s_kind[i] == K_END and v_in[i] > 0.0:
            n_end += 1
    codes = np.empty(n_end, dtype=np.int64)
    probs = np.empty(n_end)
    j = 0
    for i in range(n):
        if s_kind[i] == K_END and v_in[i] > 0.0:
            _, ia, ib, _, _, _, _ = _decode(s_key[i], pr, na, nb)
            codes[j], probs[j] = ia * nb + ib, v_in[i]
            j += 1
    between, first, r_start, r_cnt, r_end, r_tgt, r_p = _round_graph(s_kind, s_start, s_len, e_tgt, e_p, e_code, order,
                                                                     n_order, n)
    rounds = sweep_rounds(first, r_start, r_cnt, r_end, r_tgt, r_p, between[s0], probs.sum(), tol, work, max_rounds,
                     skip)
    expanded = 0
    for i in range(n):
        expanded += s_start[i] >= 0
    return 0, codes, probs, lost, stuck, rounds_acc, expanded, rounds


