"""2K's clock, the IN economy ("Время в системе", RULES.md section 2): the step rules.

The rules, as the lab reads them (every number is a ruleset constant):

- a round is 6 seconds; each fighter rolls IN = reflexes + 1K - penalty + carry;
- while a fighter has IN >= 4, the one with the highest IN attacks (-6 IN); the
  defender parries (-3 IN, decided before the roll) if its policy says so, it has
  a defense rating and IN >= 3; equal highest IN: both attack (-6 each), then each
  parries if 3 IN are left; both read the conditions before either lands;
- an attack started with 4-5 IN leaves a debt; a hit lowers the victim's IN at
  once by the rise of its penalty (``in_penalty = immediate``) and by 6 for a lost
  action (stopping effect, pain shock; one for both or ``stack``);
- the round ends when nobody has 4 IN; leftover <= 3 carries, more as 3, a debt in
  full down to -20 (``in_carry = false``: only debts).


The pure functions below play one step with the dice given (the resolve path and
the seed's worked example); :func:`_land` and :func:`_carry` are their compiled
twins, shared by the exact chain (:mod:`analysis.systems.onesix.chain`) and the
simulator (:mod:`sims.onesix`).  ``pack_rules`` and ``pack_fighter`` turn the
ruleset and a fighter into the numbers the compiled code reads.

>>> from analysis.systems.onesix import Fighter, Rules
>>> side = roll(Rules(), Fighter(reflexes=8), Side(initiative=3), 0)
>>> side.initiative, next_actor(Rules(), side, Side(initiative=14))
(11, 'b')
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping

import numpy as np
from numba import njit

from analysis.base.params import DicelabError
from analysis.systems.onesix import rules as six


# ------------------------------------------------------------------ the step rules (pure Python)
@dataclass(frozen=True)
class Struck:
    """What a hit does to its victim: the new condition, the lost actions and the IN lost at once."""

    condition: tuple[int, int, int]
    stopping: bool
    pain: bool
    in_lost: int


def struck(rules: six.Rules, dfn: six.Fighter, condition: tuple[int, int, int], levels: int, cls: int,
           step: int) -> Struck:
    """A hit of ``levels`` of class ``cls`` (armor wear ``step``) on ``dfn`` in ``condition``.

    The penalty's rise comes off IN at once under ``in_penalty = immediate``; a lost action
    (stopping effect: levels > training; pain shock: the hit's track ends above personality)
    costs ``action_lost`` IN, once for both or each under ``in_loss = stack``.

    >>> from analysis.systems.onesix import Fighter, Rules, SHOCK
    >>> struck(Rules(), Fighter(training=3, personality=3), (0, 0, 0), 4, SHOCK, 0)
    Struck(condition=(0, 4, 0), stopping=True, pain=True, in_lost=10)
    """
    w, s, k = condition
    w2, s2 = (int(v) for v in six.mark(w, s, cls, levels, rules))
    w2 = min(w2, rules.death)
    k2 = min(k + step, six.max_wear(rules, dfn))
    stopping = rules.stopping_effect and levels > dfn.training
    pain = rules.pain_shock and levels > 0 and (w2 if cls == six.WOUND else s2) > dfn.personality
    losses = int(stopping) + int(pain) if rules.in_loss == "stack" else int(stopping or pain)
    rise = max(w2, s2) - max(w, s) if rules.in_penalty == "immediate" else 0
    return Struck((w2, s2, k2), stopping, pain, rise + rules.action_lost * losses)


@dataclass(frozen=True)
class Side:
    """One fighter inside a round: its condition and current IN (between rounds: the carry)."""

    condition: tuple[int, int, int] = six.UNHURT
    initiative: int = 0

    @property
    def penalty(self) -> int:
        return max(self.condition[0], self.condition[1])


def roll(rules: six.Rules, f: six.Fighter, side: Side, k: int) -> Side:
    """The round's IN roll: reflexes + 1K - penalty + carry (``k`` = the 1K total)."""
    return replace(side, initiative=f.total_reflexes() + k - side.penalty + side.initiative)


def next_actor(rules: six.Rules, a: Side, b: Side) -> str | None:
    """Who acts now: ``"a"``, ``"b"``, ``"both"`` (equal highest IN) or ``None`` (the round is over)."""
    top = max(a.initiative, b.initiative)
    if top < rules.attack_min_in:
        return None
    if a.initiative == b.initiative:
        return "both"
    return "a" if a.initiative > b.initiative else "b"


def parries(rules: six.Rules, f: six.Fighter, side: Side) -> bool:
    """Whether ``f`` parries now: its policy, a defense rating and the parry's IN left."""
    return f.parries() and side.initiative >= rules.parry_cost


def wait(side: Side, n: int) -> Side:
    """``side`` waits ``n`` IN (scripted scenes only: nobody waits in a duel)."""
    return replace(side, initiative=side.initiative - n)


def end_round(rules: six.Rules, side: Side) -> Side:
    """The carry into the next round: leftover up to the cap, a debt in full down to the floor."""
    cap = rules.carry_cap if rules.in_carry else 0
    return replace(side, initiative=max(min(side.initiative, cap), rules.carry_floor))


def _attack(rules: six.Rules, att: six.Fighter, dfn: six.Fighter, sa: Side, sd: Side, parry: bool,
            rolls: Mapping[str, int], who: str) -> tuple[Side, list[str]]:
    """``att`` attacks ``dfn`` with the test dice ``rolls[who + '_attack']`` (and the defender's
    ``rolls[other + '_defense']`` when it parries an attack that reached the threshold)."""
    other = "b" if who == "a" else "a"
    rt_a = att.attack_rating - sa.penalty + rolls[f"{who}_attack"]
    steps = [f"{who.upper()} attacks: RT {rt_a}"]
    if rt_a < rules.success_threshold:
        return sd, steps + ["miss"]
    base = rules.success_threshold
    if parry:
        rt_d = dfn.defense_rating - sd.penalty + rolls[f"{other}_defense"]
        if rt_d >= rt_a:
            return sd, steps + [f"parried (RT {rt_d})"]
        base = rt_d if rules.excess_over == "defense" else base
    levels, cls, step = (int(v) for v in six.hit_effect(rules, att, dfn, att.weapon_ps + rt_a - base,
                                                        sd.condition[2]))
    effect = struck(rules, dfn, sd.condition, levels, cls, step)
    steps.append(f"hit: {levels} {'Wounds' if cls == six.WOUND else 'Shock'}, IN -{effect.in_lost}")
    return Side(effect.condition, sd.initiative - effect.in_lost), steps


def act(rules: six.Rules, a: six.Fighter, b: six.Fighter, sa: Side, sb: Side,
        rolls: Mapping[str, int]) -> tuple[Side, Side, list[str]]:
    """One action by the order rule with the test dice given (``a_attack``, ``b_defense``, ...).

    >>> from analysis.systems.onesix import Fighter, Rules
    >>> knife = Fighter(attack_rating=9, weapon_ps=5, weapon_class="wound")
    >>> sa, sb, _ = act(Rules(), knife, Fighter(), Side(initiative=10), Side(initiative=4), {"a_attack": 10})
    >>> sa.initiative, sb.condition, sb.initiative
    (4, (2, 0, 0), 2)
    """
    who = next_actor(rules, sa, sb)
    if who is None:
        raise DicelabError("act: nobody has the IN to act; the round is over")
    attack_cost = rules.attack_cost
    if who == "both":
        sa, sb = wait(sa, attack_cost), wait(sb, attack_cost)
        pa, pb = parries(rules, a, sa), parries(rules, b, sb)
        sa, sb = wait(sa, rules.parry_cost * pa), wait(sb, rules.parry_cost * pb)
        new_b, steps_a = _attack(rules, a, b, sa, sb, pb, rolls, "a")
        new_a, steps_b = _attack(rules, b, a, sb, sa, pa, rolls, "b")
        return new_a, new_b, ["equal IN: both attack"] + steps_a + steps_b
    if who == "a":
        pb = parries(rules, b, sb)
        new_b, steps = _attack(rules, a, b, wait(sa, attack_cost), wait(sb, rules.parry_cost * pb), pb, rolls, "a")
        return wait(sa, attack_cost), new_b, steps
    pa = parries(rules, a, sa)
    new_a, steps = _attack(rules, b, a, wait(sb, attack_cost), wait(sa, rules.parry_cost * pa), pa, rolls, "b")
    return new_a, wait(sb, attack_cost), steps


# ------------------------------------------------------------------ packing for the compiled chain
# Packed rules.
(P_COST, P_PARRY, P_LOST, P_AMIN, P_CAP, P_FLOOR, P_IMMEDIATE, P_STACK, P_STOP, P_PAIN, P_TRACK, P_SCAP, P_DEATH,
 P_FIRST, P_UNBOUNDED, P_ONES, P_XLO, P_NX, P_NP) = range(19)
# Packed fighters (one row each).
F_REFL, F_TRAIN, F_PERS, F_MAXWEAR, F_NWEAR, F_PARRIES = range(6)
# State kinds: between rounds (conditions and carries), inside a round, the end of the fight (final conditions).
K_BETWEEN, K_MID, K_END = 0, 1, 2
# A pending die (the part of a 1K not rolled yet): 0 none, 1 a plain d6, 2 a first die and 3 an extra die of an
# unbounded roll (memoryless: after a six the rest is again "a die"), 4 + 2L / 5 + 2L a first / extra die with L
# more extra dice allowed (explode_depth).
D6, FIRST, EXTRA = 1, 2, 3
WOUND = six.WOUND
BIG = 1 << 40


def _first_die(rules: six.Rules) -> tuple[int, int]:
    """The pending die of a fresh IN roll and how many pending kinds the key must hold."""
    if rules.in_die == "d6":
        return D6, 4
    if rules.explode_depth is None:
        return FIRST, 4
    return 4 + 2 * rules.explode_depth, 6 + 2 * rules.explode_depth


def _x_bounds(rules: six.Rules, a: six.Fighter, b: six.Fighter) -> tuple[int, int]:
    """Bounds on a known IN inside a round (the key's range): the deepest debt, the highest lazy roll kept."""
    hits = 2 * rules.track_length + 2
    lo = (rules.carry_floor - rules.track_length - rules.attack_cost - rules.parry_cost
          - hits * (rules.track_length + 2 * rules.action_lost) - 8)
    sixes = 40 if rules.explode_depth is None else rules.explode_depth + 2
    hi = max(a.total_reflexes(), b.total_reflexes()) + rules.carry_cap + 6 * sixes + 8
    return lo, hi


def pack_rules(rules: six.Rules, a: six.Fighter, b: six.Fighter) -> np.ndarray:
    """The ruleset's numbers for the kernels (no rule constant is a literal in compiled code)."""
    first, n_kinds = _first_die(rules)
    lo, hi = _x_bounds(rules, a, b)
    return np.array([rules.attack_cost, rules.parry_cost, rules.action_lost, rules.attack_min_in,
                     rules.carry_cap if rules.in_carry else 0, rules.carry_floor, rules.in_penalty == "immediate",
                     rules.in_loss == "stack", rules.stopping_effect, rules.pain_shock, rules.track_length,
                     rules.shock_cap, rules.death, first, first == FIRST, rules.extra_die_ones == "count", lo,
                     hi - lo + 1, n_kinds], dtype=np.int64)


def pack_fighter(rules: six.Rules, f: six.Fighter) -> np.ndarray:
    wear = six.max_wear(rules, f)
    return np.array([f.total_reflexes(), f.training, f.personality, wear, wear + 1, f.parries()], dtype=np.int64)


# ------------------------------------------------------------------ compiled helpers shared with the simulator
@njit(cache=True, nogil=True)
def _land(w: int, s: int, k: int, lv: int, cls: int, step: int, training: int, personality: int, maxwear: int,
          pr: np.ndarray) -> tuple[int, int, int, int]:
    """A hit on (wounds, shock, wear): the new condition and the IN it costs at once (see :func:`struck`)."""
    w2 = w + lv if cls == WOUND else w
    s2 = s if cls == WOUND else s + lv
    over = max(s2 - pr[P_SCAP], 0)
    w2 = min(w2 + over, pr[P_DEATH])
    s2 -= over
    k2 = min(k + step, maxwear)
    stopping = pr[P_STOP] != 0 and lv > training
    pain = pr[P_PAIN] != 0 and lv > 0 and (w2 if cls == WOUND else s2) > personality
    if pr[P_STACK]:
        losses = int(stopping) + int(pain)
    else:
        losses = int(stopping or pain)
    drop = pr[P_LOST] * losses
    if pr[P_IMMEDIATE]:
        drop += max(w2, s2) - max(w, s)
    return w2, s2, k2, drop


@njit(cache=True, nogil=True)
def _carry(x: int, pr: np.ndarray) -> int:
    """The carry of a leftover IN ``x``."""
    return max(min(x, pr[P_CAP]), pr[P_FLOOR])

