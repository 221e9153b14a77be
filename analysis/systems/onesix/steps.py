"""2K's clock, the IN economy ("Время в системе", RULES.md section 2): the step rules.

The rules, as the lab reads them (every number is a ruleset constant):

- a round is 6 seconds; each fighter rolls IN = reflexes + 1K - penalty + carry;
- while a fighter has IN >= 4, the one with the highest IN attacks (-6 IN); the
  defender parries (-3 IN, decided before the roll) if its policy says so, it has
  a defense rating, IN >= 3 and the parry is in time: its IN at most
  ``parry_window`` (3) below the attacker's when the attack starts (an attack
  started at x lands at x - 6, a parry started at y ends at y - 3); equal highest
  IN: both attack (-6 each) and neither parries the other's simultaneous attack
  (``simultaneous_parry = true``: each then parries if 3 IN are left); both read
  the conditions before either lands;
- ``gear_faults``: an attack whose base dice all show 1 (2K = 0) tests the weapon
  (``gear_rating`` + 2K against 15); on failure it breaks after the blow and the
  fighter fights on with fists;
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
    """One fighter inside a round: its condition, current IN (between rounds: the carry) and whether its weapon
    is intact (``gear_faults``: false once broken, then it fights with its fists)."""

    condition: tuple[int, int, int] = six.UNHURT
    initiative: int = 0
    armed: bool = True

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


def parries(rules: six.Rules, f: six.Fighter, side: Side, lag: int) -> bool:
    """Whether ``f`` parries an attack started ``lag`` IN above its own: its policy, a defense rating, the parry's
    IN left, and in time (``lag`` at most ``parry_window``; ``any``: whatever the lag).

    >>> from analysis.systems.onesix import Fighter, Rules
    >>> daisy = Fighter(defense_rating=7)
    >>> [parries(Rules(), daisy, Side(initiative=11), lag) for lag in (3, 4)]
    [True, False]
    >>> parries(Rules(parry_window=None), daisy, Side(initiative=11), 9)
    True
    """
    in_time = rules.parry_window is None or lag <= rules.parry_window
    return f.parries() and side.initiative >= rules.parry_cost and in_time


def wait(side: Side, n: int) -> Side:
    """``side`` waits ``n`` IN (scripted scenes only: nobody waits in a duel)."""
    return replace(side, initiative=side.initiative - n)


def end_round(rules: six.Rules, side: Side) -> Side:
    """The carry into the next round: leftover up to the cap, a debt in full down to the floor."""
    cap = rules.carry_cap if rules.in_carry else 0
    return replace(side, initiative=max(min(side.initiative, cap), rules.carry_floor))


def gear_holds(rules: six.Rules, att: six.Fighter, armed: bool, roll: int, gear: int | None) -> tuple[bool, str]:
    """Whether the weapon is still intact after an attack whose 2K total was ``roll`` (0: every base die showed
    1, the equipment fault), with ``gear`` the 2K of the weapon's reliability test; and what happened, as text.

    >>> from analysis.systems.onesix import Fighter, Rules
    >>> knife = Fighter(weapon_ps=5, weapon_class="wound", gear_rating=8)
    >>> gear_holds(Rules(gear_faults=True), knife, True, 0, 6)[0], gear_holds(Rules(), knife, True, 0, None)
    (False, (True, ''))
    """
    if not (armed and roll == 0 and att.breakable(rules)):
        return armed, ""
    if gear is None:
        raise DicelabError("an equipment fault (2K = 0) needs the 2K of the weapon's reliability test")
    rt = att.gear_rating + gear
    if rt >= rules.success_threshold:
        return True, f"equipment fault: the weapon's test RT {att.gear_rating} + {gear} = {rt}: it holds"
    return False, (f"equipment fault: the weapon's test RT {att.gear_rating} + {gear} = {rt} < "
                   f"{rules.success_threshold}: it breaks, fists from now on")


def _attack(rules: six.Rules, att: six.Fighter, dfn: six.Fighter, sa: Side, sd: Side, parry: bool,
            rolls: Mapping[str, int], who: str) -> tuple[Side, bool, list[str]]:
    """``att`` attacks ``dfn`` with the test dice ``rolls[who + '_attack']`` (and the defender's
    ``rolls[other + '_defense']`` when it parries an attack that reached the threshold, the weapon's test
    ``rolls[who + '_gear']`` on an equipment fault): the defender's side, whether the attacker's weapon is still
    intact, and the steps."""
    other = "b" if who == "a" else "a"
    roll = rolls[f"{who}_attack"]
    armed, fault = gear_holds(rules, att, sa.armed, roll, rolls.get(f"{who}_gear"))
    weapon = att if sa.armed else att.fists()
    rt_a = att.attack_rating - sa.penalty + roll
    steps = [f"{who.upper()} attacks" + ("" if sa.armed else " with its fists") + f": RT {rt_a}"]
    if rt_a < rules.success_threshold:
        return sd, armed, steps + ["miss"] + [fault] * bool(fault)
    base = rules.success_threshold
    if parry:
        rt_d = dfn.defense_rating - sd.penalty + rolls[f"{other}_defense"]
        if rt_d >= rt_a:
            return sd, armed, steps + [f"parried (RT {rt_d})"] + [fault] * bool(fault)
        base = rt_d if rules.excess_over == "defense" else base
    levels, cls, step = (int(v) for v in six.hit_effect(rules, weapon, dfn, weapon.weapon_ps + rt_a - base,
                                                        sd.condition[2]))
    effect = struck(rules, dfn, sd.condition, levels, cls, step)
    steps.append(f"hit: {levels} {'Wounds' if cls == six.WOUND else 'Shock'}, IN -{effect.in_lost}")
    return replace(sd, condition=effect.condition, initiative=sd.initiative - effect.in_lost), armed, \
        steps + [fault] * bool(fault)


def act(rules: six.Rules, a: six.Fighter, b: six.Fighter, sa: Side, sb: Side,
        rolls: Mapping[str, int]) -> tuple[Side, Side, list[str]]:
    """One action by the order rule with the test dice given (``a_attack``, ``b_defense``, ``a_gear`` ...).

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
        pa = rules.simultaneous_parry and parries(rules, a, sa, 0)
        pb = rules.simultaneous_parry and parries(rules, b, sb, 0)
        sa, sb = wait(sa, rules.parry_cost * pa), wait(sb, rules.parry_cost * pb)
        new_b, armed_a, steps_a = _attack(rules, a, b, sa, sb, pb, rolls, "a")
        new_a, armed_b, steps_b = _attack(rules, b, a, sb, sa, pa, rolls, "b")
        head = "equal IN: both attack" + ("" if rules.simultaneous_parry else ", neither can parry the other")
        return replace(new_a, armed=armed_a), replace(new_b, armed=armed_b), [head] + steps_a + steps_b
    if who == "a":
        pb = parries(rules, b, sb, sa.initiative - sb.initiative)
        new_b, armed, steps = _attack(rules, a, b, wait(sa, attack_cost), wait(sb, rules.parry_cost * pb), pb, rolls,
                                      "a")
        return replace(wait(sa, attack_cost), armed=armed), new_b, steps
    pa = parries(rules, a, sa, sb.initiative - sa.initiative)
    new_a, armed, steps = _attack(rules, b, a, wait(sb, attack_cost), wait(sa, rules.parry_cost * pa), pa, rolls, "b")
    return new_a, replace(wait(sb, attack_cost), armed=armed), steps


def order_text(rules: six.Rules, a: six.Fighter, b: six.Fighter) -> str:
    """The timing of a duel under the IN economy, as every result echoes it (``order``).

    >>> text = order_text(six.Rules(), six.Fighter(), six.Fighter())
    >>> "in time" in text and "neither can parry" in text
    True
    """
    depth = in_depth(rules)
    die = {"one_six": "1K = one die under the rule of 1 and 6 (1 -> 0, 6 -> 6 + another die"
                      + (")" if depth is None else f", at most {depth} more)"),
           "one_zero": "1K = one die whose 1 counts 0, without explosion (mean 10/3)",
           "d6": "1K = a plain d6"}[rules.in_die]
    window = ("whatever the lag (parry_window = any)" if rules.parry_window is None else
              f"if in time: its IN at most {rules.parry_window} below the attacker's when the attack starts")
    both = (f"equal IN: both attack, then each parries if {rules.parry_cost} IN are left (simultaneous_parry)"
            if rules.simultaneous_parry else "equal IN: both attack and neither can parry the other's simultaneous "
            "attack")
    gear = ""
    if rules.gear_faults:
        gear = ("; an attack whose base dice all show 1 tests the weapon (gear_rating + 2K against "
                f"{rules.success_threshold}: A {a.gear_rating}, B {b.gear_rating}), on failure it breaks after the "
                "blow and its bearer fights on with fists (PS = training, Shock)")
    return (f"IN economy (seed «Время в системе»): each 6-second round IN = reflexes + 1K - penalty + carry, {die}; "
            f"while someone has IN >= {rules.attack_min_in} the highest attacks (-{rules.attack_cost}), the defender "
            f"parries (-{rules.parry_cost}) by its policy if it has the IN and {window}; {both}; a hit takes the "
            f"penalty's rise off IN ({rules.in_penalty}) and {rules.action_lost} IN per lost action (stopping "
            f"effect, pain shock: {rules.in_loss}); leftover carries up to {rules.carry_cap if rules.in_carry else 0}, "
            f"debts down to {rules.carry_floor}{gear}")


# ------------------------------------------------------------------ packing for the compiled chain
# Packed rules (P_WINDOW: the parry window, BIG for any lag; P_SIMPARRY: a parry against a simultaneous attack).
(P_COST, P_PARRY, P_LOST, P_AMIN, P_CAP, P_FLOOR, P_IMMEDIATE, P_STACK, P_STOP, P_PAIN, P_TRACK, P_SCAP, P_DEATH,
 P_FIRST, P_UNBOUNDED, P_ONES, P_XLO, P_NX, P_NP, P_WINDOW, P_SIMPARRY) = range(21)
# Packed fighters (one row each); F_NGEAR: the weapon's states in the chain (2 when a gear fault can break it,
# else 1), F_NMODES: the attack tables per combo (3 when breakable: the weapon holds, it breaks, fists; else 1).
F_REFL, F_TRAIN, F_PERS, F_MAXWEAR, F_NWEAR, F_PARRIES, F_NGEAR, F_NMODES = range(8)
# Attack modes of a breakable weapon (rows of the hit tables): it holds, it breaks with this blow, fists.
M_HOLDS, M_BREAKS, M_FISTS = 0, 1, 2
# State kinds: between rounds (conditions and carries), inside a round, the end of the fight (final conditions).
K_BETWEEN, K_MID, K_END = 0, 1, 2
# A pending die (the part of a 1K not rolled yet): 0 none, 1 a plain d6, 2 a first die and 3 an extra die of an
# unbounded roll (memoryless: after a six the rest is again "a die"), 4 + 2L / 5 + 2L a first / extra die with L
# more extra dice allowed (explode_depth).
D6, FIRST, EXTRA = 1, 2, 3
WOUND = six.WOUND
BIG = 1 << 40


def in_depth(rules: six.Rules) -> int | None:
    """Extra dice a 1K may add: ``in_explode_depth`` under ``one_six``, none under ``one_zero`` (None: unlimited)."""
    return 0 if rules.in_die == "one_zero" else rules.in_explode_depth


def _first_die(rules: six.Rules) -> tuple[int, int]:
    """The pending die of a fresh IN roll and how many pending kinds the key must hold."""
    depth = in_depth(rules)
    if rules.in_die == "d6":
        return D6, 4
    if depth is None:
        return FIRST, 4
    return 4 + 2 * depth, 6 + 2 * depth


def _x_bounds(rules: six.Rules, a: six.Fighter, b: six.Fighter) -> tuple[int, int]:
    """Bounds on a known IN inside a round (the key's range): the deepest debt, the highest lazy roll kept."""
    hits = 2 * rules.track_length + 2
    lo = (rules.carry_floor - rules.track_length - rules.attack_cost - rules.parry_cost
          - hits * (rules.track_length + 2 * rules.action_lost) - 8)
    sixes = 40 if in_depth(rules) is None else in_depth(rules) + 2
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
                     hi - lo + 1, n_kinds, BIG if rules.parry_window is None else rules.parry_window,
                     rules.simultaneous_parry], dtype=np.int64)


def pack_fighter(rules: six.Rules, f: six.Fighter) -> np.ndarray:
    wear, gear = six.max_wear(rules, f), f.breakable(rules)
    return np.array([f.total_reflexes(), f.training, f.personality, wear, wear + 1, f.parries(), 1 + gear,
                     1 + 2 * gear], dtype=np.int64)


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

