"""ТУН simulator against the exact chain: every new penalty, turn option and finishing against the default, and
house rulesets that change the shape of the fight (within 4 standard errors)."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.base.params import DicelabError
from analysis.fights.fighters import load_fighter
from analysis.systems import get_system, tun
from sims import tun as sim_tun
from sims.api import simulate_duel
from sims.engine import run_chunks
from sims.results import proportion

SYSTEM = get_system("tun")
N_DUEL = 300_000
N_EXCHANGE = 300_000
K = 4.0


def close(estimate, exact, label):
    assert abs(estimate.value - exact) <= K * max(estimate.se, 1.0 / estimate.n), (label, estimate, exact)


def fighter(spec):
    return load_fighter(SYSTEM, spec)


DUELS = [
    # the default, then each new option against it
    ({}, "trained_armed", "veteran"),
    (dict(distance=25), "archetype=trained_armed,ranged=true", "archetype=veteran,ranged=true"),
    ({}, "archetype=trained_armed,size=1", "veteran"),
    (dict(size_bonus=True), "archetype=trained_armed,size=1", "archetype=veteran,size=-1"),
    ({}, "red", "blue"),
    ({}, "archetype=red,moving=true", "archetype=veteran,ranged=true,defends=false"),
    (dict(ranged_defense="moving"), "red", "archetype=blue,moving=true,attack_feature=6,weapon_n=2"),
    (dict(ranged_defense="moving", distance=12), "archetype=veteran,ranged=true", "archetype=red,moving=true"),
    ({}, "archetype=veteran,moving=true", "trained_armed"),
    (dict(distance=15), "archetype=red,aim=leg", "archetype=trained_armed,ranged=true,moving=true"),
    (dict(turn_order="reaction"), "archetype=trained_armed,reaction=2", "veteran"),
    ({}, "archetype=veteran,turn_policy=delay", "trained_armed"),
    ({}, "veteran", "archetype=trained_armed,turn_policy=initiative_skip"),
    (dict(turn_order="roll"), "archetype=trained_armed,turn_policy=delay",
     "archetype=trained_armed,turn_policy=initiative_skip"),
    (dict(after_out="finish"), "trained_armed", "trained_armed"),
    (dict(after_out="finish", lethal_at="dead", finish_attacks=2, dying_last_word=False), "novice_armed", "trained"),
    # house rulesets that change the fight's shape
    (dict(death_multiple=1, last_word_trauma=2, after_out="finish"), "trained_armed", "veteran"),
    (dict(actions_per_turn=1, last_word_actions=2, crits=True, crit_bonus_3d6=10), "trained_armed", "veteran"),
    (dict(actions_per_turn=3, initiative_skip_cost=2), "veteran", "archetype=trained_armed,turn_policy=initiative_skip"),
    (dict(defense_divisor=1, moving_penalty=3, after_out="finish", finish_attacks=3), "archetype=master,moving=true",
     "veteran"),
]


AIMED = [
    # disarm (arm, hand): the target fights on with its fists; a thrower disarmed beyond melee_reach cannot attack
    ({}, "archetype=red,aim=arm", "veteran"),
    (dict(after_out="finish", distance=15), "archetype=red,aim=hand", "archetype=red,weapon_n=3"),
    (dict(melee_reach=20, distance=15), "archetype=red,aim=arm", "archetype=veteran,ranged=true"),
    # immobilise (leg, foot, knee): no moving penalty, and under ranged_defense=moving no moving defence
    (dict(ranged_defense="moving"), "archetype=red,aim=knee", "archetype=trained_armed,moving=true"),
    ({}, "archetype=red,aim=foot", "archetype=master,moving=true"),
    # stun (head): lost actions, the last word, stun_actions
    ({}, "archetype=red,aim=head", "trained_armed"),
    (dict(stun_actions=3, after_out="finish"), "archetype=veteran,ranged=true,aim=head", "master"),
    (dict(stun_actions=2), "archetype=red,aim=head,turn_policy=delay", "archetype=veteran,turn_policy=initiative_skip"),
    # aim_effects: only while the target stays up, or none
    (dict(aim_effects="while_up"), "archetype=master,ranged=true,aim=head", "veteran"),
    (dict(aim_effects="while_up", last_word_actions=2), "archetype=red,aim=hand", "archetype=trained_armed"),
    (dict(aim_effects="none"), "archetype=red,aim=head", "trained_armed"),
    (dict(aim_effects="none", distance=15), "archetype=red,aim=arm", "archetype=red,aim=leg,moving=true"),
    # both aim
    (dict(turn_order="roll"), "archetype=red,aim=head", "archetype=red,aim=arm,weapon_n=3"),
]
"""Every aimed-shot effect, reading and constant on at least two pairings."""


@pytest.mark.parametrize("variant,a_spec,b_spec", DUELS + AIMED)
def test_duels_agree_with_the_exact_chain(variant, a_spec, b_spec):
    rules = tun.Rules(**variant)
    a, b = fighter(a_spec), fighter(b_spec)
    exact = tun.duel(rules, a, b).solution
    sim = simulate_duel("tun", rules, a, b, N_DUEL, seed=29)
    label = f"{variant} {a_spec} vs {b_spec}"
    for name in ("p_a_wins", "p_b_wins", "p_both_out", "p_a_dying", "p_b_dying"):
        close(getattr(sim, name), getattr(exact, name), f"{label} {name}")
    assert exact.p_stalemate == 0 and sim.p_unfinished.value == 0
    close(sim.mean_rounds, exact.mean_rounds, label + " mean_rounds")
    if rules.after_out == "finish":
        close(sim.mean_finish_attacks, exact.finish_attacks, label + " mean_finish_attacks")
        data = sim.to_dict()
        assert (data["p_a_killed"] is None) == (rules.lethal_at == "dead")
    else:
        assert sim.mean_finish_attacks is None


@pytest.mark.parametrize("variant,att,dfn", [
    (dict(distance=35), "archetype=red,aim=hand", "archetype=blue,moving=true,size=3"),
    (dict(size_bonus=True, crits=True, crit_bonus_3d6=0), "archetype=trained,size=2", "archetype=veteran,size=-1"),
    (dict(defense_divisor=3, death_multiple=1), "red", "blue"),
    ({}, "archetype=master,moving=true,dice=1d20", "berserker"),
])
def test_exchange_agrees_with_exact(variant, att, dfn):
    rules = tun.Rules(**variant)
    a, b = fighter(att), fighter(dfn)
    exact = tun.exchange(rules, a, b)
    counts = run_chunks(sim_tun.exchange_call(rules, a, b), N_EXCHANGE, seed=8)
    n = N_EXCHANGE
    close(proportion(int(counts[sim_tun.X_HIT]), n), exact.p_hit, "p_hit")
    out = sum(p for label, p in exact.condition_after.items() if label.startswith("out"))
    close(proportion(int(counts[sim_tun.X_OUT] - counts[sim_tun.X_DYING]), n), out, "out")
    close(proportion(int(counts[sim_tun.X_DYING]), n), exact.condition_after.get("dying", 0.0), "dying")


def test_same_seed_same_counts_whatever_the_workers():
    rules = tun.Rules(after_out="finish")
    a, b = fighter("archetype=veteran,turn_policy=delay"), fighter("archetype=trained_armed,moving=true")
    runs = [simulate_duel("tun", rules, a, b, 150_000, seed=4, workers=w).counts for w in (1, 2)]
    assert np.array_equal(runs[0], runs[1])


def test_the_packed_schedule_is_the_exact_engines():
    a, b = fighter("archetype=veteran,turn_policy=delay"), fighter("archetype=trained,turn_policy=initiative_skip")
    rules = tun.Rules(actions_per_turn=3)
    events, counts = sim_tun.pack_schedule(rules, a, b)
    for f, first in enumerate("ab"):
        rounds = tun.schedule(rules, a, b, first)
        for k in range(events.shape[1]):
            want = rounds[min(k, len(rounds) - 1)]
            got = [(("attacks", "last_word")[kind], "ab"[side], n) for kind, side, n in events[f, k, :counts[f, k]]]
            assert got == list(want)


def test_a_melee_fighter_beyond_reach_is_refused_before_simulating():
    rules = tun.Rules(distance=45)
    with pytest.raises(DicelabError, match="distance = 45 is not allowed; allowed: at most melee_reach = 2 m while B"):
        simulate_duel("tun", rules, fighter("red"), fighter("trained_armed"), 10, seed=1)
    with pytest.raises(DicelabError, match="the attacker"):
        sim_tun.exchange_call(rules, fighter("trained_armed"), fighter("red"))
