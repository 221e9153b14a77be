"""Cross-system combat comparisons: how fast and how often a fight kills.

Fighters are matched across systems by archetype: each system's ``trained_armed``
fighter (built from that system's own seed scale) against itself.  A *skill gap*
of k raises A's combat skills (``System.combat_skills``) by k points of that
system.  Because a point means different things in different systems, every row
also carries the *hit edge*: A's chance to hit B in one exchange minus B's chance
to hit A, a common currency for comparing the curves.

>>> df = skill_gap("tristat", gaps=(0, 2))
>>> list(df["gap"]), bool(df["p_a_wins"].is_monotonic_increasing)
([0, 2], True)
"""

from __future__ import annotations

from typing import Any, Iterable

import pandas as pd

from .fighters import load_fighter
from .system import SYSTEM_IDS, System, get_system

BASE = "trained_armed"
GAPS = (0, 1, 2, 3, 4)
GAP_RULES = {"tristat": {"stat_limits": "warn"}}
"""Rule settings the skill-gap comparison needs: Tri-Stat's combat skills stop at X/2 = 3 at d6, so gaps past 2
over trained_armed's skill 1 are beyond the book; they run with the limits as warnings, not rejections."""


def with_gap(system: System, fighter: Any, gap: int) -> Any:
    """The fighter with every combat skill raised by ``gap`` points."""
    return fighter.replace(**{p: getattr(fighter, p) + gap for p in system.combat_skills})


def fight_outcomes(solution: Any) -> dict[str, float]:
    """P(someone is dying or dead) and P(the loser is only out) from a duel's final states."""
    death = sum(p for pair, p in solution.final.items() if {"dying", "dead"} & set(pair))
    incap = sum(p for pair, p in solution.final.items() if not {"dying", "dead"} & set(pair))
    return {"p_death": death, "p_incap": incap}


def skill_gap(system_id: str, rules: Any = None, base: str = BASE, gaps: Iterable[int] = GAPS) -> pd.DataFrame:
    """P(A wins), lethality and length of the duel against A's skill gap over B."""
    system = get_system(system_id)
    rules = rules or system.rules(**GAP_RULES.get(system_id, {}))
    b = load_fighter(system, base)
    rows = []
    for gap in gaps:
        a = with_gap(system, b, gap)
        sol = system.duel(rules, a, b).solution
        hit_a = system.exchange(rules, a, b)
        hit_b = system.exchange(rules, b, a)
        rows.append({
            "system": system_id, "base": base, "gap": gap,
            "p_hit_a": hit_a.p_hit + hit_a.p_graze, "p_hit_b": hit_b.p_hit + hit_b.p_graze,
            "hit_edge": (hit_a.p_hit + hit_a.p_graze) - (hit_b.p_hit + hit_b.p_graze),
            "p_a_wins": sol.p_a_wins, "p_b_wins": sol.p_b_wins, "p_both_out": sol.p_both_out,
            "p_stalemate": sol.p_stalemate, **fight_outcomes(sol),
            "mean_rounds": sol.mean_rounds, "median_rounds": sol.median_rounds, "states": sol.states,
        })
    return pd.DataFrame(rows)


def rounds_distribution(system_id: str, rules: Any = None, base: str = BASE) -> pd.DataFrame:
    """P(the fight ends in round r) for the matched pairing."""
    system = get_system(system_id)
    rules = rules or system.rules()
    f = load_fighter(system, base)
    sol = system.duel(rules, f, f).solution
    return pd.DataFrame({"system": system_id, "round": list(sol.rounds), "p": list(sol.rounds.values())})


def damage_per_exchange(system_id: str, rules: Any = None, base: str = BASE) -> pd.DataFrame:
    """The damage distribution of one attack (the system's own damage units; misses count 0)."""
    system = get_system(system_id)
    rules = rules or system.rules()
    f = load_fighter(system, base)
    res = system.exchange(rules, f, f)
    return pd.DataFrame({"system": system_id, "damage": list(res.damage.to_dict()),
                         "p": list(res.damage.to_dict().values())})


def compare(rules: dict[str, Any] | None = None, systems: Iterable[str] = SYSTEM_IDS) -> dict[str, pd.DataFrame]:
    """Every table of the lethality comparison, for all systems."""
    rules = rules or {}
    tables = {"skill_gap": skill_gap, "rounds": rounds_distribution, "damage": damage_per_exchange}
    return {name: pd.concat([fn(s, rules.get(s)) for s in systems], ignore_index=True) for name, fn in tables.items()}
