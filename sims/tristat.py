"""Tri-Stat dX: numba kernels for checks and duels.

The exact chain of :mod:`analysis.systems.tristat` already plays Tri-Stat's
whole duel (initiative every round, simultaneous attacks on equal
initiative, the shock stand-in), so the ``full`` and ``exact`` models run the
same rules here; the simulator checks the chain and scales to sweeps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from numba import njit

from analysis.params import Validated
from analysis.systems import tristat as rules_mod

from .dice import _sample, outcome_table
from .results import (A_DEAD, A_WINS, B_DEAD, B_WINS, BOTH_OUT, CHECK_SIZE, CRITICAL, DUEL_SIZE, FUMBLE, HIST,
                      HIST_OFFSET, MAX_ROUNDS, ROUNDS, SUCCESS, UNFINISHED)

# Packed fighter: acv, dcv, health, attack_bonus, defense_bonus, weapon_damage, armor, block, body
F_ACV, F_DCV, F_HEALTH, F_AB, F_DB, F_WEAPON, F_ARMOR, F_BLOCK, F_BODY = range(9)
# Packed rules: die, acv_in_max, nearest rounding, shock_rule, initiative_once, bounds of the damage table (3)
R_DIE, R_ACV_IN_MAX, R_NEAREST, R_SHOCK, R_ONCE, R_B100, R_B75, R_B50 = range(8)


@dataclass(frozen=True)
class Options(Validated):
    """Tri-Stat has no rule the exact chain leaves out: nothing to switch."""

    where = "tristat simulation options"


def pack_rules(rules: rules_mod.Rules) -> np.ndarray:
    return np.array([rules.die, rules.acv_in_max, rules.damage_rounding == "nearest", rules.shock_rule,
                     rules.initiative_once, *rules_mod.DAMAGE_TABLE[rules.die]], dtype=np.int64)


def pack_fighter(rules: rules_mod.Rules, f: rules_mod.Fighter) -> np.ndarray:
    acv, dcv, health = f.stats(rules)
    return np.array([acv, dcv, health, f.attack_bonus, f.defense_bonus, f.weapon_damage, f.armor, f.block, f.body],
                    dtype=np.int64)


@njit(cache=True, nogil=True)
def _succeeds(total: int, target: int, die: int) -> bool:
    return total == 2 or (total <= target and total != 2 * die)


@njit(cache=True, nogil=True)
def _scaled(max_damage: int, pct: int, nearest: int) -> int:
    if nearest:
        return (max_damage * pct * 2 + 100) // 200
    return max_damage * pct // 100


@njit(cache=True, nogil=True)
def _attack(att: np.ndarray, dfn: np.ndarray, r: np.ndarray, two: np.ndarray,
            rng: np.random.Generator) -> tuple[int, bool]:
    """One attack: (damage after armor, knocked out by the shock stand-in); ``two`` is the 2dX table."""
    die = r[R_DIE]
    a = _sample(two, rng)
    if a == 2:
        pct = 200
    elif a == 2 * die or a > att[F_ACV] + att[F_AB]:
        return 0, False
    else:
        d = _sample(two, rng)
        if _succeeds(d, dfn[F_DCV] + dfn[F_DB] + 2 * dfn[F_BLOCK], die):
            return 0, False
        g = _sample(two, rng)
        pct = 100 if g <= r[R_B100] else 75 if g <= r[R_B75] else 50 if g <= r[R_B50] else 25
    acv = att[F_ACV]
    if r[R_ACV_IN_MAX]:
        raw = _scaled(att[F_WEAPON] + acv, pct, r[R_NEAREST])
    else:
        raw = _scaled(att[F_WEAPON], pct, r[R_NEAREST]) + acv
    damage = max(0, raw - dfn[F_ARMOR])
    shocked = False
    if r[R_SHOCK] and damage > dfn[F_HEALTH] // 5:
        shocked = not _succeeds(_sample(two, rng), dfn[F_BODY], die)
    return damage, shocked


@njit(cache=True, nogil=True)
def _duel(a: np.ndarray, b: np.ndarray, r: np.ndarray, two: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """n duels; counts laid out as in :mod:`sims.results`."""
    out = np.zeros(DUEL_SIZE, dtype=np.int64)
    for _ in range(n):
        taken_a = taken_b = 0
        shock_a = shock_b = False
        order = 0
        if r[R_ONCE]:
            ia, ib = _sample(two, rng) + a[F_ACV], _sample(two, rng) + b[F_ACV]
            order = 1 if ia > ib else (-1 if ia < ib else 0)
        rounds = 0
        while True:
            rounds += 1
            if rounds > MAX_ROUNDS:
                break
            if not r[R_ONCE]:
                ia, ib = _sample(two, rng) + a[F_ACV], _sample(two, rng) + b[F_ACV]
                order = 1 if ia > ib else (-1 if ia < ib else 0)
            if order == 1:
                d, s = _attack(a, b, r, two, rng)
                taken_b += d
                shock_b = shock_b or s
                if taken_b <= b[F_HEALTH] and not shock_b:
                    d, s = _attack(b, a, r, two, rng)
                    taken_a += d
                    shock_a = shock_a or s
            elif order == -1:
                d, s = _attack(b, a, r, two, rng)
                taken_a += d
                shock_a = shock_a or s
                if taken_a <= a[F_HEALTH] and not shock_a:
                    d, s = _attack(a, b, r, two, rng)
                    taken_b += d
                    shock_b = shock_b or s
            else:
                d1, s1 = _attack(a, b, r, two, rng)
                d2, s2 = _attack(b, a, r, two, rng)
                taken_b += d1
                taken_a += d2
                shock_b = shock_b or s1
                shock_a = shock_a or s2
            a_out = taken_a > a[F_HEALTH] or shock_a
            b_out = taken_b > b[F_HEALTH] or shock_b
            if a_out or b_out:
                break
        if rounds > MAX_ROUNDS:
            out[UNFINISHED] += 1
            continue
        out[ROUNDS + rounds] += 1
        if a_out and b_out:
            out[BOTH_OUT] += 1
        elif b_out:
            out[A_WINS] += 1
        else:
            out[B_WINS] += 1
        out[A_DEAD] += taken_a >= 2 * a[F_HEALTH]
        out[B_DEAD] += taken_b >= 2 * b[F_HEALTH]
    return out


@njit(cache=True, nogil=True)
def _check(die: int, target: int, two: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """n checks 2dX against a target: successes, naturals 2 and 2X, margin histogram."""
    out = np.zeros(CHECK_SIZE, dtype=np.int64)
    for _ in range(n):
        t = _sample(two, rng)
        out[SUCCESS] += _succeeds(t, target, die)
        out[CRITICAL] += t == 2
        out[FUMBLE] += t == 2 * die
        out[HIST + HIST_OFFSET + target - t] += 1
    return out


def check_call(rules: rules_mod.Rules, args: rules_mod.CheckArgs) -> Callable[[int, np.random.Generator], np.ndarray]:
    """The check kernel bound to a ruleset and target."""
    die, target, two = rules.die, args.target, outcome_table(range(1, rules.die + 1), 2)
    return lambda n, rng: _check(die, target, two, n, rng)


CHECK_EXTRAS = ("p_critical", "p_fumble", "")


def duel_call(rules: rules_mod.Rules, a: rules_mod.Fighter, b: rules_mod.Fighter, model: str,
              options: Options) -> Callable[[int, np.random.Generator], np.ndarray]:
    """The duel kernel bound to a ruleset and two fighters (both models play the same rules)."""
    pa, pb, pr = pack_fighter(rules, a), pack_fighter(rules, b), pack_rules(rules)
    two = outcome_table(range(1, rules.die + 1), 2)
    return lambda n, rng: _duel(pa, pb, pr, two, n, rng)
