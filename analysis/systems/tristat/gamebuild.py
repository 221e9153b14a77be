"""The compiled builder of the Tri-Stat duel as a game of decisions (RULES.md section 8), for
:mod:`analysis.systems.tristat.tactics`.

The game's states are laid out in blocks.  *Grid* kinds hold one state per
``(order, defensive rounds so far, A's up condition, B's up condition)``: the
round start, the stance matrix game once the order is known, the second
attack of a round, the defender's block decision in each context, and in a
round of equal initiative the block decisions once both attack rolls are
known.  Then the finishing attacks on a helpless loser, the final pairs of
conditions, the round cap's sink and (initiative rolled once) the start.
:func:`_build` writes the :class:`~analysis.engine.game.Game` arrays of every
slot in that order (a first pass counts), :func:`~analysis.engine.flow.marked` marks what the
start reaches, and the caller keeps those states, in the same order (the
round starts stay ordered by conditions, so the chain of a pair of strategies
is triangular).

Every probability comes from the attack kernels the caller packs from the
exact engine's own rules (:mod:`analysis.systems.tristat.rules`): per
attacker ``x`` (0: A attacks B, 1: B attacks A) a critical hit's rows and the
rows of a hit that is not critical under each defense (dodge, block) and
stance (normal, total defence), over the defender's track, and the rows of an
attack on a helpless defender.  No rule number is written here.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# grid kinds: round start, stance game, second attacks, the attack on a fighter in total defence, B's attack landing
# with A's (equal initiative, nobody can block), block decisions (defender, context), equal-initiative blocks
K_R, K_S, K_MB, K_MA, K_AT, K_BT, K_MSIM, K_DB1, K_DA1, K_DA2, K_DB2, K_DATD, K_DBTD = range(13)
K_TIE = 13
"""Equal initiative with both attack rolls known: kind ``K_TIE + 3 * roll_a + roll_b`` (rolls ``R_*``)."""
N_GRID = 22
R_MISS, R_HIT, R_CRIT = range(3)
# kernels per attacker x: x * KERNELS + ...
KN_CRIT, KN_HELPLESS, KN_POST = 0, 1, 2
"""``KN_POST + 2 * defense + stance`` (defense 0 dodge, 1 block; stance 0 normal, 1 total defence)."""
KERNELS = 6
# continuations of an attack
CONT_MB, CONT_MA, CONT_ROUND, CONT_NEXT, CONT_MSIM = range(5)
"""B's attack follows, A's attack follows, the next round, the next round with one more defensive round, B's attack
lands with A's (equal initiative: whatever A's did to B)."""
# layout array
(L_NA, L_NB, L_LA, L_LB, L_CAP, L_FA, L_ONCE, L_FINISH, L_FB, L_FA_BASE, L_END, L_SINK, L_START, L_N,
 L_CAPPED) = range(15)
L_BASE = 15
"""``lay[L_BASE + k]``: where grid kind ``k`` starts (-1: absent); ``lay[L_BASE + N_GRID + k]``: its orders (1 or 3);
``lay[L_BASE + 2 * N_GRID + k]``: 1 when its B condition runs over B's whole track (B may be out), not its up
conditions."""
META = 6
"""Per state: kind (grid kinds, then ``M_*``), order, defensive rounds, A's label, B's label, finishing attacks made."""
M_FB, M_FA, M_END, M_SINK, M_START = range(N_GRID, N_GRID + 5)


@njit(cache=True)
def _grid(lay: np.ndarray, k: int, o: int, c: int, i: int, j: int) -> int:
    if lay[L_BASE + N_GRID + k] == 1:
        o = 0
    width = lay[L_LB] if lay[L_BASE + 2 * N_GRID + k] else lay[L_NB]
    return lay[L_BASE + k] + ((o * lay[L_CAP] + c) * lay[L_NA] + i) * width + j


@njit(cache=True)
def _round(lay: np.ndarray, o: int, c: int, i: int, j: int) -> int:
    """The state starting a round: the round start, or under initiative once the stance game of the fight's order."""
    return _grid(lay, K_S, o, c, i, j) if lay[L_ONCE] else _grid(lay, K_R, 0, c, i, j)


@njit(cache=True)
def _land(lay: np.ndarray, posa: np.ndarray, posb: np.ndarray, donea: np.ndarray, doneb: np.ndarray, la: int, lb: int,
          cont: int, o: int, c: int) -> int:
    """Where the fight goes when A is at ``la`` and B at ``lb`` after an attack with continuation ``cont``."""
    i, j = posa[la], posb[lb]
    if cont == CONT_MSIM:
        return _grid(lay, K_MSIM, o, c, i, lb)
    if i >= 0 and j >= 0:
        if cont == CONT_MB:
            return _grid(lay, K_MB, o, c, i, j)
        if cont == CONT_MA:
            return _grid(lay, K_MA, o, c, i, j)
        if cont == CONT_ROUND:
            return _round(lay, o, c, i, j)
        if not lay[L_CAPPED]:
            return _round(lay, o, c, i, j)
        return lay[L_SINK] if c + 1 >= lay[L_CAP] else _round(lay, o, c + 1, i, j)
    if lay[L_FINISH] and (i >= 0) != (j >= 0):
        if i >= 0 and not doneb[lb]:
            return lay[L_FB] + i * lay[L_LB] + lb
        if j >= 0 and not donea[la]:
            return lay[L_FA_BASE] + j * lay[L_LA] + la
    return lay[L_END] + la * lay[L_LB] + lb


@njit(cache=True)
def _put(write: bool, to: np.ndarray, p: np.ndarray, e: int, q: float, t: int) -> int:
    if write:
        to[e] = t
        p[e] = q
    return e + 1


@njit(cache=True)
def _rows(kptr: np.ndarray, k: int, row: int) -> tuple[int, int]:
    return kptr[k, row], kptr[k, row + 1]


@njit(cache=True)
def _attack(write: bool, to: np.ndarray, p: np.ndarray, e: int, lay: np.ndarray, posa: np.ndarray, posb: np.ndarray,
            donea: np.ndarray, doneb: np.ndarray, kptr: np.ndarray, kidx: np.ndarray, kp: np.ndarray,
            rolls: np.ndarray, blockable: np.ndarray, x: int, stance: int, la: int, lb: int, cont: int, o: int, c: int,
            w: float, dkind: int) -> int:
    """One attack of ``x`` on the other, weight ``w``: a miss, a critical hit, and a hit (the defender's block
    decision ``dkind`` when it can block, else a dodge)."""
    y = lb if x == 0 else la
    if rolls[x, R_MISS] > 0:
        e = _put(write, to, p, e, w * rolls[x, R_MISS], _land(lay, posa, posb, donea, doneb, la, lb, cont, o, c))
    base = x * KERNELS
    if rolls[x, R_CRIT] > 0:
        lo, hi = _rows(kptr, base + KN_CRIT, y)
        for r in range(lo, hi):
            na_, nb_ = (la, kidx[r]) if x == 0 else (kidx[r], lb)
            e = _put(write, to, p, e, w * rolls[x, R_CRIT] * kp[r], _land(lay, posa, posb, donea, doneb, na_, nb_, cont,
                                                                           o, c))
    if rolls[x, R_HIT] > 0:
        if blockable[x, y]:
            e = _put(write, to, p, e, w * rolls[x, R_HIT], _grid(lay, dkind, o, c, posa[la], posb[lb]))
        else:
            lo, hi = _rows(kptr, base + KN_POST + stance, y)
            for r in range(lo, hi):
                na_, nb_ = (la, kidx[r]) if x == 0 else (kidx[r], lb)
                e = _put(write, to, p, e, w * rolls[x, R_HIT] * kp[r],
                         _land(lay, posa, posb, donea, doneb, na_, nb_, cont, o, c))
    return e


@njit(cache=True)
def _effect(kptr: np.ndarray, x: int, roll: int, defense: int, y: int) -> tuple[int, int, int]:
    """The kernel rows of an attack roll's effect on the defender at ``y`` (``-1``: a miss, the defender stays)."""
    if roll == R_MISS:
        return -1, 0, 1
    k = x * KERNELS + (KN_CRIT if roll == R_CRIT else KN_POST + 2 * defense)
    return k, kptr[k, y], kptr[k, y + 1]


@njit(cache=True)
def _together(write: bool, to: np.ndarray, p: np.ndarray, e: int, lay: np.ndarray, posa: np.ndarray,
              posb: np.ndarray, donea: np.ndarray, doneb: np.ndarray, kptr: np.ndarray, kidx: np.ndarray,
              kp: np.ndarray, la: int, lb: int, ra: int, rb: int, def_a: int, def_b: int, o: int, c: int,
              w: float) -> int:
    """Both attacks of a moment of equal initiative land together (A's roll ``ra`` on B defending ``def_b``, B's
    ``rb`` on A defending ``def_a``): every pair of effects, then the next round."""
    kb, lo_b, hi_b = _effect(kptr, 0, ra, def_b, lb)
    ka, lo_a, hi_a = _effect(kptr, 1, rb, def_a, la)
    for rb_ in range(lo_b, hi_b):
        nb_, qb = (lb, 1.0) if kb < 0 else (kidx[rb_], kp[rb_])
        for ra_ in range(lo_a, hi_a):
            na_, qa = (la, 1.0) if ka < 0 else (kidx[ra_], kp[ra_])
            e = _put(write, to, p, e, w * qa * qb, _land(lay, posa, posb, donea, doneb, na_, nb_, CONT_ROUND, o, c))
    return e


@njit(cache=True)
def _open(write: bool, na: np.ndarray, nb: np.ndarray, opt: np.ndarray, meta: np.ndarray, s: int, a: int, b: int,
          o_count: int, kind: int, o: int, c: int, la: int, lb: int, k: int) -> None:
    if write:
        na[s], nb[s], opt[s] = a, b, o_count
        meta[s, 0], meta[s, 1], meta[s, 2], meta[s, 3], meta[s, 4], meta[s, 5] = kind, o, c, la, lb, k


@njit(cache=True)
def _build(write: bool, lay: np.ndarray, ua: np.ndarray, ub: np.ndarray, posa: np.ndarray, posb: np.ndarray,
           donea: np.ndarray, doneb: np.ndarray, kptr: np.ndarray, kidx: np.ndarray, kp: np.ndarray,
           rolls: np.ndarray, blockable: np.ndarray, orders: np.ndarray, na: np.ndarray, nb: np.ndarray,
           opt: np.ndarray, edge: np.ndarray, to: np.ndarray, p: np.ndarray, meta: np.ndarray) -> tuple[int, int]:
    """Write (or with ``write`` false only count) every state's actions and options: returns (options, edges)."""
    n_a, n_b, cap = lay[L_NA], lay[L_NB], lay[L_CAP]
    s = 0
    oc = 0
    e = 0
    for kind in range(N_GRID):
        if lay[L_BASE + kind] < 0:
            continue
        full = lay[L_BASE + 2 * N_GRID + kind] == 1
        for o in range(lay[L_BASE + N_GRID + kind]):
            for c in range(cap):
                for i in range(n_a):
                    for j in range(lay[L_LB] if full else n_b):
                        la, lb = ua[i], (j if full else ub[j])
                        if kind == K_R:
                            _open(write, na, nb, opt, meta, s, 1, 1, oc, kind, o, c, la, lb, 0)
                            if write:
                                edge[oc] = e
                            oc += 1
                            for oo in range(3):
                                if orders[oo] > 0:
                                    e = _put(write, to, p, e, orders[oo], _grid(lay, K_S, oo, c, i, j))
                        elif kind == K_S:
                            _open(write, na, nb, opt, meta, s, 2, 2, oc, kind, o, c, la, lb, 0)
                            for stance_a in range(2):
                                for stance_b in range(2):
                                    if write:
                                        edge[oc] = e
                                    oc += 1
                                    if stance_a == 0 and stance_b == 0:
                                        if o == 0:
                                            e = _attack(write, to, p, e, lay, posa, posb, donea, doneb, kptr, kidx, kp,
                                                        rolls, blockable, 0, 0, la, lb, CONT_MB, o, c, 1.0, K_DB1)
                                        elif o == 2:
                                            e = _attack(write, to, p, e, lay, posa, posb, donea, doneb, kptr, kidx, kp,
                                                        rolls, blockable, 1, 0, la, lb, CONT_MA, o, c, 1.0, K_DA1)
                                        elif lay[L_BASE + K_MSIM] >= 0:
                                            e = _attack(write, to, p, e, lay, posa, posb, donea, doneb, kptr, kidx, kp,
                                                        rolls, blockable, 0, 0, la, lb, CONT_MSIM, o, c, 1.0, -1)
                                        else:
                                            for ra in range(3):
                                                for rb in range(3):
                                                    w = rolls[0, ra] * rolls[1, rb]
                                                    if w <= 0:
                                                        continue
                                                    if (ra == R_HIT and blockable[0, lb]) or (rb == R_HIT
                                                                                               and blockable[1, la]):
                                                        e = _put(write, to, p, e, w,
                                                                 _grid(lay, K_TIE + 3 * ra + rb, o, c, i, j))
                                                    else:
                                                        e = _together(write, to, p, e, lay, posa, posb, donea, doneb,
                                                                      kptr, kidx, kp, la, lb, ra, rb, 0, 0, o, c, w)
                                    elif stance_a == 0:
                                        e = _put(write, to, p, e, 1.0, _grid(lay, K_AT, o, c, i, j))
                                    elif stance_b == 0:
                                        e = _put(write, to, p, e, 1.0, _grid(lay, K_BT, o, c, i, j))
                                    else:
                                        e = _put(write, to, p, e, 1.0,
                                                 _land(lay, posa, posb, donea, doneb, la, lb, CONT_NEXT, o, c))
                        elif kind <= K_MSIM:  # one attack: a second one, one on total defence, or landing together
                            _open(write, na, nb, opt, meta, s, 1, 1, oc, kind, o, c, la, lb, 0)
                            if write:
                                edge[oc] = e
                            oc += 1
                            x = 1 if kind == K_MB or kind == K_BT or kind == K_MSIM else 0
                            oo = 0 if kind == K_MB else 2 if kind == K_MA else 1 if kind == K_MSIM else o
                            stance = 1 if kind == K_AT or kind == K_BT else 0
                            cont = CONT_NEXT if stance == 1 else CONT_ROUND
                            dkind = (K_DA2 if kind == K_MB else K_DB2 if kind == K_MA else K_DBTD if kind == K_AT
                                     else K_DATD if kind == K_BT else -1)
                            e = _attack(write, to, p, e, lay, posa, posb, donea, doneb, kptr, kidx, kp, rolls,
                                        blockable, x, stance, la, lb, cont, oo, c, 1.0, dkind)
                        elif kind < K_TIE:  # a block decision: the defender picks dodge (0) or block (1)
                            defender_a = kind == K_DA1 or kind == K_DA2 or kind == K_DATD
                            x = 1 if defender_a else 0
                            stance = 1 if kind == K_DATD or kind == K_DBTD else 0
                            oo = o if stance == 1 else (0 if kind == K_DB1 or kind == K_DA2 else 2)
                            cont = (CONT_NEXT if stance == 1 else CONT_MB if kind == K_DB1 else CONT_MA
                                    if kind == K_DA1 else CONT_ROUND)
                            _open(write, na, nb, opt, meta, s, 2 if defender_a else 1, 1 if defender_a else 2, oc,
                                  kind, oo, c, la, lb, 0)
                            y = la if defender_a else lb
                            for d in range(2):
                                if write:
                                    edge[oc] = e
                                oc += 1
                                k = x * KERNELS + KN_POST + 2 * d + stance
                                for r in range(kptr[k, y], kptr[k, y + 1]):
                                    na_, nb_ = (kidx[r], lb) if defender_a else (la, kidx[r])
                                    e = _put(write, to, p, e, kp[r],
                                             _land(lay, posa, posb, donea, doneb, na_, nb_, cont, oo, c))
                        else:  # equal initiative, both rolls known: whoever was hit and can block decides
                            ra, rb = (kind - K_TIE) // 3, (kind - K_TIE) % 3
                            a_acts = 2 if rb == R_HIT and blockable[1, la] else 1
                            b_acts = 2 if ra == R_HIT and blockable[0, lb] else 1
                            _open(write, na, nb, opt, meta, s, a_acts, b_acts, oc, kind, 1, c, la, lb, 0)
                            for da in range(a_acts):
                                for db in range(b_acts):
                                    if write:
                                        edge[oc] = e
                                    oc += 1
                                    e = _together(write, to, p, e, lay, posa, posb, donea, doneb, kptr, kidx, kp,
                                                  la, lb, ra, rb, da, db, 1, c, 1.0)
                        s += 1
    fa = lay[L_FA]
    for side in range(2):  # finishing: side 0 finishes B (A up), side 1 finishes A
        n_win, n_lose = (n_a, lay[L_LB]) if side == 0 else (n_b, lay[L_LA])
        for k in range(fa):
            for i in range(n_win):
                for lv in range(n_lose):
                    w_lab = ua[i] if side == 0 else ub[i]
                    la, lb = (w_lab, lv) if side == 0 else (lv, w_lab)
                    _open(write, na, nb, opt, meta, s, 1, 1, oc, M_FB if side == 0 else M_FA, 0, 0, la, lb, k)
                    if write:
                        edge[oc] = e
                    oc += 1
                    kh = side * KERNELS + KN_HELPLESS
                    for r in range(kptr[kh, lv], kptr[kh, lv + 1]):
                        v2 = kidx[r]
                        done = doneb[v2] if side == 0 else donea[v2]
                        l2a, l2b = (la, v2) if side == 0 else (v2, lb)
                        if k + 1 >= fa or done:
                            t = lay[L_END] + l2a * lay[L_LB] + l2b
                        elif side == 0:
                            t = lay[L_FB] + ((k + 1) * n_win + i) * lay[L_LB] + v2
                        else:
                            t = lay[L_FA_BASE] + ((k + 1) * n_win + i) * lay[L_LA] + v2
                        e = _put(write, to, p, e, kp[r], t)
                    s += 1
    for la in range(lay[L_LA]):
        for lb in range(lay[L_LB]):
            _open(write, na, nb, opt, meta, s, 0, 0, oc, M_END, 0, 0, la, lb, 0)
            s += 1
    _open(write, na, nb, opt, meta, s, 1, 1, oc, M_SINK, 0, 0, 0, 0, 0)
    if write:
        edge[oc] = e
    oc += 1
    e = _put(write, to, p, e, 1.0, s)
    s += 1
    if lay[L_ONCE]:
        _open(write, na, nb, opt, meta, s, 1, 1, oc, M_START, 0, 0, 0, 0, 0)
        if write:
            edge[oc] = e
        oc += 1
        for oo in range(3):
            if orders[oo] > 0:
                e = _put(write, to, p, e, orders[oo], _grid(lay, K_S, oo, 0, 0, 0))
        s += 1
    if write:
        opt[s] = oc
        edge[oc] = e
    return oc, e


@njit(cache=True)
def _keep(keep: np.ndarray, na: np.ndarray, nb: np.ndarray, opt: np.ndarray, edge: np.ndarray, to: np.ndarray,
          p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The option and edge arrays of the states ``keep`` (in the same order, renumbered): (opt, edge, to, p)."""
    new = np.cumsum(keep) - 1
    n_keep = new[-1] + 1 if keep.size else 0
    n_opt, n_edge = 0, 0
    for s in range(keep.size):
        if keep[s]:
            n_opt += opt[s + 1] - opt[s]
            n_edge += edge[opt[s + 1]] - edge[opt[s]]
    opt2 = np.zeros(n_keep + 1, dtype=np.int64)
    edge2 = np.zeros(n_opt + 1, dtype=np.int64)
    to2 = np.zeros(n_edge, dtype=np.int64)
    p2 = np.zeros(n_edge)
    k, oc, e = 0, 0, 0
    for s in range(keep.size):
        if not keep[s]:
            continue
        opt2[k] = oc
        for o in range(opt[s], opt[s + 1]):
            edge2[oc] = e
            for r in range(edge[o], edge[o + 1]):
                to2[e] = new[to[r]]
                p2[e] = p[r]
                e += 1
            oc += 1
        k += 1
    opt2[k] = oc
    edge2[oc] = e
    return opt2, edge2, to2, p2
