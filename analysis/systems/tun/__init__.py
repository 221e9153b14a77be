"""ТУН, basic rules (seed ``002_23c6518a39186dbd.txt``, RULES.md section 3).

The rules by layer of detail: :mod:`~analysis.systems.tun.rules` (the
ruleset, checks, the fighter, one attack), :mod:`~analysis.systems.tun.chain`
(the exact duel: turns, the last word, aimed-shot effects, ``after_out``),
:mod:`~analysis.systems.tun.game` and :mod:`~analysis.systems.tun.walk`
(the duel as a game of decisions, RULES.md section 8), :mod:`~analysis.systems.tun.groups`
(group fights, section 7).  This module
registers the system.

A duel keeps the order of the first round (Body, a roll or Reaction); each
turn is two actions, a fighter may delay or skip for initiative, and a
fighter put out before its turn has the last word (one action, +1 Body
trauma).  ``after_out = "finish"``: the winner keeps attacking the helpless
loser, which no longer defends.

>>> round(SYSTEM.check(Rules(), CheckArgs(limit=13)).p_success, 6)
0.740741
"""

from __future__ import annotations

from analysis.engine.assumptions import FIGHTS, Assumption, When, positive
from analysis.engine.combat import FINISH_ATTACKS
from analysis.engine.registry import register
from analysis.engine.system import System
from analysis.systems.tun.chain import (
    describe_schedule,
    duel,
    duel_states,
    duel_track,
    first_mover,
    resolve,
    schedule,
)
from analysis.systems.tun.game import tactics, tactics_states
from analysis.systems.tun.groups import group, group_states
from analysis.systems.tun.rules import (
    AIMS,
    DICE_MODES,
    EFFECTS,
    HELPLESS,
    LAST_WORD,
    MODES,
    NORMAL,
    TARGETS,
    TURN_POLICIES,
    CheckArgs,
    Fighter,
    Rules,
    acting,
    attack_limit,
    branches,
    check,
    check_reach,
    condition_label,
    crit_bonus,
    effect_of,
    effect_text,
    exchange,
    in_reach,
    limit_terms,
    limit_text,
    opposed,
    outcome_arrays,
    outcomes,
    resist,
    roll,
    seed_table,
    seed_table_warning,
    table_cases,
    track,
    trauma_label,
)

__all__ = ["AIMS", "DICE_MODES", "EFFECTS", "HELPLESS", "LAST_WORD", "MODES", "NORMAL", "SYSTEM", "TARGETS",
           "TURN_POLICIES", "CheckArgs", "Fighter", "Rules", "acting", "attack_limit", "branches", "check",
           "check_reach", "condition_label", "crit_bonus", "describe_schedule", "duel", "duel_states", "duel_track",
           "effect_of", "effect_text", "exchange", "first_mover", "in_reach", "limit_terms", "limit_text", "opposed",
           "outcome_arrays", "outcomes", "resist", "resolve", "roll", "schedule", "seed_table", "seed_table_warning",
           "table_cases", "group", "group_states", "tactics", "tactics_states", "track", "trauma_label"]

SYSTEM = register(System(
    id="tun",
    title="TUN",
    title_ru="ТУН",
    seed="002_23c6518a39186dbd.txt",
    dice="3d6 roll-under (1d20 or 1d6x3 for luck)",
    Rules=Rules,
    CheckArgs=CheckArgs,
    check=check,
    opposed=opposed,
    table_cases=table_cases,
    value="limit",
    extras={"seed_table": seed_table, "seed_table_warning": seed_table_warning, "resist": resist},
    Fighter=Fighter,
    exchange=exchange,
    resolve=resolve,
    duel=duel,
    roll_names=("attack",),
    combat_skills=("attack_feature", "extra_defense"),
    levels={"out": "trauma + fatigue >= volume: «теряет сознание»",
            "dying": "trauma > 2 x volume: «не позднее чем через час… умирает»", "dead": None},
    round_seconds=4,
    duel_states=duel_states,
    tactics=tactics,
    tactics_states=tactics_states,
    group=group,
    group_states=group_states,
    assumptions=(
        Assumption("melee_reach", "the seed gives a melee weapon no reach: 2 m, a step and a blade", (1, 2, 3, 5),
                   When(FIGHTS, rules={"distance": positive}, attacker={"ranged": False})),
        Assumption("stun_actions", "the seed says a shot to the head stuns, not for how long: one lost action",
                   (1, 2, 3), When(FIGHTS, attacker={"aim": "head"})),
        FINISH_ATTACKS,
    ),
))
