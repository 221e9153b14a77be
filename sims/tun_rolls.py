"""ТУН: what every Monte Carlo kernel of the system shares: the dice's equally likely outcomes, one roll against a
limit, a fighter's level from its Body trauma, the ruleset packed for the kernels.

>>> int(dice_table("3d6").size), _outcome(10, 13, 3, 18, 6, 0, 0)
(216, (True, 3, False, False))
"""

from __future__ import annotations

import numpy as np
from numba import njit

from analysis.engine import markov
from analysis.systems import tun as rules_mod
from sims.dice import outcome_table
from sims.results import DYING, OUT, UP

# Packed rules: success on roll == limit, criticals, last word when dying, death multiple, last-word actions and
# their trauma, finishing on, at most this many finishing attacks, the level finishing stops at, an aimed hit's
# effect also on the hit that puts the target out.  (Whether there is a last word at all is in the schedule.)
(R_LE, R_CRITS, R_DYING_LAST_WORD, R_DEATH_MULTIPLE, R_LAST_WORD_ACTIONS, R_LAST_WORD_TRAUMA, R_FINISH,
 R_FINISH_ATTACKS, R_FINISH_LEVEL, R_EFFECT_ON_OUT) = range(10)


def dice_table(dice: str) -> np.ndarray:
    """The equally likely outcomes of a dice mode (216 for 3d6, 20 for 1d20, 6 for 1d6x3)."""
    return {"3d6": outcome_table(range(1, 7), 3), "1d20": outcome_table(range(1, 21), 1),
            "1d6x3": outcome_table(range(3, 19, 3), 1)}[dice]


def pack_rules(rules: rules_mod.Rules) -> np.ndarray:
    finish_level = min(markov.LETHAL[rules.lethal_at], markov.DYING)
    return np.array([rules.success_rule == "le", rules.crits, rules.dying_last_word,
                     rules.death_multiple, rules.last_word_actions, rules.last_word_trauma,
                     rules.after_out == "finish", rules.finish_attacks, finish_level,
                     rules.aim_effects == "always"], dtype=np.int64)


@njit(cache=True, nogil=True)
def _outcome(v: int, limit: int, lo: int, hi: int, bonus: int, le: int, crits: int) -> tuple[bool, int, bool, bool]:
    """A roll ``v`` against ``limit``: (success, effectiveness, critical success, critical failure)."""
    crit = crits != 0 and v == lo
    fumble = crits != 0 and v == hi
    e = limit - v
    success = (v < limit or (le != 0 and v == limit) or crit) and not fumble
    if crit:
        e = max(e, 0) + bonus
    return success, e, crit, fumble


@njit(cache=True, nogil=True)
def _level(trauma: int, volume: int, death_multiple: int) -> int:
    """UP, OUT (trauma >= volume) or DYING (trauma > death_multiple x volume)."""
    return DYING if trauma > death_multiple * volume else OUT if trauma >= volume else UP
