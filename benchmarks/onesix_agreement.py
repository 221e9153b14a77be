"""2K: the exact duel against Monte Carlo on the full grid of issue 10 (a script, not a test).

Every pairing of the archetypes (each unordered pair once, mirrors included), and A = trained_armed at
reflexes 8 against B = trained_armed at reflexes 6..16 and personality 0..10; on P(A wins), P(B wins),
P(both out), P(A dead), P(B dead), P(A dying) and mean rounds, each Monte Carlo estimate's distance to the
exact value in standard errors.  Prints the largest |z| per quantity and every |z| > 4.

    python benchmarks/onesix_agreement.py [--n 1000000] [--csv agreement.csv]
"""

from __future__ import annotations

import argparse
import itertools

import pandas as pd

from analysis.fights.fighters import archetypes, load_fighter
from analysis.systems import get_system
from sims.api import simulate_duel

QUANTITIES = ("p_a_wins", "p_b_wins", "p_both_out", "p_a_dead", "p_b_dead", "p_a_dying", "mean_rounds")


def grid(system):
    names = sorted(archetypes("onesix"))
    for a, b in itertools.combinations_with_replacement(names, 2):
        yield f"{a} vs {b}", load_fighter(system, a), load_fighter(system, b)
    base = load_fighter(system, "trained_armed")
    for reflexes in range(6, 17):
        for personality in range(0, 11):
            yield (f"trained_armed vs reflexes {reflexes}, personality {personality}", base,
                   base.replace(reflexes=reflexes, personality=personality))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--csv", default=None)
    ns = parser.parse_args()
    system = get_system("onesix")
    rules = system.rules()
    rows = []
    for i, (label, a, b) in enumerate(grid(system)):
        exact = system.duel(rules, a, b).solution
        sim = simulate_duel("onesix", rules, a, b, ns.n, seed=ns.seed + i)
        for q in QUANTITIES:
            want, got = getattr(exact, q), getattr(sim, q)
            se = max(got.se, 1 / ns.n)
            rows.append({"case": label, "quantity": q, "exact": want, "monte_carlo": got.value, "se": got.se,
                         "z": (got.value - want) / se, "truncation": exact.truncation})
    df = pd.DataFrame(rows)
    if ns.csv:
        df.to_csv(ns.csv, index=False)
    cases = df["case"].nunique()
    print(f"{cases} duels, n = {ns.n:,} each, {len(df)} comparisons; largest truncation {df['truncation'].max():.1e}")
    print(df.assign(abs_z=df["z"].abs()).groupby("quantity")["abs_z"].agg(["max", "mean"]).round(2).to_string())
    bad = df[df["z"].abs() > 4]
    print(f"|z| > 4: {len(bad)}")
    if len(bad):
        print(bad.to_string(index=False))


if __name__ == "__main__":
    main()
