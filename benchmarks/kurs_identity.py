"""К.У.Р.С. kernels, bit for bit against another revision: duels, first attacks and group fights over many
rulesets, pairings, policies and seeds, every count array compared (by its SHA-256) with the one ``--against``
gives for the same seed.

    PYTHONPATH=. python benchmarks/kurs_identity.py --against 12eada2 [--cases 400]
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

VARIANTS = [
    {}, dict(luck_tokens=1), dict(luck_tokens=2, luck_bonus=2), dict(trade_cost="fatigue"),
    dict(trade_cost="fatigue", trade_fatigue=2, trade_bonus=2), dict(dodge_fatigue=2), dict(after_out="finish"),
    dict(after_out="finish", finish_attacks=3, lethal_at="dead"), dict(wound_penalty="local"),
    dict(wound_penalty="worst"), dict(graze="capped"), dict(graze="fixed", graze_damage=2),
    dict(dk_faces=(-1, 0, 1)), dict(dk_faces=(-2, -1, 0, 1, 2), dice_count=2), dict(dk_faces=(0, 0)),
    dict(fatigue_soak="when_lower_any"), dict(fatigue_soak="never"), dict(soak_points=2),
    dict(surprise="a"), dict(surprise="b", surprise_first=False), dict(track=(4, 3, 2, 2, 1, 1)),
    dict(track=(2, 1, 1, 1, 2, 1)), dict(damage_table=(2, 4, 6, 8, 9, 11)), dict(defense_clamp=False),
    dict(defense_clamp_zero=-2, defense_clamp_low=-2), dict(no_defense_bonus=4), dict(type_bonus="always"),
    dict(extra_defense_penalty=2), dict(local_penalty=(0, 2, 3, 4), wound_penalty="local"),
]
ARCHETYPES = ("novice", "novice_armed", "trained", "trained_armed", "veteran", "master", "maximus", "tiberius")


def cases(count: int) -> list[tuple[str, str, dict, list[str], list[str], int]]:
    """``count`` cases: (kind, label, variant, side A specs, side B specs, seed), drawn from a fixed seed."""
    from analysis.systems import kurs

    rng = np.random.default_rng(2025)
    out = []
    for k in range(count):
        variant: dict = {}
        for pick in rng.choice(len(VARIANTS), size=int(rng.integers(1, 4)), replace=False):
            variant.update(VARIANTS[pick])
        kind = ("duel", "duel", "exchange", "group")[k % 4]
        sizes = (1, 1) if kind != "group" else tuple(int(x) for x in rng.integers(1, 4, size=2))

        def spec() -> str:
            return (f"archetype={rng.choice(ARCHETYPES)},stance={rng.choice(kurs.STANCES)},"
                    f"effort_dodge={rng.choice(kurs.DODGES)},target={rng.choice(kurs.TARGETS)}")
        a, b = [spec() for _ in range(sizes[0])], [spec() for _ in range(sizes[1])]
        seed = int(rng.integers(0, 2**31))
        out.append((kind, f"{k} {kind} {variant} {a} {b} seed={seed}", variant, a, b, seed))
    return out


def digests(count: int, n: int) -> dict[str, str]:
    """The SHA-256 of every case's counts, by case label."""
    from analysis.fights.fighters import load_fighter
    from analysis.systems import get_system, kurs
    from sims import kurs as sim_kurs
    from sims.api import simulate_duel, simulate_group
    from sims.engine import run_chunks

    system = get_system("kurs")
    found = {}
    for kind, label, variant, a, b, seed in cases(count):
        rules = kurs.Rules(**variant)
        side_a, side_b = [load_fighter(system, x) for x in a], [load_fighter(system, x) for x in b]
        if kind == "duel":
            counts = simulate_duel("kurs", rules, side_a[0], side_b[0], n, seed=seed, workers=1).counts
        elif kind == "exchange":
            counts = run_chunks(sim_kurs.exchange_call(rules, side_a[0], side_b[0]), n, seed=seed, workers=1)
        else:
            counts = simulate_group("kurs", rules, side_a, side_b, n // 4, seed=seed, workers=1).counts
        found[label] = hashlib.sha256(np.ascontiguousarray(counts, dtype=np.int64).tobytes()).hexdigest()
    return found


def describe(mine: dict[str, str], n: int) -> str:
    kinds = {kind: sum(label.split()[1] == kind for label in mine) for kind in ("duel", "exchange", "group")}
    return f"{len(mine)} cases ({kinds}), n = {n:,} each (groups {n // 4:,})"


def main() -> None:
    from against import identity_main

    identity_main(__doc__, __file__, digests, 400, 20_000, "trials per duel or attack case (groups: n / 4)", describe)


if __name__ == "__main__":
    main()
