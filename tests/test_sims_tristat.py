"""Tri-Stat simulator against the exact chain: every new option and three house rulesets, within 4 SE."""

from __future__ import annotations

import json

import numpy as np
import pytest

from analysis.base.params import DicelabError, ParamError
from analysis.fights.fighters import load_fighter
from analysis.front.cli import main
from analysis.systems import get_system, tristat
from sims.api import simulate_check, simulate_duel

SYSTEM = get_system("tristat")
N = 60_000
FIELDS = ("p_a_wins", "p_b_wins", "p_both_out", "p_a_dying", "p_b_dying", "mean_rounds")


def within(sim: dict, exact: dict, name: str, k: float = 4.0) -> bool:
    if exact[name] is None:
        return sim[name] is None
    return abs(sim[name] - exact[name]) <= k * max(sim[f"se_{name}"], 1.0 / sim["n"])


def agree(rules, a, b, seed, extra=()):
    exact = tristat.duel(rules, a, b).to_dict()
    sim = simulate_duel("tristat", rules, a, b, N, seed=seed).to_dict()
    names = FIELDS + (("mean_finish_attacks",) if rules.after_out == "finish" else ()) + tuple(extra)
    for name in names:
        assert within(sim, exact, name), (name, sim[name], exact[name])
    return exact, sim


TRAINED = "trained_armed"
OPTIONS = [
    ("block absorb", {}, {}, dict(block=True, block_armor=3)),
    ("block negate", dict(block_rule="negate"), {}, dict(block=True, block_armor=3)),
    ("both block, objects break", {}, dict(block=True, block_armor=2), dict(block=True, block_armor=3, armor=1)),
    ("ranged against a blocker", {}, dict(weapon_range="ranged"), dict(block=True, block_armor=3)),
    ("ranged, block_ranged", {}, dict(weapon_range="ranged"), dict(block=True, block_armor=3, block_ranged=True)),
    ("finish", dict(after_out="finish"), {}, {}),
    ("finish, shock, blocks", dict(after_out="finish", shock_rule=True, finish_attacks=4), dict(block=True),
     dict(block=True, block_armor=2)),
    ("initiative once", dict(initiative_once=True), dict(attack_specialty=True), {}),
    ("acv in max, literal critical", dict(acv_in_max=True, critical_acv="literal"), {}, {}),
    ("warn", dict(stat_limits="warn"), dict(attack_bonus=5, mind=8), {}),
    ("finish, natural 2X still misses", dict(after_out="finish", stat_limits="warn"), dict(attack_bonus=8), {}),
]


@pytest.mark.parametrize("label,rules_kw,a_kw,b_kw", OPTIONS, ids=[o[0] for o in OPTIONS])
def test_every_option_agrees_with_the_chain(label, rules_kw, a_kw, b_kw):
    rules = tristat.Rules(**rules_kw)
    a = load_fighter(SYSTEM, TRAINED).replace(**a_kw)
    b = load_fighter(SYSTEM, "veteran").replace(**b_kw)
    exact, sim = agree(rules, a, b, seed=sum(map(ord, label)))
    assert sim["warnings"] == exact["warnings"]
    if label.startswith("warn"):
        assert len(sim["warnings"]) == 2 and "attack_bonus" in " ".join(sim["warnings"])


@pytest.mark.parametrize("turtle", ["a", "b"])
@pytest.mark.parametrize("rules_kw", [{}, dict(after_out="finish", total_defence_rounds=25)])
def test_total_defence_agrees_with_the_chain(turtle, rules_kw):
    rules = tristat.Rules(**rules_kw)
    plain = load_fighter(SYSTEM, TRAINED)
    guard = plain.replace(stance="total_defence", block=True, block_armor=2)
    a, b = (guard, plain) if turtle == "a" else (plain, guard)
    exact, sim = agree(rules, a, b, seed=3 if turtle == "a" else 4, extra=("p_still_up",))
    assert sim["total_defence"] == exact["total_defence"] == turtle
    assert sim["p_unfinished"] == sim["p_still_up"] and 0 < exact["p_still_up"] < 1
    assert exact[f"p_{'b' if turtle == 'a' else 'a'}_out"] == 0 and sim[f"p_{'b' if turtle == 'a' else 'a'}_out"] == 0


HOUSE = [
    # a deadlier table: criticals x4, the 25% band gone, a lower dying line: short, lethal fights
    ("lethal", dict(critical_multiplier=4, damage_percents=(100, 75, 50), damage_bands=(4, 8), dying_percent=40,
                    after_out="finish")),
    # thin health, big block bonus and brittle objects: blocks decide the fight
    ("brittle blocks", dict(health_per_point=3, block_bonus=5, block_break_multiple=2, dcv_offset=0)),
    # 3d6 instead of 2d6 with its own bands, shock at health/3: the bell curve narrows, shock knocks out
    ("3d6 and shock", dict(dice_count=3, damage_bands=(7, 10, 14), shock_rule=True, shock_divisor=3)),
    # total defence worth +5 and a long cap
    ("stubborn defence", dict(total_defence_bonus=5, total_defence_rounds=40, specialisation_bonus=2)),
]


@pytest.mark.parametrize("label,house", HOUSE, ids=[h[0] for h in HOUSE])
def test_house_rulesets_agree_with_the_chain(label, house):
    rules = tristat.Rules(**house)
    a = load_fighter(SYSTEM, TRAINED).replace(defense_specialty=True)
    b = load_fighter(SYSTEM, "veteran").replace(block=True, block_armor=2)
    if label == "stubborn defence":
        b = b.replace(stance="total_defence")
    exact, sim = agree(rules, a, b, seed=sum(map(ord, label)), extra=("p_still_up",) if b.stance != "normal" else ())
    assert sim["house_rules"] == exact["house_rules"] and exact["house_rules"]
    book = tristat.duel(tristat.Rules(), a, b.replace(stance="normal")).to_dict()
    assert abs(exact["p_a_wins"] - book["p_a_wins"]) > 0.01 or abs(exact["mean_rounds"] - book["mean_rounds"]) > 0.5


def test_checks_follow_the_dice_count():
    rules = tristat.Rules(dice_count=3, damage_bands=(7, 10, 14))
    args = tristat.CheckArgs(target=9)
    exact = tristat.check(rules, args)
    sim = simulate_check("tristat", rules, args, 200_000, seed=5).to_dict()
    assert exact.p_critical == pytest.approx(1 / 216) and exact.p_fumble == pytest.approx(1 / 216)
    assert exact.p_success == pytest.approx(81 / 216)  # 3..9 on 3d6: 1+3+6+10+15+21+25 of 216
    for name in ("p_success", "p_critical", "p_fumble"):
        assert abs(sim[name] - getattr(exact, name)) <= 4 * max(sim[f"se_{name}"], 1 / 200_000)


def test_the_simulator_validates_like_the_chain():
    sage = tristat.Fighter(name="sage", mind=7)
    with pytest.raises(ParamError, match="mind = 7"):
        simulate_duel("tristat", tristat.Rules(), sage, sage, 100, seed=1)
    guard = tristat.Fighter(stance="total_defence")
    with pytest.raises(DicelabError, match="at most one"):
        simulate_duel("tristat", tristat.Rules(), guard, guard, 100, seed=1)


def test_same_seed_same_numbers_with_blocks_and_total_defence():
    rules = tristat.Rules(after_out="finish")
    a = load_fighter(SYSTEM, TRAINED).replace(block=True, block_armor=1)
    b = load_fighter(SYSTEM, "veteran").replace(stance="total_defence")
    runs = [simulate_duel("tristat", rules, a, b, 140_000, seed=9, workers=w).counts for w in (1, 2)]
    assert np.array_equal(*runs)


def test_sim_cli_prints_warnings_and_still_up(capsys):
    code = main(["sim", "tristat", "--a", "archetype=trained_armed,mind=7", "--b", "archetype=veteran,stance=total_defence",
                 "--variant", "stat_limits=warn", "--n", "2000", "--seed", "1"])
    out = capsys.readouterr().out
    assert code == 0 and "warning:" in out and "mind = 7" in out
    code = main(["sim", "tristat", "--a", "trained_armed", "--b", "archetype=veteran,stance=total_defence",
                 "--n", "2000", "--seed", "1", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["total_defence"] == "b" and data["p_still_up"] == data["p_unfinished"]


def test_a_simulated_total_defence_ends_at_the_cap_and_says_so():
    a = load_fighter(SYSTEM, "trained_armed")
    sim = simulate_duel("tristat", tristat.Rules(), a, a.replace(stance="total_defence"), 20_000, seed=9).to_dict()
    assert sim["rounds_cap"] == 10 and sim["never_ends"] is False and sim["p_unfinished"] == sim["p_still_up"] > 0
    assert "never" not in sim["rounds_note"] and "10-round cap with nobody out" in sim["rounds_note"]
    p = sim["p_unfinished"]
    assert sim["conditional_on"]["mean_rounds"] == (f"the fights where someone goes out before the 10-round cap, "
                                                    f"p = {1 - p:.6g}")
