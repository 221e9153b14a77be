"""К.У.Р.С. simulator against the exact chain: every new option against the defaults, and house rulesets that change
the fight's shape (within 4 standard errors)."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.fights.fighters import load_fighter
from analysis.systems import get_system, kurs
from sims import kurs as sim_kurs
from sims.api import simulate_check, simulate_duel
from sims.results import A_WINS, B_WINS, BOTH_OUT, DUEL_SIZE, HIST, HIST_OFFSET, UNFINISHED, proportion
from tests.test_sims_tun_kurs import close, kurs_exchange_agrees

SYSTEM = get_system("kurs")
N_DUEL = 100_000
N_EXCHANGE = 200_000
N_CHECK = 100_000


def fighter(spec: str):
    return load_fighter(SYSTEM, spec)


DUELS = [
    # the defaults, then each new option against them
    ("book", {}, "maximus", "tiberius"),
    ("local penalty -1/-3/-5", dict(wound_penalty="local"), "veteran", "maximus"),
    ("stances, complication", {}, "archetype=trained_armed,stance=offensive", "archetype=trained_armed,stance=defensive"),
    ("stances, fatigue price", dict(trade_cost="fatigue"), "archetype=maximus,stance=offensive",
     "archetype=tiberius,stance=defensive"),
    ("no defense", {}, "archetype=novice_armed,stance=no_defense", "trained"),
    ("no defense bonus 4", dict(no_defense_bonus=4), "archetype=trained_armed,stance=no_defense", "trained_armed"),
    ("effort dodge", {}, "archetype=veteran,effort_dodge=out", "archetype=master,effort_dodge=wound"),
    ("dodge with a fatigue price", dict(trade_cost="fatigue"), "archetype=veteran,stance=offensive,effort_dodge=wound",
     "archetype=veteran,effort_dodge=out"),
    ("surprise a", dict(surprise="a"), "maximus", "tiberius"),
    ("surprise b, roll-off", dict(surprise="b", surprise_first=False), "trained", "veteran"),
    ("graze text, scale", {}, "archetype=trained_armed,scale=1", "trained_armed"),
    ("graze capped, scale", dict(graze="capped"), "archetype=trained_armed,scale=1", "trained_armed"),
    ("finish", dict(after_out="finish"), "trained_armed", "trained_armed"),
    ("finish, 3 attacks, dead", dict(after_out="finish", finish_attacks=3, lethal_at="dead"), "veteran", "trained_armed"),
    ("luck, stance, finish", dict(luck_tokens=1, after_out="finish"), "archetype=maximus,stance=offensive", "tiberius"),
    # house rules that change the fight's shape
    ("one more light box", dict(track=(4, 3, 1, 1, 1, 1)), "maximus", "tiberius"),
    ("fudge dice, longer track", dict(dk_faces=(-1, 0, 1), track=(4, 3, 2, 2, 1, 1), after_out="finish"),
     "veteran", "maximus"),
    ("luck bonus 2", dict(luck_tokens=1, luck_bonus=2), "trained_armed", "archetype=trained_armed,stance=defensive"),
    ("damage table, 2dK, clamp, pain", dict(damage_table=(2, 4, 6, 8, 9, 11), dice_count=2, defense_clamp_zero=-2,
                                           defense_clamp_low=-2, local_penalty=(0, 2, 3, 4), wound_penalty="local"),
     "veteran", "master"),
    ("soak 2, graze 2, trade 2, dodge 2", dict(soak_points=2, graze_damage=2, trade_bonus=2, dodge_fatigue=2,
                                              trade_cost="fatigue", trade_fatigue=2),
     "archetype=maximus,stance=offensive,effort_dodge=out", "archetype=tiberius,effort_dodge=wound"),
    ("two incapacitated boxes, finish", dict(track=(4, 2, 1, 1, 2, 1), after_out="finish", surprise="a"),
     "trained_armed", "archetype=trained_armed,stance=no_defense"),
]


@pytest.mark.parametrize("label,variant,a_spec,b_spec", DUELS, ids=[d[0] for d in DUELS])
def test_duels_agree_with_the_exact_chain(label, variant, a_spec, b_spec):
    rules = kurs.Rules(**variant)
    a, b = fighter(a_spec), fighter(b_spec)
    exact = kurs.duel(rules, a, b).solution
    sim = simulate_duel("kurs", rules, a, b, N_DUEL, seed=23)
    assert exact.p_stalemate == 0 and sim.p_unfinished.value == 0
    for name in ("p_a_wins", "p_b_wins", "p_a_out", "p_b_out", "p_a_dying", "p_b_dying"):
        close(getattr(sim, name), getattr(exact, name), f"{label} {name}")
    close(sim.mean_rounds, exact.mean_rounds, f"{label} mean_rounds")
    data = sim.to_dict()
    if rules.after_out == "finish":
        close(sim.mean_finish_attacks, exact.finish_attacks, f"{label} mean_finish_attacks")
        assert data["p_a_killed"] is not None or rules.lethal_at == "dead"
    else:
        assert sim.mean_finish_attacks is None and data["mean_finish_attacks"] is None
    assert data["house_rules"] == rules.house_rules() and data["a"]["stance"] == a.stance


STANCE_PAIRINGS = [
    (stance, variant, f"archetype=trained_armed,stance={stance},effort_dodge={dodges[0]}",
     f"archetype=trained_armed,effort_dodge={dodges[1]}")
    for stance in kurs.STANCES
    for variant, dodges in (({}, ("never", "never")), (dict(trade_cost="fatigue"), ("out", "wound")))
] + [
    (stance, variant, f"archetype=veteran,stance={stance},effort_dodge={dodges[0]}",
     f"archetype=maximus,stance={stance},effort_dodge={dodges[1]}")
    for stance in kurs.STANCES
    for variant, dodges in (({}, ("never", "never")), (dict(trade_cost="fatigue"), ("wound", "out")))
]


@pytest.mark.parametrize("stance,variant,a_spec,b_spec", STANCE_PAIRINGS)
def test_every_stance_agrees_with_the_exact_chain(stance, variant, a_spec, b_spec):
    """A stance holds from the fighter's own turn (RULES.md section 8): the kernel and the chain play the same clock."""
    rules = kurs.Rules(**variant)
    a, b = fighter(a_spec), fighter(b_spec)
    exact = kurs.duel(rules, a, b).solution
    sim = simulate_duel("kurs", rules, a, b, N_DUEL, seed=41)
    label = f"{stance} {variant} {a_spec} {b_spec}"
    for name in ("p_a_wins", "p_b_wins", "p_a_dying", "p_b_dying"):
        close(getattr(sim, name), getattr(exact, name), f"{label} {name}")
    close(sim.mean_rounds, exact.mean_rounds, f"{label} mean_rounds")


def test_finishing_is_reproducible_whatever_the_workers():
    rules = kurs.Rules(after_out="finish", luck_tokens=1, trade_cost="fatigue")
    a, b = fighter("archetype=maximus,stance=offensive,effort_dodge=out"), fighter("tiberius")
    one = simulate_duel("kurs", rules, a, b, 70_000, seed=5, workers=1)
    two = simulate_duel("kurs", rules, a, b, 70_000, seed=5, workers=2)
    assert np.array_equal(one.counts, two.counts)


EXCHANGES = [
    ({}, "archetype=maximus,stance=offensive", "archetype=tiberius,effort_dodge=wound"),
    (dict(surprise="a", luck_tokens=1), "maximus", "archetype=tiberius,effort_dodge=wound"),
    (dict(trade_cost="fatigue", luck_tokens=1, luck_bonus=2), "archetype=veteran,stance=defensive",
     "archetype=master,effort_dodge=out"),
    ({}, "archetype=trained_armed,stance=no_defense", "archetype=trained_armed,stance=no_defense"),
    (dict(track=(4, 3, 2, 1, 1, 1), damage_table=(1, 3, 4, 6, 8, 9), dk_faces=(-1, 0, 1), dice_count=4),
     "archetype=master,weapon=5", "archetype=novice,effort_dodge=out"),
    (dict(graze="capped"), "archetype=trained_armed,scale=2", "archetype=trained,armor=3"),
]


@pytest.mark.parametrize("variant,att,dfn", EXCHANGES)
def test_exchanges_agree_with_exact(variant, att, dfn):
    rules = kurs.Rules(**variant)
    a, b = fighter(att), fighter(dfn)
    kurs_exchange_agrees(rules, a, b, N_EXCHANGE, seed=8)


@pytest.mark.parametrize("variant,kw", [
    (dict(luck_tokens=1, luck_bonus=2), dict(skill=-1)),
    (dict(dice_count=2, dk_faces=(-1, 0, 1)), dict(skill=1, difficulty=2)),
    (dict(dice_count=4, luck_tokens=1, luck_bonus=5), dict(skill=0, mod=-2)),
])
def test_house_rule_checks_agree_with_exact(variant, kw):
    rules, args = kurs.Rules(**variant), kurs.CheckArgs(**kw)
    exact = kurs.check(rules, args)
    sim = simulate_check("kurs", rules, args, N_CHECK, seed=31)
    close(sim.p_success, exact.p_success, "p_success")
    for value, p in exact.distribution.to_dict().items():
        close(proportion(int(sim.counts[HIST + HIST_OFFSET + value]), N_CHECK), p, f"margin {value}")
    assert sim.to_dict()["house_rules"] == rules.house_rules()


def test_kernels_read_the_constants_packed():
    """A house rule reaches the kernel only through the packed arrays: changing them changes the numbers."""
    book, house = kurs.Rules(), kurs.Rules(track=(4, 3, 1, 1, 1, 1), damage_table=(1, 3, 5, 7, 9, 10))
    t_book, t_house = sim_kurs.pack_track(book), sim_kurs.pack_track(house)
    assert t_book[0].tolist() == [4, 2, 1, 1, 1, 1] and t_house[0].tolist() == [4, 3, 1, 1, 1, 1]
    assert t_book[2].tolist() == [-1, 0, 0, 1, 1, 2, 2, 3, 4, 5]   # damage 0..9: the book's table
    assert t_house[2].tolist() == [-1, 0, 0, 1, 1, 2, 2, 3, 3, 4, 5]
    assert sim_kurs.pack_rules(kurs.Rules(luck_bonus=2))[sim_kurs.R_LUCK_BONUS] == 2


def test_a_simulated_duel_carries_the_exact_warnings():
    rules = kurs.Rules(trade_cost="fatigue", trade_fatigue=5)
    a = fighter("archetype=trained_armed,stance=offensive,effort_dodge=out")
    b = fighter("archetype=novice,stance=no_defense,effort_dodge=wound")
    sim = simulate_duel("kurs", rules, a, b, 2_000, seed=3).to_dict()
    assert sim["warnings"] == kurs.duel(rules, a, b).to_dict()["warnings"] and len(sim["warnings"]) == 2


def test_the_duel_loop_keeps_no_reference_counts():
    """The duel loop works on unowned views (sims.dice._unowned): no atomic reference counting is left in it, which
    made the kernel ~2.5x slower and made the threads fight over the shared arrays' counts (issue 25)."""
    from numba import njit

    rules = kurs.Rules(after_out="finish", luck_tokens=1)
    fs, r, table = sim_kurs.pack_fighters(fighter("maximus"), fighter("tiberius")), sim_kurs.pack_rules(rules), \
        sim_kurs.dk_table(rules)
    track, pain, levels = sim_kurs.pack_track(rules)
    args = (np.zeros(DUEL_SIZE, dtype=np.int64), np.zeros((4, sim_kurs.STATE_SIZE), dtype=np.int64), fs, r, track, pain,
            levels, table, 10, np.random.default_rng(0))
    fresh = njit(nogil=True)(sim_kurs._duels.py_func)  # the cached kernel cannot show its code
    fresh(*args)
    loop = fresh.inspect_asm(fresh.signatures[0]).split("cpython")[0]
    assert "NRT_incref" not in loop and "NRT_decref" not in loop
    assert args[0][[A_WINS, B_WINS, BOTH_OUT, UNFINISHED]].sum() == 10
