"""2K's exact duel (RULES.md section 2): the compiled IN-economy solver, or the fixed order of the simplification
``in_economy = false``, then ``after_out``; and the estimate of its size.

>>> res = duel(Rules(), Fighter(weapon_ps=30), Fighter(weapon_ps=30))
>>> round(res.solution.p_a_wins, 12) == round(res.solution.p_b_wins, 12)
True
"""

from __future__ import annotations

import numpy as np

from analysis.base.lazy import sp
from analysis.engine import markov
from analysis.engine.combat import DuelResult, describe_fighter
from analysis.systems.onesix.rules import UNHURT, Fighter, Rules, helpless_kernels, kernels, track


def duel(rules: Rules, a: Fighter, b: Fighter) -> DuelResult:
    """A duel solved exactly under the IN economy (RULES.md section 2), or the fixed order when ``in_economy`` is off.

    >>> res = duel(Rules(), Fighter(weapon_ps=30), Fighter(weapon_ps=30))
    >>> round(res.solution.p_a_wins, 12) == round(res.solution.p_b_wins, 12)
    True
    """
    weapons: dict = {}
    if rules.in_economy:
        from analysis.systems.onesix.solver import economy_duel  # numba loads only for a duel

        solution, order, weapons = economy_duel(rules, a, b)
    else:
        solution, order = _fixed_order_duel(rules, a, b)
    if rules.after_out == "finish":
        ta, tb = track(rules, a), track(rules, b)
        arms = {(ga, gb): (a.fists() if ga else a, b.fists() if gb else b) for ga, gb in weapons}
        parts = [(ends, helpless_kernels(rules, arms[key][1], a), helpless_kernels(rules, arms[key][0], b))
                 for key, ends in weapons.items()]
        solution = markov.finish(solution, ta, tb, helpless_kernels(rules, b, a), helpless_kernels(rules, a, b),
                                 rules.lethal_at, rules.finish_attacks, parts)
        order += (f"; after the first out the other attacks the helpless one (unopposed, no parry, its penalty "
                  f"fixed) until {rules.lethal_at} or {rules.finish_attacks} attacks"
                  + (", with the weapon it has then (no gear test in these blows)" if weapons else ""))
    return DuelResult("onesix", rules.to_dict(), describe_fighter(a, rules), describe_fighter(b, rules), order, solution)


def _fixed_order_duel(rules: Rules, a: Fighter, b: Fighter) -> tuple[markov.Solution, str]:
    """The simplification ``in_economy = false``: one attack each per round, the higher average IN - penalty
    first, equal at once; no IN is spent, so lost actions cost nothing."""
    ta, tb = track(rules, a), track(rules, b)
    on_b, on_a = kernels(rules, a, b), kernels(rules, b, a)
    a_hits, b_hits = markov.attack(ta, tb, on_b, "a"), markov.attack(ta, tb, on_a, "b")
    key_a = a.average_in(rules) - np.asarray(ta.classes)
    key_b = b.average_in(rules) - np.asarray(tb.classes)
    lead = np.subtract.outer(key_a, key_b).ravel()
    m = (sp.diags((lead > 0).astype(float)) @ (a_hits @ b_hits) + sp.diags((lead < 0).astype(float)) @ (b_hits @ a_hits)
         + sp.diags((lead == 0).astype(float)) @ markov.simultaneous(ta, tb, on_a, on_b))
    solution = markov.solve(m, ta, tb, (ta.index[UNHURT], tb.index[UNHURT]))
    order = (f"in_economy = false (a simplification, not the seed's timing): each round one attack each, the higher "
             f"average IN (reflexes + {rules.average_in_bonus}: A {a.average_in(rules)}, B {b.average_in(rules)}) minus "
             "the condition penalty first, equal at once; a defender with defense_rating > 0 and parry = always "
             "opposes every attack; no IN is spent, so the stopping effect and pain shock cost nothing; without an "
             "IN clock parry_window and simultaneous_parry do not apply, and without weapon states neither do "
             "gear_faults")
    return solution, order


def duel_states(rules: Rules, a: Fighter, b: Fighter) -> int:
    """An upper estimate of the exact duel's chain states, without building it."""
    if not rules.in_economy:
        return len(track(rules, a)) * len(track(rules, b))
    from analysis.systems.onesix.chain import states_bound

    return states_bound(rules, a, b)
