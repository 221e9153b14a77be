"""К.У.Р.С.: numba kernels for checks, single attacks and duels.

The exact chain of :mod:`analysis.systems.kurs` already plays the written
duel in full: the first attacker by a 3dK + agility roll-off (ties re-rolled),
alternating attacks, the defense clamp, grazes, the type bonus, the box track
with overflow and the fatigue-soak policy, wound penalties on attack and
defense, and luck tokens held per fighter and spent exactly when a check fails
by 1..3 (one per side per attack); the cumulative -1 on extra defenses never
arises one-on-one.  So ``Options`` has no switch and the ``full`` and
``exact`` models run the same rules here; a round is one attack each, as in
the chain.  Every 3dK is one uniform drawn from the table of its equally
likely sums (any ``dk_faces``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from numba import njit

from analysis.params import ParamError, Validated
from analysis.systems import kurs as rules_mod

from .dice import _sample, outcome_table
from .results import (CHECK_SIZE, DUEL_SIZE, EXTRA, HIST, HIST_OFFSET, MAX_ROUNDS, SUCCESS, _tally)

# Packed fighter: attack skill, defense skill + shield, offensive and defensive damage factors, scale,
# weapon type bonus, agility.
F_ATTACK, F_DEFENSE_TOTAL, F_OFFENSE, F_DEFENSE, F_SCALE, F_TYPE_BONUS, F_AGILITY = range(7)
# Packed rules: defense clamp, luck tokens, wound penalty (0 sum, 1 worst, 2 local), fatigue soak,
# type bonus always, fixed graze.
R_CLAMP, R_LUCK, R_PENALTY, R_SOAK, R_TYPE_ALWAYS, R_GRAZE_FIXED = range(6)
PENALTY_MODES = ("sum", "worst", "local")
# Per-fighter state: marked fatigue, light, medium, heavy boxes, luck tokens left, wound penalty, status.
S_FATIGUE, S_LIGHT, S_MEDIUM, S_HEAVY, S_TOKENS, S_PENALTY, S_STATUS = range(7)
STATE_SIZE = 7
UP, OUT, DYING = 0, 1, 2
MISS, GRAZE, HIT = 0, 1, 2  # kinds of attack, in the order of X_MISS, X_GRAZE, X_HIT
FATIGUE_BOXES, LIGHT_BOXES = 4, 2
# Single-attack count layout: misses, grazes, hits, luck spent by the attacker and the defender, sum and sum of
# squares of damage, then the defender's condition after: fatigue*12 + light*4 + medium*2 + heavy while up,
# then incapacitated and dying.
X_MISS, X_GRAZE, X_HIT, X_LUCK_A, X_LUCK_D, X_SUM, X_SQUARES, X_CONDITION = range(8)
CONDITIONS = (FATIGUE_BOXES + 1) * (LIGHT_BOXES + 1) * 2 * 2
X_INCAPACITATED, X_DYING = X_CONDITION + CONDITIONS, X_CONDITION + CONDITIONS + 1
EXCHANGE_SIZE = X_DYING + 1

CHECK_EXTRAS = ("", "", "p_complication")


@dataclass(frozen=True)
class Options(Validated):
    """К.У.Р.С. has no rule the exact chain leaves out (soak and luck tokens are in it): nothing to switch."""

    where = "kurs simulation options"


SOAK_MODES = ("never", "when_lower", "when_lower_any")


def pack_rules(rules: rules_mod.Rules) -> np.ndarray:
    return np.array([rules.defense_clamp, rules.luck_tokens, PENALTY_MODES.index(rules.wound_penalty),
                     SOAK_MODES.index(rules.fatigue_soak), rules.type_bonus == "always", rules.graze == "fixed"],
                    dtype=np.int64)


def pack_fighters(a: rules_mod.Fighter, b: rules_mod.Fighter) -> np.ndarray:
    """Both fighters, one row each."""
    return np.array([[f.attack_skill, f.defense_skill + f.shield, f.offense, f.defense, f.scale, f.weapon_type_bonus,
                      f.agility] for f in (a, b)], dtype=np.int64)


def condition_label(code: int) -> str:
    """The defender's condition of an ``X_CONDITION`` code, as :func:`analysis.systems.kurs.condition_label` says it."""
    if code >= CONDITIONS:
        return ("incapacitated", "dying")[code - CONDITIONS]
    f, rest = divmod(code, 12)
    return rules_mod.condition_label((f, rest // 4, rest // 2 % 2, rest % 2, 0))


@njit(cache=True, nogil=True, inline="always")
def _level(damage: int) -> int:
    """The level a hit marks by the table (fatigue 0 ... dying 5); -1 below 1."""
    if damage <= 0:
        return -1
    if damage <= 2:
        return 0
    if damage <= 4:
        return 1
    if damage <= 6:
        return 2
    return min(damage - 4, 5)


@njit(cache=True, nogil=True, inline="always")
def _free(f: int, light: int, medium: int, heavy: int, level: int) -> int:
    """The first level from ``level`` up with a free box (incapacitated and dying always are)."""
    if level == 0 and f < FATIGUE_BOXES:
        return 0
    if level <= 1 and light < LIGHT_BOXES:
        return 1
    if level <= 2 and medium < 1:
        return 2
    if level <= 3 and heavy < 1:
        return 3
    return max(level, 4)


@njit(cache=True, nogil=True, inline="always")
def _penalty(light: int, medium: int, heavy: int, mode: int) -> int:
    """General penalties (light 0, medium 1, heavy 2) summed or the worst; local ones (1, 2, 3) summed."""
    if mode == 0:
        return medium + 2 * heavy
    if mode == 1:
        return 2 if heavy else (1 if medium else 0)
    return light + 2 * medium + 3 * heavy


@njit(cache=True, nogil=True, inline="always")
def _mark(s: np.ndarray, j: int, damage: int, r: np.ndarray) -> None:
    """Fighter ``j`` takes a hit: one box, the next heavier if full, a fatigue box soaking 1 when that is lighter
    (and, unless ``when_lower_any``, still a wound box)."""
    level = _level(damage)
    if level < 0:
        return
    f, light, medium, heavy = s[j, S_FATIGUE], s[j, S_LIGHT], s[j, S_MEDIUM], s[j, S_HEAVY]
    box = _free(f, light, medium, heavy, level)
    if r[R_SOAK] and damage >= 3 and f < FATIGUE_BOXES:
        soaked = _free(f + 1, light, medium, heavy, _level(damage - 1))
        if soaked < box and (soaked > 0 or r[R_SOAK] == 2):
            f += 1
            box = soaked
    if box == 0:
        f += 1
    elif box == 1:
        light += 1
    elif box == 2:
        medium += 1
    elif box == 3:
        heavy += 1
    else:
        s[j, S_STATUS] = OUT if box == 4 else DYING
    s[j, S_FATIGUE], s[j, S_LIGHT], s[j, S_MEDIUM], s[j, S_HEAVY] = f, light, medium, heavy
    s[j, S_PENALTY] = _penalty(light, medium, heavy, r[R_PENALTY])


@njit(cache=True, nogil=True, inline="always")
def _attack(fs: np.ndarray, s: np.ndarray, i: int, r: np.ndarray, table: np.ndarray,
            rng: np.random.Generator) -> tuple[int, int]:
    """Fighter ``i`` attacks the other: (kind, damage marked); luck tokens and the defender's boxes updated in ``s``.

    A luck token (+3) goes to a check failing by 1..3, at most one per side: the attack's on a miss,
    the defense's on a hit; a graze (margin 0) is a success with a complication for both.
    """
    j = 1 - i
    rd = _sample(table, rng)
    if r[R_CLAMP]:
        rd = rd if rd > 0 else (0 if rd >= -4 else -1)
    margin = (fs[i, F_ATTACK] + _sample(table, rng) - s[i, S_PENALTY]) - (fs[j, F_DEFENSE_TOTAL] + rd - s[j, S_PENALTY])
    tok_a, tok_d = s[i, S_TOKENS] > 0, s[j, S_TOKENS] > 0
    luck_a = luck_d = False
    while True:
        if tok_a and not luck_a and -3 <= margin < 0:
            margin += 3
            luck_a = True
        elif tok_d and not luck_d and 0 < margin <= 3:
            margin -= 3
            luck_d = True
        else:
            break
    s[i, S_TOKENS] -= luck_a
    s[j, S_TOKENS] -= luck_d
    if margin < 0:
        return MISS, 0
    base = fs[i, F_OFFENSE] - fs[j, F_DEFENSE]
    if margin == 0:
        cap = 1 + max(0, fs[i, F_SCALE] - fs[j, F_SCALE])
        kind, raw = GRAZE, (cap if r[R_GRAZE_FIXED] else min(cap, base))
    else:
        kind, raw = HIT, margin + base
        bonus = fs[i, F_TYPE_BONUS]
        if bonus > 0 and (r[R_TYPE_ALWAYS] or raw > 0):
            raw += bonus
    damage = max(raw, 0)
    _mark(s, j, damage, r)
    return kind, damage


@njit(cache=True, nogil=True, inline="always")
def _fresh(s: np.ndarray, tokens: int) -> None:
    s[:, :] = 0
    s[:, S_TOKENS] = tokens


@njit(cache=True, nogil=True)
def _duel(fs: np.ndarray, r: np.ndarray, table: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """n duels; counts laid out as in :mod:`sims.results`."""
    out = np.zeros(DUEL_SIZE, dtype=np.int64)
    s = np.zeros((2, STATE_SIZE), dtype=np.int64)
    ag_a, ag_b = fs[0, F_AGILITY], fs[1, F_AGILITY]
    coin = ag_a == ag_b and table.min() == table.max()  # the roll-off would tie for ever
    for _ in range(n):
        _fresh(s, r[R_LUCK])
        if coin:
            a_first = rng.random() < 0.5
        else:
            while True:
                ia, ib = _sample(table, rng) + ag_a, _sample(table, rng) + ag_b
                if ia != ib:
                    break
            a_first = ia > ib
        i = 0 if a_first else 1
        rounds = 0
        while True:
            rounds += 1
            if rounds > MAX_ROUNDS:
                break
            _attack(fs, s, i, r, table, rng)
            if s[1 - i, S_STATUS] == UP:
                _attack(fs, s, 1 - i, r, table, rng)
            if s[0, S_STATUS] != UP or s[1, S_STATUS] != UP:
                break
        _tally(out, rounds, s[0, S_STATUS], s[1, S_STATUS], -1)
    return out


@njit(cache=True, nogil=True)
def _exchange(fs: np.ndarray, r: np.ndarray, table: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """n attacks of unhurt fighter 0 on unhurt fighter 1 (every luck token); counts laid out as ``X_*``."""
    out = np.zeros(EXCHANGE_SIZE, dtype=np.int64)
    s = np.zeros((2, STATE_SIZE), dtype=np.int64)
    tokens = r[R_LUCK]
    for _ in range(n):
        _fresh(s, tokens)
        kind, damage = _attack(fs, s, 0, r, table, rng)
        out[X_MISS + kind] += 1
        out[X_LUCK_A] += s[0, S_TOKENS] < tokens
        out[X_LUCK_D] += s[1, S_TOKENS] < tokens
        out[X_SUM] += damage
        out[X_SQUARES] += damage * damage
        if s[1, S_STATUS] != UP:
            out[X_INCAPACITATED if s[1, S_STATUS] == OUT else X_DYING] += 1
        else:
            out[X_CONDITION + s[1, S_FATIGUE] * 12 + s[1, S_LIGHT] * 4 + s[1, S_MEDIUM] * 2 + s[1, S_HEAVY]] += 1
    return out


@njit(cache=True, nogil=True)
def _check(shift: int, luck: int, table: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """n one-sided actions: successes (complications included), complications, margin histogram."""
    out = np.zeros(CHECK_SIZE, dtype=np.int64)
    for _ in range(n):
        m = _sample(table, rng) + shift
        if luck and -3 <= m < 0:
            m += 3
        out[SUCCESS] += m >= 0
        out[EXTRA] += m == 0
        out[HIST + HIST_OFFSET + m] += 1
    return out


def dk_table(rules: rules_mod.Rules) -> np.ndarray:
    """The equally likely sums of 3dK."""
    return outcome_table(rules.dk_faces, 3)


def check_call(rules: rules_mod.Rules, args: rules_mod.CheckArgs) -> Callable[[int, np.random.Generator], np.ndarray]:
    """The check kernel bound to a ruleset and a one-sided action (luck: the first token, +3 on a failure by 1..3)."""
    table = dk_table(rules)
    shift, luck = args.skill + args.mod - args.difficulty, int(rules.luck_tokens > 0)
    if shift + table.min() < -HIST_OFFSET or shift + table.max() >= HIST_OFFSET:
        raise ParamError("skill + mod - difficulty", shift,
                         f"a sum whose margins stay within +-{HIST_OFFSET} (simulated histogram)", "kurs simulation")
    return lambda n, rng: _check(shift, luck, table, n, rng)


def duel_call(rules: rules_mod.Rules, a: rules_mod.Fighter, b: rules_mod.Fighter, model: str,
              options: Options) -> Callable[[int, np.random.Generator], np.ndarray]:
    """The duel kernel bound to a ruleset and two fighters (both models play the same rules)."""
    fs, pr, table = pack_fighters(a, b), pack_rules(rules), dk_table(rules)
    return lambda n, rng: _duel(fs, pr, table, n, rng)


def exchange_call(rules: rules_mod.Rules, att: rules_mod.Fighter,
                  dfn: rules_mod.Fighter) -> Callable[[int, np.random.Generator], np.ndarray]:
    """One attack of unhurt ``att`` on unhurt ``dfn``, for :func:`sims.engine.run_chunks` (counts as ``X_*``)."""
    fs, pr, table = pack_fighters(att, dfn), pack_rules(rules), dk_table(rules)
    return lambda n, rng: _exchange(fs, pr, table, n, rng)
