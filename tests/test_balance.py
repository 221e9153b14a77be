"""Balance tools: every answer re-derived independently with the check/duel API or brute force."""

from __future__ import annotations

import dataclasses
import inspect
import json
import math
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pytest

from analysis.base.params import Bool, Choice, DicelabError, Int, ParamError, param
from analysis.fights import budget
from analysis.fights.fighters import archetypes, load_fighter
from analysis.front.cli import main
from analysis.present.tables import success_table
from analysis.systems import SYSTEM_IDS, get_system
from analysis.tools import curve, duels
from analysis.tools import variants as variants_mod
from analysis.tools.design import design, parse_vary
from analysis.tools.duels import figure_distance
from analysis.tools.equiv import equiv, equiv_fight, equiv_table
from analysis.tools.tune import tune, tune_table
from analysis.tools.variants import rule_alternatives, variants
from analysis.tools.worth import worth
from tests import brute

SYSTEMS = [get_system(s) for s in SYSTEM_IDS]
IDS = list(SYSTEM_IDS)
LO, HI = -100, 100  # the allowed range of every system's main check value
VARY = {"tristat": "weapon_damage", "onesix": "weapon_ps", "tun": "weapon_b", "kurs": "weapon"}


def p_at(system, rules, args, value):
    return system.check(rules, args.replace(**{system.value: value})).p_success


def run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    return json.loads(out)


# -------------------------------------------------------------------- tune
@pytest.mark.parametrize("system", SYSTEMS, ids=IDS)
@pytest.mark.parametrize("p", [0.05, 0.3, 0.5, 0.75, 0.9])
def test_tune_is_the_smallest_modifier(system, p):
    rules, args = system.rules(), system.args()
    res = tune(system, rules, args, p)
    base = getattr(args, system.value)
    assert res.value == base + res.modifier
    assert res.p_at_modifier == pytest.approx(p_at(system, rules, args, res.value), abs=1e-15)
    assert res.p_at_modifier >= p - 1e-12
    assert res.p_below == pytest.approx(p_at(system, rules, args, res.value - 1), abs=1e-15)
    assert res.p_below < p
    assert res.system == system.id and res.params == args.to_dict() and res.variants == rules.to_dict()


@lru_cache(maxsize=None)
def brute_p(system_id, value, **kw):
    if system_id == "tristat":
        return brute.tristat_check(kw["die"], value)[0]
    if system_id == "tun":
        return brute.tun_check(kw["dice"], value, le=kw.get("le", False))[0]
    if system_id == "onesix":
        return brute.onesix_check(value)[0]
    return brute.kurs_check(value, kw.get("difficulty", 0), brute.KURS_FACES[kw.get("faces", "default")])[0]


@pytest.mark.parametrize("system_id,rules,args,kw", [
    ("tristat", {"die": 4}, {"target": 3}, {"die": 4}),
    ("tristat", {"die": 10}, {"target": 11}, {"die": 10}),
    ("onesix", {}, {"rating": 9}, {}),
    ("tun", {"success_rule": "le"}, {"limit": 10, "dice": "1d20"}, {"dice": "1d20", "le": True}),
    ("kurs", {"dk_faces": "fudge"}, {"skill": 1, "difficulty": 2}, {"faces": "fudge", "difficulty": 2}),
])
def test_tune_agrees_with_brute_force(system_id, rules, args, kw):
    system = get_system(system_id)
    r, a = system.rules(**rules), system.args(**args)
    base = getattr(a, system.value)
    for p in (Fraction(1, 10), Fraction(1, 2), Fraction(4, 5)):
        want = next(v for v in range(LO, HI + 1) if brute_p(system_id, v, **kw) >= p)
        assert tune(system, r, a, float(p)).modifier == want - base


@pytest.mark.parametrize("die", [4, 6, 20])
def test_tristat_ceiling_is_named(die):
    tri = get_system("tristat")
    ceiling = 1 - 1 / die**2
    with pytest.raises(DicelabError) as exc:
        tune(tri, tri.rules(die=die), tri.args(target=7), 0.999)
    message = str(exc.value)
    assert "\n" not in message and f"{ceiling:.6f}" in message
    first = 2 * die - 1  # 2dX <= 2X - 1 misses only the natural 2X
    assert f"modifier {first - 7:+d} (target {first}" in message
    assert p_at(tri, tri.rules(die=die), tri.args(), first) == pytest.approx(ceiling)
    assert p_at(tri, tri.rules(die=die), tri.args(), first - 1) < ceiling


@pytest.mark.parametrize("system_id,rules,args,ceiling", [
    ("tun", {"crits": True}, {"limit": 10}, 1 - 1 / 216),
    ("kurs", {}, {"skill": 0, "difficulty": 100}, float(brute.kurs_check(0)[0])),  # skill capped at 100
])
def test_other_ceilings(system_id, rules, args, ceiling):
    system = get_system(system_id)
    with pytest.raises(DicelabError, match=rf"ceiling is P = {ceiling:.6f}"):
        tune(system, system.rules(**rules), system.args(**args), 0.999999)


def test_tune_floor_and_bad_p():
    tri = get_system("tristat")
    res = tune(tri, tri.rules(), tri.args(target=7), 0.01)  # the natural 2 always succeeds: 1/36 > 0.01
    assert res.value == LO and res.p_below is None and res.notes
    for bad in (0, -0.1, 1.5, "x"):
        with pytest.raises(ParamError):
            tune(tri, tri.rules(), tri.args(), bad)


@pytest.mark.parametrize("system", SYSTEMS, ids=IDS)
def test_tune_table_matches_tune(system):
    rules, args = system.rules(), system.args()
    table = tune_table(system, rules, args)
    assert [r["p"] for r in table.rows] == [round(0.05 * k, 2) for k in range(1, 20)]
    for row in table.rows:
        try:
            assert row["modifier"] == tune(system, rules, args, row["p"]).modifier
        except DicelabError:
            assert row["modifier"] is None


# ------------------------------------------------------------------ equiv
def table_values(system, rules, args):
    return sorted(curve.cases_at(system, rules, args))


@pytest.mark.parametrize("system", SYSTEMS, ids=IDS)
def test_equiv_to_itself_is_the_identity(system):
    rules, args = system.rules(), system.args()
    for v in table_values(system, rules, args):
        a = args.replace(**{system.value: v})
        res = equiv(system, rules, a, system, rules, a)
        assert res.value == v and res.p_to == res.p_from


@pytest.mark.parametrize("source", SYSTEMS, ids=IDS)
@pytest.mark.parametrize("target", SYSTEMS, ids=IDS)
def test_equiv_is_nearest_and_round_trips(source, target):
    rules, args = source.rules(), source.args()
    t_rules, t_args = target.rules(), target.args()
    values = table_values(source, rules, args)
    for v in values[1::3]:
        a = args.replace(**{source.value: v})
        res = equiv(source, rules, a, target, t_rules, t_args)
        assert res.p_from == pytest.approx(source.check(rules, a).p_success, abs=1e-15)
        assert res.p_to == pytest.approx(p_at(target, t_rules, t_args, res.value), abs=1e-15)
        if v == values[1]:  # once per pair: a full scan of the target's range
            best = min(abs(p_at(target, t_rules, t_args, w) - res.p_from) for w in range(LO, HI + 1))
            assert abs(res.p_to - res.p_from) == pytest.approx(best, abs=1e-12)
        back = equiv(target, t_rules, t_args.replace(**{target.value: res.value}), source, rules, a)
        # back at the start, unless the start is not the nearest to where it went (the curves do not allow it)
        assert back.value == v or (abs(back.p_to - res.p_to) < abs(res.p_from - res.p_to) - 1e-12)


def test_equiv_round_trip_exact_from_a_coarse_to_a_fine_curve():
    tri = get_system("tristat")
    coarse, fine = tri.rules(die=4), tri.rules(die=20)
    for v in table_values(tri, coarse, tri.args()):
        a = tri.args(target=v)
        there = equiv(tri, coarse, a, tri, fine, tri.args())
        back = equiv(tri, fine, tri.args(target=there.value), tri, coarse, a)
        assert back.value == v


def test_equiv_table_rows_are_equiv_calls():
    tri, kurs = get_system("tristat"), get_system("kurs")
    table = equiv_table(tri, tri.rules(die=8), tri.args(), kurs, kurs.rules(), kurs.args(difficulty=1))
    assert [r["from"] for r in table.rows] == list(range(2, 17))
    for row in table.rows:
        one = equiv(tri, tri.rules(die=8), tri.args(target=row["from"]), kurs, kurs.rules(), kurs.args(difficulty=1))
        assert (row["value"], row["p_to"]) == (one.value, one.p_to)


def test_equiv_fight_finds_the_same_pairing_in_its_own_system():
    tri = get_system("tristat")
    a, b = load_fighter(tri, "veteran"), load_fighter(tri, "trained_armed")
    res = equiv_fight(tri, tri.rules(), a, b, tri, tri.rules(), top=3, workers=1)
    assert (res.matches[0].a, res.matches[0].b, res.matches[0].distance) == ("veteran", "trained_armed", 0.0)
    assert res.pairings == len(archetypes("tristat")) ** 2
    assert [m.distance for m in res.matches] == sorted(m.distance for m in res.matches)
    second = res.matches[1]
    sol = tri.duel(tri.rules(), load_fighter(tri, second.a), load_fighter(tri, second.b)).solution
    assert second.distance == pytest.approx(figure_distance([(sol.p_a_wins, res.figures.p_a_wins)],
                                                             (sol.mean_rounds, res.figures.mean_rounds)))


def test_figure_distance_units():
    assert figure_distance([(0.6, 0.5)], (3.0, 3.0)) == pytest.approx(1.0)
    assert figure_distance([], (4.5, 3.0)) == pytest.approx(1.0)
    assert figure_distance([], (0.0, 3.0)) == math.inf


# ------------------------------------------------------------------ worth
@pytest.mark.parametrize("system", SYSTEMS, ids=IDS)
def test_worth_delta_is_a_difference_of_two_checks(system):
    rules, args = system.rules(), system.args()
    res = worth(system, rules, args)
    assert [r["value"] for r in res.rows] == table_values(system, rules, args)
    for row in res.rows:
        here = system.check(rules, args.replace(**{system.value: row["value"]}))
        assert row["p_success"] == pytest.approx(here.p_success, abs=1e-15)
        assert row["delta_p"] == pytest.approx(p_at(system, rules, args, row["value"] + 1) - here.p_success, abs=1e-15)
        assert row["std"] == pytest.approx(here.distribution.std())
        assert row["modifier"] == row["value"] - getattr(args, system.value)


# --------------------------------------------------------------- variants
@pytest.mark.parametrize("system", SYSTEMS, ids=IDS)
def test_variants_lists_every_variant(system):
    base = system.rules()
    rep = variants(system)
    labels = [e.label for e in rep.effects]
    assert len(labels) == len(set(labels)) == len(list(rule_alternatives(system, base)))
    for name, spec in system.Rules.specs("variant").items():
        values = [e.value for e in rep.effects if e.name == name]
        assert values, f"{name} missing"
        if isinstance(spec, Bool):
            assert values == [not getattr(base, name)]
        if isinstance(spec, Choice):
            assert sorted(map(str, values)) == sorted(str(c) for c in spec.choices if c != getattr(base, name))
    effects = [e.effect for e in rep.effects]
    assert effects == sorted(effects, reverse=True)


@pytest.mark.parametrize("system_id,variant", [("tun", {"success_rule": "le"}), ("tun", {"crits": True}),
                                               ("onesix", {"explode_depth": 0}), ("tristat", {"die": 8})])
def test_variant_check_effect_against_the_success_table(system_id, variant):
    system = get_system(system_id)
    (name, value), = variant.items()
    base = success_table(system, system.rules(), system.args())["p_success"]
    alt = success_table(system, system.rules(**variant), system.args())["p_success"]
    effect = next(e for e in variants(system).effects if e.name == name and e.value == value)
    assert effect.check_max_dp == pytest.approx((alt - base).abs().max(), abs=1e-15)
    assert effect.check_mean_dp == pytest.approx((alt - base).abs().mean(), abs=1e-15)


def anyone_dying(sol) -> float:
    """P(at least one fighter ends dying or worse) by inclusion-exclusion: P(A) + P(B) - P(both)."""
    both = sum(p for (x, y), p in sol.final.items() if x in ("dying", "dead") and y in ("dying", "dead"))
    return sol.p_a_dying + sol.p_b_dying - both


def test_variant_duel_effects_are_duels():
    tri = get_system("tristat")
    a, b = load_fighter(tri, "veteran"), load_fighter(tri, "trained_armed")
    rep = variants(tri, a=a, b=b, workers=1)
    base = tri.duel(tri.rules(), a, b).solution
    for e in rep.effects:
        if e.duel is None:  # a smaller die puts the fighters past its stat limits (stat_limits = enforce)
            assert e.name == "die" and e.value < 6 and "stat_limits=warn" in e.note
            continue
        sol = tri.duel(tri.rules(**{e.name: e.value}), a, b).solution
        assert e.duel_delta["p_a_wins"] == pytest.approx(sol.p_a_wins - base.p_a_wins, abs=1e-12)
        assert e.duel_delta["p_killed"] == pytest.approx(anyone_dying(sol) - anyone_dying(base), abs=1e-12)
        assert e.duel_delta["mean_rounds"] == pytest.approx(sol.mean_rounds - base.mean_rounds, abs=1e-9)


def _picky_duel(rules, a, b):
    if rules.shock_rule:
        raise DicelabError("this duel cannot take shock_rule")
    return get_system("tristat").duel(rules, a, b)


def test_variant_a_duel_cannot_take_is_skipped_with_a_note():
    picky = dataclasses.replace(get_system("tristat"), duel=_picky_duel)
    a = load_fighter(picky, "veteran")
    rep = variants(picky, a=a, b=a, workers=1)
    shock = next(e for e in rep.effects if e.name == "shock_rule")
    assert shock.duel is None and "duel skipped: this duel cannot take shock_rule" in shock.note
    assert all(e.duel is not None for e in rep.effects if e.name != "shock_rule" and (e.name, e.value) != ("die", 4))


# ----------------------------------------------------------------- design
@pytest.mark.parametrize("system_id", IDS)
def test_design_best_setting_reproduces_with_the_duel(system_id):
    system = get_system(system_id)
    names = list(archetypes(system_id))
    a, b = load_fighter(system, names[0]), load_fighter(system, names[1])
    param = VARY[system_id]
    lo = getattr(a, param)
    res = design(system, system.rules(), a, b, f"a.{param}={lo}..{lo + 2},b.{param}={lo}..{lo + 1}",
                 rounds=4, lethality=0.1, p_win=0.5, top=3, workers=1)
    assert res.settings == 6 and len(res.best) == 3
    distances = []
    for x in range(lo, lo + 3):
        for y in range(lo, lo + 2):
            sol = system.duel(system.rules(), a.replace(**{param: x}), b.replace(**{param: y})).solution
            distances.append(figure_distance([(anyone_dying(sol), 0.1), (sol.p_a_wins, 0.5)], (sol.mean_rounds, 4.0)))
    assert res.best[0].distance == pytest.approx(min(distances), abs=1e-12)
    best = res.best[0]
    fa = system.Fighter(**{k: v for k, v in best.a.items() if k not in ("name", "derived")})
    fb = system.Fighter(**{k: v for k, v in best.b.items() if k not in ("name", "derived")})
    assert getattr(fa, param) == best.setting[f"a.{param}"] and getattr(fb, param) == best.setting[f"b.{param}"]
    sol = system.duel(system.rules(), fa, fb).solution
    assert best.figures.p_a_wins == pytest.approx(sol.p_a_wins, abs=1e-12)
    assert best.figures.p_killed == pytest.approx(anyone_dying(sol), abs=1e-12) and best.figures.p_killed <= 1
    assert best.figures.mean_rounds == pytest.approx(sol.mean_rounds, abs=1e-9)


def test_design_bare_name_sets_both_and_workers_do_not_matter():
    tri = get_system("tristat")
    a, b = load_fighter(tri, "veteran"), load_fighter(tri, "trained")
    one = design(tri, tri.rules(), a, b, "weapon_damage=8..27", rounds=5, lethality=0.0, top=4, workers=1)
    two = design(tri, tri.rules(), a, b, "weapon_damage=8..27", rounds=5, lethality=0.0, top=4, workers=2)
    assert one.to_dict() == two.to_dict()
    for point in one.best:
        assert point.a["weapon_damage"] == point.b["weapon_damage"] == point.setting["weapon_damage"]


@pytest.mark.parametrize("text,error", [
    ("weapon_damage", "not of the form"), ("a.weapon_damage=5..2", "empty"), ("c.armor=0..2", "not of the form"),
    ("armor=0..2,a.armor=1..3", "twice"), ("a.weapon_damage=0..500", "weapon_damage = 500"),
    ("a.nonsense=0..2", "nonsense"),
])
def test_design_rejects_bad_vary(text, error):
    tri = get_system("tristat")
    a = load_fighter(tri, "veteran")
    with pytest.raises(DicelabError, match=error):
        design(tri, tri.rules(), a, a, text, rounds=3, lethality=0.1, workers=1)


def test_parse_vary():
    assert [(v.side, v.name, v.lo, v.hi) for v in parse_vary("a.armor=-2..3,b.block=0..1,body=4")] == [
        ("a", "armor", -2, 3), ("b", "block", 0, 1), ("both", "body", 4, 4)]


# -------------------------------------------------------------------- CLI
def test_cli_tune_contract(capsys):
    data = run_json(capsys, "tune", "tristat", "--target", "7", "--p", "0.75", "--json")
    assert {"system", "variants", "params", "modifier", "value", "p_at_modifier", "p_below"} <= set(data)
    assert (data["modifier"], data["value"]) == (2, 9)
    assert data["p_below"] < 0.75 <= data["p_at_modifier"]
    table = run_json(capsys, "tune", "kurs", "--skill", "1", "--table", "--json")
    assert len(table["rows"]) == 19 and {"p", "modifier", "value", "p_at_modifier"} <= set(table["rows"][0])
    code, out, err = run(capsys, "tune", "tristat", "--die", "4", "--p", "0.99")
    assert code == 2 and not out and err.count("\n") == 1 and "0.937500" in err


def test_cli_equiv_contract(capsys):
    data = run_json(capsys, "equiv", "--from", "onesix", "--rating", "7", "--mod", "2", "--to", "kurs", "--mod", "-1", "--json")
    assert {"p_from", "value", "p_to", "from", "to"} <= set(data)
    assert data["from"]["params"]["mod"] == 2 and data["to"]["params"]["mod"] == -1
    six, kurs = get_system("onesix"), get_system("kurs")
    want = equiv(six, six.rules(), six.args(rating=7, mod=2), kurs, kurs.rules(), kurs.args(mod=-1))
    assert (data["p_from"], data["value"], data["p_to"]) == (want.p_from, want.value, want.p_to)
    swapped = run_json(capsys, "equiv", "--json", "--to", "kurs", "--mod", "-1", "--from", "onesix", "--rating", "7", "--mod", "2")
    assert swapped == data
    table = run_json(capsys, "equiv", "--from", "tristat", "--die", "4", "--to", "tun", "--dice", "1d20", "--table", "--json")
    assert [r["from"] for r in table["rows"]] == list(range(2, 9))


@pytest.mark.parametrize("argv,words", [
    (["--from", "tristat", "--target", "7"], "--to"),
    (["--from", "tristat", "--target", "7", "--to", "gurps"], "gurps"),
    (["--from", "tristat", "--rating", "7", "--to", "onesix"], "--rating"),
    (["--from", "tristat", "--target", "7", "--to", "onesix", "--a", "x"], "source"),
    (["--from", "tristat", "--a", "veteran", "--to", "onesix"], "--b"),
    (["--from", "tristat", "--target", "7", "--to", "onesix", "--target", "3"], "--target"),
])
def test_cli_equiv_errors_are_one_line(capsys, argv, words):
    code, out, err = run(capsys, "equiv", *argv)
    assert code == 2 and not out and err.count("\n") == 1 and words in err


def test_cli_worth_variants_design_contract(capsys):
    w = run_json(capsys, "worth", "tun", "--dice", "1d20", "--json")
    assert {"value", "p_success", "delta_p", "std"} <= set(w["rows"][0]) and w["system"] == "tun"
    v = run_json(capsys, "variants", "onesix", "--json")
    assert {"label", "effect", "check_max_dp", "check_mean_dp"} <= set(v["effects"][0])
    d = run_json(capsys, "design", "tristat", "--a", "veteran", "--b", "trained", "--vary", "a.weapon_damage=5..7",
                 "--vary", "b.armor=0..1", "--rounds", "6", "--lethality", "0", "--p-win", "0.7", "--top", "2",
                 "--workers", "1", "--json")
    assert d["settings"] == 6 and len(d["best"]) == 2 and d["wish"] == {"rounds": 6.0, "lethality": 0.0, "p_win": 0.7}
    assert {"setting", "p_a_wins", "p_killed", "mean_rounds", "distance", "a", "b"} <= set(d["best"][0])
    assert "p_death" not in d["best"][0]  # renamed: it was P(A killed) + P(B killed), now P(at least one killed)


@pytest.mark.parametrize("command", ["tune", "equiv", "worth", "variants", "design"])
def test_cli_help_has_an_example(capsys, command):
    code, out, _ = run(capsys, command, "--help")
    assert code == 0 and "Example" in out and f"dicelab {command}" in out


# ------------------------------------------------------- budgets and ceilings
@pytest.mark.parametrize("system", SYSTEMS, ids=IDS)
def test_a_duel_states_hook_is_an_upper_estimate_of_the_chain(system):
    if system.duel_states is None:
        pytest.skip(f"{system.id} has no duel_states hook yet (the product of track lengths stands in)")
    names = list(archetypes(system.id))
    for x, y in [(names[0], names[-1]), (names[len(names) // 2], names[len(names) // 2])]:
        a, b = load_fighter(system, x), load_fighter(system, y)
        assert budget.duel_states(system, system.rules(), a, b) >= system.duel(system.rules(), a, b).solution.states


@pytest.mark.parametrize("track", [lambda rules, f: range(f.body + 2), lambda f: range(f.body + 2),
                                   lambda rules: range(rules.die + 2)], ids=["rules, fighter", "fighter", "rules"])
def test_without_a_hook_the_states_are_the_product_of_the_track_lengths(monkeypatch, track):
    from analysis.systems import tristat as module

    monkeypatch.setattr(module, "track", track)
    bare = dataclasses.replace(get_system("tristat"), duel_states=None)
    rules, a, b = bare.rules(die=8), bare.Fighter(body=5), bare.Fighter(body=9)
    names = list(inspect.signature(track).parameters)
    want = (7 * 11) if "f" in names else (10 * 10)
    assert budget.duel_states(bare, rules, a, b) == want


def test_the_time_estimate_is_the_calibrated_rate_over_the_states():
    tri = get_system("tristat")
    a = load_fighter(tri, "veteran")
    jobs = [(tri.rules(), a.replace(weapon_damage=w), a.replace(body=b)) for w in range(5) for b in (3, 6)]
    points = budget.COSTS["tristat"].points
    want = sum(budget.MARGIN * float(np.interp(budget.duel_states(tri, *job), [p[0] for p in points],
                                                [p[2] for p in points])) for job in jobs)
    assert duels.estimate_seconds(tri, jobs) == pytest.approx(want, rel=1e-12)
    many = jobs * 100  # past the sample: estimated from a random sample of the jobs
    assert duels.estimate_seconds(tri, many) == pytest.approx(100 * want, rel=0.1)


def test_a_search_past_the_budget_is_refused_before_it_starts(monkeypatch):
    tri = get_system("tristat")
    a = load_fighter(tri, "veteran")
    calls = []
    monkeypatch.setattr(duels, "_solve_one", lambda *args: calls.append(args))
    with pytest.raises(DicelabError, match=r"design: about [\d.]+ s of exact duels \(estimated\); allowed: at most "
                                           r"0.01 s; --budget \d+ allows it"):
        design(tri, tri.rules(), a, a, "weapon_damage=0..40", rounds=3, lethality=0.1, workers=1, budget=0.01)
    assert calls == []
    with pytest.raises(ParamError, match="budget = inf"):
        design(tri, tri.rules(), a, a, "weapon_damage=0..4", rounds=3, lethality=0.1, workers=1, budget=math.inf)


def test_cli_budget_refusal_is_one_line(capsys):
    code, out, err = run(capsys, "design", "tristat", "--a", "veteran", "--b", "veteran", "--vary", "weapon_damage=0..40",
                         "--rounds", "3", "--lethality", "0.1", "--budget", "0.01", "--workers", "1")
    assert code == 2 and not out and err.count("\n") == 1 and "--budget" in err and "estimated" in err


def test_a_duel_past_the_memory_ceiling_is_skipped_or_refused(monkeypatch):
    six = get_system("onesix")
    a = load_fighter(six, "veteran_armed").replace(armor=4)
    rules = six.rules()
    small = budget.duel_bytes(six, rules, a, a)
    wear = budget.duel_bytes(six, rules.replace(armor_wear=True), a, a)
    assert wear > small
    limit = (small + wear) / 2 / budget.GB
    rep = variants(six, rules, a=a, b=a, workers=1, max_memory=limit)
    worn = next(e for e in rep.effects if e.name == "armor_wear")
    assert worn.duel is None and "duel skipped: onesix duel too large" in worn.note and "--max-memory" in worn.note
    fits = {e.label: budget.duel_bytes(six, rules.replace(**{e.name: e.value}), a, a) <= limit * budget.GB
            for e in rep.effects}
    assert fits["gear_faults=true"] is False         # a knife that breaks into fists: the Shock track joins the chain
    assert all((e.duel is not None) == fits[e.label] for e in rep.effects)
    with pytest.raises(DicelabError, match=r"onesix duel too large: about [\d.]+ GB \([\d,]+ chain states\); allowed: "
                                           r"at most [\d.]+ GB; --max-memory \d+ allows it"):
        variants(six, rules.replace(armor_wear=True), a=a, b=a, workers=1, max_memory=limit)


def test_cli_duel_past_the_memory_ceiling_is_refused_with_its_estimate(capsys, monkeypatch):
    monkeypatch.setenv("DICELAB_MAX_MEMORY", "0.08")
    code, out, err = run(capsys, "duel", "onesix", "--a", "archetype=veteran_armed,armor=10", "--b",
                         "archetype=veteran_armed,armor=10", "--variant", "armor_wear=true")
    assert code == 2 and not out and err.count("\n") == 1
    assert "onesix duel too large" in err and "DICELAB_MAX_MEMORY=" in err and "chain states" in err
    monkeypatch.setenv("DICELAB_MAX_MEMORY", "inf")
    code, _, err = run(capsys, "duel", "tristat", "--a", "veteran", "--b", "veteran")
    assert code == 2 and "DICELAB_MAX_MEMORY = inf is not allowed" in err


def test_progress_hears_of_every_duel():
    tri = get_system("tristat")
    a = load_fighter(tri, "veteran")
    seen = {}

    class Bar:
        def __init__(self, total):
            seen["total"], seen["done"] = total, 0

        def note(self, text):
            seen["note"] = text

        def update(self, k):
            seen["done"] += k

        def close(self):
            seen["closed"] = True

    design(tri, tri.rules(), a, a, "weapon_damage=10..14", rounds=3, lethality=0.1, workers=1, progress=Bar)
    assert seen["total"] == seen["done"] == 5 and seen["closed"]


# ------------------------------------------------------------- policies
def policy_system():
    """Tri-Stat with attack_bonus declared a policy too, beside its own (a ranking with a known order)."""
    tri = get_system("tristat")

    @dataclasses.dataclass(frozen=True)
    class Tactician(tri.Fighter):
        attack_bonus: int = param(0, Int(0, 20), "attack combat skill", kind="policy")

    return dataclasses.replace(tri, Fighter=Tactician)


def test_variants_ranks_each_policy_of_a_against_the_plain_b():
    system = policy_system()
    a = system.Fighter(body=5, mind=4, soul=4, weapon_damage=10)
    b = system.Fighter(body=5, mind=5, soul=4, weapon_damage=10, armor=2)
    rep = variants(system, a=a, b=b, workers=1)
    own = [label for _, _, label in variants_mod.alternatives(get_system("tristat").Fighter.specs("policy"), a)]
    assert own and sorted(p.label for p in rep.policies) == sorted(["attack_bonus=1", "attack_bonus=2",
                                                                    "attack_bonus=3", *own])
    base = system.duel(system.rules(), a, b).solution
    for p in rep.policies:
        sol = system.duel(system.rules(), a.replace(**{p.name: p.value}), b).solution
        assert p.duel_delta["p_a_wins"] == pytest.approx(sol.p_a_wins - base.p_a_wins, abs=1e-12)
        assert p.duel_delta["p_a_killed"] == pytest.approx(sol.p_a_dying - base.p_a_dying, abs=1e-12)
        assert p.duel_delta["p_b_killed"] == pytest.approx(sol.p_b_dying - base.p_b_dying, abs=1e-12)
        assert p.duel_delta["mean_rounds"] == pytest.approx(sol.mean_rounds - base.mean_rounds, abs=1e-9)
    gains = [p.duel_delta["p_a_wins"] for p in rep.policies]
    assert gains == sorted(gains, reverse=True) and gains[0] > 0
    skill = [p.label for p in rep.policies if p.name == "attack_bonus"]
    assert skill == ["attack_bonus=3", "attack_bonus=2", "attack_bonus=1"]
    assert {"name", "value", "label", "duel", "duel_delta", "note"} <= set(rep.to_dict()["policies"][0])


@pytest.mark.parametrize("system", SYSTEMS, ids=IDS)
def test_every_policy_of_a_real_system_is_ranked(system):
    names = list(archetypes(system.id))
    a, b = load_fighter(system, names[0]), load_fighter(system, names[1])
    rep = variants(system, a=a, b=b, workers=1)
    want = [label for _, _, label in variants_mod.alternatives(system.Fighter.specs("policy"), a)]
    assert sorted(p.label for p in rep.policies) == sorted(want)


def test_cli_variants_prints_the_policy_table(capsys, monkeypatch):
    system = policy_system()
    from analysis.front.cli import balance as cli_balance

    monkeypatch.setattr(cli_balance, "get_system", lambda sid: system)
    code, out, err = run(capsys, "variants", "tristat", "--a", "body=5,weapon_damage=10", "--b", "body=5,armor=2",
                         "--workers", "1", "--quiet")
    assert code == 0, err
    assert "policies of" in out and "largest gain in P(A wins) first" in out and "attack_bonus=3" in out


# ----------------------------------------------------- values told truly
@pytest.mark.parametrize("rounds,word", [(math.inf, "inf"), (math.nan, "nan"), (0.5, "0.5")])
def test_design_rounds_must_be_finite(rounds, word):
    tri = get_system("tristat")
    a = load_fighter(tri, "veteran")
    with pytest.raises(ParamError, match=f"rounds = {word} is not allowed; allowed: a finite number of rounds >= 1"):
        design(tri, tri.rules(), a, a, "weapon_damage=1..2", rounds=rounds, lethality=0.1, workers=1)


@pytest.mark.parametrize("value", ["inf", "nan"])
def test_cli_design_rounds_inf_and_nan(capsys, value):
    code, out, err = run(capsys, "design", "tristat", "--a", "veteran", "--b", "veteran", "--vary", "armor=0..1",
                         "--rounds", value, "--lethality", "0.1")
    assert code == 2 and not out and err.count("\n") == 1 and f"rounds = {value}" in err and "Traceback" not in err


def test_tune_messages_keep_the_digits_that_make_them_true(capsys):
    code, out, err = run(capsys, "tune", "tristat", "--p", "0.9999999")
    assert code == 2 and "P(success) >= 0.9999999:" in err and "P(success) >= 1" not in err
    assert f"the ceiling is P = {35 / 36:.6f}" in err
    for p in (1 - 1e-9, 1 - 3e-12, 2e-10, 0.5):
        shown = curve.show_p(p)
        assert (float(shown) < 1) and (float(shown) > 0) and len(shown.split(".")[1]) >= 6
    assert curve.show_p(1.0) == "1.000000" and curve.show_p(0.0) == "0.000000"


def test_cli_tune_table_with_p_is_refused(capsys):
    code, out, err = run(capsys, "tune", "tristat", "--table", "--p", "2")
    assert code == 2 and not out and err.count("\n") == 1 and "--p 2.0 does not apply with --table" in err


def test_a_variant_that_ends_an_endless_fight_has_an_infinite_rounds_effect():
    """A reading under which a never-ending fight ends (or the reverse) is an infinitely large change in the
    rounds' log ratio, in the direction it goes; two endless fights do not differ."""
    from analysis.tools.duels import DuelFigures

    ends = DuelFigures(0.5, 0.5, 0.0, 0.1, 5.0, 0.0, 0.05, 0.05)
    endless = DuelFigures(0.0, 0.0, 0.0, 0.0, math.inf, 1.0, 0.0, 0.0)
    assert ends.delta(endless)["log_rounds_ratio"] == -math.inf
    assert endless.delta(ends)["log_rounds_ratio"] == math.inf
    assert endless.delta(endless)["log_rounds_ratio"] == 0.0
    assert ends.delta(ends)["log_rounds_ratio"] == 0.0
