"""2K with the rule of 1 and 6: numba kernels for checks and duels, with the full timing rules.

Every die is one uniform (the two base dice share one, ``floor(36 u)``); a 6
adds 6 and calls an extra die, which follows ``extra_die_ones`` and
``explode_depth`` exactly as :func:`analysis.systems.onesix.die` does, so the
explosion is never truncated.

The exact chain of :mod:`analysis.systems.onesix` fixes the order of each
round by the average IN and lets each fighter attack once; ``Options``
switches on what it leaves out (all on in the ``full`` model, all off in the
``exact`` one, which then plays the chain's model move for move).

``in_economy`` -- the lab's reading of "Время в системе":

- a round is 6 s and one IN roll: IN = reflexes + 1d6 (a plain d6) + whatever
  carried over; ``rounds`` counts these rolls;
- inside a round the fighter with the higher current IN acts; equal IN acts
  simultaneously (both attacks read the fighters' conditions before either
  lands, as in the chain); after every action the comparison is made anew;
- an action takes effect when it starts (the seed resolves the poacher's
  attack at his count 14); an attack costs 6 IN, a parry 3 IN;
- a fighter attacks whenever it may: with IN >= 6, or with 4-5 left, when the
  attack starts now and its missing 1-2 IN come off the next roll (so every
  attack simply takes 6 and IN may go below 0);
- the round ends when neither fighter has 4 IN; the leftover (at most 3, or
  negative: the debt of an attack started with 4-5, or of a lost action)
  carries into the next roll;
- a defender with a parry rating parries every attack while it has at least
  3 IN, paying 3 whether or not the attack would have reached 15; with less it
  cannot parry (no debt for parries).  In a simultaneous exchange both first
  pay their attacks, then each parries if 3 IN are still left (attack + parry
  = the seed's 9 IN);
- no fighter waits or holds IN back for a parry (the seed's -1 IN for waiting
  at equal IN never arises).

``penalty_on_in``: IN is lowered by the condition penalty max(wounds, shock):
on the roll, and at once by the rise of the penalty when a hit lands
mid-round.  Without ``in_economy``, the round's order compares average IN
minus the penalty (equal: simultaneous).

``stopping_effect`` (levels of one hit > training) and ``pain_shock`` (a hit
of one class leaves that track above personality: the first time and every
further hit of that class) each cost the victim one action: 6 IN, any
shortfall carried into the next round as debt; without ``in_economy``, the
victim skips its next attack.  One hit costs at most one action even when it
triggers both (the seed's closing exchange: 4 Shock on the poacher, with the
lab's training 3 both effects, "for 6 IN he can do nothing").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from numba import njit

from analysis.params import Bool, Validated, param
from analysis.systems import onesix as rules_mod

from .results import (CHECK_SIZE, DEAD, DUEL_SIZE, DYING, EXTRA, FUMBLE, HIST, HIST_OFFSET, MAX_ROUNDS, OUT, SUCCESS, UP,
                      _tally)

THRESHOLD, FUMBLE_BELOW = rules_mod.THRESHOLD, rules_mod.FUMBLE_BELOW
TRACK_MAX, SHOCK_CAP, DEATH = rules_mod.TRACK_MAX, rules_mod.SHOCK_CAP, rules_mod.DEATH
WOUND, SHOCK, BALLISTIC = 0, 1, 2
ATTACK_COST, PARRY_COST, ACTION_LOST = 6, 3, 6
START_MIN = 4
"""The least IN that may start an attack (4-5: it finishes next round)."""

# Packed fighter (an int64 row; a tuple inside the kernels): attack and parry ratings, reflexes, training,
# personality, armor, protection, weapon PS and class.
F_ATTACK, F_DEFENSE, F_REFLEXES, F_TRAINING, F_PERSONALITY, F_ARMOR, F_PROTECTION, F_PS, F_CLASS = range(9)
# Packed rules: an extra die's 1 counts, explode depth (-1: unlimited), excess over the defense RT, armor wear.
R_ONES, R_DEPTH, R_EXCESS_DEFENSE, R_WEAR = range(4)
# Packed options.
O_ECONOMY, O_PENALTY_IN, O_STOPPING, O_PAIN = range(4)
# A fighter's state, a tuple: wounds, shock, armor wear, current IN (economy), attacks to skip (fixed order).
S_WOUNDS, S_SHOCK, S_WEAR, S_IN, S_SKIP = range(5)
FRESH = (0, 0, 0, 0, 0)

CHECK_EXTRAS = ("", "p_fumble", "p_equipment_fault")


@dataclass(frozen=True)
class Options(Validated):
    """The 2K rules the exact chain leaves out (see the module docstring for the lab's reading)."""

    where = "onesix simulation options"
    in_economy: bool = param(True, Bool(), "IN = reflexes + 1d6 each round; highest IN acts; attack 6 IN, parry 3 IN, "
                                           "leftover <= 3 carries, 4-5 starts an attack finished next round")
    penalty_on_in: bool = param(True, Bool(), "the condition penalty max(wounds, shock) lowers IN too")
    stopping_effect: bool = param(True, Bool(), "levels of one hit > training: the victim loses one action (6 IN)")
    pain_shock: bool = param(True, Bool(), "wounds or shock above personality: one action lost, again on every "
                                           "further hit of that class")


def pack_rules(rules: rules_mod.Rules) -> np.ndarray:
    depth = -1 if rules.explode_depth is None else rules.explode_depth
    return np.array([rules.extra_die_ones == "count", depth, rules.excess_over == "defense", rules.armor_wear],
                    dtype=np.int64)


def pack_fighters(a: rules_mod.Fighter, b: rules_mod.Fighter) -> np.ndarray:
    """Both fighters, one row each."""
    return np.array([[f.attack_rating, f.defense_rating, f.total_reflexes(), f.training, f.personality, f.armor,
                      f.protection, f.weapon_ps, rules_mod.WEAPON_CLASSES.index(f.weapon_class)] for f in (a, b)],
                    dtype=np.int64)


def pack_options(options: Options) -> np.ndarray:
    return np.array([options.in_economy, options.penalty_on_in, options.stopping_effect, options.pain_shock],
                    dtype=np.int64)


@njit(cache=True, nogil=True)
def _two_k(ones: int, depth: int, rng: np.random.Generator) -> tuple[int, bool]:
    """One 2K roll: (total, both base dice showed 1).

    Each base 6 calls extra dice until one is not a 6 or ``depth`` are rolled
    (``depth`` < 0: unlimited); an extra die's 1 adds ``ones``.
    """
    k = int(rng.random() * 36.0)
    d1, d2 = k // 6 + 1, k % 6 + 1
    total = (d1 if d1 > 1 else 0) + (d2 if d2 > 1 else 0)
    for _ in range((d1 == 6) + (d2 == 6)):
        rolled = 0
        while depth < 0 or rolled < depth:
            rolled += 1
            face = int(rng.random() * 6.0) + 1
            if face != 6:
                total += face if face > 1 else ones
                break
            total += 6
    return total, k == 0


@njit(cache=True, nogil=True)
def _check(shift: int, skilled: bool, r: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """n tests RT = shift + 2K: successes, RT < 6, double ones, success-level histogram."""
    out = np.zeros(CHECK_SIZE, dtype=np.int64)
    ones, depth = r[R_ONES], r[R_DEPTH]
    for _ in range(n):
        v, double_one = _two_k(ones, depth, rng)
        rt = shift + v
        u = 0
        if rt >= THRESHOLD:
            u = 1 + (rt - THRESHOLD) // 3 if skilled else 1
            out[SUCCESS] += 1
        out[FUMBLE] += rt < FUMBLE_BELOW
        out[EXTRA] += double_one
        out[HIST + HIST_OFFSET + min(u, HIST_OFFSET - 1)] += 1
    return out


@njit(cache=True, nogil=True)
def _penalty(st: tuple) -> int:
    return max(st[S_WOUNDS], st[S_SHOCK])


@njit(cache=True, nogil=True)
def _is_out(st: tuple) -> bool:
    return st[S_WOUNDS] > TRACK_MAX or st[S_SHOCK] > TRACK_MAX


@njit(cache=True, nogil=True)
def _level(st: tuple) -> int:
    """UP, OUT, DYING (Wounds 7-9) or DEAD (10 Wounds)."""
    if st[S_WOUNDS] >= DEATH:
        return DEAD
    if st[S_WOUNDS] > TRACK_MAX:
        return DYING
    return OUT if st[S_SHOCK] > TRACK_MAX else UP


@njit(cache=True, nogil=True)
def _spend(st: tuple, cost: int) -> tuple:
    """The state with ``cost`` IN spent."""
    return st[S_WOUNDS], st[S_SHOCK], st[S_WEAR], st[S_IN] - cost, st[S_SKIP]


@njit(cache=True, nogil=True)
def _strike(att: tuple, pen_a: int, dfn: tuple, st: tuple, parry: bool, r: tuple, o: tuple,
            rng: np.random.Generator) -> tuple[int, int, int, int]:
    """``att`` (penalty ``pen_a``) attacks ``dfn`` in state ``st``.

    Returns the defender's (wounds, shock, wear) after it and 1 if the hit costs it an action.
    """
    w, s, wear = st[S_WOUNDS], st[S_SHOCK], st[S_WEAR]
    rt_a = att[F_ATTACK] - pen_a + _two_k(r[R_ONES], r[R_DEPTH], rng)[0]
    if rt_a < THRESHOLD:
        return w, s, wear, 0
    base = THRESHOLD
    if parry:
        rt_d = dfn[F_DEFENSE] - max(w, s) + _two_k(r[R_ONES], r[R_DEPTH], rng)[0]
        if rt_a <= rt_d:
            return w, s, wear, 0
        if r[R_EXCESS_DEFENSE]:
            base = rt_d
    power = att[F_PS] + rt_a - base
    armor = max(dfn[F_ARMOR] - wear, 0)
    levels = max(-((dfn[F_TRAINING] + armor - power) // 3), 0)
    cls = att[F_CLASS]
    if cls == BALLISTIC:
        cls = WOUND if power > max(dfn[F_PROTECTION] - wear, 0) else SHOCK
    if r[R_WEAR] and armor > 0:
        step = 3 if power >= 2 * armor else (1 if power >= armor else 0)
        wear = min(wear + step, dfn[F_ARMOR])
    if cls == WOUND:
        w += levels
    else:
        s += levels
    over = max(s - SHOCK_CAP, 0)
    w += over
    s -= over
    stopped = o[O_STOPPING] != 0 and levels > dfn[F_TRAINING]
    pained = o[O_PAIN] != 0 and levels > 0 and (w if cls == WOUND else s) > dfn[F_PERSONALITY]
    return w, s, wear, int(stopped or pained)


@njit(cache=True, nogil=True)
def _land(st: tuple, w: int, s: int, wear: int, lost: int, o: tuple) -> tuple:
    """The state after a strike: new tracks; IN lowered by the penalty's rise and a lost action, or a skip."""
    ini, skip = st[S_IN], st[S_SKIP]
    if o[O_ECONOMY]:
        if o[O_PENALTY_IN]:
            ini -= max(w, s) - _penalty(st)
        ini -= ACTION_LOST * lost
    else:
        skip += lost
    return w, s, wear, ini, skip


@njit(cache=True, nogil=True)
def _one(att: tuple, sa: tuple, dfn: tuple, sd: tuple, r: tuple, o: tuple,
         rng: np.random.Generator) -> tuple[tuple, tuple]:
    """``att`` attacks alone: (its state, the defender's) after; in the IN economy 6 IN, and 3 IN for a parry."""
    parry = dfn[F_DEFENSE] > 0
    if o[O_ECONOMY]:
        sa = _spend(sa, ATTACK_COST)
        parry = parry and sd[S_IN] >= PARRY_COST
        if parry:
            sd = _spend(sd, PARRY_COST)
    w, s, wear, lost = _strike(att, _penalty(sa), dfn, sd, parry, r, o, rng)
    return sa, _land(sd, w, s, wear, lost, o)


@njit(cache=True, nogil=True)
def _both(f0: tuple, s0: tuple, f1: tuple, s1: tuple, act0: bool, act1: bool, r: tuple, o: tuple,
          rng: np.random.Generator) -> tuple[tuple, tuple]:
    """Simultaneous attacks of the fighters with ``act``: both read the conditions before either lands."""
    parry0, parry1 = f0[F_DEFENSE] > 0, f1[F_DEFENSE] > 0
    if o[O_ECONOMY]:
        s0, s1 = _spend(s0, ATTACK_COST), _spend(s1, ATTACK_COST)
        parry0 = parry0 and s0[S_IN] >= PARRY_COST
        parry1 = parry1 and s1[S_IN] >= PARRY_COST
        s0, s1 = _spend(s0, PARRY_COST * parry0), _spend(s1, PARRY_COST * parry1)
    w1, sh1, wear1, lost1 = s1[S_WOUNDS], s1[S_SHOCK], s1[S_WEAR], 0
    w0, sh0, wear0, lost0 = s0[S_WOUNDS], s0[S_SHOCK], s0[S_WEAR], 0
    if act0:
        w1, sh1, wear1, lost1 = _strike(f0, _penalty(s0), f1, s1, parry1, r, o, rng)
    if act1:
        w0, sh0, wear0, lost0 = _strike(f1, _penalty(s1), f0, s0, parry0, r, o, rng)
    return _land(s0, w0, sh0, wear0, lost0, o), _land(s1, w1, sh1, wear1, lost1, o)


@njit(cache=True, nogil=True)
def _turn(st: tuple) -> tuple[tuple, bool]:
    """Fixed order: whether the fighter attacks now, or spends the turn making up a lost action."""
    if st[S_SKIP]:
        return (st[S_WOUNDS], st[S_SHOCK], st[S_WEAR], st[S_IN], st[S_SKIP] - 1), False
    return st, True


@njit(cache=True, nogil=True)
def _in_order(first: tuple, sf: tuple, second: tuple, ss: tuple, r: tuple, o: tuple,
              rng: np.random.Generator) -> tuple[tuple, tuple]:
    """Fixed order: ``first`` attacks, then ``second`` if still up; (first's state, second's) after."""
    sf, acts = _turn(sf)
    if acts:
        sf, ss = _one(first, sf, second, ss, r, o, rng)
    if not _is_out(ss):
        ss, acts = _turn(ss)
        if acts:
            ss, sf = _one(second, ss, first, sf, r, o, rng)
    return sf, ss


@njit(cache=True, nogil=True)
def _fixed_round(f0: tuple, s0: tuple, f1: tuple, s1: tuple, r: tuple, o: tuple,
                 rng: np.random.Generator) -> tuple[tuple, tuple]:
    """One round of the exact chain's model: the higher average IN (reflexes + 3) first; equal: simultaneously."""
    i0, i1 = f0[F_REFLEXES], f1[F_REFLEXES]
    if o[O_PENALTY_IN]:
        i0, i1 = i0 - _penalty(s0), i1 - _penalty(s1)
    if i0 > i1:
        return _in_order(f0, s0, f1, s1, r, o, rng)
    if i1 > i0:
        s1, s0 = _in_order(f1, s1, f0, s0, r, o, rng)
        return s0, s1
    s0, act0 = _turn(s0)
    s1, act1 = _turn(s1)
    return _both(f0, s0, f1, s1, act0, act1, r, o, rng)


@njit(cache=True, nogil=True)
def _economy_round(f0: tuple, s0: tuple, f1: tuple, s1: tuple, r: tuple, o: tuple,
                   rng: np.random.Generator) -> tuple[tuple, tuple]:
    """One 6-second round of the IN economy: roll IN, act by the highest IN until neither has 4, carry the rest."""
    pen_in = o[O_PENALTY_IN] != 0
    s0 = _spend(s0, -(f0[F_REFLEXES] + int(rng.random() * 6.0) + 1 - pen_in * _penalty(s0)))
    s1 = _spend(s1, -(f1[F_REFLEXES] + int(rng.random() * 6.0) + 1 - pen_in * _penalty(s1)))
    while True:
        in0, in1 = s0[S_IN], s1[S_IN]
        can0, can1 = in0 >= START_MIN, in1 >= START_MIN
        if can0 and can1 and in0 == in1:
            s0, s1 = _both(f0, s0, f1, s1, True, True, r, o, rng)
        elif can0 and (not can1 or in0 > in1):
            s0, s1 = _one(f0, s0, f1, s1, r, o, rng)
        elif can1:
            s1, s0 = _one(f1, s1, f0, s0, r, o, rng)
        else:
            return s0, s1
        if _is_out(s0) or _is_out(s1):
            return s0, s1


@njit(cache=True, nogil=True)
def _fighter(fs: np.ndarray, i: int) -> tuple:
    """Row ``i`` of the packed fighters as a tuple."""
    return (fs[i, 0], fs[i, 1], fs[i, 2], fs[i, 3], fs[i, 4], fs[i, 5], fs[i, 6], fs[i, 7], fs[i, 8])


@njit(cache=True, nogil=True)
def _duel(fs: np.ndarray, rules: np.ndarray, options: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """n duels; counts laid out as in :mod:`sims.results`."""
    out = np.zeros(DUEL_SIZE, dtype=np.int64)
    f0, f1 = _fighter(fs, 0), _fighter(fs, 1)
    r = (rules[0], rules[1], rules[2], rules[3])
    o = (options[0], options[1], options[2], options[3])
    for _ in range(n):
        s0, s1 = FRESH, FRESH
        rounds = 0
        while True:
            rounds += 1
            if rounds > MAX_ROUNDS:
                break
            if o[O_ECONOMY]:
                s0, s1 = _economy_round(f0, s0, f1, s1, r, o, rng)
            else:
                s0, s1 = _fixed_round(f0, s0, f1, s1, r, o, rng)
            if _is_out(s0) or _is_out(s1):
                break
        _tally(out, rounds, _level(s0), _level(s1), -1)
    return out


def check_call(rules: rules_mod.Rules, args: rules_mod.CheckArgs) -> Callable[[int, np.random.Generator], np.ndarray]:
    """The check kernel bound to a ruleset and a test (success levels past the histogram are counted at its top)."""
    shift, skilled, pr = args.rating + args.mod, bool(args.skilled), pack_rules(rules)
    return lambda n, rng: _check(shift, skilled, pr, n, rng)


def duel_call(rules: rules_mod.Rules, a: rules_mod.Fighter, b: rules_mod.Fighter, model: str,
              options: Options) -> Callable[[int, np.random.Generator], np.ndarray]:
    """The duel kernel bound to a ruleset, two fighters and the rule switches (``options`` already says the model)."""
    fs, pr, po = pack_fighters(a, b), pack_rules(rules), pack_options(options)
    return lambda n, rng: _duel(fs, pr, po, n, rng)
