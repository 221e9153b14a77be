"""Every system's exact check against brute-force enumeration, and the check invariants."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from analysis.systems import SYSTEM_IDS, get_system, kurs, onesix, tristat, tun
from tests import brute
from tests.brute import close, pmf_close


# ------------------------------------------------------------------ tristat
@pytest.mark.parametrize("die", tristat.DICE)
def test_tristat_check_matches_enumeration(die):
    for target in range(0, 2 * die + 2):
        res = tristat.check(tristat.Rules(die=die), tristat.CheckArgs(target=target))
        p, margins, crit, fumble = brute.tristat_check(die, target)
        assert close(res.p_success, p)
        assert pmf_close(res.distribution.to_dict(), margins)
        assert close(res.p_critical, crit) and close(res.p_fumble, fumble)
        assert res.p_critical == pytest.approx(1 / die**2)


def test_tristat_naturals_override_the_target():
    low = tristat.check(tristat.Rules(), tristat.CheckArgs(target=-5))
    high = tristat.check(tristat.Rules(), tristat.CheckArgs(target=40))
    assert low.p_success == pytest.approx(1 / 36)
    assert high.p_success == pytest.approx(35 / 36)


# ------------------------------------------------------------------- onesix
@pytest.mark.parametrize("rating", [-3, 0, 3, 6, 9, 12, 15, 20])
@pytest.mark.parametrize("skilled", [True, False])
def test_onesix_check_matches_enumeration(rating, skilled):
    res = onesix.check(onesix.Rules(), onesix.CheckArgs(rating=rating, skilled=skilled))
    p, levels, fumble = brute.onesix_check(rating, skilled=skilled)
    assert close(res.p_success, p)
    assert pmf_close(res.distribution.to_dict(), levels)
    assert close(res.p_fumble, fumble)
    assert res.extra["p_equipment_fault"] == pytest.approx(1 / 36)


@pytest.mark.parametrize("depth", [0, 1, 2, 4])
@pytest.mark.parametrize("ones", ["zero", "count"])
def test_onesix_variants_match_enumeration(depth, ones):
    rules = onesix.Rules(explode_depth=depth, extra_die_ones=ones)
    for rating in (0, 4, 9, 13):
        res = onesix.check(rules, onesix.CheckArgs(rating=rating, mod=1))
        p, levels, fumble = brute.onesix_check(rating, 1, depth=depth, ones_count=ones == "count")
        assert res.residual == 0
        assert close(res.p_success, p) and close(res.p_fumble, fumble)
        assert pmf_close(res.distribution.to_dict(), levels)


def test_onesix_daisy_worked_example():
    """Rating 9; dice 1 and 6, the extra die 4: 2K = 10, RT 19, success level 2."""
    rules = onesix.Rules()
    two_k = onesix.chain_value([1], rules) + onesix.chain_value([6, 4], rules)
    assert two_k == 10
    rt = 9 + two_k
    assert rt == 19
    assert int(onesix.success_level(rt, skilled=True)) == 2
    assert int(onesix.success_level(rt, skilled=False)) == 1


def test_onesix_2k_mean_and_double_one():
    two_k = onesix.two_k(onesix.Rules())
    assert two_k.mean() == pytest.approx(8.0, abs=1e-12)
    assert two_k.pmf(0) == pytest.approx(1 / 36, abs=1e-15)
    assert two_k.residual < 1e-15


def test_onesix_gear_breaks_needs_the_fault_and_a_failed_reliability_test():
    res = onesix.check(onesix.Rules(), onesix.CheckArgs(rating=9, gear_rating=5))
    p_fail, _, _ = brute.onesix_check(5)
    assert close(res.extra["p_gear_breaks"], Fraction(1, 36) * (1 - p_fail))


# ---------------------------------------------------------------------- tun
@pytest.mark.parametrize("dice", tun.DICE_MODES)
@pytest.mark.parametrize("rule", ["lt", "le"])
@pytest.mark.parametrize("crits", [False, True])
def test_tun_check_matches_enumeration(dice, rule, crits):
    rules = tun.Rules(success_rule=rule, crits=crits)
    for limit in range(-1, 23):
        res = tun.check(rules, tun.CheckArgs(limit=limit, dice=dice))
        p, es = brute.tun_check(dice, limit, le=rule == "le", crits=crits)
        assert close(res.p_success, p)
        assert pmf_close(res.distribution.to_dict(), es)
        if crits:
            lo, hi, _ = brute.TUN_CRIT[dice]
            rolls = dict(brute.pmf_of(brute.tun_rolls(dice)))
            assert close(res.p_critical, rolls[lo]) and close(res.p_fumble, rolls[hi])
        else:
            assert res.p_critical is None and res.p_fumble is None


def test_tun_red_and_blue_knife_throw():
    """Red (Body 13, throwing 6) against Blue's Body defense 6: 3d6 against 13, success iff roll < 13."""
    defense = -(-12 // 2)
    assert defense == 6
    res = tun.check(tun.Rules(), tun.CheckArgs(limit=13 + 6 - defense))
    assert close(res.p_success, Fraction(sum(1 for r, _ in brute.enumerate_dice(range(1, 7), 3) if sum(r) < 13), 216))


# --------------------------------------------------------------------- kurs
@pytest.mark.parametrize("faces", list(brute.KURS_FACES))
@pytest.mark.parametrize("luck", [0, 1])
def test_kurs_check_matches_enumeration(faces, luck):
    rules = kurs.Rules(dk_faces=faces, luck_tokens=luck)
    for skill in range(-8, 9):
        for difficulty in (0, 2):
            res = kurs.check(rules, kurs.CheckArgs(skill=skill, difficulty=difficulty))
            p, margins, comp = brute.kurs_check(skill, difficulty, brute.KURS_FACES[faces], luck)
            assert close(res.p_success, p)
            assert close(res.extra["p_complication"], comp)
            assert pmf_close(res.distribution.to_dict(), margins)


def test_kurs_custom_faces():
    res = kurs.check(kurs.Rules(dk_faces=(0, 1, 3)), kurs.CheckArgs(skill=-4, difficulty=0))
    p, _, _ = brute.kurs_check(-4, 0, (0, 1, 3))
    assert close(res.p_success, p)


def test_kurs_jump_example():
    """The jump over the chasm: skill 3 + technique 2 against Отлично (+4), roll -1: 5 - 1 = 4 = difficulty."""
    margin = 3 + 2 + (-1) - 4
    assert margin == 0  # success with a complication: "the feet land on the very edge"
    res = kurs.check(kurs.Rules(), kurs.CheckArgs(skill=3, mod=2, difficulty=4))
    assert res.extra["p_complication"] == pytest.approx(float(brute.kurs_check(5, 4)[2]))


# ----------------------------------------------------------------- opposed
def _brute_outcomes(system_id, rules, args):
    if system_id == "tristat":
        out = []
        for (a, b), p in brute.enumerate_dice(range(1, rules.die + 1), 2):
            t = a + b
            ok = t == 2 or (t <= args.target and t != 2 * rules.die)
            out.append((p, (ok, args.target - t)))
        return out
    if system_id == "onesix":
        return [(p, args.rating + args.mod + k) for k, p in brute.onesix_2k().items()]
    if system_id == "tun":
        out = []
        for roll, p in brute.tun_rolls(args.dice):
            ok, e = brute.tun_outcome(args.dice, args.limit, roll, rules.success_rule == "le", rules.crits)
            out.append((p, (ok, e)))
        return out
    return [(p, sum(r) + args.skill + args.mod) for r, p in brute.enumerate_dice(rules.dk_faces, 3)]


OPPOSED_CASES = {
    "tristat": [dict(target=7), dict(target=9), dict(target=1), dict(target=12)],
    "onesix": [dict(rating=9), dict(rating=6), dict(rating=12, mod=-2)],
    "tun": [dict(limit=13), dict(limit=10, dice="1d20"), dict(limit=9, dice="1d6x3")],
    "kurs": [dict(skill=2), dict(skill=3), dict(skill=-1, mod=1)],
}


@pytest.mark.parametrize("system_id", SYSTEM_IDS)
def test_opposed_matches_enumeration(system_id):
    system = get_system(system_id)
    rules = system.rules()
    cases = OPPOSED_CASES[system_id]
    for a_kw in cases:
        for b_kw in cases:
            a, b = system.args(**a_kw), system.args(**b_kw)
            res = system.opposed(rules, a, b)
            win, tie, lose = brute.contest(_brute_outcomes(system_id, rules, a), _brute_outcomes(system_id, rules, b))
            tol = 1e-12
            assert close(res.p_a_wins, win, tol) and close(res.p_tie, tie, tol) and close(res.p_b_wins, lose, tol)


def test_tristat_contest_reroll_renormalises():
    rules = tristat.Rules(contest_tie="reroll")
    res = tristat.opposed(rules, tristat.CheckArgs(target=8), tristat.CheckArgs(target=7))
    draw = tristat.opposed(tristat.Rules(), tristat.CheckArgs(target=8), tristat.CheckArgs(target=7))
    assert res.p_tie == 0
    assert res.p_a_wins == pytest.approx(draw.p_a_wins / (1 - draw.p_tie))
    assert res.p_a_wins + res.p_b_wins == pytest.approx(1)


# --------------------------------------------------------------- invariants
VALUE_RANGE = {"tristat": (-2, 42), "onesix": (-10, 30), "tun": (-2, 24), "kurs": (-12, 12)}


def _variant_strategy(system_id):
    system = get_system(system_id)
    choices = {
        "tristat": {"die": st.sampled_from(tristat.DICE)},
        "onesix": {"extra_die_ones": st.sampled_from(["zero", "count"]), "explode_depth": st.one_of(st.none(), st.integers(0, 4))},
        "tun": {"success_rule": st.sampled_from(["lt", "le"]), "crits": st.booleans()},
        "kurs": {"dk_faces": st.sampled_from(list(kurs.DK_PRESETS.values())), "luck_tokens": st.integers(0, 2)},
    }[system_id]
    return st.fixed_dictionaries(choices).map(lambda kw: system.rules(**kw))


@pytest.mark.parametrize("system_id", SYSTEM_IDS)
@given(data=st.data())
def test_check_probabilities_sum_to_one_and_are_monotone(system_id, data):
    system = get_system(system_id)
    rules = data.draw(_variant_strategy(system_id))
    lo, hi = VALUE_RANGE[system_id]
    value = data.draw(st.integers(lo, hi))
    extra = {"dice": data.draw(st.sampled_from(tun.DICE_MODES))} if system_id == "tun" else {}
    lower = system.check(rules, system.args(**{system.value: value, **extra}))
    upper = system.check(rules, system.args(**{system.value: value + 1, **extra}))
    for res in (lower, upper):
        assert abs(res.distribution.total() + res.residual - 1) < 1e-12
        assert 0 <= res.p_success <= 1
    assert upper.p_success >= lower.p_success - 1e-15


@pytest.mark.parametrize("system_id", SYSTEM_IDS)
@given(data=st.data())
def test_opposed_is_symmetric(system_id, data):
    system = get_system(system_id)
    rules = data.draw(_variant_strategy(system_id))
    lo, hi = VALUE_RANGE[system_id]
    a = system.args(**{system.value: data.draw(st.integers(lo, hi))})
    b = system.args(**{system.value: data.draw(st.integers(lo, hi))})
    ab, ba = system.opposed(rules, a, b), system.opposed(rules, b, a)
    assert ab.p_a_wins == pytest.approx(ba.p_b_wins, abs=1e-12)
    assert ab.p_tie == pytest.approx(ba.p_tie, abs=1e-12)
    assert ab.p_a_wins + ab.p_tie + ab.p_b_wins + ab.margin.residual == pytest.approx(1, abs=1e-12)
    if a == b:
        assert ab.p_a_wins == pytest.approx(ab.p_b_wins, abs=1e-12)
