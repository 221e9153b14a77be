"""2K with the rule of 1 and 6: numba kernels for checks and duels, the same rules as the exact chain.

Every die is one uniform; a 6 adds 6 and calls an extra die, which follows
``extra_die_ones`` and ``explode_depth`` exactly as :func:`analysis.systems.onesix.die`
does, so no explosion is ever cut.  A duel plays the ruleset as
:mod:`analysis.systems.onesix.steps` states it: the IN economy (``in_economy``;
``false``: the fixed order, one attack each per round by average IN - penalty),
then, under ``after_out = finish``, the winner's unopposed attacks on the helpless
one.  Rule switches are ruleset fields now, so ``Options`` is empty and the
``full`` and ``exact`` models play the same rules.  A landed hit (conditions, lost
actions, IN lost) is :func:`analysis.systems.onesix.steps._land`, shared with the
exact chain; the order of a round, the parries (in time, none against a
simultaneous attack unless ``simultaneous_parry``), the gear faults (a weapon
broken in the fight: fists, and the winner finishes with what it has) and the
dice are this module's own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from numba import njit

from analysis.systems.onesix import rules as rules_mod
from analysis.systems.onesix import steps
from analysis.systems.onesix.steps import (
    P_AMIN,
    P_COST,
    P_DEATH,
    P_PARRY,
    P_SIMPARRY,
    P_TRACK,
    P_WINDOW,
    _carry,
    _land,
    in_depth,
)
from sims.dice import _unowned
from sims.options import SimOptions
from sims.results import (
    CHECK_SIZE,
    DEAD,
    DUEL_SIZE,
    DYING,
    EXTRA,
    FUMBLE,
    HIST,
    HIST_OFFSET,
    MAX_ROUNDS,
    OUT,
    SUCCESS,
    UP,
    _tally,
)

# Packed fighter (an int64 row): attack and parry ratings, reflexes, training, personality, armor, protection,
# weapon PS and class, whether it parries (policy and a rating), average IN, how far its armor can wear, its
# weapon's reliability rating and whether a gear fault can break it.
(F_ATTACK, F_DEFENSE, F_REFLEXES, F_TRAINING, F_PERSONALITY, F_ARMOR, F_PROTECTION, F_PS, F_CLASS, F_PARRIES,
 F_AVERAGE, F_MAXWEAR, F_GEAR, F_BREAKABLE) = range(14)
WOUND, SHOCK, BALLISTIC = 0, 1, 2
# Packed test rules: dice, an extra die's 1, explode depth (-1: unlimited), threshold, level step, unskilled cap,
# fumble line, excess over the defense RT, armor wear and its steps, damage step, ballistic power (0 total,
# 1 weapon), 1K a plain d6, IN economy, finishing, lethal level, finishing attacks, 1K's explode depth (-1:
# unlimited, 0 under one_zero), gear faults (in the IN economy).
(R_DICE, R_ONES, R_DEPTH, R_THRESHOLD, R_STEP, R_UNSKILLED, R_FUMBLE, R_EXCESS_DEFENSE, R_WEAR, R_WEAR_STEP,
 R_WEAR_DOUBLE, R_DAMAGE_STEP, R_BALLISTIC_WEAPON, R_D6, R_ECONOMY, R_FINISH, R_LETHAL, R_FINISH_ATTACKS, R_IN_DEPTH,
 R_GEAR) = range(20)

CHECK_EXTRAS = ("", "p_fumble", "p_equipment_fault")


@dataclass(frozen=True)
class Options(SimOptions):
    """2K has no rule the exact chain leaves out (the IN economy is in it): every switch is a ruleset field."""

    where = "onesix simulation options"


def pack_rules(rules: rules_mod.Rules) -> np.ndarray:
    depth = -1 if rules.explode_depth is None else rules.explode_depth
    one_k = -1 if in_depth(rules) is None else in_depth(rules)
    lethal = DEAD if rules.lethal_at == "dead" else DYING
    return np.array([rules.test_dice, rules.extra_die_ones == "count", depth, rules.success_threshold,
                     rules.level_step, rules.unskilled_max_level, rules.fumble_below, rules.excess_over == "defense",
                     rules.armor_wear, rules.wear_step, rules.wear_double_step, rules.damage_step,
                     rules.ballistic_power == "weapon", rules.in_die == "d6", rules.in_economy,
                     rules.after_out == "finish", lethal, rules.finish_attacks, one_k,
                     rules.gear_faults and rules.in_economy], dtype=np.int64)


def pack_fighters(rules: rules_mod.Rules, a: rules_mod.Fighter, b: rules_mod.Fighter) -> np.ndarray:
    """Both fighters, one row each."""
    return np.array([[f.attack_rating, f.defense_rating, f.total_reflexes(), f.training, f.personality, f.armor,
                      f.protection, f.weapon_ps, rules_mod.WEAPON_CLASSES.index(f.weapon_class), f.parries(),
                      f.average_in(rules), rules_mod.max_wear(rules, f), f.gear_rating, f.breakable(rules)]
                     for f in (a, b)], dtype=np.int64)


@njit(cache=True, nogil=True)
def _die(first: bool, ones: int, depth: int, rng: np.random.Generator) -> int:
    """One die under the rule of 1 and 6 with the extra dice its sixes call, at most ``depth`` of them (``depth`` < 0:
    no limit): a first die's 1 adds 0, an extra die's ``ones``."""
    total = 0
    extra = not first
    left = depth
    while True:
        face = int(rng.random() * 6.0) + 1
        if face != 6:
            return total + (face if face > 1 else (ones if extra else 0))
        total += 6
        if left == 0:
            return total
        left -= 1
        extra = True


@njit(cache=True, nogil=True)
def _two_k(r: np.ndarray, rng: np.random.Generator) -> tuple[int, bool]:
    """One test roll: (total, every base die showed 1)."""
    total = 0
    ones = True
    for _ in range(r[R_DICE]):
        face = int(rng.random() * 6.0) + 1
        ones = ones and face == 1
        if face == 6:
            total += 6
            if r[R_DEPTH] != 0:
                total += _die(False, r[R_ONES], r[R_DEPTH] - 1, rng)
        elif face > 1:
            total += face
    return total, ones


@njit(cache=True, nogil=True)
def _one_k(r: np.ndarray, rng: np.random.Generator) -> int:
    """1K of the IN roll: one die under the rule of 1 and 6 (its own explosion depth; 0 under one_zero), or a
    plain d6."""
    if r[R_D6]:
        return int(rng.random() * 6.0) + 1
    return _die(True, r[R_ONES], r[R_IN_DEPTH], rng)


@njit(cache=True, nogil=True)
def _check(shift: int, skilled: bool, r: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """n tests RT = shift + 2K: successes, RT below the fumble line, all ones, success-level histogram."""
    out = np.zeros(CHECK_SIZE, dtype=np.int64)
    for _ in range(n):
        v, all_ones = _two_k(r, rng)
        rt = shift + v
        u = 0
        if rt >= r[R_THRESHOLD]:
            u = 1 + (rt - r[R_THRESHOLD]) // r[R_STEP]
            if not skilled:
                u = min(u, r[R_UNSKILLED])
            out[SUCCESS] += 1
        out[FUMBLE] += rt < r[R_FUMBLE]
        out[EXTRA] += all_ones
        out[HIST + HIST_OFFSET + min(u, HIST_OFFSET - 1)] += 1
    return out


@njit(cache=True, nogil=True)
def _strike(att: np.ndarray, pen_a: int, dfn: np.ndarray, pen_d: int, wear: int, parry: bool, armed: bool,
            test: bool, r: np.ndarray, rng: np.random.Generator) -> tuple[int, int, int, bool]:
    """``att`` (penalty ``pen_a``; with its weapon if ``armed``, else its fists) attacks ``dfn`` (penalty
    ``pen_d``, armor worn by ``wear``), which parries or not: (levels, class, wear step) of the hit, levels -1 when
    nothing lands, and whether the weapon broke (``test``: an equipment fault tests it, after the blow)."""
    roll, ones = _two_k(r, rng)
    broke = test and armed and ones and att[F_BREAKABLE] != 0 and att[F_GEAR] + _two_k(r, rng)[0] < r[R_THRESHOLD]
    rt_a = att[F_ATTACK] - pen_a + roll
    if rt_a < r[R_THRESHOLD]:
        return -1, 0, 0, broke
    base = r[R_THRESHOLD]
    if parry:
        rt_d = dfn[F_DEFENSE] - pen_d + _two_k(r, rng)[0]
        if rt_a <= rt_d:
            return -1, 0, 0, broke
        if r[R_EXCESS_DEFENSE]:
            base = rt_d
    ps = att[F_PS] if armed else att[F_TRAINING]
    power = ps + rt_a - base
    armor = max(dfn[F_ARMOR] - wear, 0)
    levels = max(-((dfn[F_TRAINING] + armor - power) // r[R_DAMAGE_STEP]), 0)
    cls = att[F_CLASS] if armed else SHOCK
    if cls == BALLISTIC:
        decisive = ps if r[R_BALLISTIC_WEAPON] else power
        cls = WOUND if decisive > max(dfn[F_PROTECTION] - wear, 0) else SHOCK
    step = 0
    if r[R_WEAR] and armor > 0:
        step = r[R_WEAR_DOUBLE] if power >= 2 * armor else (r[R_WEAR_STEP] if power >= armor else 0)
    return levels, cls, step, broke


@njit(cache=True, nogil=True)
def _level(c: np.ndarray, pr: np.ndarray) -> int:
    """UP, OUT, DYING (Wounds past the track) or DEAD of a condition (wounds, shock, wear)."""
    if c[0] >= pr[P_DEATH]:
        return DEAD
    if c[0] > pr[P_TRACK]:
        return DYING
    return OUT if c[1] > pr[P_TRACK] else UP


@njit(cache=True, nogil=True)
def _hit(att: np.ndarray, pen_a: int, dfn: np.ndarray, cd: np.ndarray, parry: bool, armed: bool, test: bool,
         r: np.ndarray, pr: np.ndarray, rng: np.random.Generator) -> tuple[int, bool]:
    """One attack (the attacker's penalty ``pen_a``, its weapon or fists) on the condition ``cd`` (updated in
    place): the IN the defender loses at once, and whether the attacker's weapon broke."""
    levels, cls, step, broke = _strike(att, pen_a, dfn, max(cd[0], cd[1]), cd[2], parry, armed, test, r, rng)
    if levels < 0 or (levels == 0 and step == 0):
        return 0, broke
    w, s, k, drop = _land(cd[0], cd[1], cd[2], levels, cls, step, dfn[F_TRAINING], dfn[F_PERSONALITY], dfn[F_MAXWEAR],
                          pr)
    cd[0], cd[1], cd[2] = w, s, k
    return drop, broke


@njit(cache=True, nogil=True)
def _economy_round(fa: np.ndarray, ca: np.ndarray, fb: np.ndarray, cb: np.ndarray, carry: np.ndarray,
                   arms: np.ndarray, r: np.ndarray, pr: np.ndarray, rng: np.random.Generator) -> None:
    """One 6-second round: roll IN, the highest attacks until nobody has the IN, carry the rest (in place; ``arms``:
    whether each weapon is intact)."""
    ina = fa[F_REFLEXES] - max(ca[0], ca[1]) + carry[0] + _one_k(r, rng)
    inb = fb[F_REFLEXES] - max(cb[0], cb[1]) + carry[1] + _one_k(r, rng)
    test = r[R_GEAR] != 0
    while max(ina, inb) >= pr[P_AMIN]:
        pen_a, pen_b = max(ca[0], ca[1]), max(cb[0], cb[1])
        armed_a, armed_b = arms[0] != 0, arms[1] != 0
        if ina == inb:
            ina -= pr[P_COST]
            inb -= pr[P_COST]
            parry_a = pr[P_SIMPARRY] != 0 and fa[F_PARRIES] != 0 and ina >= pr[P_PARRY]
            parry_b = pr[P_SIMPARRY] != 0 and fb[F_PARRIES] != 0 and inb >= pr[P_PARRY]
            ina -= pr[P_PARRY] * parry_a
            inb -= pr[P_PARRY] * parry_b
            before_b = (cb[0], cb[1], cb[2])
            drop_b, broke_a = _hit(fa, pen_a, fb, cb, parry_b, armed_a, test, r, pr, rng)
            after_b = (cb[0], cb[1], cb[2])
            cb[0], cb[1], cb[2] = before_b
            drop_a, broke_b = _hit(fb, pen_b, fa, ca, parry_a, armed_b, test, r, pr, rng)
            cb[0], cb[1], cb[2] = after_b
            ina -= drop_a
            inb -= drop_b
            arms[0] = arms[0] and not broke_a
            arms[1] = arms[1] and not broke_b
        elif ina > inb:
            parry = fb[F_PARRIES] != 0 and inb >= pr[P_PARRY] and ina - inb <= pr[P_WINDOW]
            ina -= pr[P_COST]
            inb -= pr[P_PARRY] * parry
            drop, broke = _hit(fa, pen_a, fb, cb, parry, armed_a, test, r, pr, rng)
            inb -= drop
            arms[0] = arms[0] and not broke
        else:
            parry = fa[F_PARRIES] != 0 and ina >= pr[P_PARRY] and inb - ina <= pr[P_WINDOW]
            inb -= pr[P_COST]
            ina -= pr[P_PARRY] * parry
            drop, broke = _hit(fb, pen_b, fa, ca, parry, armed_b, test, r, pr, rng)
            ina -= drop
            arms[1] = arms[1] and not broke
        if _level(ca, pr) != UP or _level(cb, pr) != UP:
            return
    carry[0], carry[1] = _carry(ina, pr), _carry(inb, pr)


@njit(cache=True, nogil=True)
def _fixed_round(fa: np.ndarray, ca: np.ndarray, fb: np.ndarray, cb: np.ndarray, r: np.ndarray, pr: np.ndarray,
                 rng: np.random.Generator) -> None:
    """``in_economy = false``: one attack each, the higher average IN - penalty first (the other answers if still
    up), equal at once; a defender parries by its policy; no IN is spent, no weapon breaks (in place)."""
    pen_a, pen_b = max(ca[0], ca[1]), max(cb[0], cb[1])
    key_a, key_b = fa[F_AVERAGE] - pen_a, fb[F_AVERAGE] - pen_b
    if key_a == key_b:
        before_b = (cb[0], cb[1], cb[2])
        _hit(fa, pen_a, fb, cb, fb[F_PARRIES] != 0, True, False, r, pr, rng)
        after_b = (cb[0], cb[1], cb[2])
        cb[0], cb[1], cb[2] = before_b
        _hit(fb, pen_b, fa, ca, fa[F_PARRIES] != 0, True, False, r, pr, rng)
        cb[0], cb[1], cb[2] = after_b
    elif key_a > key_b:
        _hit(fa, pen_a, fb, cb, fb[F_PARRIES] != 0, True, False, r, pr, rng)
        if _level(cb, pr) == UP:
            _hit(fb, max(cb[0], cb[1]), fa, ca, fa[F_PARRIES] != 0, True, False, r, pr, rng)
    else:
        _hit(fb, pen_b, fa, ca, fa[F_PARRIES] != 0, True, False, r, pr, rng)
        if _level(ca, pr) == UP:
            _hit(fa, max(ca[0], ca[1]), fb, cb, fb[F_PARRIES] != 0, True, False, r, pr, rng)


@njit(cache=True, nogil=True)
def _finish(att: np.ndarray, pen: int, armed: bool, dfn: np.ndarray, cd: np.ndarray, r: np.ndarray, pr: np.ndarray,
            rng: np.random.Generator) -> int:
    """``after_out = finish``: unopposed attacks (no parry, the attacker's penalty fixed, its weapon as the fight
    left it, no gear test) on the helpless one until it reaches the lethal level or the attacks run out; how many
    were made."""
    made = 0
    while made < r[R_FINISH_ATTACKS] and _level(cd, pr) < r[R_LETHAL]:
        _hit(att, pen, dfn, cd, False, armed, False, r, pr, rng)
        made += 1
    return made


@njit(cache=True, nogil=True)
def _duel(fs: np.ndarray, r: np.ndarray, pr: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """n duels; counts laid out as in :mod:`sims.results`."""
    fs, r, pr, rng = _unowned(fs), _unowned(r), _unowned(pr), _unowned(rng)  # no reference counts in the loop
    out = np.zeros(DUEL_SIZE, dtype=np.int64)
    fa, fb = fs[0], fs[1]
    ca = np.zeros(3, dtype=np.int64)
    cb = np.zeros(3, dtype=np.int64)
    carry = np.zeros(2, dtype=np.int64)
    arms = np.ones(2, dtype=np.int64)
    for _ in range(n):
        ca[:] = 0
        cb[:] = 0
        carry[:] = 0
        arms[:] = 1
        rounds = 0
        while True:
            rounds += 1
            if rounds > MAX_ROUNDS:
                break
            if r[R_ECONOMY]:
                _economy_round(fa, ca, fb, cb, carry, arms, r, pr, rng)
            else:
                _fixed_round(fa, ca, fb, cb, r, pr, rng)
            if _level(ca, pr) != UP or _level(cb, pr) != UP:
                break
        _settle(out, rounds, fa, ca, fb, cb, arms, r, pr, rng)
    return out


@njit(cache=True, nogil=True)
def _settle(out: np.ndarray, rounds: int, fa: np.ndarray, ca: np.ndarray, fb: np.ndarray, cb: np.ndarray,
            arms: np.ndarray, r: np.ndarray, pr: np.ndarray, rng: np.random.Generator) -> None:
    """A fight over after ``rounds``: under ``after_out = finish`` the winner's finishing attacks, then its
    count (in ``out``)."""
    finish = -1
    a_up, b_up = _level(ca, pr) == UP, _level(cb, pr) == UP
    if r[R_FINISH] and a_up != b_up and rounds <= MAX_ROUNDS:
        if a_up:
            finish = _finish(fa, max(ca[0], ca[1]), arms[0] != 0, fb, cb, r, pr, rng)
        else:
            finish = _finish(fb, max(cb[0], cb[1]), arms[1] != 0, fa, ca, r, pr, rng)
    _tally(out, rounds, _level(ca, pr), _level(cb, pr), finish)


def check_call(rules: rules_mod.Rules, args: rules_mod.CheckArgs) -> Callable[[int, np.random.Generator], np.ndarray]:
    """The check kernel bound to a ruleset and a test (success levels past the histogram are counted at its top)."""
    shift, skilled, r = args.rating + args.mod, bool(args.skilled), pack_rules(rules)
    return lambda n, rng: _check(shift, skilled, r, n, rng)


def duel_call(rules: rules_mod.Rules, a: rules_mod.Fighter, b: rules_mod.Fighter, model: str,
              options: Options) -> Callable[[int, np.random.Generator], np.ndarray]:
    """The duel kernel bound to a ruleset and two fighters (both models play the ruleset as it is)."""
    fs, r, pr = pack_fighters(rules, a, b), pack_rules(rules), steps.pack_rules(rules, a, b)
    return lambda n, rng: _duel(fs, r, pr, n, rng)
