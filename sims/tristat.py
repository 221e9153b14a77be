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
from .results import (CHECK_SIZE, CRITICAL, DUEL_SIZE, DYING, FUMBLE, HIST, HIST_OFFSET, MAX_ROUNDS, OUT, SUCCESS, UP,
                      _tally)

# Packed duel: rules flags, then per fighter (A then B) its attack target (acv + skill), defense target
# (dcv + skill + block), health, Body, shock value and its critical damage.
P_DIE, P_ONCE, P_SHOCK = range(3)
P_FIGHTER = 3
F_HIT, F_DEF, F_HEALTH, F_BODY, F_SHOCK, F_CRIT = range(6)
F_SIZE = 6


@dataclass(frozen=True)
class Options(Validated):
    """Tri-Stat has no rule the exact chain leaves out: nothing to switch."""

    where = "tristat simulation options"


def _fighter_row(rules: rules_mod.Rules, att: rules_mod.Fighter, dfn: rules_mod.Fighter) -> list[int]:
    acv, dcv, health = att.stats(rules)
    return [acv + att.attack_bonus, dcv + att.defense_bonus + 2 * att.block, health, att.body, health // 5,
            rules_mod.hit_damage(rules, att, dfn, None)]


def pack(rules: rules_mod.Rules, a: rules_mod.Fighter, b: rules_mod.Fighter) -> tuple[np.ndarray, np.ndarray]:
    """(scalars, damage table) for the kernel; ``table[0, t]`` is A's damage to B on a damage roll of t, ``[1, t]`` B's.

    Damage comes from :func:`analysis.systems.tristat.hit_damage`, the exact engine's own rule.
    """
    params = [rules.die, rules.initiative_once, rules.shock_rule] + _fighter_row(rules, a, b) + _fighter_row(rules, b, a)
    table = np.zeros((2, 2 * rules.die + 1), dtype=np.int64)
    for t in range(2, 2 * rules.die + 1):
        table[0, t] = rules_mod.hit_damage(rules, a, b, t)
        table[1, t] = rules_mod.hit_damage(rules, b, a, t)
    return np.array(params, dtype=np.int64), table


def initiative_table(rules: rules_mod.Rules, a: rules_mod.Fighter, b: rules_mod.Fighter) -> np.ndarray:
    """Both initiative rolls at once: the sign of (2dX + acv of A) - (2dX + acv of B) for every pair of 2dX
    outcomes, so that one uniform rolls all four dice."""
    two = outcome_table(range(1, rules.die + 1), 2)
    return np.sign(np.subtract.outer(two + a.stats(rules)[0], two + b.stats(rules)[0])).ravel().astype(np.int64)


@njit(cache=True, nogil=True, inline="always")
def _succeeds(total: int, target: int, die: int) -> bool:
    return total == 2 or (total <= target and total != 2 * die)


@njit(cache=True, nogil=True)
def _duel(p: np.ndarray, table: np.ndarray, two: np.ndarray, first: np.ndarray, n: int,
          rng: np.random.Generator) -> np.ndarray:
    """n duels; counts laid out as in :mod:`sims.results`; ``first`` is :func:`initiative_table`.

    The attacks are written out in the loop (no helper calls: passing arrays and the
    Generator to a function costs more than the dice here).
    """
    out = np.zeros(DUEL_SIZE, dtype=np.int64)
    die, once, shock_rule = p[P_DIE], p[P_ONCE], p[P_SHOCK]
    f = p[P_FIGHTER:].reshape(2, F_SIZE)
    taken = np.zeros(2, dtype=np.int64)
    down = np.zeros(2, dtype=np.bool_)
    size, n_first = two.size, first.size
    for _ in range(n):
        taken[:] = 0
        down[:] = False
        order = first[int(rng.random() * n_first)] if once else 0
        rounds = 0
        while rounds < MAX_ROUNDS:
            rounds += 1
            if not once:
                order = first[int(rng.random() * n_first)]
            lead = 0 if order >= 0 else 1
            for slot in range(2):
                att = lead if slot == 0 else 1 - lead
                dfn = 1 - att
                if slot == 1 and order != 0 and down[att]:
                    break
                a = two[int(rng.random() * size)]
                if a == 2:
                    damage = f[att, F_CRIT]
                elif a == 2 * die or a > f[att, F_HIT]:
                    continue
                else:
                    d = two[int(rng.random() * size)]
                    if d == 2 or (d <= f[dfn, F_DEF] and d != 2 * die):
                        continue
                    damage = table[att, two[int(rng.random() * size)]]
                taken[dfn] += damage
                if taken[dfn] > f[dfn, F_HEALTH]:
                    down[dfn] = True
                elif shock_rule and damage > f[dfn, F_SHOCK]:
                    b = two[int(rng.random() * size)]
                    if not (b == 2 or (b <= f[dfn, F_BODY] and b != 2 * die)):
                        down[dfn] = True
            if down[0] or down[1]:
                break
        _tally(out, rounds if down[0] or down[1] else MAX_ROUNDS + 1,
               (DYING if taken[0] >= 2 * f[0, F_HEALTH] else OUT) if down[0] else UP,
               (DYING if taken[1] >= 2 * f[1, F_HEALTH] else OUT) if down[1] else UP, -1)
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
    params, table = pack(rules, a, b)
    two, first = outcome_table(range(1, rules.die + 1), 2), initiative_table(rules, a, b)
    return lambda n, rng: _duel(params, table, two, first, n, rng)
