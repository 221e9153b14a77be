"""Cross-system combat comparisons: who wins, how long it takes, how many hits take a fighter out, and
how often a fight kills.

Fighters come from a :class:`~analysis.fights.setup.Setup` (by default each system's
``trained_armed`` archetype on both sides, matched across systems by
archetype).  A *skill gap* of k raises A's combat skills
(``System.combat_skills``) by k points of that system.  Because a point means
different things in different systems, every row also carries the *hit edge*:
A's chance to hit B in one exchange minus B's chance to hit A.

Lethality is compared with every duel played to the end the rules ask
for (docs/rules/README.md: under ``after_out = "stop"`` only the deciding blow can kill,
so systems are compared under ``"finish"``), and "killed" is the level the
setup's ``lethal_at`` option names (``dying`` by default).

>>> df = skill_gap("tristat", gaps=(0, 2))
>>> list(df["gap"]), bool(df["p_a_wins"].is_monotonic_increasing)
([0, 2], True)
"""

from __future__ import annotations

import importlib
from typing import Any, Iterable

import numpy as np
import pandas as pd

from analysis.engine import markov
from analysis.engine.combat import branch_kernel
from analysis.engine.markov import OUT, STATUS_NAMES
from analysis.engine.system import System
from analysis.fights.budget import exact_duel
from analysis.fights.setup import BASE, Setup
from analysis.systems import SYSTEM_IDS, get_system

__all__ = ["BASE", "GAPS", "GAP_RULES", "AFTER_OUT", "with_gap", "duel_rules", "skill_gap", "rounds_distribution",
           "hits_to_out", "compare"]

GAPS = (0, 1, 2, 3, 4)
GAP_RULES = {"tristat": {"stat_limits": "warn"}}
"""Rule settings the skill-gap comparison needs: Tri-Stat's combat skills stop at X/2 = 3 at d6, so gaps past 2
over trained_armed's skill 1 are beyond the book; they run with the limits as warnings, not rejections."""
AFTER_OUT = "finish"
"""How every cross-system duel ends: the one switch between ``"stop"`` and ``"finish"``.

The rules compare lethality under ``finish`` (docs/rules/README.md, duel options), which all four systems model
(``tests/test_report.py::test_cross_system_lethality_finishes_when_every_system_can`` asked for this flip the day
the last of them, 2K, accepted it)."""
MAX_ATTACKS = 60
"""Hits/attacks-to-out curves stop here (or once P(out) is within 1e-9 of 1)."""


def with_gap(system: System, fighter: Any, gap: int) -> Any:
    """The fighter with every combat skill raised by ``gap`` points."""
    return fighter.replace(**{p: getattr(fighter, p) + gap for p in system.combat_skills})


def duel_rules(rules: Any) -> Any:
    """The ruleset the cross-system duels are played under: the setup's, ended as :data:`AFTER_OUT` says."""
    return rules.replace(after_out=AFTER_OUT)


def p_killed(result: dict[str, Any]) -> float | None:
    """P(the fight ends with someone at the ``lethal_at`` level or worse), from a duel's final pairs;
    ``None`` when the system has no such level."""
    lethal = result["lethal_at"]
    if result["p_a_killed"] is None:
        return None
    worst = STATUS_NAMES.index(lethal)
    return sum(p for pair, p in result["final"].items()
               if max(STATUS_NAMES.index(s) for s in pair.split("/")) >= worst)


def skill_gap(system_id: str, setup: Setup | None = None, gaps: Iterable[int] = GAPS) -> pd.DataFrame:
    """One row per gap: P(A wins), the hit edge, the rounds and the lethality of A (raised by the gap) against B."""
    setup = setup or Setup.build()
    system = get_system(system_id)
    rules = duel_rules(setup.ruleset(system_id)).replace(**GAP_RULES.get(system_id, {}))
    base_a, b = setup.fighters(system_id)
    rows = []
    for gap in gaps:
        a = with_gap(system, base_a, gap)
        res = exact_duel(system, rules, a, b).to_dict()
        hit_a, hit_b = system.exchange(rules, a, b), system.exchange(rules, b, a)
        edge_a, edge_b = hit_a.p_hit + hit_a.p_graze, hit_b.p_hit + hit_b.p_graze
        rows.append({
            "system": system_id, "a": base_a.name, "b": b.name, "gap": gap,
            "p_hit_a": edge_a, "p_hit_b": edge_b, "hit_edge": edge_a - edge_b,
            "p_a_wins": res["p_a_wins"], "p_b_wins": res["p_b_wins"], "p_both_out": res["p_both_out"],
            "p_stalemate": res["p_stalemate"], "mean_rounds": res["mean_rounds"],
            "median_rounds": res["median_rounds"], "after_out": res["after_out"], "lethal_at": res["lethal_at"],
            "p_a_killed": res["p_a_killed"], "p_b_killed": res["p_b_killed"], "p_killed": p_killed(res),
            "killed_note": res["null_reasons"].get("p_a_killed", ""),
            "mean_finish_attacks": res["mean_finish_attacks"], "states": res["states"],
        })
    return pd.DataFrame(rows)


def rounds_distribution(system_id: str, setup: Setup | None = None) -> pd.DataFrame:
    """P(the first fighter goes out in round r) for the setup's pairing A vs B."""
    setup = setup or Setup.build()
    system = get_system(system_id)
    sol = exact_duel(system, duel_rules(setup.ruleset(system_id)), *setup.fighters(system_id)).solution
    return pd.DataFrame({"system": system_id, "round": list(sol.rounds), "p": list(sol.rounds.values())})


def _attack_kernel(system_id: str, rules: Any, att: Any, dfn: Any) -> tuple[Any, Any]:
    """(the defender's track, the kernel of one attack of an unhurt ``att`` over it); condition 0 is unhurt.

    The one place that reads the systems' exact engines below their :class:`~analysis.engine.system.System` API: each
    system's ``track`` and ``branches`` (update the line of a system whose engine changes them).
    """
    engine = importlib.import_module(f"analysis.systems.{system_id}")
    if system_id == "onesix":
        return engine.track(rules, dfn), engine.kernels(rules, att, dfn)[0]
    if system_id == "kurs":
        t = engine.side_of(rules, dfn, "b").track
        keep, spend = engine._kernels(rules, att, dfn, "b", engine.turn(rules, att.stance, engine.fresh(rules))[0])
        return t, keep + spend - _diag((np.asarray(t.status) != markov.UP) * 1.0)
    t = engine.track(rules, dfn, att) if system_id == "tristat" else engine.track(rules, dfn)
    return t, branch_kernel(t, lambda i: engine.branches(rules, att, dfn, t.labels[i]))


def hits_to_out(system_id: str, setup: Setup | None = None, most: int = MAX_ATTACKS) -> pd.DataFrame:
    """P(B is out after at most k of A's attacks, B never striking back), and after at most k *damaging* hits
    (attacks that changed B's condition), k = 1, 2, ...; the defender's health or track made countable."""
    setup = setup or Setup.build()
    a, b = setup.fighters(system_id)
    track, k = _attack_kernel(system_id, duel_rules(setup.ruleset(system_id)), a, b)
    out = np.asarray(track.status) >= OUT
    stay = k.diagonal()
    moving = np.where(out, 1.0, 1.0 - stay)
    hit = (k - _diag(stay)).tocsr()
    hit = _diag(np.where(moving > 0, 1.0 / np.where(moving > 0, moving, 1.0), 0.0)) @ hit + _diag(out * 1.0)
    rows = []
    for measure, step in (("attacks", k), ("hits", hit.tocsr())):
        v = np.zeros(len(track))
        v[0] = 1.0
        for n in range(1, most + 1):
            v = v @ step
            p = float(v[out].sum())
            rows.append({"system": system_id, "measure": measure, "k": n, "p_out": min(p, 1.0)})
            if p >= 1 - 1e-9:
                break
    return pd.DataFrame(rows)


def _diag(values: np.ndarray) -> Any:
    from analysis.base.lazy import sp

    return sp.diags(values, format="csr")


def compare(setup: Setup | None = None, systems: Iterable[str] = SYSTEM_IDS) -> dict[str, pd.DataFrame]:
    """Every table of the combat comparison: ``skill_gap`` (wins and rounds by gap), ``lethality`` (P(killed)
    by gap), ``rounds`` (the first out's round) and ``hits_to_out``."""
    setup = setup or Setup.build()
    systems = list(systems)
    gap = pd.concat([skill_gap(s, setup) for s in systems], ignore_index=True)
    lethal_cols = ["system", "a", "b", "gap", "after_out", "lethal_at", "p_killed", "p_a_killed", "p_b_killed",
                   "mean_finish_attacks", "killed_note"]
    return {
        "skill_gap": gap.drop(columns=lethal_cols[6:]),
        "lethality": gap[lethal_cols],
        "rounds": pd.concat([rounds_distribution(s, setup) for s in systems], ignore_index=True),
        "hits_to_out": pd.concat([hits_to_out(s, setup) for s in systems], ignore_index=True),
    }
