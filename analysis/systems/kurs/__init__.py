"""К.У.Р.С. (seed ``004_612ae8415007d305.txt``): rules and exact math.

Roll-over 3dK: total = 3dK + skill + modifiers against a difficulty (usually
0, Нормально).  Total < difficulty fails; = succeeds with a complication;
> succeeds.  Margin = total - difficulty.  The fragment never defines dK; the
default reads it as a d6 labelled -2, -1, 0, 0, +1, +2.  See RULES.md section 4
and ``docs/rules/kurs.md``.

Combat: attack total against defense total (the defense roll clamped), or
against 0 when the attack is one-sided (a surprise, a fighter who does not
defend, a helpless one); damage = success + offensive - defensive factors, one
box of the wound track per hit; duels alternate attacks after a 3dK + agility
roll-off.  Stances, the fatigue-box dodge and luck tokens are in the chain.
Every number of the section is a ``kind="constant"`` field of :class:`Rules`.

The rules by layer of detail: :mod:`~analysis.systems.kurs.rules` (the
ruleset, checks, the fighter), :mod:`~analysis.systems.kurs.track` (the box
track and a fighter's condition), :mod:`~analysis.systems.kurs.chain` (the
exact duel's kernels), :mod:`~analysis.systems.kurs.duel` (the duel, the
exchange, resolve), :mod:`~analysis.systems.kurs.tactics` (the duel as a game
of decisions: stance, effort dodge, luck).  This module registers the system.

>>> r = SYSTEM.check(Rules(), CheckArgs(skill=0))
>>> round(r.p_success, 6), round(r.extra["p_complication"], 6)
(0.587963, 0.175926)
"""

from __future__ import annotations

from analysis.engine.assumptions import Assumption, When
from analysis.engine.combat import FINISH_ATTACKS
from analysis.engine.registry import register
from analysis.engine.system import System
from analysis.systems.kurs.chain import (
    Settled,
    Side,
    _kernels,
    _table,
    attack_matrix,
    attack_outcomes,
    exchange_branches,
    helpless_matrix,
    margins,
    settle,
    side,
    side_of,
)
from analysis.systems.kurs.duel import (
    GRAZE_NOTE,
    LUCK_NOTE,
    ONE_SIDED,
    clamp_notes,
    duel,
    duel_order,
    duel_states,
    exchange,
    first_attack,
    manoeuvre_notes,
    resolve,
    slips,
)
from analysis.systems.kurs.groups import group, group_states
from analysis.systems.kurs.rules import (
    BOOK_TRACK,
    DK_PRESETS,
    DODGE_FROM,
    DODGES,
    DYING,
    FATIGUE,
    HEAVY,
    INCAPACITATED,
    LADDER,
    LEVELS,
    LIGHT,
    MEDIUM,
    PAINED,
    STANCES,
    TARGETS,
    TRADES,
    CheckArgs,
    Fighter,
    Rules,
    answer_luck,
    check,
    clamp_defense,
    dice,
    opposed,
    outcomes,
    roll,
    spend_luck,
    table_cases,
)
from analysis.systems.kurs.tactics import tactics, tactics_states
from analysis.systems.kurs.track import (
    DEAD_END,
    Condition,
    Turn,
    condition_label,
    conditions,
    defended,
    defense_mod,
    fresh,
    level_of,
    mark,
    one_sided_on,
    penalty,
    status_of,
    take_hit,
    turn,
)

__all__ = ["BOOK_TRACK", "DEAD_END", "DK_PRESETS", "DODGES", "DODGE_FROM", "DYING", "FATIGUE", "GRAZE_NOTE", "HEAVY",
           "INCAPACITATED", "LADDER", "LEVELS", "LIGHT", "LUCK_NOTE", "MEDIUM", "ONE_SIDED", "PAINED", "STANCES",
           "SYSTEM", "TARGETS", "TRADES", "CheckArgs", "Condition", "Fighter", "Rules", "Settled", "Side", "Turn", "_kernels",
           "_table", "answer_luck", "attack_matrix", "attack_outcomes", "check", "clamp_defense", "clamp_notes",
           "condition_label", "conditions", "defended", "defense_mod", "dice", "duel", "duel_order", "duel_states",
           "exchange", "exchange_branches", "first_attack", "fresh", "group", "group_states", "helpless_matrix", "level_of", "manoeuvre_notes",
           "margins", "mark", "one_sided_on", "opposed", "outcomes", "penalty", "resolve", "roll", "settle", "side",
           "side_of", "slips", "spend_luck", "status_of", "table_cases", "tactics", "tactics_states", "take_hit", "turn"]

SYSTEM = register(System(
    id="kurs",
    title="K.U.R.S.",
    title_ru="К.У.Р.С.",
    seed="004_612ae8415007d305.txt",
    dice="3dK roll-over, dK = (-2, -1, 0, 0, +1, +2) by default",
    Rules=Rules,
    CheckArgs=CheckArgs,
    check=check,
    opposed=opposed,
    table_cases=table_cases,
    value="skill",
    Fighter=Fighter,
    exchange=exchange,
    resolve=resolve,
    duel=duel,
    roll_names=("attack", "defense"),
    combat_skills=("attack_skill", "defense_skill"),
    levels={"out": "«Недееспособен» marked", "dying": "«При смерти» marked", "dead": None},
    duel_states=duel_states,
    slips=slips,
    group=group,
    group_states=group_states,
    tactics=tactics,
    tactics_states=tactics_states,
    assumptions=(
        Assumption("dk_faces", "the fragment never defines dK; its defense rule's extremes -5 and -6 need three dice "
                   "of -2..+2: a d6 relabelled", tuple(DK_PRESETS.values())),
        Assumption("no_defense_bonus", "no number for not defending: twice the stance trade's +1", (0, 1, 2, 3),
                   When(attacker={"stance": "no_defense"})),
        FINISH_ATTACKS,
    ),
))
