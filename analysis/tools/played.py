"""Played well (RULES.md section 8): each system's setup duel by the book's scripts against the same duel with both
sides playing the equilibrium of its decision game, over a skill gap; the options that are dominated; the simple
rule that keeps the equilibrium's gain.

Every number comes from the one solver behind ``dicelab tactics`` and ``--play``
(:func:`~analysis.fights.tactics.analyse`, :func:`~analysis.fights.play.played_duel`).
A system whose decisions are not modelled yet has no rows (:func:`missing` names it).

>>> t = tables(Setup.build(), gaps=(0,), systems=("tristat",))
>>> sorted(t["played"]["play"]), bool((t["played"]["p_a_wins"] <= 1).all()), "rule" in set(t["played_options"]["kind"])
(['book', 'equilibrium'], True, True)
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable, Sequence

import pandas as pd

from analysis.fights.lethality import duel_rules, with_gap
from analysis.fights.play import played_duel
from analysis.fights.setup import Setup
from analysis.fights.tactics import Tactics, analyse
from analysis.present.tables import clean
from analysis.systems import all_systems, get_system

GAPS = (0, 1, 2)
"""Points of A's combat skills over B's."""
SHOWN = ("book", "equilibrium")
"""The plays the curve compares."""


def decided_systems() -> tuple[str, ...]:
    """The systems whose duels are solved as games."""
    return tuple(s.id for s in all_systems() if s.tactics is not None)


def missing() -> list[str]:
    """The systems whose decisions the lab does not model yet."""
    return [s.id for s in all_systems() if s.tactics is None]


def tables(setup: Setup | None = None, gaps: Iterable[int] = GAPS,
           systems: Sequence[str] | None = None) -> dict[str, pd.DataFrame]:
    """The section's two tables, each system's game at no gap built and solved once for both:

    - ``played``: the setup's duel (A raised by each gap) by the book and at the equilibrium: P(A wins), P(B wins),
      P(both out), mean rounds, P(killed) (``lethal_at``; ``None`` where a system has no such level) and the
      game's value;
    - ``played_options``: what the duel at no gap says of each option played well: one row per decision (``kind``
      decision: side, share taken, worth), per dominated fixed policy (``kind`` dominated) and the simple rule
      (``kind`` rule: its text and the share of the equilibrium's gain it keeps), with the game's model of
      decisions.
    """
    setup = setup or Setup.build()
    rows: list[dict[str, Any]] = []
    options: list[dict[str, Any]] = []
    for sid in systems or decided_systems():
        system = get_system(sid)
        rules = duel_rules(setup.ruleset(sid))
        base_a, b = setup.fighters(sid)
        found = analyse(system.tactics(rules, base_a, b), rounds=True)
        options += _options(sid, found)
        for gap in gaps:
            a = with_gap(system, base_a, gap)
            for play in SHOWN:
                if gap == 0 and play == "equilibrium":  # the game just solved: played_duel's figures, not solved again
                    duel = replace(played_duel(system, rules, a, b, "book"), solution=found.equilibrium.solution)
                else:
                    duel = played_duel(system, rules, a, b, play)
                d = duel.to_dict()
                rows.append({"system": sid, "a": base_a.name, "b": b.name, "gap": gap, "play": play,
                             "value": d["p_a_wins"] - d["p_b_wins"], "p_a_wins": d["p_a_wins"],
                             "p_b_wins": d["p_b_wins"], "p_both_out": d["p_both_out"],
                             "mean_rounds": d["mean_rounds"], "p_killed": d["p_killed"]})
    return {"played": clean(pd.DataFrame(rows, columns=["system", "a", "b", "gap", "play", "value", "p_a_wins",
                                                        "p_b_wins", "p_both_out", "mean_rounds", "p_killed"])),
            "played_options": clean(pd.DataFrame(options, columns=["system", "kind", "side", "name", "share_taken",
                                                                   "worth", "text", "share_of_gain", "gain",
                                                                   "best_gain", "model"]))}


def _options(sid: str, found: Tactics) -> list[dict[str, Any]]:
    """The options table's rows of one system (:func:`tables`)."""
    t = found.to_dict()
    head = {"system": sid, "model": t["decisions_model"], "gain": t["equilibrium"]["value"] - t["book"]["value"],
            "best_gain": t["best_response"]["value"] - t["book"]["value"]}
    rows = [{**head, "kind": "decision", "side": d["side"], "name": d["name"], "share_taken": d["share_taken"],
             "worth": d["worth"]} for d in t["decisions"]]
    rows += [{**head, "kind": "dominated", "side": side, "name": name} for side, names in t["dominated_by_side"].items()
             for name in names]
    rule = t["simple_rule"]
    rows.append({**head, "kind": "rule", "side": rule["side"], "name": rule["decision"], "text": rule["text"],
                 "share_of_gain": rule["share_of_gain"]})
    return rows
