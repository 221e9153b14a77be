"""The 2K system with the rule of 1 and 6 (seed ``001_6962a97dba69780a.txt``, RULES.md section 2).

The rules by layer of detail: :mod:`~analysis.systems.onesix.rules` (the
ruleset, checks, the fighter and one exchange), :mod:`~analysis.systems.onesix.steps`
(the IN economy's step rules), :mod:`~analysis.systems.onesix.chain` and
:mod:`~analysis.systems.onesix.solver` (the exact duel under the IN economy),
:mod:`~analysis.systems.onesix.rounds` (its graph of rounds, for the rounds distribution), :mod:`~analysis.systems.onesix.duel` (the
duel played), :mod:`~analysis.systems.onesix.tactics` (the scripts chosen as a game), :mod:`~analysis.systems.onesix.groups` (group
fights, N against M).  This module holds the
resolve path and registers the system.

>>> res = duel(Rules(), Fighter(weapon_ps=30), Fighter(weapon_ps=30))
>>> round(res.solution.p_a_wins, 12) == round(res.solution.p_b_wins, 12)
True
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from analysis.base.params import ParamError
from analysis.engine import markov
from analysis.engine.assumptions import COMBATS, FIGHTS, Assumption, When
from analysis.engine.combat import FINISH_ATTACKS, Resolution, describe_fighter
from analysis.engine.registry import register
from analysis.engine.system import System
from analysis.systems.onesix.duel import duel, duel_states
from analysis.systems.onesix.groups import group, group_states
from analysis.systems.onesix.rules import (
    SHOCK,
    UNHURT,
    WOUND,
    CheckArgs,
    Fighter,
    Rules,
    chain_value,
    check,
    die,
    exchange,
    hit_effect,
    in_die,
    mark,
    max_wear,
    opposed,
    status,
    success_level,
    table_cases,
    track,
    two_k,
)
from analysis.systems.onesix.tactics import tactics, tactics_states

__all__ = ["SHOCK", "SYSTEM", "UNHURT", "WOUND", "CheckArgs", "Fighter", "Rules", "chain_value", "check", "die",
           "duel", "duel_states", "exchange", "group", "group_states", "hit_effect", "in_die", "mark", "max_wear", "opposed", "resolve",
           "status", "success_level", "tactics", "tactics_states", "track", "two_k"]


def _possible(rules: Rules, total: int) -> bool:
    k = two_k(rules)
    return bool(k.pmf(total) > 0) or (rules.explode_depth is None and total > k.max)


def _need(rolls: Mapping[str, int], name: str) -> int:
    if name not in rolls:
        raise ParamError("rolls", ",".join(f"{k}={v}" for k, v in rolls.items()) or "(none)",
                         f"a value for '{name}' (this exchange needs it)")
    return rolls[name]


def resolve(rules: Rules, att: Fighter, dfn: Fighter, rolls: Mapping[str, int]) -> Resolution:
    """One attack of an unhurt ``att`` on an unhurt ``dfn`` with the 2K totals ``attack`` and ``defense`` given.

    ``defense`` is needed only when the defender parries (its policy) an attack that reached the threshold;
    ``gear`` (the 2K of the weapon's reliability test) only under ``gear_faults`` when ``attack`` is 0 (every
    base die showed 1) and the weapon can break: ``weapon_breaks`` says whether it did (after this blow).
    ``penalty_after`` is the modifier the defender now suffers (-max(wounds, shock)); ``in_lost`` the IN it
    loses at once (the penalty's rise under ``in_penalty = immediate``, and a lost action).  The IN clock (the
    parry window, simultaneous attacks) is the duel's: here the defender parries whenever its policy says so.

    >>> poacher = Fighter(attack_rating=9, training=3, weapon_ps=5, weapon_class="wound")
    >>> res = resolve(Rules(), poacher, Fighter(training=3, armor=1), {"attack": 10})
    >>> res.hit, res.damage, res.marked, res.fields["total_power"]
    (True, 2, {'wounds': 2, 'shock': 0}, 9)
    """
    from analysis.systems.onesix.steps import gear_holds, struck  # numba loads only for a resolve

    for name, value in rolls.items():
        if not _possible(rules, value):
            cap = "" if rules.explode_depth is None else f", at most {two_k(rules).max}"
            raise ParamError(f"rolls.{name}", value, f"a total the test dice can show (0, or 2 and up{cap})")
    thr = rules.success_threshold
    absorption = dfn.training + dfn.armor
    rt_a = att.attack_rating + _need(rolls, "attack")
    u = int(success_level(np.array([rt_a]), True, rules)[0])
    steps = [f"attack: RT = rating {att.attack_rating} + 2K {rolls['attack']} = {rt_a}: "
             + (f"reaches {thr} (U {u})" if rt_a >= thr else f"below {thr}, miss")]
    fault_roll = rolls["attack"] == 0 and att.breakable(rules)
    armed, fault = gear_holds(rules, att, True, rolls["attack"], _need(rolls, "gear") if fault_roll else None)
    if rules.gear_faults and rolls["attack"] == 0 and not att.breakable(rules):
        fault = "equipment fault: nothing to break (fists, or a weapon that passes its test whatever the roll)"
    rt_d = None
    hit = rt_a >= thr
    if hit and dfn.parries():
        rt_d = dfn.defense_rating + _need(rolls, "defense")
        hit = rt_a > rt_d
        steps.append(f"defense: RT = rating {dfn.defense_rating} + 2K {rolls['defense']} = {rt_d}: "
                     + (f"below {rt_a}, the attack gets through" if hit
                        else f"not below {rt_a}, parried (equal RT: the reacting side wins)"))
    fields: dict[str, Any] = {"rt_attack": rt_a, "rt_defense": rt_d, "success_level": u, "excess": None,
                              "total_power": None, "absorption": absorption, "levels_class": None,
                              "stopping_effect": False, "pain_shock": False, "penalty_after": 0, "in_lost": 0,
                              "condition": "up", "armor_wear": 0, "weapon_breaks": not armed}
    if fault:
        steps.append(fault)
    if not hit:
        steps.append(f"no damage; {dfn.name} stays unhurt")
        return Resolution("onesix", rules.to_dict(), describe_fighter(att, rules), describe_fighter(dfn, rules),
                          dict(rolls), steps, False, 0, {"wounds": 0, "shock": 0}, fields)
    base, base_text = (rt_d, f"defense RT {rt_d}") if rules.excess_over == "defense" and rt_d is not None \
        else (thr, str(thr))
    excess = rt_a - base
    power = att.weapon_ps + excess
    levels, cls, step = (int(x) for x in hit_effect(rules, att, dfn, power, 0))
    steps.append(f"excess = RT {rt_a} - {base_text} = {excess}; total power = PS {att.weapon_ps} + {excess} = {power}")
    steps.append(f"absorption = training {dfn.training} + armor {dfn.armor} = {absorption}; "
                 + (f"levels = ceil(({power} - {absorption}) / {rules.damage_step}) = {levels}" if levels
                    else f"power {power} <= absorption {absorption}: no levels"))
    kind = "Wounds" if cls == WOUND else "Shock"
    if att.weapon_class == "ballistic":
        decisive = power if rules.ballistic_power == "total" else att.weapon_ps
        steps.append(f"class: ballistic, power {decisive} " + (f"> protection {dfn.protection}: Wounds" if cls == WOUND
                                                               else f"<= protection {dfn.protection}: Shock"))
    else:
        steps.append(f"class: {att.weapon_class} weapon: {kind}")
    effect = struck(rules, dfn, UNHURT, levels, cls, step)
    w, s, _ = effect.condition
    level = markov.STATUS_NAMES[status(rules, effect.condition)]
    steps.append(f"condition: wounds {w}, shock {s}" + (" (Shock past the reserve became Wounds)" if w and cls == SHOCK
                                                       else "") + f"; penalty -{max(w, s)}"
                 + {"up": "", "out": "; out: cannot act (a Personality test decides whether still conscious)",
                    "dying": "; dying (Wounds past the track)", "dead": f"; dead ({rules.death} Wounds)"}[level])
    steps.append(f"stopping effect: {levels} levels " + (f"> training {dfn.training}: loses one action "
                                                        f"({rules.action_lost} IN)" if effect.stopping
                                                        else f"<= training {dfn.training}: none"))
    steps.append("pain shock: " + (f"{'wounds' if cls == WOUND else 'shock'} {w if cls == WOUND else s} > personality "
                                   f"{dfn.personality}: loses one action ({rules.action_lost} IN)" if effect.pain
                                   else f"no new level above personality {dfn.personality}"))
    steps.append(f"IN: -{effect.in_lost} at once (penalty rise under in_penalty = {rules.in_penalty}, lost "
                 f"actions under in_loss = {rules.in_loss})")
    if rules.armor_wear and dfn.armor > 0:
        steps.append(f"armor wear: absorption and protection -{step}" if step else
                     f"armor wear: power {power} below the armor rating {dfn.armor}, no wear")
    fields.update(excess=excess, total_power=power, levels_class="wound" if cls == WOUND else "shock",
                  stopping_effect=effect.stopping, pain_shock=effect.pain, penalty_after=-max(w, s),
                  in_lost=effect.in_lost, condition=level, armor_wear=step)
    return Resolution("onesix", rules.to_dict(), describe_fighter(att, rules), describe_fighter(dfn, rules),
                      dict(rolls), steps, True, levels, {"wounds": w, "shock": s}, fields)


SYSTEM = register(System(
    id="onesix",
    title="2K, rule of 1 and 6",
    title_ru="2К, правило 1 и 6",
    seed="001_6962a97dba69780a.txt",
    dice="2K: 2d6, a 1 adds 0, a 6 adds 6 and rolls again (unbounded)",
    Rules=Rules,
    CheckArgs=CheckArgs,
    check=check,
    opposed=opposed,
    table_cases=table_cases,
    value="rating",
    Fighter=Fighter,
    exchange=exchange,
    resolve=resolve,
    duel=duel,
    roll_names=("attack", "defense", "gear"),
    combat_skills=("attack_rating", "defense_rating"),
    levels={"out": "a track above 6: «активно действовать он не может»",
            "dying": "Wounds 7-9: the body's reserve, dies without first aid", "dead": "10 Wounds: «гибель»"},
    round_seconds=6,
    duel_states=duel_states,
    tactics=tactics,
    tactics_states=tactics_states,
    group=group,
    group_states=group_states,
    group_readings=({"group_timing": "order"},),
    assumptions=(
        Assumption("carry_floor", "the seed carries a debt of IN in full and gives no floor: the lab bounds it so the "
                   "exact chain stays finite", (-6, -12, -20, -40),
                   When(COMBATS, rules={"in_economy": True}, group={"group_timing": "economy"})),
        Assumption("gear_rating", "the seed rates no weapon's reliability: 8 is the rating an average 2K carries to "
                   "15, so a faulted weapon breaks 42.6% of the time", (4, 8, 12, 15),
                   When(FIGHTS, rules={"gear_faults": True})),
        FINISH_ATTACKS,
    ),
))
