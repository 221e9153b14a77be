"""ТУН and К.У.Р.С. simulators against the exact engines: checks, single attacks, duels under every variant."""

from __future__ import annotations

import math

import numpy as np
import pytest

from analysis.base.params import DicelabError
from analysis.fights.fighters import load_fighter
from analysis.systems import get_system, kurs, tun
from sims import kurs as sim_kurs
from sims import tun as sim_tun
from sims.api import simulate_check, simulate_duel
from sims.engine import run_chunks
from sims.results import HIST, HIST_OFFSET, proportion

N_CHECK = 200_000
N_EXCHANGE = 400_000
N_DUEL = 400_000
K = 4.0


def close(estimate, exact, label):
    assert abs(estimate.value - exact) <= K * max(estimate.se, 1.0 / estimate.n), (label, estimate, exact)


def mean_estimate(total: int, squares: int, n: int) -> tuple[float, float]:
    mean = total / n
    return mean, math.sqrt(max(squares / n - mean * mean, 0.0) / n)


def fighter(system_id: str, spec: str):
    """An archetype name, or ``archetype=name,key=value,...``."""
    return load_fighter(get_system(system_id), spec)


# ------------------------------------------------------------------- checks: the whole outcome histogram
@pytest.mark.parametrize("system_id,variant,kw", [
    ("tun", {}, dict(limit=13)),
    ("tun", dict(crits=True), dict(limit=9, dice="1d6x3")),
    ("tun", dict(crits=True, success_rule="le"), dict(limit=2, dice="1d20")),
    ("tun", dict(crits=True), dict(limit=25)),
    ("tun", dict(crits=True), dict(limit=-2)),
    ("kurs", dict(luck_tokens=1), dict(skill=-1)),
    ("kurs", dict(dk_faces=(-2, -1, 0, 1, 2), luck_tokens=2), dict(skill=1, difficulty=3, mod=-1)),
    ("kurs", dict(dk_faces=(-3, 0, 0, 5)), dict(skill=0)),
])
def test_check_histograms_agree_with_exact(system_id, variant, kw):
    system = get_system(system_id)
    rules, args = system.rules(**variant), system.args(**kw)
    exact = system.check(rules, args)
    sim = simulate_check(system_id, rules, args, N_CHECK, seed=21)
    close(sim.p_success, exact.p_success, "p_success")
    assert set(sim.distribution) <= set(exact.distribution.to_dict())
    for value, p in exact.distribution.to_dict().items():
        close(proportion(int(sim.counts[HIST + HIST_OFFSET + value]), N_CHECK), p, f"outcome {value}")
    data = sim.to_dict()
    if system_id == "kurs":
        close(sim.probability(sim_kurs.EXTRA), exact.extra["p_complication"], "p_complication")
        assert "p_complication" in data and "p_critical" not in data
    elif rules.crits:
        close(sim.probability(sim_tun.CRITICAL), exact.p_critical, "p_critical")
        close(sim.probability(sim_tun.FUMBLE), exact.p_fumble, "p_fumble")
    else:
        assert data["p_critical"] == 0 and data["p_fumble"] == 0


def test_kurs_checks_beyond_the_histogram_are_refused():
    system = get_system("kurs")
    with pytest.raises(DicelabError, match="simulated histogram"):
        simulate_check("kurs", system.rules(), system.args(skill=100, mod=100, difficulty=-100), 10)


# ------------------------------------------------------------------- single attacks
@pytest.mark.parametrize("variant,att,dfn", [
    ({}, "red", "blue"),
    (dict(crits=True), "novice", "trained"),
    (dict(success_rule="le", crits=True), "archetype=veteran,dice=1d20", "berserker"),
    (dict(crits=True), "archetype=master,dice=1d6x3", "novice"),
    (dict(crits=True), "archetype=novice,attack_feature=-12,weapon_n=2", "trained"),
])
def test_tun_exchange_agrees_with_exact(variant, att, dfn):
    rules = tun.Rules(**variant)
    a, b = fighter("tun", att), fighter("tun", dfn)
    exact = tun.exchange(rules, a, b)
    counts = run_chunks(sim_tun.exchange_call(rules, a, b), N_EXCHANGE, seed=5)
    n = N_EXCHANGE
    assert counts[sim_tun.X_MISS] + counts[sim_tun.X_HIT] == n
    close(proportion(int(counts[sim_tun.X_HIT]), n), exact.p_hit, "p_hit")
    close(proportion(int(counts[sim_tun.X_CRITICAL]), n), exact.p_critical, "p_critical")
    out = sum(p for label, p in exact.condition_after.items() if label.startswith("out"))
    close(proportion(int(counts[sim_tun.X_OUT] - counts[sim_tun.X_DYING]), n), out, "out")
    close(proportion(int(counts[sim_tun.X_DYING]), n), exact.condition_after.get("dying", 0.0), "dying")
    mean, se = mean_estimate(int(counts[sim_tun.X_SUM]), int(counts[sim_tun.X_SQUARES]), n)
    assert abs(mean - exact.damage.mean()) <= K * max(se, 1 / n), (mean, se, exact.damage.mean())


def kurs_exchange_agrees(rules: kurs.Rules, a: kurs.Fighter, b: kurs.Fighter, n: int, seed: int) -> np.ndarray:
    """``n`` simulated first attacks of ``a`` on ``b`` against the exact exchange: every kind, the mean damage and
    the defender's condition after, within K standard errors; the simulator's counts."""
    exact = kurs.exchange(rules, a, b)
    counts = run_chunks(sim_kurs.exchange_call(rules, a, b), n, seed=seed)
    assert counts.size == sim_kurs.exchange_size(rules)
    for index, p in ((sim_kurs.X_MISS, exact.p_miss), (sim_kurs.X_GRAZE, exact.p_graze),
                     (sim_kurs.X_HIT, exact.p_hit), (sim_kurs.X_DEFENDED, exact.p_defended)):
        close(proportion(int(counts[index]), n), p, f"kind {index}")
    mean, se = mean_estimate(int(counts[sim_kurs.X_SUM]), int(counts[sim_kurs.X_SQUARES]), n)
    assert abs(mean - exact.damage.mean()) <= K * max(se, 1 / n), (mean, se, exact.damage.mean())
    after = sim_kurs.conditions_after(rules, counts)
    assert sum(after.values()) == n and set(after) <= set(exact.condition_after)
    for label, p in exact.condition_after.items():
        close(proportion(after.get(label, 0), n), p, label)
    return counts


@pytest.mark.parametrize("variant,att,dfn", [
    ({}, "maximus", "tiberius"),
    (dict(defense_clamp=False, type_bonus="always"), "veteran", "master"),
    (dict(luck_tokens=1, graze="fixed", dk_faces=(-2, -1, 0, 1, 2)), "trained_armed", "novice"),
    (dict(luck_tokens=2, fatigue_soak="never"), "master", "novice_armed"),
    ({}, "archetype=master,weapon=6", "novice"),
    ({}, "trained_armed", "master"),
])
def test_kurs_exchange_agrees_with_exact(variant, att, dfn):
    rules = kurs.Rules(**variant)
    a, b = fighter("kurs", att), fighter("kurs", dfn)
    counts = kurs_exchange_agrees(rules, a, b, N_EXCHANGE, seed=6)
    n = N_EXCHANGE
    token = rules.luck_tokens > 0
    m = kurs.margins(rules, a, b)
    settled = [(p, kurs.settle(rules, a, b, int(v), token, token)) for v, p in zip(m.support, m.p)]
    close(proportion(int(counts[sim_kurs.X_LUCK_A]), n), sum(p for p, s in settled if s.luck_attacker), "luck A")
    close(proportion(int(counts[sim_kurs.X_LUCK_D]), n), sum(p for p, s in settled if s.luck_defender), "luck D")


# ------------------------------------------------------------------- duels under the variants
DUELS = [
    ("tun", dict(last_word=False), "veteran", "red"),
    ("tun", dict(dying_last_word=False), "veteran", "red"),
    ("tun", dict(dying_last_word=False), "archetype=novice,body=4,attack_feature=6,weapon_n=3,weapon_b=1",
     "archetype=novice,body=3,attack_feature=8,weapon_n=3,weapon_b=1"),
    ("tun", dict(crits=True), "novice_armed", "blue"),
    ("tun", dict(turn_order="roll"), "trained_armed", "berserker"),
    ("tun", dict(success_rule="le", crits=True), "master", "veteran"),
    ("tun", {}, "archetype=novice_armed,dice=1d20", "archetype=trained_armed,dice=1d6x3"),
    ("tun", dict(aim_effects="while_up", crits=True), "archetype=red,aim=head", "veteran"),
    ("tun", dict(ranged_defense="moving", stun_actions=2), "archetype=red,aim=head,moving=true",
     "archetype=blue,moving=true,ranged=true,aim=leg"),
    ("tun", dict(melee_reach=12, distance=11, success_rule="le"), "archetype=red,aim=hand", "archetype=veteran"),
    ("kurs", dict(defense_clamp=False), "maximus", "tiberius"),
    ("kurs", dict(luck_tokens=1), "veteran", "maximus"),
    ("kurs", dict(luck_tokens=2, wound_penalty="local"), "veteran", "tiberius"),
    ("kurs", dict(wound_penalty="worst"), "veteran", "maximus"),
    ("kurs", dict(fatigue_soak="never"), "maximus", "tiberius"),
    ("kurs", dict(graze="fixed"), "novice", "novice_armed"),
    ("kurs", dict(type_bonus="always", dk_faces=(-1, 0, 1), luck_tokens=1), "maximus", "tiberius"),
    ("kurs", dict(dk_faces=(0,)), "archetype=trained,weapon=3", "archetype=trained,weapon=3"),
]


@pytest.mark.parametrize("system_id,variant,a_spec,b_spec", DUELS)
def test_duels_agree_with_the_exact_chain(system_id, variant, a_spec, b_spec):
    system = get_system(system_id)
    rules = system.rules(**variant)
    a, b = fighter(system_id, a_spec), fighter(system_id, b_spec)
    exact = system.duel(rules, a, b).solution
    sim = simulate_duel(system_id, rules, a, b, N_DUEL, seed=17)
    label = f"{system_id} {variant} {a_spec} vs {b_spec}"
    close(sim.p_a_wins, exact.p_a_wins, label + " p_a_wins")
    close(sim.p_b_wins, exact.p_b_wins, label + " p_b_wins")
    close(sim.p_both_out, exact.p_both_out, label + " p_both_out")
    close(sim.p_a_dying, exact.p_a_dying, label + " p_a_dying")
    close(sim.p_b_dying, exact.p_b_dying, label + " p_b_dying")
    assert exact.p_stalemate == 0 and sim.p_unfinished.value == 0
    close(sim.mean_rounds, exact.mean_rounds, label + " mean_rounds")


@pytest.mark.parametrize("system_id", ["tun", "kurs"])
def test_both_models_play_the_same_rules(system_id):
    system = get_system(system_id)
    a, b = load_fighter(system, "trained"), load_fighter(system, "veteran")
    runs = [simulate_duel(system_id, system.rules(), a, b, 20_000, seed=3, model=m) for m in ("exact", "full")]
    assert np.array_equal(runs[0].counts, runs[1].counts)
    assert runs[0].options == {} and runs[1].options == {}


@pytest.mark.parametrize("system_id,a_spec,b_spec", [
    ("tun", "archetype=novice,attack_feature=-12", "archetype=novice,attack_feature=-12"),
    ("kurs", "archetype=novice,defense_skill=12", "archetype=novice,defense_skill=12"),
])
def test_stalemates_run_to_the_round_cap(system_id, a_spec, b_spec):
    system = get_system(system_id)
    a, b = fighter(system_id, a_spec), fighter(system_id, b_spec)
    assert system.duel(system.rules(), a, b).solution.p_stalemate == pytest.approx(1.0)
    sim = simulate_duel(system_id, system.rules(), a, b, 50, seed=1)
    assert sim.p_unfinished.value == 1.0
