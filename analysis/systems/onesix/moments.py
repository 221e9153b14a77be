"""2K's duel under the IN economy as a game of per-moment decisions (RULES.md section 8).

The decisions, each taken with both fighters' IN and conditions known (every
1K of the round rolled first):

- **parry** (the defender, before the attack roll, when it has a defense
  rating, ``parry_cost`` IN and is in time): ``no parry`` or ``parry``;
- **debt** (the leader with 4-5 IN, whose attack would leave a debt):
  ``attack`` or ``wait``; waiting lets its IN run down to ``attack_min_in - 1``
  (3): it gives the round up but keeps what it can still parry with, and the
  leftover carries (the lab's reading: no seed says how long it waits);
- **equal_in** (both at the same highest IN, at once: a matrix game):
  ``attack`` or ``wait 1`` («его инициатива уменьшается на 1»): the one who
  waits lets the other strike first and may parry it; both waiting lowers
  both by 1.  Under ``simultaneous_parry`` each side of a simultaneous attack
  then decides its parry, both at once.

The walk (:func:`_walk`, compiled) follows the exact chain's own states
(:mod:`analysis.systems.onesix.chain`: conditions, IN, the dice not yet
rolled) and its step rules, block of conditions by block, in the chain's
processing order; it rolls a die the chain would leave pending wherever a
decision may come, keeps the chain's closed form for a fighter far ahead
(surely ahead, surely unparried and with a full attack's IN: nobody decides
there), and adds a state per parry decision taken after an attack began.  A
state that cannot carry ``PRUNE`` of probability along a round is not
followed (what reaches it is the game's truncation).  Held to both
fighters' policies (always attack, parry by ``parry``) the game is the duel
of :func:`~analysis.systems.onesix.duel.duel`, number for number.

>>> from analysis.systems.onesix.duel import duel
>>> a, b = Fighter(weapon_ps=5, weapon_class="wound", defense_rating=7), Fighter(reflexes=12)
>>> dg = tactics(Rules(), a, b)
>>> [(d.name, d.side) for d in dg.decisions]  # only A has a defense rating: only A parries
[('parry', 'a'), ('debt', 'a'), ('debt', 'b'), ('equal_in', 'a'), ('equal_in', 'b')]
>>> book = dg.solution(dg.game.book("a"), dg.game.book("b"))
>>> abs(book.p_a_wins - duel(Rules(), a, b).solution.p_a_wins) < 1e-12
True
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

import numpy as np
from numba import njit

from analysis.base.interrupt import run_kernel
from analysis.base.params import DicelabError
from analysis.engine.decisions import Decision, DecisionGame
from analysis.engine.store import _grown, _hash, _rehash
from analysis.engine.game import Game
from analysis.systems.onesix import rules as six
from analysis.systems.onesix.rules import Fighter, Rules
from analysis.systems.onesix.chain import (_ahead_edges, _block_ways, _both_edges, _decode, _edges, _encode, _hi,
                                          _lead_parry, _lo, _live, _priority, _resolve_edges, _strike_edges, hit_tables,
                                          states_bound, ways_room)
from analysis.systems.onesix.solver import _heap_pop, _heap_push
from analysis.systems.onesix.steps import (BIG, F_NGEAR, F_NWEAR, F_PARRIES, K_BETWEEN, K_END, K_MID, P_AMIN, P_COST,
                                           P_NP, P_NX, P_PARRY, P_SCAP, P_SIMPARRY, P_UNBOUNDED, P_WINDOW, P_XLO,
                                           pack_fighter, pack_rules)

MODEL = ("per moment (RULES.md section 8): parry or not at each attack, attack with a debt at 4-5 IN or wait "
         "(down to 3 IN), attack or wait 1 IN at equal IN; each decided with both IN and conditions known")
"""What this game models, echoed in every output of it (``DecisionGame.model``)."""
PRUNE = 1e-17
"""A state that cannot carry this much probability along a round is not followed (as the duel's chain)."""
CROSS = 1e4
"""A block of conditions is entered over many rounds: the bound of a state reached from an earlier block is its
way's probability times this (the duel's chain uses the mass that arrived; the game has no mass before it is
played)."""
CAPACITY = 1 << 16
"""States the walk makes room for at least: first half the upper estimate (:func:`tactics_states`, about 3.4 times
the states of the archetype pairings), rounded up to a power of 2; four times as many each time that is short (the
walk runs again)."""

PLAIN, PARRY_B, PARRY_A, PARRY_BOTH = range(4)
"""A state's sub-kind: a chain state, B's parry of A's attack begun, A's parry of B's, both parries of a
simultaneous attack (``simultaneous_parry``); the last three hold the IN after the attack's cost."""
NO_DECISION, D_PARRY, D_DEBT, D_EQUAL = range(4)
NAMES = ("parry", "debt", "equal_in")
ACTIONS = {"parry": ("no parry", "parry"), "debt": ("attack", "wait"), "equal_in": ("attack", "wait 1")}
BASE_FEATURES = ("own IN", "opponent IN", "own wounds", "own shock", "opponent wounds", "opponent shock")


# ------------------------------------------------------------------ the compiled walk
@njit(cache=True, nogil=True)
def _lead(att: int, ia: int, ib: int, xa: int, xb: int, fs: np.ndarray, pr: np.ndarray, na: int, nb: int,
          wy_p: np.ndarray, wy_i: np.ndarray, wy_start: np.ndarray, bk: np.ndarray, bp: np.ndarray, ob: np.ndarray,
          dec: np.ndarray) -> tuple[int, int]:
    """Side ``att`` leads at a known IN (every die rolled): its debt decision (4-5 IN) and the defender's parry
    decision; the options into the buffer (``ob``: where each option's edges end); (na, nb)."""
    dfn = 1 - att
    x, y = (xa, xb) if att == 0 else (xb, xa)
    cost, parry_cost = pr[P_COST], pr[P_PARRY]
    can = fs[dfn, F_PARRIES] != 0 and y >= parry_cost and (pr[P_WINDOW] >= BIG or x - y <= pr[P_WINDOW])
    pa_x, pb_x = (xa - cost, xb) if att == 0 else (xa, xb - cost)
    if x < cost:  # attack with a debt, or wait
        dec[att] = D_DEBT
        if can:
            bk[0], bp[0] = 4 * _encode(K_MID, ia, ib, pa_x, 0, pb_x, 0, pr, na, nb) + (PARRY_B if att == 0 else PARRY_A), 1.0
            n = 1
        else:
            n = _strike_edges(att, ia, ib, pa_x, 0, pb_x, 0, 0, 1.0, True, pr, na, nb, wy_p, wy_i, wy_start, bk, bp, 0)
            for i in range(n):
                bk[i] = 4 * bk[i]
        ob[1] = n
        wa_x, wb_x = (pr[P_AMIN] - 1, xb) if att == 0 else (xa, pr[P_AMIN] - 1)
        bk[n], bp[n] = 4 * _encode(K_MID, ia, ib, wa_x, 0, wb_x, 0, pr, na, nb), 1.0
        ob[2] = n + 1
        return (2, 1) if att == 0 else (1, 2)
    if can:
        dec[dfn] = D_PARRY
        return _parry_options(att, ia, ib, pa_x, pb_x, pr, na, nb, wy_p, wy_i, wy_start, bk, bp, ob)
    n = _strike_edges(att, ia, ib, pa_x, 0, pb_x, 0, 0, 1.0, True, pr, na, nb, wy_p, wy_i, wy_start, bk, bp, 0)
    for i in range(n):
        bk[i] = 4 * bk[i]
    ob[1] = n
    return 1, 1


@njit(cache=True, nogil=True)
def _parry_options(att: int, ia: int, ib: int, xa: int, xb: int, pr: np.ndarray, na: int, nb: int, wy_p: np.ndarray,
                   wy_i: np.ndarray, wy_start: np.ndarray, bk: np.ndarray, bp: np.ndarray,
                   ob: np.ndarray) -> tuple[int, int]:
    """Side ``att``'s attack (its cost paid: IN ``xa``, ``xb``) and the defender's two options: no parry, parry."""
    n = _strike_edges(att, ia, ib, xa, 0, xb, 0, 0, 1.0, True, pr, na, nb, wy_p, wy_i, wy_start, bk, bp, 0)
    ob[1] = n
    if att == 0:
        n = _strike_edges(0, ia, ib, xa, 0, xb - pr[P_PARRY], 0, 1, 1.0, True, pr, na, nb, wy_p, wy_i, wy_start, bk,
                          bp, n)
    else:
        n = _strike_edges(1, ia, ib, xa - pr[P_PARRY], 0, xb, 0, 1, 1.0, True, pr, na, nb, wy_p, wy_i, wy_start, bk,
                          bp, n)
    ob[2] = n
    for i in range(n):
        bk[i] = 4 * bk[i]
    return (1, 2) if att == 0 else (2, 1)


@njit(cache=True, nogil=True)
def _options(gkey: int, fs: np.ndarray, pr: np.ndarray, na: int, nb: int, stay: np.ndarray, wy_p: np.ndarray,
             wy_i: np.ndarray, wy_start: np.ndarray, bk: np.ndarray, bp: np.ndarray, ob: np.ndarray,
             dec: np.ndarray) -> tuple[int, int]:
    """Every option of the game state ``gkey`` (``4 * chain key + sub-kind``) into the buffer: option ``o``'s edges
    (game keys, probabilities) end at ``ob[o + 1]``; ``dec``: the decision each side takes here; (na, nb)."""
    sub, key = gkey % 4, gkey // 4
    kind, ia, ib, xa, pa, xb, pb = _decode(key, pr, na, nb)
    dec[0], dec[1] = NO_DECISION, NO_DECISION
    ob[0] = 0
    if sub == PARRY_B or sub == PARRY_A:
        dec[1 if sub == PARRY_B else 0] = D_PARRY
        return _parry_options(0 if sub == PARRY_B else 1, ia, ib, xa, xb, pr, na, nb, wy_p, wy_i, wy_start, bk, bp, ob)
    if sub == PARRY_BOTH:
        ca = 1 if fs[0, F_PARRIES] and xa >= pr[P_PARRY] else 0
        cb = 1 if fs[1, F_PARRIES] and xb >= pr[P_PARRY] else 0
        n = 0
        for i in range(1 + ca):
            for j in range(1 + cb):
                n = _both_edges(xa, xb, i, j, fs, pr, na, nb, wy_p, wy_i, wy_start, bk, bp, n)
                ob[i * (1 + cb) + j + 1] = n
        for i in range(n):
            bk[i] = 4 * bk[i]
        dec[0], dec[1] = D_PARRY * ca, D_PARRY * cb
        return 1 + ca, 1 + cb
    least = max(pr[P_AMIN], pr[P_COST])
    if kind == K_MID and pr[P_UNBOUNDED] and (pa == 0) != (pb == 0):
        n = -1
        if pa and not (fs[1, F_PARRIES] and xb >= pr[P_PARRY] and xa + _lo(pa, pr) - xb <= pr[P_WINDOW]):
            n = _ahead_edges(0, ia, ib, xa, pa, xb, least, fs, pr, na, nb, stay, wy_p, wy_i, wy_start, bk, bp)
        elif pb and not (fs[0, F_PARRIES] and xa >= pr[P_PARRY] and xb + _lo(pb, pr) - xa <= pr[P_WINDOW]):
            n = _ahead_edges(1, ia, ib, xb, pb, xa, least, fs, pr, na, nb, stay, wy_p, wy_i, wy_start, bk, bp)
        if n >= 0:
            return _one(n, bk, ob)
    if kind == K_MID:
        la, ha, lb, hb = xa + _lo(pa, pr), xa + _hi(pa), xb + _lo(pb, pr), xb + _hi(pb)
        amin = pr[P_AMIN]
        lead = -1
        if la >= amin and la > hb:
            lead = 0
        elif lb >= amin and lb > ha:
            lead = 1
        if lead >= 0:
            lo_att = la if lead == 0 else lb
            parry = (_lead_parry(la, ha, lb, hb, fs[1, F_PARRIES] != 0, pr) if lead == 0
                     else _lead_parry(lb, hb, la, ha, fs[0, F_PARRIES] != 0, pr))
            if parry == 0 and lo_att >= pr[P_COST]:  # nobody decides: the chain's own step
                return _one(_edges(key, fs, pr, na, nb, stay, wy_p, wy_i, wy_start, bk, bp), bk, ob)
            if pa:
                return _one(_resolve_edges(0, ia, ib, xa, pa, xb, pb, pr, na, nb, bk, bp), bk, ob)
            if pb:
                return _one(_resolve_edges(1, ia, ib, xa, pa, xb, pb, pr, na, nb, bk, bp), bk, ob)
            return _lead(lead, ia, ib, xa, xb, fs, pr, na, nb, wy_p, wy_i, wy_start, bk, bp, ob, dec)
        if pa == 0 and pb == 0 and xa == xb and xa >= amin:
            return _equal(ia, ib, xa, fs, pr, na, nb, wy_p, wy_i, wy_start, bk, bp, ob, dec)
    return _one(_edges(key, fs, pr, na, nb, stay, wy_p, wy_i, wy_start, bk, bp), bk, ob)


@njit(cache=True, nogil=True)
def _one(n: int, bk: np.ndarray, ob: np.ndarray) -> tuple[int, int]:
    """A state without a decision: its chain edges (keys made game keys) as its one option."""
    for i in range(n):
        bk[i] = 4 * bk[i]
    ob[1] = n
    return 1, 1


@njit(cache=True, nogil=True)
def _equal(ia: int, ib: int, x: int, fs: np.ndarray, pr: np.ndarray, na: int, nb: int, wy_p: np.ndarray,
           wy_i: np.ndarray, wy_start: np.ndarray, bk: np.ndarray, bp: np.ndarray, ob: np.ndarray,
           dec: np.ndarray) -> tuple[int, int]:
    """Both at the same highest IN ``x``: each attacks or waits 1, at once (options in the order ``i * 2 + j``)."""
    cost, parry_cost = pr[P_COST], pr[P_PARRY]
    paid = x - cost
    n = 0
    # both attack: the simultaneous exchange (its parries decided next under simultaneous_parry)
    if pr[P_SIMPARRY] and ((fs[0, F_PARRIES] and paid >= parry_cost) or (fs[1, F_PARRIES] and paid >= parry_cost)):
        bk[0], bp[0] = 4 * _encode(K_MID, ia, ib, paid, 0, paid, 0, pr, na, nb) + PARRY_BOTH, 1.0
        n = 1
    else:
        n = _both_edges(paid, paid, 0, 0, fs, pr, na, nb, wy_p, wy_i, wy_start, bk, bp, 0)
        for i in range(n):
            bk[i] = 4 * bk[i]
    ob[1] = n
    in_time = pr[P_WINDOW] >= 1
    for waiter in (1, 0):  # option 1: B waits and A strikes; option 2: A waits and B strikes
        att = 1 - waiter
        xa, xb = (paid, x - 1) if att == 0 else (x - 1, paid)
        first = n
        if fs[waiter, F_PARRIES] and x - 1 >= parry_cost and in_time:
            bk[n], bp[n] = 4 * _encode(K_MID, ia, ib, xa, 0, xb, 0, pr, na, nb) + (PARRY_B if att == 0 else PARRY_A), 1.0
            n += 1
        else:
            n = _strike_edges(att, ia, ib, xa, 0, xb, 0, 0, 1.0, True, pr, na, nb, wy_p, wy_i, wy_start, bk, bp, n)
            for i in range(first, n):
                bk[i] = 4 * bk[i]
        ob[2 if waiter == 1 else 3] = n
    bk[n], bp[n] = 4 * _encode(K_MID, ia, ib, x - 1, 0, x - 1, 0, pr, na, nb), 1.0
    ob[4] = n + 1
    dec[0], dec[1] = D_EQUAL, D_EQUAL
    return 2, 2


@njit(cache=True, nogil=True)
def _walk(pr: np.ndarray, fs: np.ndarray, stay: np.ndarray, start: np.ndarray, hits: np.ndarray, hp: np.ndarray,
          room: int, na: int, nb: int, prune: float, cross: float, cap: int, halt: np.ndarray):
    """Every state of the game worth following from two unhurt fighters with no carry, block of conditions by
    block in the chain's order (a heap by :func:`~analysis.systems.onesix.chain._priority`, so a state's bound is
    final when it is taken: the most probability a way inside a round brings it, a round's start counting as 1,
    an earlier block's way times ``cross``); a block whose attacks change nothing keeps what enters it forever.

    ``halt[0]`` is polled at every block: once it is not 0 the walk stops (status 2).  Returns (status, then the
    game in its own numbering: keys, na, nb, opt, edge, to, p, each state's decision per side, whether it is
    stuck).
    """
    n_blocks = na * nb
    g_key, g_prio = np.empty(cap, dtype=np.int64), np.empty(cap, dtype=np.int64)
    g_bound, g_flag, g_exp = np.zeros(cap), np.zeros(cap, dtype=np.int8), np.zeros(cap, dtype=np.int8)
    g_next, g_opt = np.full(cap, -1, dtype=np.int64), np.full(cap, -1, dtype=np.int64)
    g_na, g_nb = np.zeros(cap, dtype=np.int8), np.zeros(cap, dtype=np.int8)
    g_dec = np.zeros((cap, 2), dtype=np.int8)
    o_edge = np.zeros(4 * cap + 1, dtype=np.int64)
    e_tgt, e_p = np.empty(10 * cap, dtype=np.int64), np.empty(10 * cap)
    slots, at = -np.ones(4 * cap, dtype=np.int64), np.zeros(4 * cap, dtype=np.int64)
    head = np.full(n_blocks, -1, dtype=np.int64)
    heap, heap_keys = np.empty(cap, dtype=np.int32), np.empty(cap, dtype=np.int64)
    wy_p, wy_i, wy_start = np.empty(room), np.empty((5, room), dtype=np.int64), np.empty(5, dtype=np.int64)
    bk, bp = np.empty(8192, dtype=np.int64), np.empty(8192)
    ob, dec = np.zeros(5, dtype=np.int64), np.zeros(2, dtype=np.int8)
    stuck = np.zeros(cap, dtype=np.int8)
    first = 4 * _encode(K_BETWEEN, 0, 0, 0, 0, 0, 0, pr, na, nb)
    n, n_opt, n_edges = 0, 0, 0
    for c in range(n_blocks):
        if halt[0] != 0:
            return (2,) + _compact(0, g_key, g_exp, g_na, g_nb, g_opt, o_edge, e_tgt, e_p, g_dec, stuck)
        if c == 0:
            g_key[0], g_bound[0], g_flag[0], g_exp[0] = first, 1.0, 0, 0
            g_prio[0] = _gprio(first, pr, na, nb)
            g_next[0], head[0] = -1, 0
            i = _hash(first, slots.size - 1)
            slots[i], at[i] = first, 0
            n = 1
        if head[c] < 0:
            continue
        live = _live(c // nb, c % nb, fs, pr, start)
        if live:
            _block_ways(c // nb, c % nb, fs, pr, stay, start, hits, hp, wy_p, wy_i, wy_start)
        size = 0
        s = head[c]
        while s >= 0:
            if g_bound[s] > 0.0:
                g_flag[s] = 1
                size = _heap_push(heap, heap_keys, size, s, g_prio[s])
            s = g_next[s]
        while size > 0:
            s = _heap_pop(heap, heap_keys, size)
            size -= 1
            g_flag[s] = 0
            if g_bound[s] < prune:
                continue
            if not g_exp[s]:
                g_exp[s] = 1
                if not live:  # nothing changes here: the fight stays forever
                    stuck[s] = 1
                    g_na[s], g_nb[s], g_opt[s] = 1, 1, n_opt
                    e_tgt[n_edges], e_p[n_edges] = s, 1.0
                    n_edges += 1
                    n_opt += 1
                    o_edge[n_opt] = n_edges
                    continue
                a_, b_ = _options(g_key[s], fs, pr, na, nb, stay, wy_p, wy_i, wy_start, bk, bp, ob, dec)
                g_na[s], g_nb[s], g_dec[s, 0], g_dec[s, 1], g_opt[s] = a_, b_, dec[0], dec[1], n_opt
                cnt = ob[a_ * b_]
                if n_edges + cnt > e_tgt.size:
                    e_tgt, e_p = _grown(e_tgt, 2 * e_tgt.size + cnt), _grown(e_p, 2 * e_p.size + cnt)
                if n_opt + a_ * b_ + 1 > o_edge.size:
                    o_edge = _grown(o_edge, 2 * o_edge.size)
                for o in range(a_ * b_):
                    for e in range(ob[o], ob[o + 1]):
                        key = bk[e]
                        i = _hash(key, slots.size - 1)
                        while slots[i] != key and slots[i] != -1:
                            i = (i + 1) & (slots.size - 1)
                        if slots[i] == key:
                            t = at[i]
                        else:
                            if n == g_key.size:
                                return (1,) + _compact(0, g_key, g_exp, g_na, g_nb, g_opt, o_edge, e_tgt, e_p,
                                                       g_dec, stuck)
                            t = n
                            slots[i], at[i] = key, t
                            g_key[t], g_prio[t], g_bound[t] = key, _gprio(key, pr, na, nb), 0.0
                            g_flag[t], g_exp[t], g_next[t] = 0, 0, -1
                            if (key // 4) % 3 != K_END:
                                r = _block(key, na, nb)
                                g_next[t], head[r] = head[r], t
                            n += 1
                            if 2 * n > slots.size:
                                slots, at = _rehash(g_key[:n], 4 * slots.size)
                        e_tgt[n_edges], e_p[n_edges] = t, bp[e]
                        n_edges += 1
                    n_opt += 1
                    o_edge[n_opt] = n_edges
            if stuck[s]:
                continue
            for o in range(g_opt[s], g_opt[s] + g_na[s] * g_nb[s]):
                for e in range(o_edge[o], o_edge[o + 1]):
                    t = e_tgt[e]
                    tk = g_key[t] // 4
                    if tk % 3 == K_END:
                        continue
                    if _block(g_key[t], na, nb) != c:
                        g_bound[t] = max(g_bound[t], min(1.0, cross * g_bound[s] * e_p[e]))
                        continue
                    bound = 1.0 if tk % 3 == K_BETWEEN and g_key[t] % 4 == PLAIN else g_bound[s] * e_p[e]
                    if bound > g_bound[t]:
                        g_bound[t] = bound
                        if not g_flag[t]:
                            g_flag[t] = 1
                            size = _heap_push(heap, heap_keys, size, t, g_prio[t])
    return (0,) + _compact(n, g_key, g_exp, g_na, g_nb, g_opt, o_edge, e_tgt, e_p, g_dec, stuck)


@njit(cache=True, nogil=True, inline="always")
def _block(gkey: int, na: int, nb: int) -> int:
    """The block of conditions of a game state, numbered as the walk takes them (``ia * nb + ib``)."""
    v = gkey // 12
    return (v % na) * nb + (v // na) % nb


@njit(cache=True, nogil=True)
def _gprio(gkey: int, pr: np.ndarray, na: int, nb: int) -> int:
    """A game state's processing order: its chain state's (:func:`~analysis.systems.onesix.chain._priority`), a
    parry decision just before the chain state of the same IN (its no-effect way leads there)."""
    kind, ia, ib, xa, pa, xb, pb = _decode(gkey // 4, pr, na, nb)
    return 2 * _priority(kind, ia, ib, xa, pa, xb, pb, pr, nb) + (0 if gkey % 4 != PLAIN else 1)


@njit(cache=True, nogil=True)
def _compact(n: int, g_key: np.ndarray, g_exp: np.ndarray, g_na: np.ndarray, g_nb: np.ndarray, g_opt: np.ndarray,
             o_edge: np.ndarray, e_tgt: np.ndarray, e_p: np.ndarray, g_dec: np.ndarray, stuck: np.ndarray):
    """The states followed and the ends, renumbered in the order found; a way into a state not followed is
    dropped (its probability is the game's truncation)."""
    new = np.full(n, -1, dtype=np.int64)
    m = 0
    for s in range(n):
        if g_exp[s] or (g_key[s] // 4) % 3 == K_END:
            new[s] = m
            m += 1
    keys = np.empty(m, dtype=np.int64)
    na, nb = np.zeros(m, dtype=np.int64), np.zeros(m, dtype=np.int64)
    dec = np.zeros((m, 2), dtype=np.int8)
    stk = np.zeros(m, dtype=np.bool_)
    opt = np.zeros(m + 1, dtype=np.int64)
    n_opt = 0
    for s in range(n):
        if new[s] >= 0:
            k = new[s]
            keys[k] = g_key[s]
            if g_exp[s]:
                na[k], nb[k], dec[k, 0], dec[k, 1], stk[k] = g_na[s], g_nb[s], g_dec[s, 0], g_dec[s, 1], stuck[s]
                n_opt += g_na[s] * g_nb[s]
            opt[k + 1] = n_opt
    edge = np.zeros(n_opt + 1, dtype=np.int64)
    n_e = 0
    for s in range(n):
        if g_exp[s]:
            for o in range(g_opt[s], g_opt[s] + g_na[s] * g_nb[s]):
                for e in range(o_edge[o], o_edge[o + 1]):
                    n_e += new[e_tgt[e]] >= 0
    to, p = np.empty(n_e, dtype=np.int64), np.empty(n_e)
    j, o_new = 0, 0
    for s in range(n):
        if g_exp[s]:
            for o in range(g_opt[s], g_opt[s] + g_na[s] * g_nb[s]):
                for e in range(o_edge[o], o_edge[o + 1]):
                    if new[e_tgt[e]] >= 0:
                        to[j], p[j] = new[e_tgt[e]], e_p[e]
                        j += 1
                o_new += 1
                edge[o_new] = j
    return keys, na, nb, opt, edge, to, p, dec, stk


# ------------------------------------------------------------------ the game
def _fields(keys: np.ndarray, pr: np.ndarray, fs: np.ndarray, na: int, nb: int) -> dict[str, np.ndarray]:
    """The game keys read back (:func:`~analysis.systems.onesix.chain._decode`, each side's condition too)."""
    nx, n_kinds, xlo, scap = (int(pr[k]) for k in (P_NX, P_NP, P_XLO, P_SCAP))
    out = {"sub": keys % 4}
    v = keys // 4
    out["kind"], v = v % 3, v // 3
    out["ia"], v = v % na, v // na
    out["ib"], v = v % nb, v // nb
    out["xa"], v = v % nx + xlo, v // nx
    out["pa"], v = v % n_kinds, v // n_kinds
    out["xb"], out["pb"] = v % nx + xlo, v // nx
    for side, j in (("a", out["ia"]), ("b", out["ib"])):
        f = fs["ab".index(side)]
        gear = int(f[F_NGEAR])
        out[f"g{side}"], j = j % gear, j // gear
        out[f"track{side}"] = j
        out[f"k{side}"], j = j % int(f[F_NWEAR]), j // int(f[F_NWEAR])
        out[f"w{side}"], out[f"s{side}"] = j // (scap + 1), j % (scap + 1)
    return out


def _features(f: dict[str, np.ndarray], at: np.ndarray, side: int, extra: tuple[str, ...], cost: int) -> np.ndarray:
    """The decider's features at the states ``at`` (:data:`BASE_FEATURES`, then ``extra``): a parry's IN are
    those the attack began at (the attacker's before its cost, under ``simultaneous_parry`` the defender's too)."""
    me, you = ("a", "b") if side == 0 else ("b", "a")
    sub = f["sub"][at]
    attacked = sub != PLAIN
    own = f["x" + me][at] + np.where(sub == PARRY_BOTH, cost, 0)
    opp = f["x" + you][at] + np.where(attacked, cost, 0)
    cols = [own, opp, f["w" + me][at], f["s" + me][at], f["w" + you][at], f["s" + you][at]]
    named = {"own armor wear": f["k" + me], "opponent armor wear": f["k" + you], "own weapon broken": f["g" + me],
             "opponent weapon broken": f["g" + you]}
    cols += [named[name][at] for name in extra]
    return np.column_stack(cols).astype(np.int64).reshape(at.size, len(BASE_FEATURES) + len(extra))


def tactics(rules: Rules, a: Fighter, b: Fighter) -> DecisionGame:
    """The duel of ``a`` and ``b`` under the IN economy as a game of the decisions of RULES.md section 8 (see the
    module docstring); ``game.book_a`` and ``book_b`` are the fighters' policies (always attack, parry by their
    ``parry``), ``scripts`` plays any value of ``parry`` (the caller checks the budget first:
    :func:`tactics_states`)."""
    able = [f.replace(parry="always") for f in (a, b)]
    pr = pack_rules(rules, *able)
    ga, gb = 1 + a.breakable(rules), 1 + b.breakable(rules)
    na, nb = len(six.track(rules, a)) * ga, len(six.track(rules, b)) * gb
    if 3 * na * nb * int(pr[P_NX]) ** 2 * int(pr[P_NP]) ** 2 >= 2**60:
        raise DicelabError(f"onesix decision game: tracks of {na} and {nb} conditions are too large for the game's "
                           "keys; allowed: shorter tracks, less armor wear or a shallower carry floor (or dicelab sim)")
    fs = np.stack([pack_fighter(rules, f) for f in able])
    tables = hit_tables(rules, *able)
    cap = max(CAPACITY, 1 << int(tactics_states(rules, a, b) // 2 - 1).bit_length())
    while True:
        status, *got = run_kernel(_walk, pr, fs, *tables, ways_room(tables[1]), na, nb, PRUNE, CROSS, cap)
        if status == 0:
            break
        cap *= 4
    keys, g_na, g_nb, opt, edge, to, p, dec, stuck = got
    f = _fields(keys, pr, fs, na, nb)
    fighters = (a, b)

    def picks(x: int, fighter: Fighter) -> np.ndarray:
        return np.where(dec[:, x] == D_PARRY, int(fighter.parries()), 0).astype(np.int64)

    round_start = ((f["kind"] == K_BETWEEN) & (f["sub"] == PLAIN)) | stuck
    game = Game(g_na, g_nb, opt, edge, to, p, np.zeros(keys.size), round_start, picks(0, a), picks(1, b), 0).merged()
    end = f["kind"] == K_END
    ends = np.column_stack([f["tracka"][end], f["trackb"][end]]).astype(np.int64).reshape(-1, 2)
    extra = tuple(name for name, on in (("own armor wear", fs[:, F_NWEAR].max() > 1),
                                        ("opponent armor wear", fs[:, F_NWEAR].max() > 1),
                                        ("own weapon broken", fs[:, F_NGEAR].max() > 1),
                                        ("opponent weapon broken", fs[:, F_NGEAR].max() > 1)) if on)
    decisions, states, features = [], [], []
    for code, name in enumerate(NAMES, start=1):
        for x, side in enumerate("ab"):
            here = np.flatnonzero(dec[:, x] == code)
            if here.size:
                decisions.append(Decision(name, side, ACTIONS[name], BASE_FEATURES + extra))
                states.append(here.astype(np.int64))
                features.append(_features(f, here, x, extra, int(pr[P_COST])))

    def scripts(side: str, policy: Mapping[str, Any]) -> np.ndarray:
        """The strategy of ``side``'s fighter with the policy fields ``policy`` (always attacking)."""
        x = "ab".index(side)
        return replace(game, **{f"book_{side}": picks(x, fighters[x].replace(**policy))}).book(side)

    parry_sides = sorted({d.side for d in decisions if d.name == "parry"})
    policies = {side: {"parry": tuple(Fighter.specs("policy")["parry"].choices)} for side in parry_sides}
    return DecisionGame(game, ends, six.track(rules, a), six.track(rules, b), tuple(decisions), tuple(states),
                        tuple(features), scripts, policies, MODEL)


def tactics_states(rules: Rules, a: Fighter, b: Fighter) -> int:
    """An upper estimate of the game's states, without building it: the duel's chain (:func:`states_bound`) with
    every state's parry decision beside it.

    >>> tactics(Rules(), Fighter(), Fighter()).game.n <= tactics_states(Rules(), Fighter(), Fighter())
    True
    """
    return 2 * states_bound(rules, a.replace(parry="always"), b.replace(parry="always"))

