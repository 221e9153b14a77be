"""Tri-Stat dX (seed ``000_b535f6ff666a0665.txt``, RULES.md section 1).

The rules by layer: :mod:`~analysis.systems.tristat.rules` (the ruleset,
checks, the fighter, one attack's outcomes, condition tracks),
:mod:`~analysis.systems.tristat.duel` (one attack, the exact duel, one attack
with the dice given), :mod:`~analysis.systems.tristat.tactics` (the duel as
a game of decisions, built by :mod:`~analysis.systems.tristat.gamebuild`) and
:mod:`~analysis.systems.tristat.groups` (group fights, compiled in
:mod:`~analysis.systems.tristat.groupcore`).
This module registers the system.

>>> r = SYSTEM.check(Rules(), CheckArgs(target=7))
>>> round(r.p_success, 6), r.p_critical == 1 / 36
(0.583333, True)
"""

from __future__ import annotations

from analysis.engine.assumptions import COMBATS, FIGHTS, Assumption, When, positive
from analysis.engine.combat import FINISH_ATTACKS
from analysis.engine.registry import register
from analysis.engine.system import System
from analysis.systems.tristat.duel import (
    INERT,
    duel,
    duel_states,
    exchange,
    initiative,
    resolve,
    total_defence_side,
)
from analysis.systems.tristat.rules import (
    DAMAGE_TABLE,
    DICE,
    HEALTH_PER_POINT,
    HEROISM,
    MAX_HEALTH,
    STANCES,
    TARGETS,
    Bands,
    CheckArgs,
    Fighter,
    Outcome,
    Rules,
    attack_outcomes,
    attack_target,
    blocks,
    branches,
    can_block,
    check,
    condition_label,
    damage_percent,
    defense_target,
    dying_at,
    hit_damage,
    keeps_object,
    limit_breaks,
    object_breaks,
    opposed,
    outcomes,
    raw_damage,
    roll,
    rules_roll,
    slips,
    succeeds,
    table_cases,
    track,
    validate,
    warnings,
)
from analysis.systems.tristat.groups import group, group_states
from analysis.systems.tristat.tactics import tactics, tactics_states

__all__ = ["Bands", "CheckArgs", "DAMAGE_TABLE", "DICE", "Fighter", "HEALTH_PER_POINT", "HEROISM", "INERT",
           "MAX_HEALTH", "Outcome", "Rules", "STANCES", "SYSTEM", "TARGETS", "attack_outcomes",
           "attack_target", "blocks", "branches", "can_block", "check", "condition_label", "damage_percent",
           "defense_target", "duel", "duel_states", "dying_at", "exchange", "group", "group_states",
           "hit_damage", "initiative", "keeps_object", "limit_breaks", "object_breaks", "opposed",
           "outcomes", "raw_damage", "resolve", "roll", "rules_roll", "slips", "succeeds", "table_cases",
           "tactics", "tactics_states", "total_defence_side", "track", "validate", "warnings"]

SYSTEM = register(System(
    id="tristat",
    title="Tri-Stat dX",
    title_ru="Tri-Stat dX",
    seed="000_b535f6ff666a0665.txt",
    dice="2dX roll-under, X in " + ", ".join(f"d{d}" for d in DICE),
    Rules=Rules,
    CheckArgs=CheckArgs,
    check=check,
    opposed=opposed,
    table_cases=table_cases,
    value="target",
    rule_flags=("die",),
    Fighter=Fighter,
    exchange=exchange,
    resolve=resolve,
    duel=duel,
    roll_names=("attack", "defense", "damage", "body"),
    combat_skills=("attack_bonus", "defense_bonus"),
    levels={"out": "Health < 0: «теряет сознание»", "dying": "Health <= -max Health: «при смерти»", "dead": None},
    round_seconds=5,
    duel_states=duel_states,
    slips=slips,
    tactics=tactics,
    tactics_states=tactics_states,
    group=group,
    group_states=group_states,
    assumptions=(
        Assumption("armor", "the seed's Armor lowers damage by its level without saying how much: the lab takes armor "
                   "points off every hit, floor 0", (0, 2, 5, 10), When(FIGHTS, defender={"armor": positive})),
        Assumption("total_defence_rounds", "nothing ends a fight against total defence: the lab stops after this many "
                   "rounds (help arrives, the attacker gives up)", (3, 5, 10, 20),
                   When(COMBATS, defender={"stance": "total_defence"})),
        Assumption("shock_rule", "the seed names Shock without its numbers: the lab's stand-in, a Body check after a "
                   "hit above the shock value", (False, True), When(FIGHTS, rules={"shock_rule": True})),
        FINISH_ATTACKS,
    ),
))
