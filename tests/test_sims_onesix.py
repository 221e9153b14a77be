"""2K Monte Carlo: the exact model against the chain on every variant, the full timing rules against a plain-Python
rendering, and each full-model switch moving the duel the way the rules say."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from analysis.fighters import load_fighter
from analysis.params import ParamError
from analysis.system import get_system
from sims.api import options_for, simulate_check, simulate_duel

SYSTEM = get_system("onesix")
Fighter = SYSTEM.Fighter
N = 200_000


def within(estimate, exact, k=4.0):
    return abs(estimate.value - exact) <= k * max(estimate.se, 1.0 / estimate.n)


def apart(x, y, k=4.0):
    """``x - y`` in units of the combined SE (> k: a real difference)."""
    return (x.value - y.value) / math.hypot(x.se, y.se) > k


def archetype(name):
    return load_fighter(SYSTEM, name)


VEST = Fighter(name="vest", attack_rating=9, defense_rating=8, reflexes=8, training=3, personality=4, armor=3,
               protection=12, weapon_ps=6, weapon_class="wound")
GUNMAN = Fighter(name="gunman", attack_rating=10, reflexes=8, training=3, personality=4, weapon_ps=9,
                 weapon_class="ballistic")
EXACT_CASES = [
    ("excess over the defense RT", dict(excess_over="defense"), "trained_armed", "veteran_armed"),
    ("armor wear, equal reflexes", dict(armor_wear=True), VEST, "trained_armed"),
    ("ballistic on worn armor", dict(armor_wear=True), GUNMAN, VEST),
    ("ballistic, equal reflexes", dict(), GUNMAN, VEST),
    ("extra ones count, depth 2", dict(extra_die_ones="count", explode_depth=2), "daisy", "poacher"),
]


@pytest.mark.parametrize("label,variants,a,b", EXACT_CASES, ids=[c[0] for c in EXACT_CASES])
def test_exact_model_agrees_with_the_chain_on_every_variant(label, variants, a, b):
    rules = SYSTEM.rules(**variants)
    a, b = (archetype(f) if isinstance(f, str) else f for f in (a, b))
    exact = SYSTEM.duel(rules, a, b).solution
    assert exact.p_stalemate == 0
    sim = simulate_duel("onesix", rules, a, b, N, seed=11, model="exact")
    for name in ("p_a_wins", "p_b_wins", "p_both_out", "p_a_dead", "p_b_dead", "mean_rounds"):
        assert within(getattr(sim, name), getattr(exact, name)), (label, name, getattr(sim, name), getattr(exact, name))


def test_simulated_checks_match_the_exact_distribution():
    for variants, kw in [(dict(extra_die_ones="count", explode_depth=2), dict(rating=9)),
                         (dict(), dict(rating=2, mod=1)), (dict(), dict(rating=13, skilled=False))]:
        rules, args = SYSTEM.rules(**variants), SYSTEM.args(**kw)
        exact = SYSTEM.check(rules, args)
        sim = simulate_check("onesix", rules, args, 400_000, seed=3)
        data = sim.to_dict()
        assert abs(data["p_fumble"] - exact.p_fumble) <= 4 * max(data["se_p_fumble"], 1 / sim.n)
        assert abs(data["p_equipment_fault"] - 1 / 36) <= 4 * data["se_p_equipment_fault"]
        for u, p in enumerate(exact.distribution.pmf(np.arange(12))):
            q = sim.distribution.get(u, 0.0)
            assert abs(q - p) <= 4 * math.sqrt(max(p * (1 - p), 1e-6) / sim.n), (kw, u, q, p)


# ------------------------------------------- the full timing rules, rendered again in plain Python
def _ref_two_k(rnd: random.Random) -> int:
    total = 0
    for _ in range(2):
        face = rnd.randint(1, 6)
        total += 0 if face == 1 else face
        while face == 6:
            face = rnd.randint(1, 6)
            total += 0 if face == 1 else face
    return total


def _ref_duel(fs, rnd: random.Random) -> tuple[str, int]:
    """One full-model duel (every switch on) straight from the module docstring's reading of the seed."""
    wounds, shock, ini = [0, 0], [0, 0], [0, 0]

    def pen(i):
        return max(wounds[i], shock[i])

    def strike(i, parry):
        att, dfn = fs[i], fs[1 - i]
        rt = att.attack_rating - pen(i) + _ref_two_k(rnd)
        if rt < 15 or (parry and rt <= dfn.defense_rating - pen(1 - i) + _ref_two_k(rnd)):
            return wounds[1 - i], shock[1 - i], False
        levels = max(0, math.ceil((att.weapon_ps + rt - 15 - dfn.training - dfn.armor) / 3))
        w, s = wounds[1 - i], shock[1 - i]
        if att.weapon_class == "wound":
            w += levels
        else:
            s += levels
        hurt = w if att.weapon_class == "wound" else s
        return w + max(s - 9, 0), min(s, 9), levels > dfn.training or (levels > 0 and hurt > dfn.personality)

    for rounds in range(1, 2001):
        for i in (0, 1):
            ini[i] += fs[i].total_reflexes() + rnd.randint(1, 6) - pen(i)
        while True:
            ready = [i for i in (0, 1) if ini[i] >= 4]
            if not ready:
                break
            actors = ready if len(ready) == 2 and ini[0] == ini[1] else [max(ready, key=lambda i: ini[i])]
            for i in actors:
                ini[i] -= 6
            parries = {}
            for i in actors:
                parries[i] = fs[1 - i].defense_rating > 0 and ini[1 - i] >= 3
                ini[1 - i] -= 3 * parries[i]
            landed = [(1 - i, strike(i, parries[i])) for i in actors]
            for j, (w, s, lost) in landed:
                ini[j] -= max(w, s) - pen(j) + 6 * lost
                wounds[j], shock[j] = w, s
            out = [wounds[i] > 6 or shock[i] > 6 for i in (0, 1)]
            if any(out):
                return ("both" if all(out) else "a" if out[1] else "b"), rounds
    return "unfinished", 2001


@pytest.mark.parametrize("a,b", [("trained_armed", "veteran_armed"), ("daisy", "poacher")])
def test_full_model_agrees_with_a_plain_python_rendering(a, b):
    fa, fb = archetype(a), archetype(b)
    rnd = random.Random(5)
    ref = [_ref_duel((fa, fb), rnd) for _ in range(20_000)]
    sim = simulate_duel("onesix", SYSTEM.rules(), fa, fb, N, seed=5)
    for key, est in (("a", sim.p_a_wins), ("both", sim.p_both_out)):
        p = sum(w == key for w, _ in ref) / len(ref)
        se = math.hypot(est.se, math.sqrt(max(p * (1 - p), 1e-4) / len(ref)))
        assert abs(est.value - p) <= 4 * se, (a, b, key, est, p)
    rounds = np.array([r for _, r in ref], dtype=float)
    se = math.hypot(sim.mean_rounds.se, rounds.std(ddof=1) / math.sqrt(rounds.size))
    assert abs(sim.mean_rounds.value - rounds.mean()) <= 4 * se


# ------------------------------------------------------------ each switch moves the duel its way
def duel(a, b, n=50_000, seed=21, **options):
    """The exact model with the given switches turned on."""
    return simulate_duel("onesix", SYSTEM.rules(), a, b, n, seed=seed, model="exact", options=options)


def test_in_economy_rewards_reflexes_beyond_the_first_move():
    """Fixed order: any reflex edge only means striking first; the IN economy also gives the faster more actions."""
    base = archetype("trained_armed")
    quick = base.replace(reflexes=12)
    exact = SYSTEM.duel(SYSTEM.rules(), quick, base).solution.p_a_wins
    econ = duel(quick, base, in_economy=True).p_a_wins
    assert econ.value - exact > 4 * econ.se, (econ, exact)
    veteran = archetype("veteran_armed")  # reflexes 9 against 8
    exact = SYSTEM.duel(SYSTEM.rules(), base, veteran).solution.p_b_wins
    econ = duel(base, veteran, n=N, in_economy=True).p_b_wins
    assert econ.value - exact > 4 * econ.se, (econ, exact)


def test_the_in_economy_counts_six_second_rounds():
    """With average IN 11 a fighter gets almost two attacks per 6-second round: fights take fewer rounds."""
    daisy, poacher = archetype("daisy"), archetype("poacher")
    exact = SYSTEM.duel(SYSTEM.rules(), daisy, poacher).solution
    full = simulate_duel("onesix", SYSTEM.rules(), daisy, poacher, N, seed=4)
    assert full.mean_rounds.value < 0.75 * exact.mean_rounds
    assert full.p_both_out.value < exact.p_both_out / 4  # equal IN is rarer than equal average IN


def test_stopping_effect_hurts_the_low_training_fighter():
    """Same absorption 4 on both sides, as training 1 + armor 3 against training 4: only A is knocked back."""
    b = Fighter(name="b", attack_rating=9, defense_rating=7, reflexes=8, training=4, personality=20, weapon_ps=8,
                weapon_class="wound")
    a = b.replace(training=1, armor=3)
    for economy in (False, True):
        off = duel(a, b, in_economy=economy)
        on = duel(a, b, in_economy=economy, stopping_effect=True)
        assert apart(off.p_a_wins, on.p_a_wins), (economy, off.p_a_wins, on.p_a_wins)


def test_pain_shock_hurts_the_low_personality_fighter():
    """Personality 0 against 20: every hit that hurts A costs it an action, B never; a stun gun (Shock) as well."""
    b = Fighter(name="b", attack_rating=9, defense_rating=7, reflexes=8, training=3, personality=20, weapon_ps=5,
                weapon_class="wound")
    a = b.replace(personality=0)
    stun = b.replace(weapon_ps=8, weapon_class="shock")
    for att, economy in ((b, False), (b, True), (stun, True)):
        off = duel(a, att, in_economy=economy)
        on = duel(a, att, in_economy=economy, pain_shock=True)
        assert apart(off.p_a_wins, on.p_a_wins), (att.weapon_class, economy, off.p_a_wins, on.p_a_wins)


def test_penalty_on_in_takes_the_tempo_from_the_hurt_faster_fighter():
    """The veteran (reflexes 9) strikes first or more often only while its penalty keeps its IN above the other's."""
    veteran, trained = archetype("veteran_armed"), archetype("trained_armed")
    exact = SYSTEM.duel(SYSTEM.rules(), veteran, trained).solution.p_a_wins
    fixed = duel(veteran, trained, penalty_on_in=True).p_a_wins
    assert exact - fixed.value > 4 * fixed.se, (fixed, exact)
    off = duel(veteran, trained, in_economy=True)
    on = duel(veteran, trained, in_economy=True, penalty_on_in=True)
    assert apart(off.p_a_wins, on.p_a_wins), (off.p_a_wins, on.p_a_wins)


# ------------------------------------------------------------ reproducibility and options
@pytest.mark.parametrize("model,options", [("full", None), ("exact", {"pain_shock": True, "in_economy": True})])
def test_same_seed_same_numbers_whatever_the_workers(model, options):
    a, b = archetype("trained_armed"), archetype("veteran_armed")
    runs = [simulate_duel("onesix", SYSTEM.rules(), a, b, 150_000, seed=8, model=model, options=options,
                          workers=w).counts for w in (1, 2, 3)]
    assert all(np.array_equal(runs[0], r) for r in runs[1:])


def test_options_echo_and_validation():
    full = options_for("onesix", "full", {"pain_shock": "off"}).to_dict()
    assert full == {"in_economy": True, "penalty_on_in": True, "stopping_effect": True, "pain_shock": False}
    res = simulate_duel("onesix", SYSTEM.rules(), archetype("daisy"), archetype("poacher"), 1000, seed=1,
                        options={"stopping_effect": False})
    assert res.to_dict()["options"]["stopping_effect"] is False and res.model == "full"
    with pytest.raises(ParamError, match="onesix simulation options"):
        options_for("onesix", "full", {"initiative": "true"})
