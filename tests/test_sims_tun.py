"""ТУН simulator against the exact chain: every new penalty, turn option and finishing against the default, and
house rulesets that change the shape of the fight (within 4 standard errors)."""

from __future__ import annotations

import numpy as np
import pytest

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
    (dict(distance=25), "archetype=trained_armed,ranged=true", "veteran"),
    ({}, "archetype=trained_armed,size=1", "veteran"),
    (dict(size_bonus=True), "archetype=trained_armed,size=1", "archetype=veteran,size=-1"),
    (dict(ranged_defense="defends"), "red", "blue"),
    ({}, "red", "archetype=blue,moving=true,attack_feature=6,weapon_n=2"),
    ({}, "archetype=veteran,moving=true", "trained_armed"),
    (dict(distance=15), "archetype=red,aim=leg", "trained_armed"),
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


@pytest.mark.parametrize("variant,a_spec,b_spec", DUELS)
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
    (dict(ranged_defense="defends", defense_divisor=3, death_multiple=1), "red", "blue"),
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
