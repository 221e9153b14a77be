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
    F_NGEAR,
    F_NMODES,
    F_NWEAR,
    F_PARRIES,
    F_PERS,
    F_REFL,
    F_TRAIN,
    FIRST,
    K_BETWEEN,
    K_END,
    K_MID,
    M_BREAKS,
    M_FISTS,
    M_HOLDS,
    P_AMIN,
    P_COST,
    P_FIRST,
    P_NP,
    P_NX,
    P_ONES,
    P_PARRY,
    P_SCAP,
    P_SIMPARRY,
    P_TRACK,
    P_UNBOUNDED,
    P_WINDOW,
    P_XLO,
    _carry,
    _land,
)


def _modes(rules: six.Rules, att: six.Fighter) -> tuple[tuple[tuple[str, float, six.Fighter], ...], ...]:
    """The attack tables of one combo, as parts (rolls of :data:`~analysis.systems.onesix.rules.FAULTS`, weight,
    the attacker as it strikes): one table, or for a breakable weapon the modes ``M_HOLDS`` (every clean roll,
    and a fault whose test passes), ``M_BREAKS`` (a fault whose test fails) and ``M_FISTS``."""
    if not att.breakable(rules):
        return ((("all", 1.0, att),),)
    fails = six.p_gear_fails(rules, att.gear_rating)
    return ((("clean", 1.0, att), ("fault", 1.0 - fails, att)), (("fault", fails, att),),
            (("all", 1.0, att.fists()),))


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
                    for mode in _modes(rules, att):
                        tables = [(weight, six._outcomes(rules, who, dfn, c, pen_d, wear, parry and dfn.parries(),
                                                         rolls)) for rolls, weight, who in mode]
                        p_miss = sum(w * out[0] for w, out in tables)
                        p_def = sum(w * out[1] for w, out in tables)
                        levels, cls, step, p = (np.concatenate([out[2 + j] * (w if j == 3 else 1)
                                                                for w, out in tables]) for j in range(4))
                        levels, cls, step, p = levels[p > 0], cls[p > 0], step[p > 0], p[p > 0]
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
    defender armor wear, parried, and for a breakable weapon its mode, :func:`_modes`): P(no effect on the
    defender: a miss, a parry, a hit of no levels and no wear) and per hit that does something (levels, class,
    wear step; probability)."""
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
    wear, far fewer than every level times every wear) while the other's weapon is intact, plus under
    ``gear_faults`` those its weapon and then its fists can bring it to once it broke.  A block holds at most about
    3 x span^2 states, span the IN a side may hold in it: the carries and the debts of two attacks and two lost
    actions past the track (7,400 measured in the largest archetype block, 8,748 here).  The solver keeps 40-60%
    of it (bench_memory.py).
    """
    span = (rules.carry_cap - rules.carry_floor + 1 + 2 * (rules.attack_cost + rules.action_lost)
            + rules.track_length)

    def blocks(dfn: six.Fighter, att: six.Fighter) -> int:
        return reachable(rules, att, dfn) + (reachable(rules, att, dfn, True) if att.breakable(rules) else 0)

    return int(blocks(a, b) * blocks(b, a) * 3 * span * span)


@lru_cache(maxsize=1024)
def reachable(rules: six.Rules, att: six.Fighter, dfn: six.Fighter, broken: bool = False) -> int:
    """How many up conditions of ``dfn`` a run of ``att``'s hits can reach, whatever their odds: every power the
    test roll allows (penalties only lower it), each hit's levels, class and armor wear from the condition before
    (a breadth-first walk, one numpy step per armor wear on the frontier); ``broken``: the hits of its fists
    (:meth:`~analysis.systems.onesix.rules.Fighter.fists`) join the run, its weapon having broken on the way.

    >>> reachable(six.Rules(), six.Fighter(weapon_ps=6), six.Fighter(training=4))  # one track: its 7 levels
    7
    >>> knife = six.Fighter(weapon_ps=6, weapon_class="wound")
    >>> reachable(six.Rules(), knife, six.Fighter(training=4), broken=True)  # Wounds, then fists' Shock: both tracks
    49
    """
    top = att.attack_rating + int(six.two_k(rules).support[-1]) + rules.death
    strikers = (att, att.fists()) if broken else (att,)
    worn = six.max_wear(rules, dfn) + 1
    seen = {six.UNHURT}
    frontier = [np.array([v]) for v in six.UNHURT]
    while frontier[0].size:
        found = []
        for k in np.unique(frontier[2]).tolist():
            here = frontier[2] == k
            for who in strikers:
                levels, cls, step = six.hit_effect(rules, who, dfn, who.weapon_ps + np.arange(top + 1), k)
                w, s = six.mark(frontier[0][here][:, None], frontier[1][here][:, None], cls[None, :],
                                levels[None, :], rules)
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
def _cond(j: int, f: np.ndarray, pr: np.ndarray) -> tuple[int, int, int, int]:
    """(wounds, shock, wear, weapon broken) of chain index ``j``: the track index times the weapon's states, plus
    its state (0 intact, 1 broken; always 0 unless a gear fault can break it)."""
    g = 0
    if f[F_NGEAR] > 1:
        g = j % f[F_NGEAR]
        j //= f[F_NGEAR]
    k = j % f[F_NWEAR]
    j //= f[F_NWEAR]
    return j // (pr[P_SCAP] + 1), j % (pr[P_SCAP] + 1), k, g


@njit(cache=True, nogil=True)
def _index(w: int, s: int, k: int, g: int, f: np.ndarray, pr: np.ndarray) -> int:
    return ((w * (pr[P_SCAP] + 1) + s) * f[F_NWEAR] + k) * f[F_NGEAR] + g


@njit(cache=True, nogil=True)
def _up(w: int, s: int, pr: np.ndarray) -> bool:
    return w <= pr[P_TRACK] and s <= pr[P_TRACK]


@njit(cache=True, nogil=True)
def _combo(c: int, pen_d: int, wear: int, parry: int, n_wear: int, pr: np.ndarray) -> int:
    """The first table of a combo; a breakable attacker's modes follow it (``combo * n_modes + mode``)."""
    t = pr[P_TRACK] + 1
    return ((c * t + pen_d) * n_wear + wear) * 2 + parry


@njit(cache=True, nogil=True)
def _mode_range(att: int, g: int, fs: np.ndarray) -> tuple[int, int]:
    """The attack modes of side ``att`` with its weapon in state ``g``: (first, last + 1); the first one leaves the
    weapon as it is, a second one (``M_BREAKS``) breaks it."""
    if fs[att, F_NMODES] == 1:
        return 0, 1
    if g:
        return M_FISTS, M_FISTS + 1
    return M_HOLDS, M_BREAKS + 1


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
def _block_ways(ia: int, ib: int, fs: np.ndarray, pr: np.ndarray, stay: np.ndarray, start: np.ndarray,
                hits: np.ndarray, hp: np.ndarray, wy_p: np.ndarray, wy_i: np.ndarray, wy_start: np.ndarray) -> None:
    """Every way of every attack from the chain indices (ia, ib), once per block of conditions: ways of side
    ``att`` (0: A) with the defender's ``parry`` in ``wy_start[2 * att + parry]`` to ``wy_start[2 * att + parry +
    1]``, by mode, the no-effect way first, then the hits: the probability ``wy_p``, and in ``wy_i`` the defender's
    new index, the IN it loses at once, whether it is still up, the attacker's new index, and the way's kind (0 a
    hit; 1 no effect, the weapon as it is; 2 no effect, the weapon broken: ``M_BREAKS``)."""
    y = 0
    for att in range(2):
        dfn = 1 - att
        j_att, j_dfn = (ia, ib) if att == 0 else (ib, ia)
        wa_, sa_, _, ga = _cond(j_att, fs[att], pr)
        w, s, k, g = _cond(j_dfn, fs[dfn], pr)
        first, last = _mode_range(att, ga, fs)
        for parry in range(2):
            wy_start[2 * att + parry] = y
            base = _combo(max(wa_, sa_), max(w, s), k, parry, fs[dfn, F_NWEAR], pr) * fs[att, F_NMODES]
            for mode in range(first, last):
                combo = base + mode
                j_now = j_att + (mode == M_BREAKS)
                wy_p[y] = stay[att, combo]
                wy_i[0, y], wy_i[1, y], wy_i[2, y], wy_i[3, y] = j_dfn, 0, 1, j_now
                wy_i[4, y] = 2 if mode == M_BREAKS else 1
                y += 1
                for h in range(start[att, combo], start[att, combo + 1]):
                    w2, s2, k2, drop = _land(w, s, k, hits[att, 0, h], hits[att, 1, h], hits[att, 2, h],
                                             fs[dfn, F_TRAIN], fs[dfn, F_PERS], fs[dfn, F_MAXWEAR], pr)
                    wy_p[y] = hp[att, h]
                    wy_i[0, y], wy_i[1, y] = _index(w2, s2, k2, g, fs[dfn], pr), drop
                    wy_i[2, y], wy_i[3, y], wy_i[4, y] = _up(w2, s2, pr), j_now, 0
                    y += 1
    wy_start[4] = y


def ways_room(start: np.ndarray) -> int:
    """Room :func:`_block_ways` needs: four (side, parry) cases of at most three modes, each its no-effect way and
    its combo's hits."""
    return 4 * 3 * (1 + int(np.diff(start, axis=1).max(initial=0)))


@njit(cache=True, nogil=True)
def _strike_edges(att: int, ia: int, ib: int, xa: int, pa: int, xb: int, pb: int, parry: int, weight: float,
                  with_stay: bool, pr: np.ndarray, na: int, nb: int, wy_p: np.ndarray, wy_i: np.ndarray,
                  wy_start: np.ndarray, bk: np.ndarray, bp: np.ndarray, n: int) -> int:
    """Edges of one attack by side ``att`` (0: A), the IN (xa, xb) already paid; ``parry``: the defender's; the
    ways from the block's :func:`_block_ways`.

    Without ``with_stay`` the no-effect branch that leaves the weapon as it is goes to the caller (a blow that
    breaks the weapon is never without effect).
    """
    slot = 2 * att + parry
    for y in range(wy_start[slot], wy_start[slot + 1]):
        kind = wy_i[4, y]
        j2, j_now = wy_i[0, y], wy_i[3, y]
        if kind != 0:
            q = weight * wy_p[y]
            if q > 0.0 and (kind == 2 or with_stay):
                if att == 0:
                    key = _encode(K_MID, j_now, ib, xa, pa, xb, pb, pr, na, nb)
                else:
                    key = _encode(K_MID, ia, j_now, xa, pa, xb, pb, pr, na, nb)
                n = _put(bk, bp, n, key, q)
            continue
        if not wy_i[2, y]:
            key = _end_key(j_now if att == 0 else j2, j2 if att == 0 else j_now, pr, na, nb)
        elif att == 0:
            key = _encode(K_MID, j_now, j2, xa, pa, xb - wy_i[1, y], pb, pr, na, nb)
        else:
            key = _encode(K_MID, j2, j_now, xa - wy_i[1, y], pa, xb, pb, pr, na, nb)
        n = _put(bk, bp, n, key, weight * wy_p[y])
    return n


@njit(cache=True, nogil=True)
def _both_edges(xa: int, xb: int, fa: int, fb: int, fs: np.ndarray, pr: np.ndarray, na: int, nb: int,
                wy_p: np.ndarray, wy_i: np.ndarray, wy_start: np.ndarray, bk: np.ndarray, bp: np.ndarray, n: int) -> int:
    """Equal IN: both attack at once from the same conditions, their attacks paid (IN ``xa``, ``xb``); ``fa``,
    ``fb``: whether each parries the other's (``simultaneous_parry``).  A fighter's new index is its condition after
    the other's blow with the weapon its own blow left it.  Appends to the buffer from ``n``; its new length."""
    xa -= pr[P_PARRY] * fa
    xb -= pr[P_PARRY] * fb
    ng_a, ng_b = fs[0, F_NGEAR], fs[1, F_NGEAR]
    for x in range(wy_start[fb], wy_start[fb + 1]):  # A's blow on B
        if wy_p[x] == 0.0:
            continue
        for y in range(wy_start[2 + fa], wy_start[3 + fa]):  # B's blow on A
            if wy_p[y] == 0.0:
                continue
            ja = wy_i[0, y] - wy_i[0, y] % ng_a + wy_i[3, x] % ng_a
            jb = wy_i[0, x] - wy_i[0, x] % ng_b + wy_i[3, y] % ng_b
            if wy_i[2, y] and wy_i[2, x]:
                key = _encode(K_MID, ja, jb, xa - wy_i[1, y], 0, xb - wy_i[1, x], 0, pr, na, nb)
            else:
                key = _end_key(ja, jb, pr, na, nb)
            n = _put(bk, bp, n, key, wy_p[x] * wy_p[y])
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
def _unparried(low: int, y: int, can_parry: bool, least: int, pr: np.ndarray) -> bool:
    """Whether a side whose IN is at least ``low`` surely attacks now, unparried, an opponent at exactly ``y``: it
    has ``least`` IN (the duel: ``attack_min_in``; the decision game: the attack's full cost, below which it may
    wait), surely leads and the opponent cannot parry, or surely too late (``low - y`` past ``parry_window``)."""
    return low >= least and low > y and (not can_parry or low - y > pr[P_WINDOW])


@njit(cache=True, nogil=True)
def _ahead_edges(side: int, ia: int, ib: int, x: int, p: int, y: int, least: int, fs: np.ndarray, pr: np.ndarray,
                 na: int, nb: int, stay: np.ndarray, wy_p: np.ndarray, wy_i: np.ndarray, wy_start: np.ndarray,
                 bk: np.ndarray, bp: np.ndarray) -> int:
    """``side`` holds an unbounded die not yet rolled (IN = x + die) against an opponent at exactly ``y``: it
    attacks while surely ahead and surely unparried (:func:`_unparried`), rolls one more face when not.  Each such
    step has a single next step of the same kind (the opponent unchanged), so the steps form a chain that ends in a
    loop (the die is memoryless); the loop is summed exactly and only the ways out are returned."""
    pos_x = np.empty(256, dtype=np.int64)
    pos_p = np.empty(256, dtype=np.int64)
    go = np.empty(256)
    n_pos = 0
    loop = -1
    dfn = 1 - side
    can_parry = fs[dfn, F_PARRIES] != 0 and y >= pr[P_PARRY]
    j_att, j_dfn = (ia, ib) if side == 0 else (ib, ia)
    wa_, sa_, _, ga = _cond(j_att, fs[side], pr)
    wd, sd, kd, _ = _cond(j_dfn, fs[dfn], pr)
    keep = _mode_range(side, ga, fs)[0]
    q_act = stay[side, _combo(max(wa_, sa_), max(wd, sd), kd, 0, fs[dfn, F_NWEAR], pr) * fs[side, F_NMODES] + keep]
    while n_pos < 256:
        pos_x[n_pos], pos_p[n_pos] = x, p
        if _unparried(x + _lo(p, pr), y, can_parry, least, pr):
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
        if _unparried(x + _lo(p, pr), y, can_parry, least, pr):
            if side == 0:
                n = _strike_edges(0, ia, ib, x - pr[P_COST], p, y, 0, 0, weight[i], False, pr, na, nb, wy_p, wy_i,
                                  wy_start, bk, bp, n)
            else:
                n = _strike_edges(1, ia, ib, y, 0, x - pr[P_COST], p, 0, weight[i], False, pr, na, nb, wy_p, wy_i,
                                  wy_start, bk, bp, n)
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
def _lead_parry(la: int, ha: int, lb: int, hb: int, parries: bool, pr: np.ndarray) -> int:
    """Side A (IN in la..ha) surely attacks side B (IN in lb..hb): 1 B parries, 0 it does not, -1 undecided (a
    die must be rolled first): it must have the parry's IN and be in time (at most ``parry_window`` behind)."""
    if not parries or hb < pr[P_PARRY]:
        return 0
    if lb < pr[P_PARRY]:
        return -1
    window = pr[P_WINDOW]
    if window >= BIG or ha - lb <= window:
        return 1
    return 0 if la - hb > window else -1


@njit(cache=True, nogil=True)
def _edges(key: int, fs: np.ndarray, pr: np.ndarray, na: int, nb: int, stay: np.ndarray, wy_p: np.ndarray,
           wy_i: np.ndarray, wy_start: np.ndarray, bk: np.ndarray, bp: np.ndarray) -> int:
    """Every way out of one state into the edge buffer (keys and probabilities); the count.  The ways of its
    block's attacks are :func:`_block_ways`'s."""
    kind, ia, ib, xa, pa, xb, pb = _decode(key, pr, na, nb)
    if kind == K_BETWEEN:
        wa, sa, _, _ = _cond(ia, fs[0], pr)
        wb, sb, _, _ = _cond(ib, fs[1], pr)
        bk[0] = _encode(K_MID, ia, ib, fs[0, F_REFL] - max(wa, sa) + xa, pr[P_FIRST],
                        fs[1, F_REFL] - max(wb, sb) + xb, pr[P_FIRST], pr, na, nb)
        bp[0] = 1.0
        return 1
    if pr[P_UNBOUNDED] and (pa == 0) != (pb == 0):
        if pa and not (fs[1, F_PARRIES] and xb >= pr[P_PARRY] and xa + _lo(pa, pr) - xb <= pr[P_WINDOW]):
            return _ahead_edges(0, ia, ib, xa, pa, xb, pr[P_AMIN], fs, pr, na, nb, stay, wy_p, wy_i, wy_start, bk, bp)
        if pb and not (fs[0, F_PARRIES] and xa >= pr[P_PARRY] and xb + _lo(pb, pr) - xa <= pr[P_WINDOW]):
            return _ahead_edges(1, ia, ib, xb, pb, xa, pr[P_AMIN], fs, pr, na, nb, stay, wy_p, wy_i, wy_start, bk, bp)
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
        parry = _lead_parry(la, ha, lb, hb, fs[1, F_PARRIES] != 0, pr)
        if parry < 0:
            return _resolve_edges(1 if pa == 0 or lb < parry_cost else 0, ia, ib, xa, pa, xb, pb, pr, na, nb, bk, bp)
        return _strike_edges(0, ia, ib, xa - pr[P_COST], pa, xb - parry_cost * parry, pb, parry, 1.0, True, pr, na,
                             nb, wy_p, wy_i, wy_start, bk, bp, 0)
    if lb >= amin and lb > ha:
        parry = _lead_parry(lb, hb, la, ha, fs[0, F_PARRIES] != 0, pr)
        if parry < 0:
            return _resolve_edges(0 if pb == 0 or la < parry_cost else 1, ia, ib, xa, pa, xb, pb, pr, na, nb, bk, bp)
        return _strike_edges(1, ia, ib, xa - parry_cost * parry, pa, xb - pr[P_COST], pb, parry, 1.0, True, pr, na,
                             nb, wy_p, wy_i, wy_start, bk, bp, 0)
    if pa == 0 and pb == 0:
        xa, xb = xa - pr[P_COST], xb - pr[P_COST]
        fa = 1 if pr[P_SIMPARRY] and fs[0, F_PARRIES] and xa >= pr[P_PARRY] else 0
        fb = 1 if pr[P_SIMPARRY] and fs[1, F_PARRIES] and xb >= pr[P_PARRY] else 0
        return _both_edges(xa, xb, fa, fb, fs, pr, na, nb, wy_p, wy_i, wy_start, bk, bp, 0)
    return _resolve_edges(0 if pa and (pb == 0 or xa <= xb) else 1, ia, ib, xa, pa, xb, pb, pr, na, nb, bk, bp)


@njit(cache=True, nogil=True)
def _live(ia: int, ib: int, fs: np.ndarray, pr: np.ndarray, start: np.ndarray) -> bool:
    """Whether some attack from the chain indices (ia, ib) can change them (else the fight is stuck there): a hit
    that does something, or a weapon that can still break."""
    for att in range(2):
        dfn = 1 - att
        j_att, j_dfn = (ia, ib) if att == 0 else (ib, ia)
        wa_, sa_, _, ga = _cond(j_att, fs[att], pr)
        wd, sd, kd, _ = _cond(j_dfn, fs[dfn], pr)
        first, last = _mode_range(att, ga, fs)
        if first <= M_BREAKS < last:
            return True
        for parry in range(1 + fs[dfn, F_PARRIES]):
            base = _combo(max(wa_, sa_), max(wd, sd), kd, parry, fs[dfn, F_NWEAR], pr) * fs[att, F_NMODES]
            if start[att, base + last] > start[att, base + first]:
                return True
    return False


@njit(cache=True, nogil=True)
def _priority(kind: int, ia: int, ib: int, xa: int, pa: int, xb: int, pb: int, pr: np.ndarray, nb: int) -> int:
    """Processing order of the state of those fields (:func:`_decode`): every action or die face leads to a later
    state; a round's end leads back to its block.

    Conditions only worsen, so the block of conditions (ia, ib) comes first; in a block, the states between
    rounds come first.  Unbounded dice: both dice pending (by increasing IN), then one pending (the rolled
    side's IN decreasing, the pending side's increasing), then both rolled (IN sum decreasing).  Bounded dice:
    the most IN the two can still hold decreasing, then the dice left decreasing.
    """
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

