"""2K's checks and opposition as the seed has them, and its book numbers as house-rule constants: golden values by
enumeration of the exploding dice (tests/brute.py), validation, and the echo of every changed constant."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from analysis.base.params import ParamError
from analysis.front.cli import main
from analysis.systems import onesix
from tests.brute import convolve, onesix_2k, onesix_chain


def check_brute(rating, threshold=15, step=3, two_k=None, skilled=True, cap=1, fumble=6):
    """(P(RT >= threshold), success-level pmf, P(RT < fumble line)) over every roll."""
    two_k = two_k or onesix_2k()
    success, fumbles, levels = Fraction(0), Fraction(0), {}
    for k, p in two_k.items():
        rt = rating + k
        u = 1 + (rt - threshold) // step if rt >= threshold else 0
        u = u if skilled else min(u, cap)
        success += p if rt >= threshold else 0
        fumbles += p if rt < fumble else 0
        levels[u] = levels.get(u, 0) + p
    return success, levels, fumbles


@pytest.mark.parametrize("constants,rating,kw", [
    ({"success_threshold": 14}, 9, {"threshold": 14}),                        # the house rule of issue 15
    ({"success_threshold": 13, "level_step": 2}, 7, {"threshold": 13, "step": 2}),
    ({"unskilled_max_level": 2}, 14, {"skilled": False, "cap": 2}),
    ({"fumble_below": 8}, 3, {"fumble": 8}),
])
def test_changed_constants_against_enumeration(constants, rating, kw):
    res = onesix.check(onesix.Rules(**constants), onesix.CheckArgs(rating=rating, skilled=kw.get("skilled", True)))
    success, levels, fumbles = check_brute(rating, **kw)
    assert res.p_success == pytest.approx(float(success), abs=1e-15)
    assert res.p_fumble == pytest.approx(float(fumbles), abs=1e-15)
    for u, p in levels.items():
        assert res.distribution.pmf(u) == pytest.approx(float(p), abs=1e-15)


def test_three_dice_in_a_test():
    die = onesix_chain(None, True, False)
    three = convolve(convolve(die, die), die)
    res = onesix.check(onesix.Rules(test_dice=3), onesix.CheckArgs(rating=4))
    assert res.p_success == pytest.approx(float(check_brute(4, two_k=three)[0]), abs=1e-15)
    assert res.extra["p_equipment_fault"] == pytest.approx(1 / 216)


def test_the_check_cli_applies_and_echoes_a_house_rules_file(capsys, tmp_path):
    house = tmp_path / "house.toml"
    house.write_text("[onesix]\nsuccess_threshold = 14\n", encoding="utf-8")
    code = main(["check", "onesix", "--rating", "9", "--rules", str(house), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["house_rules"] == {"success_threshold": 14}
    assert data["p_success"] == pytest.approx(float(check_brute(9, threshold=14)[0]), abs=1e-15)


@pytest.mark.parametrize("name,value", [("success_threshold", 0), ("level_step", 0), ("attack_cost", 0),
                                        ("carry_floor", 1), ("track_length", 13), ("test_dice", 7),
                                        ("in_die", "d8"), ("in_loss", "double")])
def test_bad_constants_fail_in_one_line(name, value):
    with pytest.raises(ParamError) as err:
        onesix.Rules(**{name: value})
    text = str(err.value)
    assert text.startswith(f"onesix ruleset: {name} = ") and "allowed" in text and "\n" not in text


def test_every_book_number_is_a_constant_and_the_book_has_no_house_rules():
    constants = set(onesix.Rules.specs("constant"))
    assert {"success_threshold", "level_step", "fumble_below", "attack_cost", "parry_cost", "action_lost",
            "attack_min_in", "carry_cap", "carry_floor", "track_length", "reserve", "damage_step", "test_dice",
            "stopping_effect", "pain_shock"} <= constants
    assert onesix.Rules().house_rules() == {}
    assert onesix.Rules(attack_cost=5, parry_cost=2).house_rules() == {"attack_cost": 5, "parry_cost": 2}
    rules = onesix.Rules(track_length=8, reserve=4)
    assert (rules.shock_cap, rules.death) == (12, 13)


# ------------------------------------------------------------------ opposition
def opposed_brute(ra, rb, threshold=15, step=3):
    """Every pair of rolls: who wins (ties apart), who wins and reaches the threshold, the winners' levels."""
    two_k = onesix_2k()
    out = {"a": Fraction(0), "b": Fraction(0), "tie": Fraction(0), "a_ok": Fraction(0), "b_ok": Fraction(0),
           "tie_ok": Fraction(0), "a_levels": {}, "b_levels": {}}
    for ka, pa in two_k.items():
        for kb, pb in two_k.items():
            p, rt_a, rt_b = pa * pb, ra + ka, rb + kb
            if rt_a == rt_b:
                out["tie"] += p
                out["tie_ok"] += p if rt_a >= threshold else 0
                continue
            side, rt = ("a", rt_a) if rt_a > rt_b else ("b", rt_b)
            out[side] += p
            out[f"{side}_ok"] += p if rt >= threshold else 0
            u = 1 + (rt - threshold) // step if rt >= threshold else 0
            out[f"{side}_levels"][u] = out[f"{side}_levels"].get(u, 0) + p
    return out


@pytest.mark.parametrize("ra,rb", [(9, 8), (9, 9), (5, 12), (13, 4)])
def test_opposition_goes_through_the_main_scheme(ra, rb):
    res = onesix.opposed(onesix.Rules(), onesix.CheckArgs(rating=ra), onesix.CheckArgs(rating=rb))
    want = opposed_brute(ra, rb)
    assert res.p_a_wins == pytest.approx(float(want["a"]), abs=1e-12)
    assert res.p_b_wins == pytest.approx(float(want["b"]), abs=1e-12)
    assert res.p_tie == pytest.approx(float(want["tie"]), abs=1e-12)
    data = res.to_dict()
    assert data["p_a_succeeds"] == pytest.approx(float(want["a_ok"]), abs=1e-12)
    assert data["p_b_succeeds"] == pytest.approx(float(want["b_ok"]), abs=1e-12)
    assert data["p_tie_succeeds"] == pytest.approx(float(want["tie_ok"]), abs=1e-12)
    for side in "ab":
        levels = data[f"{side}_success_levels"]
        for u in set(levels) | {str(u) for u in want[f"{side}_levels"]}:
            assert levels.get(u, 0.0) == pytest.approx(float(want[f"{side}_levels"].get(int(u), 0)), abs=1e-12)
        assert sum(levels.values()) == pytest.approx(getattr(res, f"p_{side}_wins"), abs=1e-12)


def test_daisy_loses_the_boat_chase_opposition():
    """The seed: Daisy's RT 16 against the poacher's 20; a higher RT wins even when both pass 15."""
    res = onesix.opposed(onesix.Rules(), onesix.CheckArgs(rating=16, mod=0), onesix.CheckArgs(rating=20))
    assert res.p_b_wins > 0.5 and res.extra["p_b_succeeds"] == pytest.approx(res.p_b_wins, abs=1e-12)


def test_opposed_cli_reports_the_main_scheme(capsys):
    code = main(["opposed", "onesix", "--a", "rating=9", "--b", "rating=8", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    for key in ("p_a_wins", "p_b_wins", "p_tie", "p_a_succeeds", "p_b_succeeds", "a_success_levels",
                "b_success_levels"):
        assert key in data
    assert data["p_a_succeeds"] < data["p_a_wins"]


# ------------------------------------------------------------------ the IN die (1K)
@pytest.mark.parametrize("variant,walk", [
    ({}, lambda: onesix_chain(None, True, False)),                          # the rule of 1 and 6, unbounded
    ({"explode_depth": 0}, lambda: onesix_chain(None, True, False)),        # 2K's depth does not cap 1K
    ({"in_explode_depth": 1}, lambda: onesix_chain(1, True, False)),
    ({"in_explode_depth": 2, "extra_die_ones": "count"}, lambda: onesix_chain(2, True, True)),
    ({"in_die": "one_zero", "in_explode_depth": 3}, lambda: {v: Fraction(1, 6) for v in (0, 2, 3, 4, 5, 6)}),
    ({"in_die": "d6"}, lambda: {v: Fraction(1, 6) for v in range(1, 7)}),
])
def test_the_in_die_against_enumeration(variant, walk):
    got, want = onesix.in_die(onesix.Rules(**variant)), walk()
    for value, p in want.items():
        assert got.pmf(value) == pytest.approx(float(p), abs=1e-15)
    assert float(got.p.sum()) == pytest.approx(float(sum(want.values())), abs=1e-12)


def test_one_zero_has_mean_ten_thirds_and_fits_the_average_initiative():
    """«Средняя инициатива = Рефлексы + 3»: 1K = one_zero has mean 10/3 (3 rounded down), the rule of 1 and 6 has 4."""
    assert onesix.in_die(onesix.Rules(in_die="one_zero")).mean() == pytest.approx(10 / 3, abs=1e-15)
    assert int(onesix.in_die(onesix.Rules(in_die="one_zero")).mean()) == onesix.Rules().average_in_bonus


@pytest.mark.parametrize("text,value,echo", [("any", None, "any"), ("none", None, "any"), ("3", 3, 3), ("0", 0, 0)])
def test_parry_window_reads_any(text, value, echo):
    rules = onesix.Rules.from_text({"parry_window": text})
    assert rules.parry_window == value and rules.to_dict()["parry_window"] == echo
    assert onesix.Rules(parry_window="any").parry_window is None


def test_parry_window_refuses_in_one_line():
    with pytest.raises(ParamError) as err:
        onesix.Rules.from_text({"parry_window": "soon"})
    assert str(err.value) == ("onesix ruleset: parry_window = 'soon' is not allowed; allowed: an integer in 0..30 or "
                              "any")
