"""The compiled walk of К.У.Р.С.'s duel as a game of decisions (RULES.md section 8): every state reachable from
the start, each with its options, as the flat arrays of :class:`~analysis.engine.game.Game`.

A state is a row of :data:`NC` integers: its *kind*, which fighter attacks
first in each round (the order, only for counting rounds), the mover (the
fighter whose turn it is), both fighters' conditions (indices into their
tracks, :func:`analysis.systems.kurs.track.conditions` of a ``normal``
fighter: boxes, luck tokens, the surprise to come) and one stance in force;
a luck moment adds the margin and what is spent, a dodge moment the
condition the hit would leave.  Rows are keyed by a mixed-radix number.

- ``TURN``: the mover declares its stance (normal, offensive, defensive, no
  defense), knowing both conditions and the other's stance in force (the
  mover's own old stance no longer matters).  Then the attack is rolled:
  one-sided (its surprise, or the other not defending) or opposed.
- ``LUCK``: the rolls are known and a side's check fails by 1..luck_bonus
  with a token in hand: it spends it or keeps it; the other may answer.
- ``DODGE``: the hit is known (luck settled, the soak decided) and would
  mark a wound box; the defender, with the fatigue to pay, dodges or takes it.
- ``END``: a final pair of conditions; an out fighter's finishing
  (``after_out = "finish"``) is folded into the edges that reach it.

The plan's arrays (built by :func:`analysis.systems.kurs.tactics.plan`) give
per side ``x`` and up condition ``c``: ``turn_after[x, c, s]``,
``turn_mod`` and ``turn_stance`` (the condition after declaring stance ``s``,
the attack modifier, the stance in force), ``first``, ``pen``, ``tok`` and
``spend`` (the condition with one token less); ``hit[x, c, d]`` and
``lvl[x, c, d]`` (the condition and level a hit of damage ``d`` leaves,
``d`` capped where nothing changes), ``dodge[x, c]`` (-1: cannot pay);
``fin_id[x, c, s]`` and ``fin[x, k]`` (the winner ``x``'s finishing as a
matrix over the victim's out conditions); ``dmg[x, margin - lo]``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

KIND, ORDER, MOVER, CA, CB, STANCE, MARGIN, FLAGS, TAKEN = range(9)
NC = 9
"""Components of a state.  ``MARGIN`` holds the margin (a luck moment) or the level the hit marks (a dodge
moment); ``FLAGS`` the luck bits below, or whether a fatigue box soaks the hit (a dodge moment)."""
K_START, K_TURN, K_LUCK, K_DODGE, K_END = range(5)
F_DEFENDER, F_SPENT_ATT, F_SPENT_DEF, F_ONE_SIDED = 1, 2, 4, 8
"""Luck bits: the defender decides (else the attacker), the attacker spent, the defender spent, one-sided."""
(P_NUP, P_NTOT, P_TURN_AFTER, P_TURN_MOD, P_TURN_STANCE, P_FIRST, P_TOK, P_PEN, P_SPEND, P_HIT, P_LVL, P_SOAK, P_DODGE,
 P_FIN_ID, P_FIN, P_DMG, P_LO, P_CAP, P_BONUS, P_FINISH, P_V2, P_P2, P_V1, P_P1, P_SKILLS, P_DEFMOD) = range(26)
"""Where each array of the plan sits in its tuple (see the module docstring; ``skills[x]``: attack skill, defense
skill + shield; ``defmod[s]``: a stance's modifier to its defenses; ``v2``/``p2`` and ``v1``/``p1``: the margin
without modifiers of an opposed and of a one-sided attack)."""
NO_DEFENSE = 3
"""The stance index of not defending (``analysis.systems.kurs.rules.STANCES``)."""
LIGHT = 1
BUFFER = 1 << 15
"""Room for one option's distinct next states (a finishing folds in one per out condition of the victim)."""
HEADROOM = 4 * BUFFER


@njit(cache=True, nogil=True, inline="always")
def _new(comps, slot, count, kind, order, mover, ca, cb, s, margin, flags, taken):
    """Number a new state with these components."""
    n = count[0]
    row = comps[n]
    row[KIND], row[ORDER], row[MOVER], row[CA], row[CB], row[STANCE] = kind, order, mover, ca, cb, s
    row[MARGIN], row[FLAGS], row[TAKEN] = margin, flags, taken
    slot[n] = -1
    count[0] = n + 1
    return n


@njit(cache=True, nogil=True, inline="always")
def _probe(keys, key):
    """Where ``key`` is, or the empty place it goes, in the open-addressing table ``keys`` (-1: empty)."""
    mask = keys.size - 1
    i = np.int64((np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)) & mask
    while keys[i] != key and keys[i] != -1:
        i = (i + 1) & mask
    return i


@njit(cache=True, nogil=True, inline="always")
def _state(w, kind, order, mover, ca, cb, s, margin, flags, taken):
    """The state with these components (numbered next when new); ``margin`` and ``flags`` as in ``comps``."""
    keys, vals, comps, slot, count, dims = w[0], w[1], w[2], w[3], w[4], w[5]
    key = ((((((((kind * 2 + order) * 2 + mover) * dims[0] + ca) * dims[1] + cb) * 4 + s) * dims[2] + margin)
            * 16 + flags) * dims[3] + taken)
    i = _probe(keys, key)
    if keys[i] == key:
        return vals[i]
    n = _new(comps, slot, count, kind, order, mover, ca, cb, s, margin, flags, taken)
    keys[i], vals[i] = key, n
    return n


@njit(cache=True, nogil=True)
def _rehash(keys, vals, size):
    """The table with room for ``size`` keys."""
    out_k = -np.ones(size, dtype=np.int64)
    out_v = np.zeros(size, dtype=np.int64)
    for i in range(keys.size):
        if keys[i] != -1:
            j = _probe(out_k, keys[i])
            out_k[j], out_v[j] = keys[i], vals[i]
    return out_k, out_v


@njit(cache=True, nogil=True, inline="always")
def _add(w, idx, p):
    """Add ``p`` to the option's edge into state ``idx``."""
    slot, buf_to, buf_p, nbuf = w[3], w[6], w[7], w[8]
    j = slot[idx]
    if j < 0:
        j = nbuf[0]
        slot[idx] = j
        buf_to[j] = idx
        buf_p[j] = 0.0
        nbuf[0] = j + 1
    buf_p[j] += p


@njit(cache=True, nogil=True, inline="always")
def _end(w, ca, cb, p):
    """Add ``p`` to the edge into the final pair ``(ca, cb)``."""
    ends = w[9]
    if ends[ca, cb] < 0:
        ends[ca, cb] = _new(w[2], w[3], w[4], K_END, 0, 0, ca, cb, 0, 0, 0, 0)
    _add(w, ends[ca, cb], p)


@njit(cache=True, nogil=True, inline="always")
def _after_hit(pl, w, order, m, cm, co, sm, co_new, p):
    """The attack is over: the other's turn, or the end (with the winner's finishing folded in)."""
    nup, ntot, fin_id, fin, finish = pl[P_NUP], pl[P_NTOT], pl[P_FIN_ID], pl[P_FIN], pl[P_FINISH]
    o = 1 - m
    ca, cb = (cm, co_new) if m == 0 else (co_new, cm)
    if co_new < nup[o]:
        _add(w, _state(w, K_TURN, order, o, ca, cb, sm, 0, 0, 0), p)
    elif co_new == ntot[o] - 1 or finish == 0:
        _end(w, ca, cb, p)
    else:
        k = fin_id[m, cm, sm]
        row = co_new - nup[o]
        for j in range(ntot[o] - nup[o]):
            q = fin[m, k, row, j]
            if q > 0.0:
                if m == 0:
                    _end(w, cm, nup[o] + j, p * q)
                else:
                    _end(w, nup[o] + j, cm, p * q)


@njit(cache=True, nogil=True, inline="always")
def _settled(pl, w, order, m, cm, co, sm, d, one_sided, p):
    """The hit's damage ``d`` (capped) is final: the dodge moment, or the hit."""
    hit, lvl, dodge = pl[P_HIT], pl[P_LVL], pl[P_DODGE]
    o = 1 - m
    taken = hit[o, co, d]
    if not one_sided and dodge[o, co] >= 0 and lvl[o, co, d] >= LIGHT:
        ca, cb = (cm, co) if m == 0 else (co, cm)
        _add(w, _state(w, K_DODGE, order, m, ca, cb, sm, lvl[o, co, d], pl[P_SOAK][o, co, d], taken), p)
    else:
        _after_hit(pl, w, order, m, cm, co, sm, taken, p)


@njit(cache=True, nogil=True, inline="always")
def _lucky(pl, m, cm, co, margin, flags):
    """Who may spend a token on this margin: 0 the attacker, ``F_DEFENDER`` the defender, -1 nobody."""
    tok, bonus = pl[P_TOK], pl[P_BONUS]
    if tok[m, cm] > 0 and (flags & F_SPENT_ATT) == 0 and -bonus <= margin < 0:
        return 0
    if (flags & F_ONE_SIDED) == 0 and tok[1 - m, co] > 0 and (flags & F_SPENT_DEF) == 0 and 0 < margin <= bonus:
        return F_DEFENDER
    return -1


@njit(cache=True, nogil=True, inline="always")
def _margin(pl, w, order, m, cm, co, sm, margin, flags, p):
    """Rolled: a luck moment when a side's check fails by 1..bonus with a token in hand, else settled."""
    decider = _lucky(pl, m, cm, co, margin, flags)
    if decider < 0:
        d = min(pl[P_DMG][m, margin - pl[P_LO]], pl[P_CAP])
        _settled(pl, w, order, m, cm, co, sm, d, (flags & F_ONE_SIDED) != 0, p)
        return
    ca, cb = (cm, co) if m == 0 else (co, cm)
    _add(w, _state(w, K_LUCK, order, m, ca, cb, sm, margin - pl[P_LO], flags | decider, 0), p)


@njit(cache=True, nogil=True, inline="always")
def _attack(pl, w, order, m, cm, co, sm, shift, flags, acc):
    """The attack rolled at ``shift``: its margins grouped by damage, save those that bring a luck moment."""
    vals, probs = (pl[P_V1], pl[P_P1]) if (flags & F_ONE_SIDED) != 0 else (pl[P_V2], pl[P_P2])
    dmg, lo, cap = pl[P_DMG], pl[P_LO], pl[P_CAP]
    acc[:] = 0.0
    for i in range(vals.size):
        margin = vals[i] + shift
        if _lucky(pl, m, cm, co, margin, flags) >= 0:
            _margin(pl, w, order, m, cm, co, sm, margin, flags, probs[i])
        else:
            acc[min(dmg[m, margin - lo], cap)] += probs[i]
    for d in range(cap + 1):
        if acc[d] > 0.0:
            _settled(pl, w, order, m, cm, co, sm, d, (flags & F_ONE_SIDED) != 0, acc[d])


@njit(cache=True, nogil=True)
def _power_of_two(n):
    size = 1
    while size < n:
        size *= 2
    return size


@njit(cache=True, nogil=True)
def _grow(a, n):
    out = np.empty((n,) + a.shape[1:], dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@njit(cache=True, nogil=True)
def _walk(pl, p_first, fresh, dims, guess):
    """Every state from the start and its options: (comps, na, nb, opt, edge, to, p)."""
    turn_after, turn_mod, turn_stance, first, pen = (pl[P_TURN_AFTER], pl[P_TURN_MOD], pl[P_TURN_STANCE], pl[P_FIRST],
                                                     pl[P_PEN])
    spend, lo, bonus, skills, defmod, ntot = pl[P_SPEND], pl[P_LO], pl[P_BONUS], pl[P_SKILLS], pl[P_DEFMOD], pl[P_NTOT]
    cap = max(guess, HEADROOM * 2)
    keys = -np.ones(_power_of_two(2 * cap), dtype=np.int64)
    vals = np.zeros(keys.size, dtype=np.int64)
    comps = np.zeros((cap, NC), dtype=np.int32)
    slot = -np.ones(cap, dtype=np.int64)
    count = np.zeros(1, dtype=np.int64)
    buf_to = np.empty(BUFFER, dtype=np.int64)
    buf_p = np.empty(BUFFER)
    nbuf = np.zeros(1, dtype=np.int64)
    ends = -np.ones((ntot[0], ntot[1]), dtype=np.int64)
    acc = np.zeros(pl[P_CAP] + 1)
    na = np.zeros(cap, dtype=np.int64)
    nb = np.zeros(cap, dtype=np.int64)
    opt = np.zeros(cap + 1, dtype=np.int64)
    edge = np.zeros(cap * 4 + 1, dtype=np.int64)
    to = np.empty(cap * 8, dtype=np.int64)
    prob = np.empty(cap * 8)
    n_opt, n_edge = 0, 0
    w = (keys, vals, comps, slot, count, dims, buf_to, buf_p, nbuf, ends)
    _state(w, K_START, 0, 0, fresh[0], fresh[1], 0, 0, 0, 0)
    k = 0
    while k < count[0]:
        if count[0] + HEADROOM > comps.shape[0]:
            size = comps.shape[0] * 2
            comps, na, nb, opt = _grow(comps, size), _grow(na, size), _grow(nb, size), _grow(opt, size + 1)
            slot = np.concatenate((slot, -np.ones(size - slot.size, dtype=np.int64)))
            keys, vals = _rehash(keys, vals, _power_of_two(2 * size))
            w = (keys, vals, comps, slot, count, dims, buf_to, buf_p, nbuf, ends)
        if n_opt + 8 > edge.size - 1:
            edge = _grow(edge, edge.size * 2)
        if n_edge + HEADROOM > to.size:
            to, prob = _grow(to, to.size * 2), _grow(prob, prob.size * 2)
        row = comps[k]
        kind, order, m, sm = np.int64(row[KIND]), np.int64(row[ORDER]), np.int64(row[MOVER]), np.int64(row[STANCE])
        o = 1 - m
        cm, co = (np.int64(row[CA]), np.int64(row[CB])) if m == 0 else (np.int64(row[CB]), np.int64(row[CA]))
        opt[k] = n_opt
        options, decider = 1, -1
        if kind == K_START:
            for x in range(2):
                if p_first[x] > 0.0:
                    _add(w, _state(w, K_TURN, x, x, fresh[0], fresh[1], 0, 0, 0, 0), p_first[x])
        elif kind == K_TURN:
            decider, options = m, 4
            for s in range(4):
                if s:
                    n_edge = _flush(w, to, prob, n_edge)
                    n_opt += 1
                    edge[n_opt] = n_edge
                cm2 = turn_after[m, cm, s]
                shift = skills[m, 0] + turn_mod[m, cm, s] - pen[m, cm2]
                flags = F_ONE_SIDED
                if first[m, cm] == 0 and sm != NO_DEFENSE:  # sm: the other's stance in force
                    flags = 0
                    shift -= skills[o, 1] + defmod[sm] - pen[o, co]
                _attack(pl, w, order, m, cm2, co, turn_stance[m, cm, s], shift, flags, acc)
        elif kind == K_LUCK:
            flags, margin = np.int64(row[FLAGS]), np.int64(row[MARGIN]) + lo
            defender = (flags & F_DEFENDER) != 0
            decider, options = (o if defender else m), 2
            rest = flags & ~F_DEFENDER
            d = min(pl[P_DMG][m, margin - lo], pl[P_CAP])
            _settled(pl, w, order, m, cm, co, sm, d, (flags & F_ONE_SIDED) != 0, 1.0)
            n_edge = _flush(w, to, prob, n_edge)
            n_opt += 1
            edge[n_opt] = n_edge
            if defender:
                _margin(pl, w, order, m, cm, spend[o, co], sm, margin - bonus, rest | F_SPENT_DEF, 1.0)
            else:
                _margin(pl, w, order, m, spend[m, cm], co, sm, margin + bonus, rest | F_SPENT_ATT, 1.0)
        elif kind == K_DODGE:
            decider, options = o, 2
            _after_hit(pl, w, order, m, cm, co, sm, np.int64(row[TAKEN]), 1.0)
            n_edge = _flush(w, to, prob, n_edge)
            n_opt += 1
            edge[n_opt] = n_edge
            _after_hit(pl, w, order, m, cm, co, sm, pl[P_DODGE][o, co], 1.0)
        if kind != K_END:
            n_edge = _flush(w, to, prob, n_edge)
            n_opt += 1
            edge[n_opt] = n_edge
            na[k] = options if decider == 0 else 1
            nb[k] = options if decider == 1 else 1
        k += 1
    n = count[0]
    opt[n] = n_opt
    return (comps[:n].copy(), na[:n].copy(), nb[:n].copy(), opt[: n + 1].copy(), edge[: n_opt + 1].copy(),
            to[:n_edge].copy(), prob[:n_edge].copy())


@njit(cache=True, nogil=True, inline="always")
def _flush(w, to, prob, n_edge):
    """Write the option's edges (in the order first reached) and clear the buffer."""
    slot, buf_to, buf_p, nbuf = w[3], w[6], w[7], w[8]
    for j in range(nbuf[0]):
        to[n_edge] = buf_to[j]
        prob[n_edge] = buf_p[j]
        slot[buf_to[j]] = -1
        n_edge += 1
    nbuf[0] = 0
    return n_edge
