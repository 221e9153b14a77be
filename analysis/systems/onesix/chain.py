"""2K's exact IN-economy chain: its states (conditions, IN and the dice not yet rolled) and their ways out.

Each 1K is rolled *lazily*, one die face at a time and only when a decision
depends on it (a fighter far ahead keeps "IN = known + a die not yet rolled"
while it attacks), which keeps the rule of 1 and 6's unbounded roll finite.  A
state is one integer key (:func:`_encode`); :func:`_edges` lists where one
state goes and with what probability, by the step rules of
:mod:`analysis.systems.onesix.steps`; :func:`hit_tables` holds every attack's
outcomes and :func:`states_bound` estimates the chain's size without building it.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit

from analysis.systems.onesix import rules as six
from analysis.systems.onesix.steps import (
    BIG,
    D6,
    EXTRA,
    F_MAXWEAR,
    F_NWEAR,
    F_PARRIES,
    F_PERS,
    F_REFL,
    F_TRAIN,
    FIRST,
    K_BETWEEN,
    K_END,
    K_MID,
    P_AMIN,
    P_COST,
    P_FIRST,
    P_NP,
    P_NX,
    P_ONES,
    P_PARRY,
    P_SCAP,
    P_TRACK,
    P_UNBOUNDED,
    P_XLO,
    _carry,
    _land,
)


def _side_table(rules: six.Rules, att: six.Fighter, dfn: six.Fighter) -> tuple[np.ndarray, ...]:
    """One side's attack tables; levels past the deadly level are merged (they all end the same way)."""
    t = rules.track_length + 1
    top = rules.death + rules.shock_cap + 1
    span = max(rules.wear_step, rules.wear_double_step) + 1
    n_wear = six.max_wear(rules, dfn) + 1
    stay, start, parts = [], [0], []
    for c in range(t):
        for pen_d in range(t):
            for wear in range(n_wear):
                for parry in (False, True):
                    p_miss, p_def, levels, cls, step, p = six._outcomes(rules, att, dfn, c, pen_d, wear,
                                                                        parry and dfn.parries())
                    idle = (levels == 0) & (step == 0)
                    stay.append(p_miss + p_def + float(p[idle].sum()))
                    key = (np.minimum(levels[~idle], top) * 2 + cls[~idle]) * span + step[~idle]
                    uniq, inverse = np.unique(key, return_inverse=True)
                    parts.append((uniq // (2 * span), (uniq // span) % 2, uniq % span,
                                  np.bincount(inverse, weights=p[~idle], minlength=uniq.size)))
                    start.append(start[-1] + uniq.size)
    hits = np.stack([np.concatenate([part[j] for part in parts]) for j in range(3)]).astype(np.int64)
    return np.array(stay), np.array(start, dtype=np.int64), hits, np.concatenate([part[3] for part in parts])


def hit_tables(rules: six.Rules, a: six.Fighter, b: six.Fighter) -> tuple[np.ndarray, ...]:
    """Every attack of either side as tables (side 0: A on B), one combo per (attacker penalty, defender penalty,
    defender armor wear, parried): P(no effect: a miss, a parry, a hit of no levels and no wear) and per hit
    that does something (levels, class, wear step; probability)."""
    sides = [_side_table(rules, a, b), _side_table(rules, b, a)]
    n_combo = max(part[0].size for part in sides)
    n_hit = max(part[3].size for part in sides)
    stay, start = np.zeros((2, n_combo)), np.zeros((2, n_combo + 1), dtype=np.int64)
    hits, p = np.zeros((2, 3, max(n_hit, 1)), dtype=np.int64), np.zeros((2, max(n_hit, 1)))
    for i, (st, sa, h, q) in enumerate(sides):
        stay[i, : st.size], start[i, : sa.size] = st, sa
        hits[i, :, : q.size], p[i, : q.size] = h, q
    return stay, start, hits, p


def states_bound(rules: six.Rules, a: six.Fighter, b: six.Fighter) -> int:
    """An upper estimate of the chain's states, from its shape: blocks of conditions x states in a block.

    A side's blocks: the up conditions the other side's hits can bring it to (:func:`reachable`: under armor
    wear, far fewer than every level times every wear).  A block holds at most about 3 x span^2 states, span the
    IN a side may hold in it: the carries and the debts of two attacks and two lost actions past the track (7,400
    measured in the largest archetype block, 8,748 here).  The solver keeps 40-60% of it (bench_memory.py).
    """
    span = (rules.carry_cap - rules.carry_floor + 1 + 2 * (rules.attack_cost + rules.action_lost)
            + rules.track_length)
    return int(reachable(rules, b, a) * reachable(rules, a, b) * 3 * span * span)


@lru_cache(maxsize=1024)
def reachable(rules: six.Rules, att: six.Fighter, dfn: six.Fighter) -> int:
    """How many up conditions of ``dfn`` a run of ``att``'s hits can reach, whatever their odds: every power the
    test roll allows (penalties only lower it), each hit's levels, class and armor wear from the condition before
    (a breadth-first walk, one numpy step per armor wear on the frontier).

    >>> reachable(six.Rules(), six.Fighter(weapon_ps=6), six.Fighter(training=4))  # one track: its 7 levels
    7
    """
    top = att.attack_rating + int(six.two_k(rules).support[-1]) + rules.death
    power = att.weapon_ps + np.arange(top + 1)
    worn = six.max_wear(rules, dfn) + 1
    seen = {six.UNHURT}
    frontier = [np.array([v]) for v in six.UNHURT]
    while frontier[0].size:
        found = []
        for k in np.unique(frontier[2]).tolist():
            levels, cls, step = six.hit_effect(rules, att, dfn, power, k)
            here = frontier[2] == k
            w, s = six.mark(frontier[0][here][:, None], frontier[1][here][:, None], cls[None, :], levels[None, :],
                            rules)
            wear = np.broadcast_to(np.minimum(k + step, worn - 1), w.shape)
            found.append(np.stack([w.ravel(), s.ravel(), wear.ravel()]))
        labels = map(tuple, np.unique(np.concatenate(found, axis=1), axis=1).T.tolist())
        new = [label for label in labels if label not in seen and six.status(rules, label) == six.markov.UP]
        seen.update(new)
        frontier = [np.array([label[i] for label in new], dtype=np.int64) for i in range(3)]
    return len(seen)


# ------------------------------------------------------------------ the compiled chain: dice and keys
@njit(cache=True, nogil=True)
def _lo(p: int, pr: np.ndarray) -> int:
    """Least value a pending die adds."""
    if p == D6:
        return 1
    if p >= EXTRA and p % 2 == 1:
        return pr[P_ONES]
    return 0


@njit(cache=True, nogil=True)
def _hi(p: int) -> int:
    """Most a pending die can add (``BIG``: unbounded)."""
    if p == 0:
        return 0
    if p == D6:
        return 6
    if p <= EXTRA:
        return BIG
    return 6 * ((p - 4) // 2 + 1)


@njit(cache=True, nogil=True)
def _depth(p: int) -> int:
    """Dice a bounded pending roll may still add (the tie-break of :func:`_priority`)."""
    if p <= D6:
        return p
    return (p - 4) // 2 + 1


@njit(cache=True, nogil=True)
def _face(p: int, f: int, pr: np.ndarray) -> tuple[int, int]:
    """(value, next pending die) of face ``f`` of pending die ``p``."""
    if p == D6:
        return f, 0
    extra = p % 2 == 1
    if f == 1:
        return (pr[P_ONES] if extra else 0), 0
    if f < 6:
        return f, 0
    if p <= EXTRA:
        return 6, (EXTRA if pr[P_ONES] else FIRST)
    left = (p - 4) // 2
    if left >= 1:
        return 6, 5 + 2 * (left - 1)
    return 6, 0


@njit(cache=True, nogil=True)
def _decode(key: int, pr: np.ndarray, na: int, nb: int) -> tuple[int, int, int, int, int, int, int]:
    nx, n_kinds = pr[P_NX], pr[P_NP]
    kind = key % 3
    key //= 3
    ia = key % na
    key //= na
    ib = key % nb
    key //= nb
    xa = key % nx + pr[P_XLO]
    key //= nx
    pa = key % n_kinds
    key //= n_kinds
    xb = key % nx + pr[P_XLO]
    pb = key // nx
    return kind, ia, ib, xa, pa, xb, pb


@njit(cache=True, nogil=True)
def _encode(kind: int, ia: int, ib: int, xa: int, pa: int, xb: int, pb: int, pr: np.ndarray, na: int,
            nb: int) -> int:
    nx, n_kinds = pr[P_NX], pr[P_NP]
    return kind + 3 * (ia + na * (ib + nb * ((xa - pr[P_XLO]) + nx * (pa + n_kinds * ((xb - pr[P_XLO]) + nx * pb)))))


@njit(cache=True, nogil=True)
def _end_key(ja: int, jb: int, pr: np.ndarray, na: int, nb: int) -> int:
    return _encode(K_END, ja, jb, pr[P_XLO], 0, pr[P_XLO], 0, pr, na, nb)


@njit(cache=True, nogil=True)
def _cond(j: int, f: np.ndarray, pr: np.ndarray) -> tuple[int, int, int]:
    """(wounds, shock, wear) of track index ``j``."""
    k = j % f[F_NWEAR]
    j //= f[F_NWEAR]
    return j // (pr[P_SCAP] + 1), j % (pr[P_SCAP] + 1), k


@njit(cache=True, nogil=True)
def _index(w: int, s: int, k: int, f: np.ndarray, pr: np.ndarray) -> int:
    return (w * (pr[P_SCAP] + 1) + s) * f[F_NWEAR] + k


@njit(cache=True, nogil=True)
def _up(w: int, s: int, pr: np.ndarray) -> bool:
    return w <= pr[P_TRACK] and s <= pr[P_TRACK]


@njit(cache=True, nogil=True)
def _combo(c: int, pen_d: int, wear: int, parry: int, n_wear: int, pr: np.ndarray) -> int:
    t = pr[P_TRACK] + 1
    return ((c * t + pen_d) * n_wear + wear) * 2 + parry


# ------------------------------------------------------------------ the compiled chain: one state's ways out
@njit(cache=True, nogil=True)
def _put(bk: np.ndarray, bp: np.ndarray, n: int, key: int, p: float) -> int:
    """Append an edge (``key``, ``p``) to the buffer, merged with the last one if it has the same target (the
    hits of an attack come in order of levels, and every level past the deadly one ends the same); the length."""
    if n > 0 and bk[n - 1] == key:
        bp[n - 1] += p
        return n
    bk[n] = key
    bp[n] = p
    return n + 1


@njit(cache=True, nogil=True)
def _strike_edges(att: int, ia: int, ib: int, xa: int, pa: int, xb: int, pb: int, parry: int, weight: float,
                  with_stay: bool, fs: np.ndarray, pr: np.ndarray, na: int, nb: int, stay: np.ndarray,
                  start: np.ndarray, hits: np.ndarray, hp: np.ndarray, bk: np.ndarray, bp: np.ndarray,
                  n: int) -> int:
    """Edges of one attack by side ``att`` (0: A), the IN (xa, xb) already paid; ``parry``: the defender's.

    Without ``with_stay`` the attack's no-effect branch is left to the caller.
    """
    dfn = 1 - att
    j_att, j_dfn = (ia, ib) if att == 0 else (ib, ia)
    wa_, sa_, _ = _cond(j_att, fs[att], pr)
    wd, sd, kd = _cond(j_dfn, fs[dfn], pr)
    combo = _combo(max(wa_, sa_), max(wd, sd), kd, parry, fs[dfn, F_NWEAR], pr)
    if with_stay:
        n = _put(bk, bp, n, _encode(K_MID, ia, ib, xa, pa, xb, pb, pr, na, nb), weight * stay[att, combo])
    for h in range(start[att, combo], start[att, combo + 1]):
        w2, s2, k2, drop = _land(wd, sd, kd, hits[att, 0, h], hits[att, 1, h], hits[att, 2, h], fs[dfn, F_TRAIN],
                                 fs[dfn, F_PERS], fs[dfn, F_MAXWEAR], pr)
        j2 = _index(w2, s2, k2, fs[dfn], pr)
        if not _up(w2, s2, pr):
            key = _end_key(ia if att == 0 else j2, j2 if att == 0 else ib, pr, na, nb)
        elif att == 0:
            key = _encode(K_MID, ia, j2, xa, pa, xb - drop, pb, pr, na, nb)
        else:
            key = _encode(K_MID, j2, ib, xa - drop, pa, xb, pb, pr, na, nb)
        n = _put(bk, bp, n, key, weight * hp[att, h])
    return n


@njit(cache=True, nogil=True)
def _outcome(att: int, h: int, combo: int, j: int, fs: np.ndarray, pr: np.ndarray, stay: np.ndarray,
             start: np.ndarray, hits: np.ndarray, hp: np.ndarray) -> tuple[float, int, int, bool]:
    """Way ``h`` of an attack by side ``att`` (``h`` before the combo's hits: no effect) on the defender at track
    index ``j``: (probability, its new index, the IN it loses at once, whether it is still up)."""
    if h < start[att, combo]:
        return stay[att, combo], j, 0, True
    dfn = 1 - att
    w, s, k = _cond(j, fs[dfn], pr)
    w2, s2, k2, drop = _land(w, s, k, hits[att, 0, h], hits[att, 1, h], hits[att, 2, h], fs[dfn, F_TRAIN],
                             fs[dfn, F_PERS], fs[dfn, F_MAXWEAR], pr)
    return hp[att, h], _index(w2, s2, k2, fs[dfn], pr), drop, _up(w2, s2, pr)


@njit(cache=True, nogil=True)
def _both_edges(ia: int, ib: int, xa: int, xb: int, fs: np.ndarray, pr: np.ndarray, na: int, nb: int,
                stay: np.ndarray, start: np.ndarray, hits: np.ndarray, hp: np.ndarray, bk: np.ndarray,
                bp: np.ndarray) -> int:
    """Equal IN: both attack at once from the same conditions, then each parries if it has the IN left."""
    xa -= pr[P_COST]
    xb -= pr[P_COST]
    fa = 1 if fs[0, F_PARRIES] and xa >= pr[P_PARRY] else 0
    fb = 1 if fs[1, F_PARRIES] and xb >= pr[P_PARRY] else 0
    xa -= pr[P_PARRY] * fa
    xb -= pr[P_PARRY] * fb
    wa, sa, ka = _cond(ia, fs[0], pr)
    wb, sb, kb = _cond(ib, fs[1], pr)
    on_b = _combo(max(wa, sa), max(wb, sb), kb, fb, fs[1, F_NWEAR], pr)
    on_a = _combo(max(wb, sb), max(wa, sa), ka, fa, fs[0, F_NWEAR], pr)
    first = start[1, on_a] - 1
    m = start[1, on_a + 1] - first
    p_a, j_a, d_a, up_a = np.empty(m), np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64), np.empty(m, np.bool_)
    for y in range(m):
        p_a[y], j_a[y], d_a[y], up_a[y] = _outcome(1, first + y, on_a, ia, fs, pr, stay, start, hits, hp)
    n = 0
    for x in range(start[0, on_b] - 1, start[0, on_b + 1]):
        p1, jb, db, upb = _outcome(0, x, on_b, ib, fs, pr, stay, start, hits, hp)
        for y in range(m):
            p2, ja, da, upa = p_a[y], j_a[y], d_a[y], up_a[y]
            if upa and upb:
                key = _encode(K_MID, ja, jb, xa - da, 0, xb - db, 0, pr, na, nb)
            else:
                key = _end_key(ja, jb, pr, na, nb)
            n = _put(bk, bp, n, key, p1 * p2)
    return n


@njit(cache=True, nogil=True)
def _resolve_edges(side: int, ia: int, ib: int, xa: int, pa: int, xb: int, pb: int, pr: np.ndarray, na: int,
                   nb: int, bk: np.ndarray, bp: np.ndarray) -> int:
    """Roll one face of ``side``'s pending die (a known IN past the key's range is lost: truncation)."""
    p = pa if side == 0 else pb
    top = pr[P_XLO] + pr[P_NX] - 1
    n = 0
    for f in range(1, 7):
        v, q = _face(p, f, pr)
        if (xa if side == 0 else xb) + v > top:
            continue
        if side == 0:
            key = _encode(K_MID, ia, ib, xa + v, q, xb, pb, pr, na, nb)
        else:
            key = _encode(K_MID, ia, ib, xa, pa, xb + v, q, pr, na, nb)
        n = _put(bk, bp, n, key, 1.0 / 6.0)
    return n


@njit(cache=True, nogil=True)
def _ahead_edges(side: int, ia: int, ib: int, x: int, p: int, y: int, fs: np.ndarray, pr: np.ndarray, na: int,
                 nb: int, stay: np.ndarray, start: np.ndarray, hits: np.ndarray, hp: np.ndarray, bk: np.ndarray,
                 bp: np.ndarray) -> int:
    """``side`` holds an unbounded die not yet rolled (IN = x + die) against an opponent at exactly ``y`` who
    cannot parry: it attacks while surely ahead, rolls one more face when not.  Each such step has a single
    next step of the same kind (the opponent unchanged), so the steps form a chain that ends in a loop (the
    die is memoryless); the loop is summed exactly and only the ways out are returned."""
    pos_x = np.empty(256, dtype=np.int64)
    pos_p = np.empty(256, dtype=np.int64)
    go = np.empty(256)
    n_pos = 0
    loop = -1
    dfn = 1 - side
    j_att, j_dfn = (ia, ib) if side == 0 else (ib, ia)
    wa_, sa_, _ = _cond(j_att, fs[side], pr)
    wd, sd, kd = _cond(j_dfn, fs[dfn], pr)
    q_act = stay[side, _combo(max(wa_, sa_), max(wd, sd), kd, 0, fs[dfn, F_NWEAR], pr)]
    while n_pos < 256:
        pos_x[n_pos], pos_p[n_pos] = x, p
        low = x + _lo(p, pr)
        if low >= pr[P_AMIN] and low > y:
            go[n_pos] = q_act
            x -= pr[P_COST]
        else:
            go[n_pos] = 1.0 / 6.0
            x, p = x + 6, _face(p, 6, pr)[1]
        n_pos += 1
        for i in range(n_pos):
            if pos_x[i] == x and pos_p[i] == p:
                loop = i
        if loop >= 0 or go[n_pos - 1] == 0.0:
            break
    weight = np.empty(n_pos)
    w = 1.0
    for i in range(n_pos):
        weight[i] = w
        w *= go[i]
    if loop >= 0:
        around = w / weight[loop]
        for i in range(loop, n_pos):
            weight[i] /= 1.0 - around
    n = 0
    for i in range(n_pos):
        x, p = pos_x[i], pos_p[i]
        low = x + _lo(p, pr)
        if low >= pr[P_AMIN] and low > y:
            if side == 0:
                n = _strike_edges(0, ia, ib, x - pr[P_COST], p, y, 0, 0, weight[i], False, fs, pr, na, nb, stay,
                                  start, hits, hp, bk, bp, n)
            else:
                n = _strike_edges(1, ia, ib, y, 0, x - pr[P_COST], p, 0, weight[i], False, fs, pr, na, nb, stay,
                                  start, hits, hp, bk, bp, n)
        else:
            for f in range(1, 6):
                v = _face(p, f, pr)[0]
                if side == 0:
                    key = _encode(K_MID, ia, ib, x + v, 0, y, 0, pr, na, nb)
                else:
                    key = _encode(K_MID, ia, ib, y, 0, x + v, 0, pr, na, nb)
                n = _put(bk, bp, n, key, weight[i] / 6.0)
    return n


@njit(cache=True, nogil=True)
def _edges(key: int, fs: np.ndarray, pr: np.ndarray, na: int, nb: int, stay: np.ndarray, start: np.ndarray,
           hits: np.ndarray, hp: np.ndarray, bk: np.ndarray, bp: np.ndarray) -> int:
    """Every way out of one state into the edge buffer (keys and probabilities); the count."""
    kind, ia, ib, xa, pa, xb, pb = _decode(key, pr, na, nb)
    if kind == K_BETWEEN:
        wa, sa, _ = _cond(ia, fs[0], pr)
        wb, sb, _ = _cond(ib, fs[1], pr)
        bk[0] = _encode(K_MID, ia, ib, fs[0, F_REFL] - max(wa, sa) + xa, pr[P_FIRST],
                        fs[1, F_REFL] - max(wb, sb) + xb, pr[P_FIRST], pr, na, nb)
        bp[0] = 1.0
        return 1
    if pr[P_UNBOUNDED] and (pa == 0) != (pb == 0):
        if pa and not (fs[1, F_PARRIES] and xb >= pr[P_PARRY]):
            return _ahead_edges(0, ia, ib, xa, pa, xb, fs, pr, na, nb, stay, start, hits, hp, bk, bp)
        if pb and not (fs[0, F_PARRIES] and xa >= pr[P_PARRY]):
            return _ahead_edges(1, ia, ib, xb, pb, xa, fs, pr, na, nb, stay, start, hits, hp, bk, bp)
    la, ha = xa + _lo(pa, pr), xa + _hi(pa)
    lb, hb = xb + _lo(pb, pr), xb + _hi(pb)
    amin, parry_cost = pr[P_AMIN], pr[P_PARRY]
    if ha < amin and hb < amin:
        if pa:
            return _resolve_edges(0, ia, ib, xa, pa, xb, pb, pr, na, nb, bk, bp)
        if pb:
            return _resolve_edges(1, ia, ib, xa, pa, xb, pb, pr, na, nb, bk, bp)
        bk[0] = _encode(K_BETWEEN, ia, ib, _carry(xa, pr), 0, _carry(xb, pr), 0, pr, na, nb)
        bp[0] = 1.0
        return 1
    if la >= amin and la > hb:
        if fs[1, F_PARRIES] and lb < parry_cost <= hb:
            return _resolve_edges(1, ia, ib, xa, pa, xb, pb, pr, na, nb, bk, bp)
        parry = 1 if fs[1, F_PARRIES] and lb >= parry_cost else 0
        return _strike_edges(0, ia, ib, xa - pr[P_COST], pa, xb - parry_cost * parry, pb, parry, 1.0, True, fs, pr,
                             na, nb, stay, start, hits, hp, bk, bp, 0)
    if lb >= amin and lb > ha:
        if fs[0, F_PARRIES] and la < parry_cost <= ha:
            return _resolve_edges(0, ia, ib, xa, pa, xb, pb, pr, na, nb, bk, bp)
        parry = 1 if fs[0, F_PARRIES] and la >= parry_cost else 0
        return _strike_edges(1, ia, ib, xa - parry_cost * parry, pa, xb - pr[P_COST], pb, parry, 1.0, True, fs, pr,
                             na, nb, stay, start, hits, hp, bk, bp, 0)
    if pa == 0 and pb == 0:
        return _both_edges(ia, ib, xa, xb, fs, pr, na, nb, stay, start, hits, hp, bk, bp)
    return _resolve_edges(0 if pa and (pb == 0 or xa <= xb) else 1, ia, ib, xa, pa, xb, pb, pr, na, nb, bk, bp)


@njit(cache=True, nogil=True)
def _live(ia: int, ib: int, fs: np.ndarray, pr: np.ndarray, start: np.ndarray) -> bool:
    """Whether some attack from the conditions (ia, ib) can change them (else the fight is stuck there)."""
    for att in range(2):
        dfn = 1 - att
        j_att, j_dfn = (ia, ib) if att == 0 else (ib, ia)
        wa_, sa_, _ = _cond(j_att, fs[att], pr)
        wd, sd, kd = _cond(j_dfn, fs[dfn], pr)
        for parry in range(1 + fs[dfn, F_PARRIES]):
            combo = _combo(max(wa_, sa_), max(wd, sd), kd, parry, fs[dfn, F_NWEAR], pr)
            if start[att, combo + 1] > start[att, combo]:
                return True
    return False


@njit(cache=True, nogil=True)
def _priority(key: int, pr: np.ndarray, na: int, nb: int) -> int:
    """Processing order: every action or die face leads to a later state; a round's end leads back to its block.

    Conditions only worsen, so the block of conditions (ia, ib) comes first; in a block, the states between
    rounds come first.  Unbounded dice: both dice pending (by increasing IN), then one pending (the rolled
    side's IN decreasing, the pending side's increasing), then both rolled (IN sum decreasing).  Bounded dice:
    the most IN the two can still hold decreasing, then the dice left decreasing.
    """
    kind, ia, ib, xa, pa, xb, pb = _decode(key, pr, na, nb)
    nx, n_kinds = pr[P_NX], pr[P_NP]
    ua, ub = xa - pr[P_XLO], xb - pr[P_XLO]
    span = 4 * nx * nx + 24 * n_kinds * nx + 1
    base = (ia * nb + ib) * span
    if kind != K_MID:
        return base
    if pr[P_UNBOUNDED]:
        if pa and pb:
            return base + 1 + ua + ub
        if pa or pb:
            x, y = (ua, ub) if pa else (ub, ua)
            return base + 1 + 2 * nx + (nx - 1 - y) * nx + x
        return base + 1 + 2 * nx + nx * nx + 2 * nx - ua - ub
    phi = ua + _hi(pa) + ub + _hi(pb)
    return base + 1 + (2 * nx + 12 * n_kinds - phi) * n_kinds + n_kinds - 1 - _depth(pa) - _depth(pb)

