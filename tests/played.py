"""Checks every system's decision-game tests share: the dominated scripts recomputed from plain duels, and the
Monte Carlo that plays a solved strategy against the solver."""

from __future__ import annotations

import itertools
from typing import Any, Callable, Mapping

import numpy as np

from analysis.engine.decisions import policy_tables


def dominated_by_duels(policies: Mapping[str, Mapping[str, tuple]], value: Callable[[dict, dict], float]) -> list[str]:
    """A's scripts (``field=value``) that another value of the same field does at least as well as against every
    script of B, and better against one; ``value(a_policy, b_policy)`` is the plain duel's P(A wins) - P(B wins)."""
    theirs = [dict(zip(policies["b"], combo)) for combo in itertools.product(*policies["b"].values())]
    want = []
    for name, values in policies["a"].items():
        table = {v: [value({name: v}, t) for t in theirs] for v in values}
        for v in values:
            if any(all(x >= y - 1e-9 for x, y in zip(table[u], table[v])) and
                   any(x > y + 1e-9 for x, y in zip(table[u], table[v])) for u in values if u != v):
                want.append(f"{name}={str(v).lower() if isinstance(v, bool) else v}")
    return want


def simulated_play(system_id: str, dg: Any, sol: Any, rules: Any, a: Any, b: Any, n: int, seed: int) -> dict:
    """The Monte Carlo of the strategies ``sol`` of the game ``dg`` (its policy tables), checked against the
    solver within 4 SE: the value, P(A wins) and the mean rounds; its JSON."""
    from sims.api import simulate_duel

    exact = dg.solution(sol.a_strategy, sol.b_strategy)
    sim = simulate_duel(system_id, rules, a, b, n, seed=seed, policy=policy_tables(dg, sol.a_strategy, sol.b_strategy))
    d = sim.to_dict()
    value = d["p_a_wins"] - d["p_b_wins"]
    se = np.sqrt((d["p_a_wins"] + d["p_b_wins"] - value ** 2) / n)
    assert abs(value - sol.values[dg.game.start]) <= 4 * se
    assert abs(d["p_a_wins"] - exact.p_a_wins) <= 4 * d["se_p_a_wins"]
    assert abs(d["mean_rounds"] - exact.mean_rounds) <= 4 * d["se_mean_rounds"]
    return d
