"""2K: Monte Carlo duels played by a solved strategy (RULES.md section 8).

Under the IN economy the kernel plays the duel as the decision game of
:mod:`analysis.systems.onesix.moments` does, moment by moment, with every 1K of
the round rolled first: the leader with less IN than an attack costs attacks
with a debt or waits (its IN down to ``attack_min_in - 1``); two fighters at
the same highest IN each attack or wait 1, at once (one waiting: the other
strikes and the waiter may parry; both waiting: both lose 1); a defender who
can parry (a defense rating, the parry's IN, in time) parries or not, before
the attack roll (under ``simultaneous_parry`` both parries of a simultaneous
attack at once).  At each it computes what the decider knows (the game's
features by name: both IN, both conditions, and wear and a broken weapon where
the game has them) and draws the action from the side's policy table
(:func:`analysis.engine.decisions.policy_tables`, packed by
:func:`sims.policy.pack_tables`).  Under the fixed order the game's decision
is a script chosen once per duel: each side draws it at the start.  Rolls,
hits and the finishing blows are :mod:`sims.onesix`'s own.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
from numba import njit

from analysis.engine.decisions import PolicyTable
from analysis.systems.onesix import rules as rules_mod
from analysis.systems.onesix import steps
from analysis.systems.onesix.moments import BASE_FEATURES
from analysis.systems.onesix.steps import P_AMIN, P_COST, P_PARRY, P_SIMPARRY, P_WINDOW, _carry
from sims.dice import _unowned
from sims.onesix import (F_PARRIES, F_REFLEXES, R_ECONOMY, R_GEAR, _fixed_round, _hit, _level, _one_k, _settle,
                         pack_fighters, pack_rules)
from sims.policy import _choose, pack_tables
from sims.results import DUEL_SIZE, MAX_ROUNDS, UP

KINDS = ("parry", "debt", "equal_in")
K_PARRY, K_DEBT, K_EQUAL = range(3)
NAMES = BASE_FEATURES + ("own armor wear", "opponent armor wear", "own weapon broken", "opponent weapon broken")
"""Every feature a 2K decision may read, in the kernel's feature vector (see :func:`_features`)."""


@njit(cache=True, nogil=True)
def _features(x: int, own_in: int, opp_in: int, ca: np.ndarray, cb: np.ndarray, arms: np.ndarray,
              feats: np.ndarray) -> None:
    """What side ``x`` knows (:data:`NAMES`), into ``feats``."""
    me, you = (ca, cb) if x == 0 else (cb, ca)
    feats[0], feats[1] = own_in, opp_in
    feats[2], feats[3], feats[4], feats[5] = me[0], me[1], you[0], you[1]
    feats[6], feats[7] = me[2], you[2]
    feats[8], feats[9] = 1 - arms[x], 1 - arms[1 - x]


@njit(cache=True, nogil=True)
def _parries(x: int, own_in: int, opp_in: int, ca: np.ndarray, cb: np.ndarray, arms: np.ndarray,
             tabs: tuple, feats: np.ndarray, rng: np.random.Generator) -> bool:
    """Side ``x``'s parry decision (its IN ``own_in``, the attack begun at ``opp_in``)."""
    meta, codes, lo_shape, probs = tabs
    _features(x, own_in, opp_in, ca, cb, arms, feats)
    return _choose(x, K_PARRY, feats, meta, codes, lo_shape, probs, rng) == 1


@njit(cache=True, nogil=True)
def _strike(att: int, ins: np.ndarray, fs: np.ndarray, cs: np.ndarray, arms: np.ndarray, test: bool, tabs: tuple,
            feats: np.ndarray, r: np.ndarray, pr: np.ndarray, rng: np.random.Generator) -> None:
    """Side ``att`` attacks at its IN ``ins[att]`` (cost paid here); the defender parries if it can and decides
    to; the hit lands (in place)."""
    dfn = 1 - att
    x, y = ins[att], ins[dfn]
    can = fs[dfn, F_PARRIES] != 0 and y >= pr[P_PARRY] and x - y <= pr[P_WINDOW]
    parry = can and _parries(dfn, y, x, cs[0], cs[1], arms, tabs, feats, rng)
    ins[att] -= pr[P_COST]
    ins[dfn] -= pr[P_PARRY] * parry
    drop, broke = _hit(fs[att], max(cs[att, 0], cs[att, 1]), fs[dfn], cs[dfn], parry, arms[att] != 0, test, r, pr,
                       rng)
    ins[dfn] -= drop
    arms[att] = arms[att] and not broke


@njit(cache=True, nogil=True)
def _round(fs: np.ndarray, cs: np.ndarray, carry: np.ndarray, arms: np.ndarray, tabs: tuple, feats: np.ndarray,
           r: np.ndarray, pr: np.ndarray, rng: np.random.Generator) -> None:
    """One 6-second round of the IN economy, every decision drawn from the tables (in place)."""
    meta, codes, lo_shape, probs = tabs
    ins = np.empty(2, dtype=np.int64)
    for x in range(2):
        ins[x] = fs[x, F_REFLEXES] - max(cs[x, 0], cs[x, 1]) + carry[x] + _one_k(r, rng)
    test = r[R_GEAR] != 0
    amin, cost = pr[P_AMIN], pr[P_COST]
    while max(ins[0], ins[1]) >= amin:
        if ins[0] == ins[1]:
            x = ins[0]
            _features(0, x, x, cs[0], cs[1], arms, feats)
            wa = _choose(0, K_EQUAL, feats, meta, codes, lo_shape, probs, rng)
            _features(1, x, x, cs[0], cs[1], arms, feats)
            wb = _choose(1, K_EQUAL, feats, meta, codes, lo_shape, probs, rng)
            if wa == 1 and wb == 1:
                ins[0] -= 1
                ins[1] -= 1
                continue
            if wa != wb:
                ins[1 if wb == 1 else 0] -= 1
                _strike(0 if wb == 1 else 1, ins, fs, cs, arms, test, tabs, feats, r, pr, rng)
            else:
                _both(x, ins, fs, cs, arms, test, tabs, feats, r, pr, rng)
        else:
            att = 0 if ins[0] > ins[1] else 1
            if ins[att] < cost:
                _features(att, ins[att], ins[1 - att], cs[0], cs[1], arms, feats)
                if _choose(att, K_DEBT, feats, meta, codes, lo_shape, probs, rng) == 1:
                    ins[att] = amin - 1
                    continue
            _strike(att, ins, fs, cs, arms, test, tabs, feats, r, pr, rng)
        if _level(cs[0], pr) != UP or _level(cs[1], pr) != UP:
            return
    carry[0], carry[1] = _carry(ins[0], pr), _carry(ins[1], pr)


@njit(cache=True, nogil=True)
def _both(x: int, ins: np.ndarray, fs: np.ndarray, cs: np.ndarray, arms: np.ndarray, test: bool, tabs: tuple,
          feats: np.ndarray, r: np.ndarray, pr: np.ndarray, rng: np.random.Generator) -> None:
    """Both attack at the same IN ``x`` (the simultaneous exchange; under ``simultaneous_parry`` each decides
    its parry of the other's attack, at once)."""
    ins[0] -= pr[P_COST]
    ins[1] -= pr[P_COST]
    parry = np.zeros(2, dtype=np.bool_)
    for d in range(2):
        if pr[P_SIMPARRY] != 0 and fs[d, F_PARRIES] != 0 and ins[d] >= pr[P_PARRY]:
            parry[d] = _parries(d, x, x, cs[0], cs[1], arms, tabs, feats, rng)
    ins[0] -= pr[P_PARRY] * parry[0]
    ins[1] -= pr[P_PARRY] * parry[1]
    before = cs[1].copy()
    drop_b, broke_a = _hit(fs[0], max(cs[0, 0], cs[0, 1]), fs[1], cs[1], parry[1], arms[0] != 0, test, r, pr, rng)
    after = cs[1].copy()
    cs[1] = before
    drop_a, broke_b = _hit(fs[1], max(cs[1, 0], cs[1, 1]), fs[0], cs[0], parry[0], arms[1] != 0, test, r, pr, rng)
    cs[1] = after
    ins[0] -= drop_a
    ins[1] -= drop_b
    arms[0] = arms[0] and not broke_a
    arms[1] = arms[1] and not broke_b


@njit(cache=True, nogil=True)
def _duels(fs: np.ndarray, tabs: tuple, r: np.ndarray, pr: np.ndarray, n: int,
           rng: np.random.Generator) -> np.ndarray:
    """n duels played by the tables; counts laid out as in :mod:`sims.results`."""
    fs, r, pr, rng = _unowned(fs), _unowned(r), _unowned(pr), _unowned(rng)
    meta, codes, lo_shape, probs = tabs
    out = np.zeros(DUEL_SIZE, dtype=np.int64)
    play = fs.copy()
    cs = np.zeros((2, 3), dtype=np.int64)
    carry = np.zeros(2, dtype=np.int64)
    arms = np.ones(2, dtype=np.int64)
    feats = np.zeros(len(NAMES), dtype=np.int64)
    for _ in range(n):
        cs[:] = 0
        carry[:] = 0
        arms[:] = 1
        if not r[R_ECONOMY]:  # the fixed order: each side's script (0: always parry, 1: never), once per duel
            for x in range(2):
                play[x, F_PARRIES] = fs[x, F_PARRIES] * (_choose(x, K_PARRY, feats, meta, codes, lo_shape, probs,
                                                                 rng) == 0)
        rounds = 0
        while True:
            rounds += 1
            if rounds > MAX_ROUNDS:
                break
            if r[R_ECONOMY]:
                _round(play, cs, carry, arms, tabs, feats, r, pr, rng)
            else:
                _fixed_round(play[0], cs[0], play[1], cs[1], r, pr, rng)
            if _level(cs[0], pr) != UP or _level(cs[1], pr) != UP:
                break
        _settle(out, rounds, play[0], cs[0], play[1], cs[1], arms, r, pr, rng)
    return out


def policy_call(rules: rules_mod.Rules, a: rules_mod.Fighter, b: rules_mod.Fighter,
                tables: Sequence[PolicyTable]) -> Callable[[int, np.random.Generator], np.ndarray]:
    """Duels of ``a`` and ``b`` played by the solved strategy ``tables`` (``policy_tables(dg, ...)`` of
    ``tactics(rules, a, b)``), for :func:`sims.engine.run_chunks`.  Each fighter can parry when it has a defense
    rating; whether it does is the tables' to say (no table: the plain action, so here nobody parries or waits).

    >>> from sims.api import simulate_duel
    >>> f = rules_mod.Fighter(defense_rating=7)
    >>> res = simulate_duel("onesix", rules_mod.Rules(), f, f, 2000, seed=1, workers=1, policy=[])
    >>> res.n, abs(res.p_a_wins.value - res.p_b_wins.value) < 0.1
    (2000, True)
    """
    able = [f.replace(parry="always") for f in (a, b)]
    tabs = pack_tables(tables, KINDS, len(NAMES), NAMES if rules.in_economy else None)
    fs, r, pr = pack_fighters(rules, *able), pack_rules(rules), steps.pack_rules(rules, *able)
    return lambda n, rng: _duels(fs, tabs, r, pr, n, rng)
