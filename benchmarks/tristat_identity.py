"""Tri-Stat group kernel, bit for bit against another revision: group fights over many rulesets, sides (one to five a
side), target policies, stances, blocks, extra attacks and seeds, every count array compared (by its SHA-256) with
the one ``--against`` gives for the same seed.

    PYTHONPATH=. python benchmarks/tristat_identity.py --against f5a5f96 [--cases 300]
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

VARIANTS = [
    {}, dict(initiative_once=True), dict(shock_rule=True), dict(shock_rule=True, shock_divisor=10),
    dict(block_rule="negate"), dict(after_out="finish"), dict(after_out="finish", finish_attacks=3),
    dict(extra_defense_penalty=0), dict(extra_defense_penalty=2), dict(total_defence_rounds=4),
    dict(die=8, stat_limits="warn"), dict(die=4, stat_limits="warn"), dict(critical_acv="literal"),
    dict(damage_rounding="nearest"), dict(cv_rounding="nearest"), dict(block_break_multiple=2),
]
ARCHETYPES = ("novice", "novice_armed", "trained", "trained_armed", "veteran", "master")
TARGETS = ("weakest", "random", "strongest", "spread")


def cases(count: int) -> list[tuple[str, dict, list[str], list[str], int]]:
    """``count`` cases: (label, variant, side A specs, side B specs, seed), drawn from a fixed seed; side A always
    has a fighter who attacks."""
    rng = np.random.default_rng(2026)
    out = []
    for k in range(count):
        variant: dict = {}
        for pick in rng.choice(len(VARIANTS), size=int(rng.integers(1, 4)), replace=False):
            variant.update(VARIANTS[pick])
        sizes = [int(x) for x in rng.integers(1, 6, size=2)]

        def spec(attacks: bool) -> str:
            text = f"archetype={rng.choice(ARCHETYPES)},target={rng.choice(TARGETS)}"
            if rng.random() < 0.3:
                text += f",block=true,block_armor={int(rng.integers(0, 6))}"
            if rng.random() < 0.25:
                text += f",extra_attacks={int(rng.integers(1, 3))}"
            if rng.random() < 0.2:
                text += f",armor={int(rng.integers(1, 4))}"
            if not attacks and rng.random() < 0.15:
                text += ",stance=total_defence"
            return text
        a = [spec(i == 0) for i in range(sizes[0])]
        b = [spec(False) for _ in range(sizes[1])]
        seed = int(rng.integers(0, 2**31))
        out.append((f"{k} {variant} {a} {b} seed={seed}", variant, a, b, seed))
    return out


def digests(count: int, n: int) -> dict[str, str]:
    """The SHA-256 of every case's counts, by case label."""
    from analysis.fights.fighters import load_fighter
    from analysis.systems import get_system, tristat
    from sims import tristat as sim_tristat

    system = get_system("tristat")
    found = {}
    for label, variant, a, b, seed in cases(count):
        rules = tristat.Rules(**variant)
        side_a, side_b = [load_fighter(system, x) for x in a], [load_fighter(system, x) for x in b]
        counts = sim_tristat.group_call(rules, side_a, side_b)(n, np.random.default_rng(seed))
        found[label] = hashlib.sha256(np.ascontiguousarray(counts, dtype=np.int64).tobytes()).hexdigest()
    return found


def main() -> None:
    from against import identity_main

    identity_main(__doc__, __file__, digests, 300, 3_000, "fights per case",
                  lambda mine, n: f"{len(mine)} group cases, n = {n:,} each")


if __name__ == "__main__":
    main()
