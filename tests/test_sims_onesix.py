"""2K Monte Carlo against the exact chain: both play the same written rules (the IN economy, finishing, every
variant and house rule), so they must agree within 4 standard errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

from analysis.base.params import ParamError
from analysis.fights.fighters import load_fighter
from analysis.systems import get_system
from sims.api import options_for, simulate_check, simulate_duel

SYSTEM = get_system("onesix")
Fighter = SYSTEM.Fighter
N = 200_000
QUANTITIES = ("p_a_wins", "p_b_wins", "p_both_out", "p_a_dead", "p_b_dead", "p_a_dying", "mean_rounds")


def archetype(name):
    return load_fighter(SYSTEM, name)


def agree(exact, sim, names=QUANTITIES, k=4.0):
    for name in names:
        want, got = getattr(exact, name), getattr(sim, name)
        assert abs(got.value - want) <= k * max(got.se, 1.0 / got.n), (name, got.value, got.se, want)


VEST = Fighter(name="vest", attack_rating=9, defense_rating=8, reflexes=8, training=3, personality=4, armor=3,
               protection=12, weapon_ps=6, weapon_class="wound")
GUNMAN = Fighter(name="gunman", attack_rating=10, reflexes=8, training=3, personality=4, weapon_ps=9,
                 weapon_class="ballistic")
FAST = archetype("trained_armed").replace(reflexes=15).replace_meta(name="fast")
DAISY_WEAK_GEAR = archetype("daisy").replace(gear_rating=2)
KNIFE_WEAK_GEAR = archetype("trained_armed").replace(gear_rating=0)
SURE_KNIFE = archetype("novice_armed").replace(gear_rating=15)       # 15 + 2K never fails: nothing to break
CASES = [
    ("mirror", {}, "trained_armed", "trained_armed"),
    ("a reflex edge", {}, "trained_armed", "veteran_armed"),
    ("no parry, stun gun", {}, "daisy", "poacher"),
    ("fists against a master", {}, "novice", "master"),
    ("ballistic on worn armor", {"armor_wear": True}, GUNMAN, VEST),
    ("1K a plain d6", {"in_die": "d6"}, "trained_armed", "veteran_armed"),
    ("no leftover carried", {"in_carry": False}, "trained_armed", "veteran_armed"),
    ("penalty on rolls only", {"in_penalty": "roll"}, "daisy", "poacher"),
    ("lost actions stack", {"in_loss": "stack"}, "daisy", "poacher"),
    ("ballistic power of the weapon", {"ballistic_power": "weapon"}, GUNMAN, VEST),
    ("excess over the defense", {"excess_over": "defense"}, "veteran_armed", "master_armed"),
    ("extra ones count, depth 1", {"extra_die_ones": "count", "explode_depth": 1}, "trained", "veteran"),
    ("the old fixed order", {"in_economy": False}, "trained_armed", "veteran_armed"),
    ("finish to dying", {"after_out": "finish"}, "trained", "veteran"),
    ("finish to dead, 3 blows", {"after_out": "finish", "lethal_at": "dead", "finish_attacks": 3}, "daisy",
     "poacher"),
    ("no pain shock, no stopping effect", {"pain_shock": False, "stopping_effect": False}, "daisy", "poacher"),
    # house rules that change the shape of the fight
    ("threshold 13, level step 2", {"success_threshold": 13, "level_step": 2}, "novice_armed", "trained_armed"),
    ("a longer wound track", {"track_length": 8, "reserve": 4}, "trained_armed", "veteran_armed"),
    ("IN costs 5 / 2", {"attack_cost": 5, "parry_cost": 2}, "trained_armed", "veteran_armed"),
    # the timing readings of RULES.md's third revision, each on two pairings
    ("a parry whatever the lag", {"parry_window": "any"}, "trained_armed", "veteran_armed"),
    ("a parry whatever the lag, B fast", {"parry_window": "any"}, "veteran_armed", FAST),
    ("parry window 1", {"parry_window": 1}, "trained_armed", "veteran_armed"),
    ("parry window 1, B fast", {"parry_window": 1}, "veteran_armed", FAST),
    ("a parry against a simultaneous attack", {"simultaneous_parry": True}, "trained_armed", "trained_armed"),
    ("a parry against a simultaneous attack, masters", {"simultaneous_parry": True}, "master_armed",
     "veteran_armed"),
    ("1K one_zero", {"in_die": "one_zero"}, "trained_armed", "veteran_armed"),
    ("1K one_zero, the earlier readings", {"in_die": "one_zero", "parry_window": "any", "simultaneous_parry": True},
     "daisy", "poacher"),
    ("1K at most one extra die", {"in_explode_depth": 1}, "trained_armed", "veteran_armed"),
    ("1K unbounded, 2K unexploded", {"explode_depth": 0}, "master_armed", "veteran_armed"),
    # gear faults (weak gear so that they happen): a stun gun that breaks into fists, knives on a short track
    ("gear faults, a stun gun", {"gear_faults": True}, DAISY_WEAK_GEAR, "trained"),
    ("gear faults, knives, short track", {"gear_faults": True, "track_length": 3, "reserve": 1}, KNIFE_WEAK_GEAR,
     SURE_KNIFE),
    ("gear faults, finish to dead", {"gear_faults": True, "after_out": "finish", "lethal_at": "dead"},
     DAISY_WEAK_GEAR, "veteran"),
]


@pytest.mark.parametrize("label,variants,a,b", CASES, ids=[c[0] for c in CASES])
def test_exact_and_monte_carlo_agree(label, variants, a, b):
    rules = SYSTEM.rules(**variants)
    a, b = (archetype(f) if isinstance(f, str) else f for f in (a, b))
    exact = SYSTEM.duel(rules, a, b).solution
    assert exact.p_stalemate == 0 and exact.truncation < 1e-10
    sim = simulate_duel("onesix", rules, a, b, N, seed=11)
    agree(exact, sim)
    if rules.after_out == "finish":
        got = sim.mean_finish_attacks
        assert abs(got.value - exact.finish_attacks) <= 4 * max(got.se, 1 / N), (got, exact.finish_attacks)
        assert sim.to_dict()["p_b_killed"] == getattr(sim, f"p_b_{rules.lethal_at}").value


@pytest.mark.parametrize("reflexes,personality", [(6, 4), (10, 0), (14, 10), (16, 4)])
def test_reflexes_and_personality_sweep(reflexes, personality):
    """A at reflexes 8 against B at reflexes 6..16, personality 0..10 (the full grid: benchmarks/onesix_agreement.py)."""
    a = archetype("trained_armed")
    b = a.replace(reflexes=reflexes, personality=personality)
    exact = SYSTEM.duel(SYSTEM.rules(), a, b).solution
    agree(exact, simulate_duel("onesix", SYSTEM.rules(), a, b, 50_000, seed=reflexes * 11 + personality))


def test_simulated_checks_match_the_exact_distribution():
    for variants, kw in [(dict(extra_die_ones="count", explode_depth=2), dict(rating=9)),
                         (dict(), dict(rating=2, mod=1)), (dict(), dict(rating=13, skilled=False)),
                         (dict(success_threshold=14, level_step=2, test_dice=3), dict(rating=6))]:
        rules, args = SYSTEM.rules(**variants), SYSTEM.args(**kw)
        exact = SYSTEM.check(rules, args)
        sim = simulate_check("onesix", rules, args, 400_000, seed=3)
        data = sim.to_dict()
        assert abs(data["p_success"] - exact.p_success) <= 4 * data["se_p_success"]
        assert abs(data["p_fumble"] - exact.p_fumble) <= 4 * max(data["se_p_fumble"], 1 / sim.n)
        fault = exact.extra["p_equipment_fault"]
        assert abs(data["p_equipment_fault"] - fault) <= 4 * max(data["se_p_equipment_fault"], 1 / sim.n)
        for u, p in enumerate(exact.distribution.pmf(np.arange(12))):
            q = sim.distribution.get(u, 0.0)
            assert abs(q - p) <= 4 * math.sqrt(max(p * (1 - p), 1e-6) / sim.n), (kw, u, q, p)


@pytest.mark.parametrize("model", ["full", "exact"])
def test_same_seed_same_numbers_whatever_the_workers(model):
    a, b = archetype("trained_armed"), archetype("veteran_armed")
    runs = [simulate_duel("onesix", SYSTEM.rules(), a, b, 150_000, seed=8, model=model, workers=w).counts
            for w in (1, 2, 3)]
    assert all(np.array_equal(runs[0], r) for r in runs[1:])


def test_rule_switches_are_ruleset_fields_echoed_in_every_result():
    """The old simulation options are ruleset fields now: both models play the same rules, and every result says
    which (``--model full`` is still accepted)."""
    assert options_for("onesix", "full").to_dict() == {} == options_for("onesix", "exact").to_dict()
    with pytest.raises(ParamError, match="onesix simulation options"):
        options_for("onesix", "full", {"pain_shock": "false"})
    rules = SYSTEM.rules(pain_shock=False, in_die="d6")
    a, b = archetype("daisy"), archetype("poacher")
    full = simulate_duel("onesix", rules, a, b, 20_000, seed=1, model="full")
    exact_model = simulate_duel("onesix", rules, a, b, 20_000, seed=1, model="exact")
    assert np.array_equal(full.counts, exact_model.counts)
    data = full.to_dict()
    assert data["variants"]["in_die"] == "d6" and data["house_rules"] == {"pain_shock": False}
