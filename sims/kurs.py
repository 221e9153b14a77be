"""К.У.Р.С.: numba kernels for checks, single attacks and duels.

The exact chain of :mod:`analysis.systems.kurs` already plays the written
duel in full: the first attacker by a roll-off (ties re-rolled) or a surprise,
alternating attacks, one-sided attacks (a surprise, on a fighter who declared
no defense on its turn, on a helpless one), the defense clamp, grazes, the type bonus, the box
track with overflow and the fatigue soak, stances and their price, the
fatigue-box dodge, wound penalties on attack and defense, luck tokens held per
fighter and spent exactly when a check fails by 1..luck_bonus, and the
finishing phase of ``after_out=finish``.  So ``Options`` has no switch and the
``full`` and ``exact`` models run the same rules here; a round is one attack
each, as in the chain.  Every roll is one uniform drawn from the table of its
equally likely sums (any ``dk_faces`` and ``dice_count``).  Every number of
the ruleset reaches the kernels packed (:func:`pack_rules`, :func:`pack_track`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from numba import njit

from analysis.base.params import ParamError
from analysis.systems import kurs as rules_mod
from sims import groups as sim_groups
from sims.dice import _sample, _unowned, outcome_table
from sims.options import SimOptions
from sims.results import CHECK_SIZE, DUEL_SIZE, EXTRA, HIST, HIST_OFFSET, MAX_ROUNDS, SUCCESS, _tally

# Packed fighter: attack skill, defense skill + shield, offensive and defensive damage factors, scale,
# weapon type bonus, agility, stance (index into STANCES), the lightest level it dodges (-1: never), its target
# policy in a group fight (index into TARGETS).
F_ATTACK, F_DEFENSE_TOTAL, F_OFFENSE, F_DEFENSE, F_SCALE, F_TYPE_BONUS, F_AGILITY, F_STANCE, F_DODGE, F_TARGET = range(10)
WEAKEST, RANDOM, STRONGEST, SPREAD = range(4)  # the order of rules_mod.TARGETS
NORMAL, OFFENSIVE, DEFENSIVE, NO_DEFENSE = range(4)  # the order of rules_mod.STANCES
# Packed rules: defense clamp (on, zero-from, low value), luck tokens and bonus, worst-penalty mode, fatigue soak
# (0 never, 1 when_lower, 2 when_lower_any) and its points, type bonus always, graze (0 text, 1 capped, 2 fixed) and
# its damage, trade price in fatigue (0: complication), trade bonus, fatigue boxes per trade and per dodge,
# no-defense bonus, surprise (0 none, 1 A, 2 B) and whether it goes first, finishing and its attack limit, the
# cumulative penalty per extra defense.
(R_CLAMP, R_CLAMP_ZERO, R_CLAMP_LOW, R_LUCK, R_LUCK_BONUS, R_WORST, R_SOAK, R_SOAK_POINTS, R_TYPE_ALWAYS, R_GRAZE,
 R_GRAZE_DAMAGE, R_TRADE_FATIGUE_COST, R_TRADE_BONUS, R_TRADE_FATIGUE, R_DODGE_FATIGUE, R_NO_DEFENSE_BONUS,
 R_SURPRISE, R_SURPRISE_FIRST, R_FINISH, R_FINISH_ATTACKS, R_EXTRA_DEFENSE) = range(21)
RULES_SIZE = 21
GRAZE_MODES = ("text", "capped", "fixed")
SOAK_MODES = ("never", "when_lower", "when_lower_any")
FATIGUE, LIGHT, MEDIUM, HEAVY, INCAPACITATED, DYING = range(6)
# Per-fighter state: marked boxes per level, luck tokens left, stance holding (declared on a turn of its own),
# surprise to come, wound penalty, status.
S_TOKENS, S_ACTIVE, S_FIRST, S_PENALTY, S_STATUS = range(6, 11)
STATE_SIZE = 11
UP, OUT, DYING_STATUS = 0, 1, 2
MISS, GRAZE, HIT, DODGED = range(4)  # kinds of attack, in the order of X_MISS..X_DEFENDED
# Single-attack count layout: misses, grazes, hits, dodged hits, luck spent by the attacker and the defender, sum and
# sum of squares of damage, then the defender's condition after (conditions_code while up, then incapacitated and
# dying).
X_MISS, X_GRAZE, X_HIT, X_DEFENDED, X_LUCK_A, X_LUCK_D, X_SUM, X_SQUARES, X_CONDITION = range(9)

CHECK_EXTRAS = ("", "", "p_complication")


@dataclass(frozen=True)
class Options(SimOptions):
    """К.У.Р.С. has no rule the exact chain leaves out (soak, luck, stances, dodge are in it): nothing to switch."""

    where = "kurs simulation options"


def pack_rules(rules: rules_mod.Rules) -> np.ndarray:
    return np.array([rules.defense_clamp, rules.defense_clamp_zero, rules.defense_clamp_low, rules.luck_tokens,
                     rules.luck_bonus, rules.wound_penalty == "worst", SOAK_MODES.index(rules.fatigue_soak),
                     rules.soak_points, rules.type_bonus == "always", GRAZE_MODES.index(rules.graze),
                     rules.graze_damage, rules.trade_cost == "fatigue", rules.trade_bonus, rules.trade_fatigue,
                     rules.dodge_fatigue, rules.no_defense_bonus, ("none", "a", "b").index(rules.surprise),
                     rules.surprise_first, rules.after_out == "finish", rules.finish_attacks,
                     rules.extra_defense_penalty], dtype=np.int64)


def pack_track(rules: rules_mod.Rules) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(boxes per level, penalty per marked box of the pained levels under ``wound_penalty``, the level marked by
    each damage 0..the least that marks dying, -1 for none)."""
    pain = rules.local_penalty if rules.wound_penalty == "local" else rules.general_penalty
    top = rules.damage_table[DYING]
    levels = [rules_mod.level_of(rules, d) for d in range(top + 1)]
    return (np.array(rules.track, dtype=np.int64), np.array(pain, dtype=np.int64),
            np.array([-1 if v is None else v for v in levels], dtype=np.int64))


def pack_fighters(*fighters: rules_mod.Fighter) -> np.ndarray:
    """The fighters, one row each."""
    return np.array([[f.attack_skill, f.defense_skill + f.shield, f.offense, f.defense, f.scale, f.weapon_type_bonus,
                      f.agility, rules_mod.STANCES.index(f.stance), rules_mod.DODGE_FROM.get(f.effort_dodge, -1),
                      rules_mod.TARGETS.index(f.target)] for f in fighters], dtype=np.int64)


def conditions(rules: rules_mod.Rules) -> int:
    """How many box patterns a fighter still up can have (codes of ``X_CONDITION``)."""
    return int(np.prod([n + 1 for n in rules.track[:INCAPACITATED]]))


def exchange_size(rules: rules_mod.Rules) -> int:
    return X_CONDITION + conditions(rules) + 2


def condition_label(rules: rules_mod.Rules, code: int) -> str:
    """The defender's condition of an ``X_CONDITION`` code, as :func:`analysis.systems.kurs.condition_label` says it."""
    n = conditions(rules)
    if code >= n:
        return ("incapacitated", "dying")[code - n]
    boxes = np.unravel_index(code, [k + 1 for k in rules.track[:INCAPACITATED]])
    return rules_mod.condition_label(rules_mod.Condition((*(int(b) for b in boxes), 0, 0)))


def conditions_after(rules: rules_mod.Rules, counts: np.ndarray) -> dict[str, int]:
    """The defender's conditions after an attack, counted by :func:`exchange_call`'s kernel, by label."""
    codes = counts[X_CONDITION:X_CONDITION + conditions(rules) + 2]
    return {condition_label(rules, code): int(codes[code]) for code in np.flatnonzero(codes)}


@njit(cache=True, nogil=True, inline="always")
def _level(levels: np.ndarray, damage: int) -> int:
    """The level a hit marks by the damage table; -1 for none."""
    if damage < 0:
        return -1
    if damage >= levels.size:
        return DYING
    return levels[damage]


@njit(cache=True, nogil=True, inline="always")
def _free(s: np.ndarray, j: int, track: np.ndarray, level: int, fatigue: int) -> int:
    """The first level from ``level`` up with a free box (``fatigue`` boxes of fatigue marked); dying when none is."""
    while level < DYING:
        marked = fatigue if level == FATIGUE else s[j, level]
        if marked < track[level]:
            break
        level += 1
    return level


@njit(cache=True, nogil=True, inline="always")
def _plan(s: np.ndarray, j: int, damage: int, r: np.ndarray, track: np.ndarray, levels: np.ndarray) -> tuple[int, int]:
    """Where a hit on fighter ``j`` goes: (the level whose box it marks, -1 for none; fatigue boxes soaking it)."""
    level = _level(levels, damage)
    if level < 0:
        return -1, 0
    f = s[j, FATIGUE]
    plain = _free(s, j, track, level, f)
    if r[R_SOAK] > 0 and level >= LIGHT and f < track[FATIGUE]:
        rest = _level(levels, damage - r[R_SOAK_POINTS])
        soaked = FATIGUE if rest < 0 else _free(s, j, track, rest, f + 1)
        if soaked < plain and (soaked > FATIGUE or r[R_SOAK] == 2):
            return (-1 if rest < 0 else soaked), 1
    return plain, 0


@njit(cache=True, nogil=True, inline="always")
def _penalty(s: np.ndarray, j: int, pain: np.ndarray, worst: int) -> int:
    """The wound penalty of fighter ``j``'s marked boxes: summed, or the worst one."""
    total = 0
    for k in range(pain.size):
        if worst:
            if s[j, k] > 0:
                total = max(total, pain[k])
        else:
            total += s[j, k] * pain[k]
    return total


@njit(cache=True, nogil=True, inline="always")
def _mark(s: np.ndarray, j: int, level: int, soak: int, pain: np.ndarray, worst: int) -> None:
    """Mark a planned hit on fighter ``j``: the soaking fatigue boxes, then the level's box (out, dying)."""
    s[j, FATIGUE] += soak
    if level == DYING:
        s[j, DYING] = 1
        s[j, S_STATUS] = DYING_STATUS
    elif level >= 0:
        s[j, level] += 1
        if level == INCAPACITATED:
            s[j, S_STATUS] = OUT
    s[j, S_PENALTY] = _penalty(s, j, pain, worst)


@njit(cache=True, nogil=True, inline="always")
def _turn(fs: np.ndarray, s: np.ndarray, i: int, r: np.ndarray, track: np.ndarray, pain: np.ndarray) -> int:
    """Fighter ``i``'s turn before its attack: the stance taken (its price marked) or dropped; the attack modifier.
    A stance holds from the fighter's own turn: ``no_defense`` stops defending from its first."""
    stance = fs[i, F_STANCE]
    s[i, S_ACTIVE] = 0
    if stance == NO_DEFENSE:
        s[i, S_ACTIVE] = 1
        return r[R_NO_DEFENSE_BONUS]
    if stance == NORMAL:
        return 0
    price = r[R_TRADE_FATIGUE] if r[R_TRADE_FATIGUE_COST] else 0
    if track[FATIGUE] - s[i, FATIGUE] < price:
        return 0
    s[i, FATIGUE] += price
    s[i, S_PENALTY] = _penalty(s, i, pain, r[R_WORST])
    s[i, S_ACTIVE] = 1
    return r[R_TRADE_BONUS] if stance == OFFENSIVE else -r[R_TRADE_BONUS]


@njit(cache=True, nogil=True, inline="always")
def _resolve(fs: np.ndarray, i: int, j: int, margin: int, r: np.ndarray) -> tuple[int, int]:
    """(kind, damage) of an attack of ``i`` on ``j`` with its margin settled."""
    if margin < 0:
        return MISS, 0
    base = fs[i, F_OFFENSE] - fs[j, F_DEFENSE]
    if margin == 0:
        excess = max(0, fs[i, F_SCALE] - fs[j, F_SCALE])
        cap = r[R_GRAZE_DAMAGE] + excess
        raw = cap if r[R_GRAZE] == 2 or (r[R_GRAZE] == 0 and excess > 0) else min(cap, base)
        return GRAZE, max(raw, 0)
    raw = margin + base
    bonus = fs[i, F_TYPE_BONUS]
    if bonus > 0 and (r[R_TYPE_ALWAYS] or raw > 0):
        raw += bonus
    return HIT, max(raw, 0)


@njit(cache=True, nogil=True, inline="always")
def _attack(fs: np.ndarray, s: np.ndarray, i: int, j: int, extra: int, r: np.ndarray, track: np.ndarray,
            pain: np.ndarray, levels: np.ndarray, table: np.ndarray, rng: np.random.Generator) -> tuple[int, int]:
    """Fighter ``i``'s turn and attack on ``j``: (kind, damage marked); both states updated in ``s``.  ``extra``:
    what the defense loses to the defenses ``j`` made before (only an opposed attack asks one).

    A luck token (+bonus) goes to a check failing by 1..bonus, at most one per side: the attack's on a miss,
    the defense's on a hit; a graze (margin 0) is a success with a complication for both.
    """
    mod = _turn(fs, s, i, r, track, pain)
    one_sided = s[i, S_FIRST] == 1 or (fs[j, F_STANCE] == NO_DEFENSE and s[j, S_ACTIVE] == 1)
    s[i, S_FIRST] = 0
    margin = fs[i, F_ATTACK] + _sample(table, rng) + mod - s[i, S_PENALTY]
    if not one_sided:
        rd = _sample(table, rng)
        if r[R_CLAMP]:
            rd = rd if rd > 0 else (0 if rd >= r[R_CLAMP_ZERO] else r[R_CLAMP_LOW])
        dmod = 0
        if s[j, S_ACTIVE]:
            dmod = r[R_TRADE_BONUS] if fs[j, F_STANCE] == DEFENSIVE else -r[R_TRADE_BONUS]
        margin -= fs[j, F_DEFENSE_TOTAL] + rd + dmod - s[j, S_PENALTY] - extra
    bonus = r[R_LUCK_BONUS]
    tok_a, tok_d = s[i, S_TOKENS] > 0, s[j, S_TOKENS] > 0 and not one_sided
    luck_a = luck_d = False
    while True:
        if tok_a and not luck_a and -bonus <= margin < 0:
            margin += bonus
            luck_a = True
        elif tok_d and not luck_d and 0 < margin <= bonus:
            margin -= bonus
            luck_d = True
        else:
            break
    s[i, S_TOKENS] -= luck_a
    s[j, S_TOKENS] -= luck_d
    kind, damage = _resolve(fs, i, j, margin, r)
    level, soak = _plan(s, j, damage, r, track, levels)
    dodge = fs[j, F_DODGE]
    if (not one_sided and dodge >= 0 and level >= dodge
            and track[FATIGUE] - s[j, FATIGUE] >= r[R_DODGE_FATIGUE]):
        _mark(s, j, -1, r[R_DODGE_FATIGUE], pain, r[R_WORST])
        return DODGED, 0
    _mark(s, j, level, soak, pain, r[R_WORST])
    return kind, damage


@njit(cache=True, nogil=True, inline="always")
def _finish(fs: np.ndarray, s: np.ndarray, preview: np.ndarray, w: int, v: int, r: np.ndarray, track: np.ndarray,
            pain: np.ndarray, levels: np.ndarray, table: np.ndarray, rng: np.random.Generator) -> int:
    """``after_out=finish``: fighter ``w`` makes one-sided attacks on the helpless ``v``, with its stance modifier
    and penalty of this moment (it pays nothing more, spends no luck), until dying or the limit; the attacks made.
    ``preview``: scratch shaped like ``s``, where ``w``'s turn is tried."""
    preview[w, :] = s[w, :]
    mod = _turn(fs, preview, w, r, track, pain)
    shift = fs[w, F_ATTACK] + mod - preview[w, S_PENALTY]
    count = 0
    while count < r[R_FINISH_ATTACKS] and s[v, S_STATUS] < DYING_STATUS:
        count += 1
        _, damage = _resolve(fs, w, v, _sample(table, rng) + shift, r)
        level, soak = _plan(s, v, damage, r, track, levels)
        _mark(s, v, level, soak, pain, r[R_WORST])
    return count


@njit(cache=True, nogil=True, inline="always")
def _fresh(s: np.ndarray, r: np.ndarray) -> None:
    s[:, :] = 0
    s[:, S_TOKENS] = r[R_LUCK]
    if r[R_SURPRISE]:
        s[r[R_SURPRISE] - 1, S_FIRST] = 1


@njit(cache=True, nogil=True)
def _duel(fs: np.ndarray, r: np.ndarray, track: np.ndarray, pain: np.ndarray, levels: np.ndarray, table: np.ndarray,
          n: int, rng: np.random.Generator) -> np.ndarray:
    """n duels; counts laid out as in :mod:`sims.results`."""
    out = np.zeros(DUEL_SIZE, dtype=np.int64)
    _duels(out, np.zeros((4, STATE_SIZE), dtype=np.int64), fs, r, track, pain, levels, table, n, rng)
    return out


@njit(cache=True, nogil=True)
def _duels(out: np.ndarray, state: np.ndarray, fs: np.ndarray, r: np.ndarray, track: np.ndarray, pain: np.ndarray,
           levels: np.ndarray, table: np.ndarray, n: int, rng: np.random.Generator) -> None:
    """:func:`_duel`'s loop, adding to ``out``, on unowned views of its arrays (:func:`sims.dice._unowned`); ``state``:
    the two fighters' states, then two spare rows."""
    out, state, fs, r, track = _unowned(out), _unowned(state), _unowned(fs), _unowned(r), _unowned(track)
    pain, levels, table, rng = _unowned(pain), _unowned(levels), _unowned(table), _unowned(rng)
    s, spare = state[:2], state[2:]
    ag_a, ag_b = fs[0, F_AGILITY], fs[1, F_AGILITY]
    coin = ag_a == ag_b and table.min() == table.max()  # the roll-off would tie for ever
    surprise_first = r[R_SURPRISE] > 0 and r[R_SURPRISE_FIRST] == 1
    for _ in range(n):
        _fresh(s, r)
        if surprise_first:
            a_first = r[R_SURPRISE] == 1
        elif coin:
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
            _attack(fs, s, i, 1 - i, 0, r, track, pain, levels, table, rng)
            if s[1 - i, S_STATUS] == UP:
                _attack(fs, s, 1 - i, i, 0, r, track, pain, levels, table, rng)
            if s[0, S_STATUS] != UP or s[1, S_STATUS] != UP:
                break
        finish = -1
        if r[R_FINISH] and rounds <= MAX_ROUNDS and (s[0, S_STATUS] == UP) != (s[1, S_STATUS] == UP):
            w = 0 if s[0, S_STATUS] == UP else 1
            finish = _finish(fs, s, spare, w, 1 - w, r, track, pain, levels, table, rng)
        _tally(out, rounds, s[0, S_STATUS], s[1, S_STATUS], finish)


@njit(cache=True, nogil=True)
def _exchange(fs: np.ndarray, r: np.ndarray, track: np.ndarray, pain: np.ndarray, levels: np.ndarray,
              table: np.ndarray, size: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """n first attacks of fighter 0 on fighter 1 at the start of a fight; counts laid out as ``X_*``."""
    out = np.zeros(size, dtype=np.int64)
    _exchanges(out, np.zeros((2, STATE_SIZE), dtype=np.int64), fs, r, track, pain, levels, table, n, rng)
    return out


@njit(cache=True, nogil=True)
def _exchanges(out: np.ndarray, s: np.ndarray, fs: np.ndarray, r: np.ndarray, track: np.ndarray, pain: np.ndarray,
               levels: np.ndarray, table: np.ndarray, n: int, rng: np.random.Generator) -> None:
    """:func:`_exchange`'s loop, adding to ``out``, on unowned views of its arrays (:func:`sims.dice._unowned`)."""
    out, s, fs, r, track = _unowned(out), _unowned(s), _unowned(fs), _unowned(r), _unowned(track)
    pain, levels, table, rng = _unowned(pain), _unowned(levels), _unowned(table), _unowned(rng)
    size = out.size
    tokens = r[R_LUCK]
    dying = size - 1
    for _ in range(n):
        _fresh(s, r)
        kind, damage = _attack(fs, s, 0, 1, 0, r, track, pain, levels, table, rng)
        out[X_MISS + kind] += 1
        out[X_LUCK_A] += s[0, S_TOKENS] < tokens
        out[X_LUCK_D] += s[1, S_TOKENS] < tokens
        out[X_SUM] += damage
        out[X_SQUARES] += damage * damage
        if s[1, S_STATUS] != UP:
            out[dying - 1 + (s[1, S_STATUS] == DYING_STATUS)] += 1
        else:
            code = 0
            for k in range(INCAPACITATED):
                code = code * (track[k] + 1) + s[1, k]
            out[X_CONDITION + code] += 1


@njit(cache=True, nogil=True)
def _check(shift: int, luck: int, bonus: int, table: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """n one-sided actions: successes (complications included), complications, margin histogram."""
    out = np.zeros(CHECK_SIZE, dtype=np.int64)
    for _ in range(n):
        m = _sample(table, rng) + shift
        if luck and -bonus <= m < 0:
            m += bonus
        out[SUCCESS] += m >= 0
        out[EXTRA] += m == 0
        out[HIST + HIST_OFFSET + m] += 1
    return out


def dk_table(rules: rules_mod.Rules) -> np.ndarray:
    """The equally likely sums of ``dice_count`` dK."""
    return outcome_table(rules.dk_faces, rules.dice_count)


def check_call(rules: rules_mod.Rules, args: rules_mod.CheckArgs) -> Callable[[int, np.random.Generator], np.ndarray]:
    """The check kernel bound to a ruleset and a one-sided action (luck: the first token, +bonus on a near failure)."""
    table = dk_table(rules)
    shift, luck = args.skill + args.mod - args.difficulty, int(rules.luck_tokens > 0)
    if shift + table.min() < -HIST_OFFSET or shift + table.max() >= HIST_OFFSET:
        raise ParamError("skill + mod - difficulty", shift,
                         f"a sum whose margins stay within +-{HIST_OFFSET} (simulated histogram)", "kurs simulation")
    bonus = rules.luck_bonus
    return lambda n, rng: _check(shift, luck, bonus, table, n, rng)


def duel_call(rules: rules_mod.Rules, a: rules_mod.Fighter, b: rules_mod.Fighter, model: str,
              options: Options) -> Callable[[int, np.random.Generator], np.ndarray]:
    """The duel kernel bound to a ruleset and two fighters (both models play the same rules)."""
    fs, pr, table = pack_fighters(a, b), pack_rules(rules), dk_table(rules)
    track, pain, levels = pack_track(rules)
    return lambda n, rng: _duel(fs, pr, track, pain, levels, table, n, rng)


def duel_extra(rules: rules_mod.Rules, a: rules_mod.Fighter, b: rules_mod.Fighter, counts: np.ndarray,
               n: int) -> dict[str, Any]:
    """The К.У.Р.С. fields of a simulated duel: the warnings of setups that are almost surely a slip."""
    return {"warnings": rules_mod.slips(rules, a, b)}


def exchange_call(rules: rules_mod.Rules, att: rules_mod.Fighter,
                  dfn: rules_mod.Fighter) -> Callable[[int, np.random.Generator], np.ndarray]:
    """A's first attack on B (as :func:`analysis.systems.kurs.exchange`), for :func:`sims.engine.run_chunks`
    (counts as ``X_*``, :func:`exchange_size` of them)."""
    fs, pr, table = pack_fighters(att, dfn), pack_rules(rules), dk_table(rules)
    track, pain, levels = pack_track(rules)
    size = exchange_size(rules)
    return lambda n, rng: _exchange(fs, pr, track, pain, levels, table, size, n, rng)


@njit(cache=True, nogil=True, inline="always")
def _sort_run(order: np.ndarray, key: np.ndarray, lo: int, hi: int) -> None:
    """Sort ``order[lo:hi]`` by ``key`` (block ascending, then the roll descending), insertion sort."""
    for a in range(lo + 1, hi):
        x = order[a]
        b = a - 1
        while b >= lo and (key[order[b], 0] > key[x, 0] or (key[order[b], 0] == key[x, 0]
                                                             and key[order[b], 1] < key[x, 1])):
            order[b + 1] = order[b]
            b -= 1
        order[b + 1] = x


@njit(cache=True, nogil=True)
def _roll_order(fs: np.ndarray, block: np.ndarray, table: np.ndarray, order: np.ndarray, key: np.ndarray,
                rng: np.random.Generator) -> None:
    """The order of play: by ``block`` (the surprising side first), then a dK + agility roll-off, the tied
    re-rolling among themselves until none is tied (a one-valued dK: shuffled)."""
    m = order.size
    for i in range(m):
        order[i] = i
        key[i, 0] = block[i]
        key[i, 1] = _sample(table, rng) + fs[i, F_AGILITY]
    _sort_run(order, key, 0, m)
    flat = table.min() == table.max()
    while True:
        tied = False
        lo = 0
        while lo < m:
            hi = lo + 1
            while hi < m and key[order[hi], 0] == key[order[lo], 0] and key[order[hi], 1] == key[order[lo], 1]:
                hi += 1
            if hi - lo > 1:
                tied = True
                for a in range(lo, hi):
                    key[order[a], 0] = lo  # the run becomes a block of its own (places keep the order)
                    key[order[a], 1] = rng.random() * 1e9 if flat else _sample(table, rng) + fs[order[a], F_AGILITY]
                _sort_run(order, key, lo, hi)
            else:
                key[order[lo], 0] = lo
            lo = hi
        if not tied:
            return


@njit(cache=True, nogil=True, inline="always")
def _number_copies(order: np.ndarray, kind: np.ndarray) -> None:
    """Copies of one fighter on one side (equal ``kind``) numbered by their place: the first to act is the first
    listed (as :func:`analysis.engine.groups.number_copies`; copies start alike, so this only names them)."""
    m = order.size
    for a in range(m):
        for b in range(a + 1, m):
            if kind[order[a]] == kind[order[b]] and order[b] < order[a]:
                order[a], order[b] = order[b], order[a]


@njit(cache=True, nogil=True, inline="always")
def _able(s: np.ndarray, lo: int, hi: int) -> bool:
    for k in range(lo, hi):
        if s[k, S_STATUS] == UP:
            return True
    return False


@njit(cache=True, nogil=True)
def _target(fs: np.ndarray, s: np.ndarray, i: int, lo: int, hi: int, hits: np.ndarray,
            rng: np.random.Generator) -> int:
    """Whom fighter ``i`` attacks among the able enemies ``lo..hi-1`` by its policy (ties: the first listed)."""
    policy = fs[i, F_TARGET]
    if policy == RANDOM:
        count = 0
        for k in range(lo, hi):
            count += s[k, S_STATUS] == UP
        pick = int(rng.random() * count)
        for k in range(lo, hi):
            if s[k, S_STATUS] == UP:
                if pick == 0:
                    return k
                pick -= 1
    best = -1
    for k in range(lo, hi):
        if s[k, S_STATUS] != UP:
            continue
        if best < 0:
            best = k
        elif policy == STRONGEST:
            if fs[k, F_ATTACK] > fs[best, F_ATTACK]:
                best = k
        elif policy == SPREAD:
            if hits[k] < hits[best]:
                best = k
        else:
            for lv in range(HEAVY, FATIGUE - 1, -1):
                if s[k, lv] != s[best, lv]:
                    if s[k, lv] > s[best, lv]:
                        best = k
                    break
    return best


@njit(cache=True, nogil=True)
def _group(fs: np.ndarray, kind: np.ndarray, na: int, r: np.ndarray, track: np.ndarray, pain: np.ndarray, levels: np.ndarray,
           table: np.ndarray, lay: np.ndarray, size: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """n group fights of fighters ``0..na-1`` (side A) against the rest; counts laid out by :mod:`sims.groups`."""
    m = fs.shape[0]
    out = np.zeros(size, dtype=np.int64)
    _groups(out, np.zeros((2 * m, STATE_SIZE), dtype=np.int64), np.zeros((6, m), dtype=np.int64),
            np.zeros((m, 2), dtype=np.float64), fs, kind, na, r, track, pain, levels, table, lay, n, rng)
    return out


@njit(cache=True, nogil=True)
def _groups(out: np.ndarray, state: np.ndarray, scratch: np.ndarray, key: np.ndarray, fs: np.ndarray, kind: np.ndarray,
            na: int, r: np.ndarray, track: np.ndarray, pain: np.ndarray, levels: np.ndarray, table: np.ndarray,
            lay: np.ndarray, n: int, rng: np.random.Generator) -> None:
    """:func:`_group`'s loop, adding to ``out``, on unowned views of its arrays (:func:`sims.dice._unowned`);
    ``state``: the fighters' states, then as many spare rows; ``scratch``: rows for the order of play, the surprise
    blocks, defenses made, hits taken and final levels."""
    out, state, scratch, key, fs, kind = _unowned(out), _unowned(state), _unowned(scratch), _unowned(key), _unowned(fs), \
        _unowned(kind)
    r, track, pain, levels, table, lay = _unowned(r), _unowned(track), _unowned(pain), _unowned(levels), \
        _unowned(table), _unowned(lay)
    rng = _unowned(rng)
    m = fs.shape[0]
    order, block, defs, hits, final = scratch[0], scratch[1], scratch[2], scratch[3], scratch[4]
    s, spare = state[:m], state[m:]
    surprise = r[R_SURPRISE]
    for k in range(m):
        mine = (k < na and surprise == 1) or (k >= na and surprise == 2)
        block[k] = 0 if (mine or surprise == 0 or r[R_SURPRISE_FIRST] == 0) else 1
    for _ in range(n):
        s[:, :] = 0
        s[:, S_TOKENS] = r[R_LUCK]
        for k in range(m):
            s[k, S_FIRST] = (k < na and surprise == 1) or (k >= na and surprise == 2)
        defs[:] = 0
        _roll_order(fs, block, table, order, key, rng)
        _number_copies(order, kind)
        rounds = 0
        over = False
        while not over:
            rounds += 1
            if rounds > MAX_ROUNDS:
                break
            hits[:] = 0
            for k in range(m):
                i = order[k]
                if s[i, S_STATUS] != UP:
                    continue
                lo, hi = (na, m) if i < na else (0, na)
                j = _target(fs, s, i, lo, hi, hits, rng)
                defs[i] = 0
                opposed = s[i, S_FIRST] == 0 and not (fs[j, F_STANCE] == NO_DEFENSE and s[j, S_ACTIVE] == 1)
                _attack(fs, s, i, j, r[R_EXTRA_DEFENSE] * defs[j] * opposed, r, track, pain, levels, table, rng)
                defs[j] += opposed
                hits[j] += 1
                if not (_able(s, 0, na) and _able(s, na, m)):
                    over = True
                    break
        if r[R_FINISH] and over and _able(s, 0, na) != _able(s, na, m):
            w = -1
            for k in range(m):
                if s[order[k], S_STATUS] == UP:
                    w = order[k]
                    break
            lo, hi = (na, m) if w < na else (0, na)
            for v in range(lo, hi):
                if s[v, S_STATUS] == OUT:
                    _finish(fs, s, spare, w, v, r, track, pain, levels, table, rng)
        final[:] = s[:, S_STATUS]  # UP, OUT, DYING_STATUS: the levels of sims.results
        sim_groups._tally_group(out, lay, rounds, final)


def group_call(rules: rules_mod.Rules, side_a: list[rules_mod.Fighter],
               side_b: list[rules_mod.Fighter]) -> Callable[[int, np.random.Generator], np.ndarray]:
    """The group kernel (RULES.md section 7, as :mod:`analysis.systems.kurs.groups` plays it) bound to a ruleset and
    two sides, for :func:`sims.engine.run_chunks` (counts laid out by :func:`sims.groups.layout`)."""
    if not side_a or not side_b:
        raise ParamError("sides", f"{len(side_a)} against {len(side_b)}", "at least one fighter a side",
                         "kurs simulation")
    fs, pr, table = pack_fighters(*side_a, *side_b), pack_rules(rules), dk_table(rules)
    track, pain, levels = pack_track(rules)
    lay = sim_groups.layout(len(side_a), len(side_b))
    packed, na = lay.packed(), len(side_a)
    classes: dict[tuple, int] = {}
    kind = np.array([classes.setdefault((k >= na, f), len(classes)) for k, f in enumerate([*side_a, *side_b])],
                    dtype=np.int64)
    return lambda n, rng: _group(fs, kind, na, pr, track, pain, levels, table, packed, lay.size, n, rng)
