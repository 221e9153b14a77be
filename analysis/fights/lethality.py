"""Cross-system combat comparisons: who wins, how long it takes, how many hits take a fighter out, and
how often a fight kills.

Fighters come from a :class:`~analysis.fights.setup.Setup` (by default each system's
``trained_armed`` archetype on both sides, matched across systems by
archetype).  A *skill gap* of k raises A's combat skills
(``System.combat_skills``) by k points of that system.  Because a point means
different things in different systems, every row also carries the *hit edge*:
A's chance to hit B in one exchange minus B's chance to hit A.

Lethality is a curve, not one number (:func:`finishing`): P(at least one fighter
killed) when the winner may strike the helpless loser 0 times (``after_out =
"stop"``: the deciding blow alone), 1, 2, … up to the setup's ``finish_attacks``
(``after_out = "finish"``).  Under ``stop`` a system whose deciding blow rarely
leaves the loser dying (Tri-Stat) shows almost no deaths; with ten finishing
attacks every system nears its ceiling; the curve between says how fast a
helpless fighter dies.  "Killed" is the level the setup's ``lethal_at`` option
names (``dying`` by default).

The duels are played as the setup's ``play`` says: by the book, or solved as
the system's decision game (``best``, ``equilibrium``); a
played lethality curve solves the game once per number of finishing attacks,
since playing well may change with how long the winner may strike.

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
from analysis.engine.markov import OUT
from analysis.engine.system import System
from analysis.fights.play import played_duel
from analysis.fights.setup import BASE, Setup
from analysis.systems import SYSTEM_IDS, get_system

__all__ = ["BASE", "GAPS", "GAP_RULES", "AFTER_OUT", "with_gap", "duel_rules", "skill_gap", "finishing",
           "rounds_distribution", "hits_to_out", "compare"]

GAPS = (0, 1, 2, 3, 4)
GAP_RULES = {"tristat": {"stat_limits": "warn"}}
"""Rule settings the skill-gap comparison needs: Tri-Stat's combat skills stop at X/2 = 3 at d6, so gaps past 2
over trained_armed's skill 1 are beyond the book; they run with the limits as warnings, not rejections."""
AFTER_OUT = "finish"
"""How the cross-system duels of the skill-gap comparison and the rule readings end (``"stop"`` or ``"finish"``);
lethality itself is measured over every number of finishing attacks (:func:`finishing`)."""
MAX_ATTACKS = 60
"""Hits/attacks-to-out curves stop here (or once P(out) is within 1e-9 of 1)."""


def with_gap(system: System, fighter: Any, gap: int) -> Any:
    """The fighter with every combat skill raised by ``gap`` points."""
    return fighter.replace(**{p: getattr(fighter, p) + gap for p in system.combat_skills})


def duel_rules(rules: Any) -> Any:
    """The ruleset the cross-system duels are played under: the setup's, ended as :data:`AFTER_OUT` says."""
    return rules.replace(after_out=AFTER_OUT)


def skill_gap(system_id: str, setup: Setup | None = None, gaps: Iterable[int] = GAPS) -> pd.DataFrame:
    """One row per gap: P(A wins), the hit edge, the rounds and the lethality of A (raised by the gap) against B."""
    setup = setup or Setup.build()
    system = get_system(system_id)
    rules = duel_rules(setup.ruleset(system_id)).replace(**GAP_RULES.get(system_id, {}))
    base_a, b = setup.fighters(system_id)
    rows = []
    for gap in gaps:
        a = with_gap(system, base_a, gap)
        res = played_duel(system, rules, a, b, setup.play).to_dict()
        hit_a, hit_b = system.exchange(rules, a, b), system.exchange(rules, b, a)
        edge_a, edge_b = hit_a.p_hit + hit_a.p_graze, hit_b.p_hit + hit_b.p_graze
        rows.append({
            "system": system_id, "a": base_a.name, "b": b.name, "gap": gap,
            "p_hit_a": edge_a, "p_hit_b": edge_b, "hit_edge": edge_a - edge_b,
            "p_a_wins": res["p_a_wins"], "p_b_wins": res["p_b_wins"], "p_both_out": res["p_both_out"],
            "p_stalemate": res["p_stalemate"], "mean_rounds": res["mean_rounds"],
            "median_rounds": res["median_rounds"], "after_out": res["after_out"], "lethal_at": res["lethal_at"],
            "p_a_killed": res["p_a_killed"], "p_b_killed": res["p_b_killed"], "p_killed": res["p_killed"],
            "killed_note": res["null_reasons"].get("p_a_killed", ""),
            "mean_finish_attacks": res["mean_finish_attacks"], "states": res["states"],
        })
    return pd.DataFrame(rows)


def finishing(system_id: str, setup: Setup | None = None) -> pd.DataFrame:
    """P(at least one fighter killed) against the finishing attacks the winner may make on the helpless loser:
    one row per k = 0 (``after_out = "stop"``: the deciding blow alone) .. the setup's ``finish_attacks``.

    ``p_decided`` is P(someone goes out); ``p_deciding_blow`` is P(the deciding blow itself leaves the loser at the
    killed level | the fight is decided), the same on every row; ``p_killed`` is ``None`` (with ``killed_note``)
    where the system has no such level.

    >>> df = finishing("tristat")
    >>> list(df["finish_attacks"])[:3], df["after_out"].iloc[0], bool(df["p_killed"].is_monotonic_increasing)
    ([0, 1, 2], 'stop', True)
    """
    setup = setup or Setup.build()
    system = get_system(system_id)
    rules = setup.ruleset(system_id)
    a, b = setup.fighters(system_id)
    res = played_duel(system, rules.replace(after_out="finish"), a, b, setup.play).to_dict()
    curve = res["p_killed_by_finish_attacks"] or [None] * (rules.finish_attacks + 1)
    if setup.play != "book" and res["p_killed"] is not None:
        curve = [played_duel(system, rules.replace(after_out="stop"), a, b, setup.play).to_dict()["p_killed"]]
        curve += [played_duel(system, rules.replace(after_out="finish", finish_attacks=k), a, b,
                              setup.play).to_dict()["p_killed"] for k in range(1, rules.finish_attacks)]
        curve.append(res["p_killed"])
    decided = res["p_a_wins"] + res["p_b_wins"] + res["p_both_out"]
    blow = curve[0] / decided if curve[0] is not None and decided > 0 else None
    note = res["null_reasons"].get("p_killed", "")
    return pd.DataFrame([{"system": system_id, "a": a.name, "b": b.name, "lethal_at": res["lethal_at"],
                          "finish_attacks": k, "after_out": "stop" if k == 0 else "finish", "p_killed": p,
                          "p_decided": decided, "p_deciding_blow": blow, "killed_note": note}
                         for k, p in enumerate(curve)])


def rounds_distribution(system_id: str, setup: Setup | None = None) -> pd.DataFrame:
    """P(the first fighter goes out in round r) for the setup's pairing A vs B."""
    setup = setup or Setup.build()
    system = get_system(system_id)
    sol = played_duel(system, duel_rules(setup.ruleset(system_id)), *setup.fighters(system_id), setup.play).solution
    return pd.DataFrame({"system": system_id, "round": list(sol.rounds), "p": list(sol.rounds.values())})


def _attack_kernel(system_id: str, rules: Any, att: Any, dfn: Any) -> tuple[Any, Any]:
    """(the defender's track, the kernel of one attack of an unhurt ``att`` over it); condition 0 is unhurt.

    The one place that reads the systems' exact engines below their :class:`~analysis.engine.system.System` API: each
    system's ``track`` and ``branches`` (update the line of a system whose engine changes them).
    """
    engine = importlib.import_module(f"analysis.systems.{system_id}")
    if system_id == "onesix":
        engine = importlib.import_module("analysis.systems.onesix.rules")
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


TABLES = ("skill_gap", "lethality", "rounds", "hits_to_out")
"""The tables of the combat comparison (:func:`compare`)."""


def compare(setup: Setup | None = None, systems: Iterable[str] = SYSTEM_IDS,
            tables: Iterable[str] = TABLES) -> dict[str, pd.DataFrame]:
    """The tables of the combat comparison named in ``tables`` (all by default): ``skill_gap`` (wins and rounds by
    gap), ``lethality`` (P(at least one killed) by the finishing attacks allowed, :func:`finishing`), ``rounds``
    (the first out's round) and ``hits_to_out``."""
    setup = setup or Setup.build()
    systems = list(systems)
    makers = {"skill_gap": lambda s: skill_gap(s, setup).drop(
                  columns=["p_a_killed", "p_b_killed", "p_killed", "killed_note", "mean_finish_attacks"]),
              "lethality": lambda s: finishing(s, setup), "rounds": lambda s: rounds_distribution(s, setup),
              "hits_to_out": lambda s: hits_to_out(s, setup)}
    return {name: pd.concat([makers[name](s) for s in systems], ignore_index=True) for name in TABLES
            if name in set(tables)}
