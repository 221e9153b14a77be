"""ТУН: numba kernels for checks, single attacks and duels.

The exact chain of :mod:`analysis.systems.tun` already plays ТУН's written
duel in full: the order fixed at the first round (by Body, ties or
``turn_order="roll"`` by a d6 roll-off), two attacks per turn, the last word
(one attack, +1 Body trauma; with ``dying_last_word`` also for a fighter put
past twice its volume) and both fighters out.  So ``Options`` has no switch and
the ``full`` and ``exact`` models run the same rules here; a round is both
fighters' turns, as in the chain.  Every roll (3d6, 1d20 or 1d6x3) is one
uniform drawn from the table of its equally likely outcomes; a duel kernel
first turns each fighter's table into the Body trauma of every roll (the rules
of the attack applied once per roll value), then draws from that.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from numba import njit

from analysis.params import Validated
from analysis.systems import tun as rules_mod

from .dice import _sample, outcome_table
from .results import (CHECK_SIZE, CRITICAL, DUEL_SIZE, DYING, FUMBLE, HIST, HIST_OFFSET, MAX_ROUNDS, OUT, SUCCESS, UP,
                      _tally)

# Packed attacker (against one defender): attack limit, weapon n and b, own Body volume and Body,
# the minimum and maximum of its dice and their critical bonus.
F_LIMIT, F_N, F_B, F_VOLUME, F_BODY, F_LO, F_HI, F_BONUS = range(8)
# Packed rules: success on roll == limit, criticals, last word, last word when dying, order by Body.
R_LE, R_CRITS, R_LAST_WORD, R_DYING, R_BY_BODY = range(5)
# Single-attack count layout: misses, hits, critical hits, the defender out, dead, sum and sum of squares of trauma.
X_MISS, X_HIT, X_CRITICAL, X_OUT, X_DEAD, X_SUM, X_SQUARES = range(7)
EXCHANGE_SIZE = 7
# Rows of an attack table, one column per equally likely roll: Body trauma (0 on a miss), hit, critical.
T_TRAUMA, T_HIT, T_CRITICAL = range(3)

CHECK_EXTRAS = ("p_critical", "p_fumble", "")


@dataclass(frozen=True)
class Options(Validated):
    """ТУН has no rule the exact chain leaves out (two actions and the last word are in it): nothing to switch."""

    where = "tun simulation options"


def dice_table(dice: str) -> np.ndarray:
    """The equally likely outcomes of a dice mode (216 for 3d6, 20 for 1d20, 6 for 1d6x3)."""
    return {"3d6": outcome_table(range(1, 7), 3), "1d20": outcome_table(range(1, 21), 1),
            "1d6x3": outcome_table(range(3, 19, 3), 1)}[dice]


def pack_rules(rules: rules_mod.Rules) -> np.ndarray:
    return np.array([rules.success_rule == "le", rules.crits, rules.last_word, rules.dying_last_word,
                     rules.turn_order == "body"], dtype=np.int64)


def pack_fighter(att: rules_mod.Fighter, dfn: rules_mod.Fighter) -> np.ndarray:
    """``att`` attacking ``dfn``: the limit is Body + feature - the defender's Body defense if it defends."""
    table = dice_table(att.dice)
    limit = att.body + att.attack_feature - dfn.defense * dfn.defends
    return np.array([limit, att.weapon_n, att.weapon_b, att.volume, att.body, table.min(), table.max(),
                     rules_mod.crit_bonus(att.dice)], dtype=np.int64)


@njit(cache=True, nogil=True)
def _outcome(v: int, limit: int, lo: int, hi: int, bonus: int, le: int, crits: int) -> tuple[bool, int, bool, bool]:
    """A roll ``v`` against ``limit``: (success, effectiveness, critical success, critical failure)."""
    crit = crits != 0 and v == lo
    fumble = crits != 0 and v == hi
    e = limit - v
    success = (v < limit or (le != 0 and v == limit) or crit) and not fumble
    if crit:
        e = max(e, 0) + bonus
    return success, e, crit, fumble


@njit(cache=True, nogil=True)
def _attack_table(f: np.ndarray, table: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Each equally likely roll of packed attacker ``f`` as a column: (Body trauma, 0 on a miss; hit; critical)."""
    out = np.zeros((3, table.size), dtype=np.int64)
    for k in range(table.size):
        success, e, crit, _ = _outcome(table[k], f[F_LIMIT], f[F_LO], f[F_HI], f[F_BONUS], r[R_LE], r[R_CRITS])
        if success:
            out[T_TRAUMA, k] = e * f[F_N] + f[F_B]
            out[T_HIT, k] = 1
            out[T_CRITICAL, k] = crit
    return out


@njit(cache=True, nogil=True, inline="always")
def _round(hf: np.ndarray, vol_f: int, hs: np.ndarray, vol_s: int, last_word: bool, dying: bool, trauma_f: int,
           trauma_s: int, rng: np.random.Generator) -> tuple[int, int]:
    """One round, ``f`` first, ``s`` second (``hf``, ``hs``: their trauma per roll): (trauma of f, of s) after it.

    f attacks twice (the second only if s is still up); s, if put out, has the
    last word (one attack, +1 trauma), otherwise attacks twice while f is up.
    """
    trauma_s += _sample(hf, rng)
    if trauma_s < vol_s:
        trauma_s += _sample(hf, rng)
    if trauma_s < vol_s:
        trauma_f += _sample(hs, rng)
        if trauma_f < vol_f:
            trauma_f += _sample(hs, rng)
    elif last_word and (dying or trauma_s <= 2 * vol_s):
        trauma_f += _sample(hs, rng)
        trauma_s += 1
    return trauma_f, trauma_s


@njit(cache=True, nogil=True)
def _level(trauma: int, volume: int) -> int:
    """UP, OUT (trauma >= volume) or DYING (trauma > 2 x volume)."""
    return DYING if trauma > 2 * volume else OUT if trauma >= volume else UP


@njit(cache=True, nogil=True)
def _duel(a: np.ndarray, b: np.ndarray, ta: np.ndarray, tb: np.ndarray, r: np.ndarray, n: int,
          rng: np.random.Generator) -> np.ndarray:
    """n duels; counts laid out as in :mod:`sims.results`.  A d6 roll-off re-rolled on ties is a fair coin."""
    out = np.zeros(DUEL_SIZE, dtype=np.int64)
    ha, hb = _attack_table(a, ta, r)[T_TRAUMA], _attack_table(b, tb, r)[T_TRAUMA]
    vol_a, vol_b = a[F_VOLUME], b[F_VOLUME]
    last_word, dying = r[R_LAST_WORD] != 0, r[R_DYING] != 0
    by_body = r[R_BY_BODY] != 0 and a[F_BODY] != b[F_BODY]
    for _ in range(n):
        a_first = a[F_BODY] > b[F_BODY] if by_body else rng.random() < 0.5
        trauma_a = trauma_b = 0
        rounds = 0
        while True:
            rounds += 1
            if rounds > MAX_ROUNDS:
                break
            if a_first:
                trauma_a, trauma_b = _round(ha, vol_a, hb, vol_b, last_word, dying, trauma_a, trauma_b, rng)
            else:
                trauma_b, trauma_a = _round(hb, vol_b, ha, vol_a, last_word, dying, trauma_b, trauma_a, rng)
            if trauma_a >= vol_a or trauma_b >= vol_b:
                break
        _tally(out, rounds, _level(trauma_a, vol_a), _level(trauma_b, vol_b), -1)
    return out


@njit(cache=True, nogil=True)
def _exchange(f: np.ndarray, table: np.ndarray, volume: int, r: np.ndarray, n: int,
              rng: np.random.Generator) -> np.ndarray:
    """n attacks on an unhurt defender of this Body volume; counts laid out as ``X_*``."""
    out = np.zeros(EXCHANGE_SIZE, dtype=np.int64)
    t = _attack_table(f, table, r)
    for _ in range(n):
        k = int(rng.random() * table.size)
        if not t[T_HIT, k]:
            out[X_MISS] += 1
            continue
        d = t[T_TRAUMA, k]
        out[X_HIT] += 1
        out[X_CRITICAL] += t[T_CRITICAL, k]
        out[X_OUT] += d >= volume
        out[X_DEAD] += d > 2 * volume
        out[X_SUM] += d
        out[X_SQUARES] += d * d
    return out


@njit(cache=True, nogil=True)
def _check(limit: int, table: np.ndarray, lo: int, hi: int, bonus: int, le: int, crits: int, n: int,
           rng: np.random.Generator) -> np.ndarray:
    """n rolls against a limit: successes, critical successes and failures, effectiveness histogram."""
    out = np.zeros(CHECK_SIZE, dtype=np.int64)
    for _ in range(n):
        success, e, crit, fumble = _outcome(_sample(table, rng), limit, lo, hi, bonus, le, crits)
        out[SUCCESS] += success
        out[CRITICAL] += crit
        out[FUMBLE] += fumble
        out[HIST + HIST_OFFSET + e] += 1
    return out


def check_call(rules: rules_mod.Rules, args: rules_mod.CheckArgs) -> Callable[[int, np.random.Generator], np.ndarray]:
    """The check kernel bound to a ruleset, a limit and a dice mode."""
    table = dice_table(args.dice)
    lo, hi, bonus = int(table.min()), int(table.max()), rules_mod.crit_bonus(args.dice)
    le, crits, limit = int(rules.success_rule == "le"), int(rules.crits), args.limit
    return lambda n, rng: _check(limit, table, lo, hi, bonus, le, crits, n, rng)


def duel_call(rules: rules_mod.Rules, a: rules_mod.Fighter, b: rules_mod.Fighter, model: str,
              options: Options) -> Callable[[int, np.random.Generator], np.ndarray]:
    """The duel kernel bound to a ruleset and two fighters (both models play the same rules)."""
    pa, pb, pr = pack_fighter(a, b), pack_fighter(b, a), pack_rules(rules)
    ta, tb = dice_table(a.dice), dice_table(b.dice)
    return lambda n, rng: _duel(pa, pb, ta, tb, pr, n, rng)


def exchange_call(rules: rules_mod.Rules, att: rules_mod.Fighter,
                  dfn: rules_mod.Fighter) -> Callable[[int, np.random.Generator], np.ndarray]:
    """One attack of ``att`` on an unhurt ``dfn``, for :func:`sims.engine.run_chunks` (counts as ``X_*``)."""
    pf, pr, table = pack_fighter(att, dfn), pack_rules(rules), dice_table(att.dice)
    return lambda n, rng: _exchange(pf, table, dfn.volume, pr, n, rng)
