"""The compiled exact group fight of Tri-Stat (RULES.md section 7), for :mod:`analysis.systems.tristat.groups`.

A fight's state at a round start is every fighter's condition (an index into
its type's track), with identical fighters of a side sorted (they are
exchangeable), the initiative ranks when initiative is rolled once, and the
defensive rounds when the round cap of total defence applies.  The round is
played out in :func:`_round`: the order of the moments (every weak order of
the able fighters, by its probability, identical fighters taken once with
their count), then moment by moment and, within a moment, wave by wave
(the ``w``-th attack of every actor with that many), each wave's targets
picked from the state at its start and its attacks landing together; a
defender's defense rolls made this round set its penalty.  :func:`_fight`
takes the round starts in an order where every change comes later (damage
only grows, the defensive rounds too), so each is met once: its mass, the
first moment of its arrival round and its arrivals by round are final when
it is taken, and its round's outcomes pass them on (a round that changes
nothing is a geometric wait).

Every probability comes from the tables the caller packs from the exact
engine's rules: per attacker type, defender type, defense rolls already made
and defense (dodge or block), the outcomes of one attack as (probability,
damage, object destroyed, a defense roll made, knocked out by the shock
stand-in).  No rule number is written here.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict

KEY = types.UniTuple(types.int64, 3)
"""A state as three words of packed fields."""
# type rows
Y_HEALTH, Y_DYING, Y_OBJ, Y_UP, Y_OUT_LO, Y_LEN = range(6)
# slot rows
S_TYPE, S_SIDE, S_TD, S_ATTACKS, S_POLICY, S_STRENGTH, S_TWICE = range(7)
"""... ``S_TWICE``: the fighter may be attacked more than once a round (its defense rolls so far matter)."""
WEAKEST, RANDOM, STRONGEST, SPREAD = range(4)
# settings
(G_N, G_TYPES, G_J, G_ONCE, G_CAPPED, G_CAP, G_COLLAPSE, G_T, G_LBITS, G_DBITS, G_HBITS, G_RBITS, G_CBITS,
 G_MAX_STATES) = range(14)


@njit(cache=True)
def _pack(vals: np.ndarray, bits: np.ndarray) -> tuple[int, int, int]:
    """Fields ``vals`` of ``bits`` bits each, packed into three words (a field never straddles two; a field of no
    bits is left out)."""
    w0, w1, w2 = 0, 0, 0
    k, used = 0, 0
    for i in range(vals.size):
        if bits[i] == 0:
            continue
        if used + bits[i] > 63:
            k += 1
            used = 0
        if k == 0:
            w0 |= vals[i] << used
        elif k == 1:
            w1 |= vals[i] << used
        else:
            w2 |= vals[i] << used
        used += bits[i]
    return (w0, w1, w2)


MIX0, MIX1, MIX2 = 0x1F3D5B79A3C2E4F1, 0x2545F4914F6CDD1D, 0x3C6EF372FE94F82B


@njit(cache=True)
def _slot(keys: np.ndarray, stamp: np.ndarray, cur: int, key: tuple[int, int, int]) -> int:
    """Where ``key`` is in an open-addressing table (its slot, or the empty one where it would go); a slot holds a
    key of this generation when ``stamp[slot] == cur``, so a new generation empties the table at once."""
    mask = stamp.size - 1
    h = key[0] * MIX0 + key[1] * MIX1 + key[2] * MIX2
    h = (h ^ (h >> 31)) & mask
    while stamp[h] == cur:
        if keys[h, 0] == key[0] and keys[h, 1] == key[1] and keys[h, 2] == key[2]:
            return h
        h = (h + 1) & mask
    return h


@njit(cache=True)
def _rehash(keys: np.ndarray, stamp: np.ndarray, vals: np.ndarray, cur: int) -> tuple[np.ndarray, np.ndarray,
                                                                                      np.ndarray]:
    """The table twice as large with this generation's keys."""
    size = 2 * stamp.size
    k2, s2, v2 = np.zeros((size, 3), dtype=np.int64), np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64)
    for h in range(stamp.size):
        if stamp[h] == cur:
            key = (keys[h, 0], keys[h, 1], keys[h, 2])
            j = _slot(k2, s2, cur, key)
            k2[j], s2[j], v2[j] = keys[h], cur, vals[h]
    return k2, s2, v2


@njit(cache=True)
def _taken(ty: np.ndarray, t: int, label: int) -> int:
    """Damage taken at ``label`` of type ``t`` (dying: its threshold)."""
    if label < ty[t, Y_UP]:
        return label // ty[t, Y_OBJ]
    if label == ty[t, Y_LEN] - 1:
        return ty[t, Y_DYING]
    return ty[t, Y_OUT_LO] + label - ty[t, Y_UP]


@njit(cache=True)
def _land(ty: np.ndarray, t: int, label: int, damage: int, breaks: bool, knocked: bool, collapse: bool) -> int:
    """Type ``t``'s condition after ``damage`` more (an object destroyed, knocked out by the shock stand-in)."""
    total = _taken(ty, t, label) + damage
    if total >= ty[t, Y_DYING]:
        return ty[t, Y_LEN] - 1
    if label >= ty[t, Y_UP] or total > ty[t, Y_HEALTH] or knocked:
        return ty[t, Y_UP] if collapse else ty[t, Y_UP] + total - ty[t, Y_OUT_LO]
    obj = label % ty[t, Y_OBJ]
    if breaks and ty[t, Y_OBJ] == 2:
        obj = 1
    return total * ty[t, Y_OBJ] + obj


@njit(cache=True)
def _canon(labels: np.ndarray, ranks: np.ndarray, slots: np.ndarray) -> None:
    """Sort the members of each type by (condition, rank): identical fighters are exchangeable."""
    n = labels.size
    for i in range(1, n):
        j = i
        while j > 0 and slots[j - 1, S_TYPE] == slots[j, S_TYPE] and (
                labels[j - 1] > labels[j] or (labels[j - 1] == labels[j] and ranks[j - 1] > ranks[j])):
            labels[j - 1], labels[j] = labels[j], labels[j - 1]
            ranks[j - 1], ranks[j] = ranks[j], ranks[j - 1]
            j -= 1


@njit(cache=True)
def _target(slots: np.ndarray, ty: np.ndarray, labels: np.ndarray, hits: np.ndarray, ranks: np.ndarray, att: int,
            pick: int) -> int:
    """The enemy slot attacker ``att`` picks (its policy; ``pick``: the index among the able enemies for a random
    target); -1 when no enemy can act.  Ties: the least Health left, then the kind of fighter listed first, then
    its object intact, then the one acting first this round, then the first slot (identical fighters alike in all
    of these are interchangeable)."""
    best, count = -1, 0
    b0, b1, b2, b3, b4 = 0, 0, 0, 0, 0
    policy = slots[att, S_POLICY]
    for e in range(labels.size):
        if slots[e, S_SIDE] == slots[att, S_SIDE]:
            continue
        t = slots[e, S_TYPE]
        if labels[e] >= ty[t, Y_UP]:
            continue
        left = ty[t, Y_HEALTH] - _taken(ty, t, labels[e])
        if policy == RANDOM:
            if count == pick:
                best = e
            count += 1
            continue
        k0 = left if policy == WEAKEST else -slots[e, S_STRENGTH] if policy == STRONGEST else hits[e]
        k1 = 0 if policy == WEAKEST else left
        k2, k3, k4 = t, labels[e] % ty[t, Y_OBJ], ranks[e]
        if best < 0 or (k0, k1, k2, k3, k4) < (b0, b1, b2, b3, b4):
            best, b0, b1, b2, b3, b4 = e, k0, k1, k2, k3, k4
    return best


@njit(cache=True)
def _able(slots: np.ndarray, ty: np.ndarray, labels: np.ndarray, side: int) -> int:
    count = 0
    for e in range(labels.size):
        if slots[e, S_SIDE] == side and labels[e] < ty[slots[e, S_TYPE], Y_UP]:
            count += 1
    return count


@njit(cache=True)
def _grow2(a: np.ndarray, rows: int) -> np.ndarray:
    out = np.zeros((rows, a.shape[1]), dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@njit(cache=True)
def _grow1(a: np.ndarray, size: int) -> np.ndarray:
    out = np.zeros(size, dtype=a.dtype)
    out[: a.size] = a
    return out


@njit(cache=True)
def _wave(slots: np.ndarray, ty: np.ndarray, g: np.ndarray, tab_ptr: np.ndarray, tab_p: np.ndarray,
          tab_dmg: np.ndarray, tab_brk: np.ndarray, tab_roll: np.ndarray, tab_knk: np.ndarray, mode_of: np.ndarray,
          labels: np.ndarray, defs: np.ndarray, hits: np.ndarray, ranks: np.ndarray, prob: float,
          attackers: np.ndarray, n_att: int, work: np.ndarray, fwork: np.ndarray, out_l: np.ndarray, out_d: np.ndarray, out_h: np.ndarray,
          out_p: np.ndarray) -> int:
    """Every way one wave goes: each attacker (in slot order) picks its target from the wave's start and
    attacks, its defender's defense rolls so far setting the penalty; the damage lands together.  Writes the
    results (unmerged) to ``out_*`` and returns their count, or -1 when they do not fit."""
    n = labels.size
    n_types, big_j, collapse = g[G_TYPES], g[G_J], g[G_COLLAPSE] == 1
    # work[level]: target, choice counter, outcome counter, then per slot damage, destroyed, knocked, rolls, hits
    fwork[0] = prob
    work[0, 0], work[0, 1], work[0, 2] = -1, 0, 0
    work[0, 3:3 + 3 * n] = 0
    work[0, 3 + 3 * n:3 + 4 * n] = defs
    work[0, 3 + 4 * n:3 + 5 * n] = hits
    level, count = 0, 0
    while level >= 0:
        if level == n_att:
            if count == out_p.size:
                return -1
            for e in range(n):
                dmg, brk, knk = work[level, 3 + e], work[level, 3 + n + e], work[level, 3 + 2 * n + e]
                out_l[count, e] = _land(ty, slots[e, S_TYPE], labels[e], dmg, brk == 1, knk == 1, collapse) \
                    if dmg > 0 or brk > 0 or knk > 0 else labels[e]
            for e in range(n):
                out_d[count, e] = work[level, 3 + 3 * n + e] if slots[e, S_TWICE] else 0
            out_h[count] = work[level, 3 + 4 * n:3 + 5 * n]
            out_p[count] = fwork[level]
            count += 1
            level -= 1
            continue
        att = attackers[level]
        random = slots[att, S_POLICY] == RANDOM
        able = _able(slots, ty, labels, 1 - slots[att, S_SIDE]) if random else 1
        if work[level, 0] < 0:  # the next target (one for a fixed policy; each able enemy in turn at random)
            if work[level, 1] >= able:
                work[level, 1] = 0
                level -= 1
                continue
            work[level, 0] = _target(slots, ty, labels, work[level, 3 + 4 * n:3 + 5 * n], ranks, att,
                                     work[level, 1])
            work[level, 1] += 1
            work[level, 2] = 0
        e = work[level, 0]
        a_t, d_t = slots[att, S_TYPE], slots[e, S_TYPE]
        j = min(work[level, 3 + 3 * n + e], big_j - 1)
        mode = mode_of[a_t, d_t] if labels[e] % ty[d_t, Y_OBJ] == 0 else 0
        row = ((a_t * n_types + d_t) * big_j + j) * 2 + mode
        r = tab_ptr[row] + work[level, 2]
        if r >= tab_ptr[row + 1]:
            work[level, 0] = -1
            continue
        work[level, 2] += 1
        nxt = level + 1
        work[nxt, 3:] = work[level, 3:]
        work[nxt, 3 + e] += tab_dmg[r]
        work[nxt, 3 + n + e] |= tab_brk[r]
        work[nxt, 3 + 2 * n + e] |= tab_knk[r]
        work[nxt, 3 + 3 * n + e] += tab_roll[r]
        work[nxt, 3 + 4 * n + e] += 1
        work[nxt, 0], work[nxt, 1], work[nxt, 2] = -1, 0, 0
        fwork[nxt] = fwork[level] * tab_p[r] / able
        level = nxt
    return count


@njit(cache=True)
def _weight(slots: np.ndarray, labels: np.ndarray, able: int, ranks: np.ndarray) -> float:
    """How many orders of the able fighters this one stands for (identical fighters in the same condition are
    interchangeable): 0 when it is not the first of them (their ranks not ascending), else the count."""
    n = labels.size
    weight = 1.0
    e = 0
    while e < n:
        f = e
        while f + 1 < n and slots[f + 1, S_TYPE] == slots[e, S_TYPE] and labels[f + 1] == labels[e]:
            f += 1
        if (able >> e) & 1 and f > e:
            run = 1
            for k in range(e + 1, f + 1):
                weight *= k - e + 1
                if ranks[k] < ranks[k - 1]:
                    return 0.0
                if ranks[k] == ranks[k - 1]:
                    run += 1
                    weight /= run
                else:
                    run = 1
        e = f + 1
    return weight


@njit(cache=True)
def _round(slots: np.ndarray, ty: np.ndarray, g: np.ndarray, tab_ptr: np.ndarray, tab_p: np.ndarray,
           tab_dmg: np.ndarray, tab_brk: np.ndarray, tab_roll: np.ndarray, tab_knk: np.ndarray, mode_of: np.ndarray,
           ord_ptr: np.ndarray, ord_ranks: np.ndarray, ord_p: np.ndarray, labels0: np.ndarray,
           ranks0: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One round from a round start: its distinct results as (conditions, ranks, kind, probability), kind 0 the
    next round, 1 the fight's end (a side has nobody able to act); identical fighters sorted."""
    n = labels0.size
    fbits = np.zeros(3 * n, dtype=np.int64)
    fbits[:n], fbits[n:2 * n], fbits[2 * n:3 * n] = g[G_LBITS], g[G_DBITS], g[G_HBITS]
    rbits = np.zeros(2 * n + 1, dtype=np.int64)
    rbits[:n], rbits[n:2 * n], rbits[2 * n] = g[G_LBITS], g[G_RBITS], 1
    able = 0
    for e in range(n):
        if labels0[e] < ty[slots[e, S_TYPE], Y_UP]:
            able |= 1 << e
    res = Dict.empty(key_type=KEY, value_type=types.int64)
    m_keys, m_stamp, m_vals = np.zeros((1024, 3), dtype=np.int64), np.zeros(1024, dtype=np.int64), \
        np.zeros(1024, dtype=np.int64)
    res_l = np.zeros((64, n), dtype=np.int64)
    res_r = np.zeros((64, n), dtype=np.int64)
    res_k = np.zeros(64, dtype=np.int64)
    res_p = np.zeros(64)
    cur_l, cur_d, cur_h, cur_p = (np.zeros((256, n), dtype=np.int64), np.zeros((256, n), dtype=np.int64),
                                  np.zeros((256, n), dtype=np.int64), np.zeros(256))
    tmp_l, tmp_d, tmp_h, tmp_p = (np.zeros((256, n), dtype=np.int64), np.zeros((256, n), dtype=np.int64),
                                  np.zeros((256, n), dtype=np.int64), np.zeros(256))
    leaf_l, leaf_d, leaf_h, leaf_p = (np.zeros((1024, n), dtype=np.int64), np.zeros((1024, n), dtype=np.int64),
                                      np.zeros((1024, n), dtype=np.int64), np.zeros(1024))
    work = np.zeros((n * g[G_J] + 2, 3 + 5 * n), dtype=np.int64)
    fwork = np.zeros(n * g[G_J] + 2)
    vals = np.zeros(3 * n, dtype=np.int64)
    rvals = np.zeros(2 * n + 1, dtype=np.int64)
    attackers = np.zeros(n * g[G_J] + 1, dtype=np.int64)
    stage = 0
    lo, hi = (0, 1) if g[G_ONCE] else (ord_ptr[able], ord_ptr[able + 1])
    for o in range(lo, hi):
        ranks = ranks0 if g[G_ONCE] else ord_ranks[o]
        weight = 1.0 if g[G_ONCE] else _weight(slots, labels0, able, ranks) * ord_p[o]
        if weight == 0.0:
            continue
        n_cur = 1
        cur_l[0], cur_d[0], cur_h[0], cur_p[0] = labels0, 0, 0, weight
        moments = 0
        for e in range(n):
            if (able >> e) & 1:
                moments = max(moments, ranks[e] + 1)
        for k in range(moments):
            waves = 0
            for e in range(n):
                if (able >> e) & 1 and ranks[e] == k and slots[e, S_TD] == 0:
                    waves = max(waves, slots[e, S_ATTACKS])
            for w in range(waves):
                stage += 1
                n_tmp = 0
                for r in range(n_cur):
                    n_att = 0
                    if _able(slots, ty, cur_l[r], 0) > 0 and _able(slots, ty, cur_l[r], 1) > 0:
                        for e in range(n):
                            if ((able >> e) & 1 and ranks[e] == k and slots[e, S_TD] == 0
                                    and slots[e, S_ATTACKS] > w and cur_l[r, e] < ty[slots[e, S_TYPE], Y_UP]):
                                attackers[n_att] = e
                                n_att += 1
                    if n_att == 0:
                        leaf_l[0], leaf_d[0], leaf_h[0], leaf_p[0] = cur_l[r], cur_d[r], cur_h[r], cur_p[r]
                        n_leaves = 1
                    else:
                        n_leaves = -1
                        while n_leaves < 0:
                            n_leaves = _wave(slots, ty, g, tab_ptr, tab_p, tab_dmg, tab_brk, tab_roll, tab_knk,
                                             mode_of, cur_l[r], cur_d[r], cur_h[r], ranks, cur_p[r], attackers, n_att,
                                             work,
                                             fwork, leaf_l, leaf_d, leaf_h, leaf_p)
                            if n_leaves < 0:
                                size = 2 * leaf_p.size
                                leaf_l, leaf_d, leaf_h = _grow2(leaf_l, size), _grow2(leaf_d, size), \
                                    _grow2(leaf_h, size)
                                leaf_p = _grow1(leaf_p, size)
                    for q in range(n_leaves):
                        vals[:n], vals[n:2 * n], vals[2 * n:3 * n] = leaf_l[q], leaf_d[q], leaf_h[q]
                        key = _pack(vals, fbits)
                        h = _slot(m_keys, m_stamp, stage, key)
                        if m_stamp[h] == stage:
                            tmp_p[m_vals[h]] += leaf_p[q]
                            continue
                        if n_tmp == tmp_p.size:
                            tmp_l, tmp_d, tmp_h = _grow2(tmp_l, 2 * n_tmp), _grow2(tmp_d, 2 * n_tmp), \
                                _grow2(tmp_h, 2 * n_tmp)
                            tmp_p = _grow1(tmp_p, 2 * n_tmp)
                        m_keys[h, 0], m_keys[h, 1], m_keys[h, 2] = key
                        m_stamp[h], m_vals[h] = stage, n_tmp
                        tmp_l[n_tmp], tmp_d[n_tmp], tmp_h[n_tmp], tmp_p[n_tmp] = leaf_l[q], leaf_d[q], leaf_h[q], \
                            leaf_p[q]
                        n_tmp += 1
                        if 2 * n_tmp > m_stamp.size:
                            m_keys, m_stamp, m_vals = _rehash(m_keys, m_stamp, m_vals, stage)
                cur_l, tmp_l = tmp_l, cur_l
                cur_d, tmp_d = tmp_d, cur_d
                cur_h, tmp_h = tmp_h, cur_h
                cur_p, tmp_p = tmp_p, cur_p
                n_cur = n_tmp
        for r in range(n_cur):  # the round's results: the fight ends, or the next round starts
            lab = cur_l[r].copy()
            rk = ranks.copy() if g[G_ONCE] else np.zeros(n, dtype=np.int64)
            ended = _able(slots, ty, lab, 0) == 0 or _able(slots, ty, lab, 1) == 0
            _canon(lab, rk, slots)
            rvals[:n], rvals[n:2 * n], rvals[2 * n] = lab, rk, 1 if ended else 0
            key = _pack(rvals, rbits)
            if key in res:
                res_p[res[key]] += cur_p[r]
                continue
            m = len(res)
            if m == res_p.size:
                res_l, res_r = _grow2(res_l, 2 * m), _grow2(res_r, 2 * m)
                res_k, res_p = _grow1(res_k, 2 * m), _grow1(res_p, 2 * m)
            res[key] = m
            res_l[m], res_r[m], res_k[m], res_p[m] = lab, rk, 1 if ended else 0, cur_p[r]
    m = len(res)
    return res_l[:m], res_r[:m], res_k[:m], res_p[:m]


@njit(cache=True)
def _fight(slots: np.ndarray, ty: np.ndarray, g: np.ndarray, tab_ptr: np.ndarray, tab_p: np.ndarray,
           tab_dmg: np.ndarray, tab_brk: np.ndarray, tab_roll: np.ndarray, tab_knk: np.ndarray, mode_of: np.ndarray,
           ord_ptr: np.ndarray, ord_ranks: np.ndarray, ord_p: np.ndarray, init_labels: np.ndarray,
           init_ranks: np.ndarray, init_p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, float, int]:
    """The whole fight from the start distribution ``init_*``: (end conditions, their masses, the rounds
    histogram over 1..T with the mass not ended by T last, the sum of round x mass over the ends, the stalemate
    mass, the round starts met); ``-1`` states past ``G_MAX_STATES``."""
    n = init_labels.shape[1]
    big_t = g[G_T]
    kbits = np.zeros(2 * n + 1, dtype=np.int64)
    kbits[:n], kbits[n:2 * n], kbits[2 * n] = g[G_LBITS], g[G_RBITS], g[G_CBITS]
    ebits = np.zeros(n, dtype=np.int64)
    ebits[:] = g[G_LBITS]
    index = Dict.empty(key_type=KEY, value_type=types.int64)
    ends = Dict.empty(key_type=KEY, value_type=types.int64)
    cap = 1024
    st_l = np.zeros((cap, n), dtype=np.int64)
    st_r = np.zeros((cap, n), dtype=np.int64)
    st_c = np.zeros(cap, dtype=np.int64)
    st_m = np.zeros(cap)
    st_first = np.zeros(cap)
    st_vec = np.zeros((cap, big_t + 2))
    st_next = np.full(cap, -1, dtype=np.int64)
    max_sum = 0
    for t in range(g[G_TYPES]):
        max_sum += ty[t, Y_LEN]
    prio_mult = n * max_sum + 1
    head = np.full(prio_mult * (g[G_CAP] + 1), -1, dtype=np.int64)
    end_l = np.zeros((256, n), dtype=np.int64)
    end_m = np.zeros(256)
    hist = np.zeros(big_t + 2)
    first_total, stall = 0.0, 0.0
    n_st, n_end = 0, 0
    vals = np.zeros(2 * n + 1, dtype=np.int64)
    for s0 in range(init_labels.shape[0]):
        lab, rk = init_labels[s0].copy(), init_ranks[s0].copy()
        vals[:n], vals[n:2 * n], vals[2 * n] = lab, rk, 0
        key = _pack(vals, kbits)
        if key not in index:
            index[key] = n_st
            st_l[n_st], st_r[n_st] = lab, rk
            prio = lab.sum()
            st_next[n_st] = head[prio]
            head[prio] = n_st
            n_st += 1
        s = index[key]
        st_m[s] += init_p[s0]
        st_first[s] += init_p[s0]
        st_vec[s, 1] += init_p[s0]
    for prio in range(head.size):
        s = head[prio]
        while s >= 0:
            m = st_m[s]
            lab, rk, c = st_l[s], st_r[s], st_c[s]
            res_l, res_r, res_k, res_p = _round(slots, ty, g, tab_ptr, tab_p, tab_dmg, tab_brk, tab_roll, tab_knk,
                                                mode_of, ord_ptr, ord_ranks, ord_p, lab, rk)
            defensive = 0
            if g[G_CAPPED]:
                for side in range(2):
                    attackers, members = 0, 0
                    for e in range(n):
                        if slots[e, S_SIDE] == side and lab[e] < ty[slots[e, S_TYPE], Y_UP]:
                            members += 1
                            attackers += 1 - slots[e, S_TD]
                    if members > 0 and attackers == 0:
                        defensive = 1
            stay = 0.0
            for q in range(res_p.size):
                if res_k[q] == 0 and defensive == 0:
                    same = True
                    for e in range(n):
                        same = same and res_l[q, e] == lab[e]
                    if same:
                        stay += res_p[q]
            if stay >= 1.0 - 1e-15:
                stall += m
                s = st_next[s]
                continue
            leave = 1.0 / (1.0 - stay)
            pres = np.zeros(big_t + 2)
            for t in range(1, big_t + 1):
                pres[t] = st_vec[s, t] + (stay * pres[t - 1] if t > 1 else 0.0)
            wait = stay * leave
            for q in range(res_p.size):
                p = res_p[q]
                if res_k[q] == 0 and defensive == 0:
                    same = True
                    for e in range(n):
                        same = same and res_l[q, e] == lab[e]
                    if same:
                        continue
                w = p * leave
                if res_k[q] == 1:
                    vals_e = res_l[q].copy()
                    key = _pack(vals_e, ebits)
                    if key not in ends:
                        if n_end == end_m.size:
                            end_l = _grow2(end_l, 2 * n_end)
                            end_m = _grow1(end_m, 2 * n_end)
                        ends[key] = n_end
                        end_l[n_end] = res_l[q]
                        n_end += 1
                    end_m[ends[key]] += m * w
                    first_total += w * (st_first[s] + m * wait)
                    for t in range(1, big_t + 1):
                        hist[t] += p * pres[t]
                    continue
                c2 = c + defensive
                if g[G_CAPPED] and c2 >= g[G_CAP]:
                    stall += m * w
                    continue
                vals[:n], vals[n:2 * n], vals[2 * n] = res_l[q], res_r[q], c2
                key = _pack(vals, kbits)
                if key not in index:
                    if n_st >= g[G_MAX_STATES]:
                        return end_l[:0], end_m[:0], hist, 0.0, 0.0, -1
                    if n_st == st_m.size:
                        size = 2 * n_st
                        st_l, st_r = _grow2(st_l, size), _grow2(st_r, size)
                        st_c, st_m, st_first = _grow1(st_c, size), _grow1(st_m, size), _grow1(st_first, size)
                        st_vec, st_next = _grow2(st_vec, size), _grow1(st_next, size)
                    index[key] = n_st
                    st_l[n_st], st_r[n_st], st_c[n_st] = res_l[q], res_r[q], c2
                    prio2 = c2 * prio_mult + res_l[q].sum()
                    st_next[n_st] = head[prio2]
                    head[prio2] = n_st
                    n_st += 1
                s2 = index[key]
                st_m[s2] += m * w
                st_first[s2] += w * (st_first[s] + m * (wait + 1.0))
                for t in range(1, big_t):
                    st_vec[s2, t + 1] += p * pres[t]
            st_vec[s] = 0.0
            s = st_next[s]
    return end_l[:n_end], end_m[:n_end], hist, first_total, stall, n_st
