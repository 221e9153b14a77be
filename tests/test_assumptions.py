"""The lab's assumptions (numbers no seed gives): declared once per system, documented on its rules page, listed
under `assumptions` in every output whose numbers rest on them and only there, and measured over their plausible
values in the report's findings."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pandas as pd
import pytest

from analysis.engine.assumptions import When
from analysis.fights.fighters import load_fighter
from analysis.fights.setup import Setup
from analysis.front.cli import main
from analysis.front.report import findings
from analysis.present.i18n import number, percent
from analysis.systems import SYSTEM_IDS, get_system
from analysis.tools import compare

ROOT = Path(__file__).resolve().parents[1]


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def run_json(*argv: str) -> dict:
    code, out, err = run(*argv, "--json")
    assert code == 0, err
    return json.loads(out)


def documented(sid: str) -> list[str]:
    """The fields the rules page's Assumptions section lists (its table's first column)."""
    page = (ROOT / "docs" / "rules" / f"{sid}.md").read_text(encoding="utf-8")
    section = re.search(r"^## \d+\. Assumptions.*?(?=^## |\Z)", page, re.S | re.M)
    assert section, f"docs/rules/{sid}.md has no Assumptions section"
    return re.findall(r"^\| `(\w+)` \|", section.group(0), re.M)


# ------------------------------------------------------------- declaration
@pytest.mark.parametrize("sid", SYSTEM_IDS)
def test_declarations_match_the_rules_page(sid):
    """Each declared assumption is on its system's rules page, with nothing else listed there; each names a field
    of the ruleset or the fighter, its plausible values are allowed values of that field, and a ruleset field's
    default (the lab's choice) is among them."""
    system = get_system(sid)
    names = [a.name for a in system.assumptions]
    assert names and len(set(names)) == len(names)
    assert documented(sid) == names
    rules, fighter = system.Rules.specs(), system.Fighter.specs()
    for a in system.assumptions:
        spec = rules.get(a.name) or fighter.get(a.name)
        assert spec is not None, a.name
        assert a.reason and len(a.plausible) >= 2
        for value in a.plausible:
            assert spec.validate(a.name, value) == value, (a.name, value)
        if a.name in rules:
            assert getattr(system.rules(), a.name) in a.plausible, a.name
        assert isinstance(a.applies, When), "a plain-data predicate: systems travel to worker processes"


def test_the_rules_index_names_the_three_sources():
    index = (ROOT / "docs" / "rules" / "README.md").read_text(encoding="utf-8")
    for key in ("`variants`", "`house_rules`", "`assumptions`"):
        assert key in index


def test_systems_lists_every_assumption():
    data = {s["id"]: s for s in run_json("systems")}
    for sid in SYSTEM_IDS:
        declared = {a.name: a for a in get_system(sid).assumptions}
        assert list(data[sid]["assumptions"]) == list(declared)
        for name, entry in data[sid]["assumptions"].items():
            assert entry["reason"] == declared[name].reason


# ------------------------------------------------------------- the contract
def test_no_defense_bonus_is_listed_iff_a_fighter_does_not_defend():
    """The issue's contract, through the command line."""
    args = ["duel", "kurs", "--b", "trained_armed"]
    listed = run_json(*args, "--a", "archetype=trained_armed,stance=no_defense")["assumptions"]
    plain = run_json(*args, "--a", "trained_armed")["assumptions"]
    assert "no_defense_bonus" in listed and "no_defense_bonus" not in plain
    entry = listed["no_defense_bonus"]
    assert entry["value"] == 2 and entry["plausible"] == [0, 1, 2, 3] and entry["reason"]
    assert "dk_faces" in listed and "dk_faces" in plain


def test_text_output_has_one_line_only_when_there_are_any():
    code, out, _ = run("duel", "kurs", "--a", "archetype=trained_armed,stance=no_defense", "--b", "trained_armed")
    lines = [line for line in out.splitlines() if "assumptions" in line]
    assert code == 0 and len(lines) == 1 and "no_defense_bonus=2" in lines[0] and "dk_faces=" in lines[0]
    code, out, _ = run("check", "tun", "--limit", "12")
    assert code == 0 and "assumptions" not in out
    code, out, _ = run("exchange", "tristat", "--a", "trained_armed", "--b", "archetype=trained_armed,armor=2")
    assert code == 0 and "armor=0/2 (attacker, defender)" in out


# ----------------------------------------------------------- the predicates
def names(result) -> list[str]:
    return list(result.to_dict()["assumptions"])


def test_kurs_predicates_through_the_library():
    kurs = get_system("kurs")
    rules, plain = kurs.rules(), load_fighter(kurs, "trained_armed")
    brave = plain.replace(stance="no_defense")
    assert names(kurs.check(rules, kurs.args())) == ["dk_faces"]
    assert names(kurs.opposed(rules, kurs.args(), kurs.args())) == ["dk_faces"]
    assert names(kurs.exchange(rules, brave, plain)) == ["dk_faces", "no_defense_bonus"]
    assert names(kurs.exchange(rules, plain, brave)) == ["dk_faces"], "the bonus is the attacker's; B only attacks"
    assert names(kurs.resolve(rules, brave, plain, {"attack": 0, "defense": 0})) == ["dk_faces", "no_defense_bonus"]
    assert names(kurs.duel(rules, plain, brave)) == ["dk_faces", "no_defense_bonus"]
    finish = kurs.duel(rules.replace(after_out="finish"), plain, plain)
    assert names(finish) == ["dk_faces", "finish_attacks"]
    assert finish.to_dict()["assumptions"]["finish_attacks"]["value"] == 10


def test_tristat_predicates_through_the_library():
    tri = get_system("tristat")
    rules, plain = tri.rules(), load_fighter(tri, "trained_armed")
    armored = plain.replace(armor=2)
    assert names(tri.check(rules, tri.args())) == []
    assert names(tri.exchange(rules, plain, plain)) == []
    assert names(tri.exchange(rules, plain, armored)) == ["armor"]
    assert names(tri.exchange(rules, armored, plain)) == [], "the attacker's armour does not matter to its attack"
    assert tri.exchange(rules, plain, armored).to_dict()["assumptions"]["armor"]["value"] == {"attacker": 0,
                                                                                              "defender": 2}
    assert names(tri.duel(rules, armored, plain)) == ["armor"]
    assert names(tri.exchange(rules.replace(shock_rule=True), plain, plain)) == ["shock_rule"]
    turtle = plain.replace(stance="total_defence")
    assert names(tri.duel(rules, plain, turtle)) == ["total_defence_rounds"]
    assert names(tri.exchange(rules, plain, turtle)) == []


def test_onesix_gear_rating_only_under_gear_faults():
    """The weapon's reliability rating is the lab's number only where a gear fault can break the weapon."""
    six = get_system("onesix")
    rules, a = six.rules(gear_faults=True), load_fighter(six, "trained_armed")
    assert names(six.exchange(six.rules(), a, a)) == []
    assert names(six.exchange(rules, a, a)) == ["gear_rating"]
    assert names(six.check(rules, six.args())) == []
    listed = six.exchange(rules, a, a.replace(gear_rating=12)).to_dict()["assumptions"]["gear_rating"]
    assert listed["value"] == {"attacker": 8, "defender": 12} and listed["plausible"] == [4, 8, 12, 15]


def test_onesix_carry_floor_only_in_an_economy_duel():
    six = get_system("onesix")
    a = load_fighter(six, "trained")
    assert names(six.exchange(six.rules(), a, a)) == []
    assert names(six.check(six.rules(), six.args())) == []
    assert names(six.duel(six.rules(in_economy=False), a, a)) == []
    assert names(six.duel(six.rules(), a, a)) == ["carry_floor"]


@pytest.mark.parametrize("timing, carried", [("economy", True), ("order", False), ("average", False)])
def test_onesix_carry_floor_in_a_group_only_under_the_economy(timing, carried):
    """A group fight carries IN between rounds only under the economy; one against one is the economy duel
    whatever the group timing, and an encounter's curve (from one against one up) rests on both."""
    six = get_system("onesix")
    rules = six.rules(group_timing=timing)
    one, two = ("--a", "trained_armed", "--b", "novice_armed"), ("--a", "trained_armed", "--b", "2*novice_armed")
    timing_arg = ("--variant", f"group_timing={timing}")
    assert list(run_json("duel", "onesix", *one, *timing_arg)["assumptions"]) == ["carry_floor"]
    assert ("carry_floor" in run_json("sim", "onesix", *two, *timing_arg, "--n", "200")["assumptions"]) == carried
    if timing != "economy":
        knife = six.Fighter(attack_rating=10, weapon_ps=5, weapon_class="wound")
        assert names(six.group(rules, [knife], [six.Fighter()] * 2)) == []
        assert "carry_floor" in run_json("encounter", "onesix", "--a", "trained_armed", "--b", "novice_armed",
                                         *timing_arg, "--max", "2", "--n", "200")["assumptions"]


def test_tun_rests_on_finish_attacks_only_when_finishing():
    tun = get_system("tun")
    a = load_fighter(tun, "trained_armed")
    assert names(tun.duel(tun.rules(), a, a)) == []
    assert names(tun.duel(tun.rules(after_out="finish"), a, a)) == ["finish_attacks"]


def test_monte_carlo_results_list_them_too():
    from sims.api import simulate_check, simulate_duel

    kurs = get_system("kurs")
    plain = load_fighter(kurs, "trained_armed")
    duel = simulate_duel("kurs", kurs.rules(), plain.replace(stance="no_defense"), plain, 2_000, seed=1, workers=1)
    assert list(duel.to_dict()["assumptions"]) == ["dk_faces", "no_defense_bonus"]
    check = simulate_check("kurs", kurs.rules(), kurs.args(), 2_000, seed=1, workers=1)
    assert list(check.to_dict()["assumptions"]) == ["dk_faces"]
    data = run_json("sim", "kurs", "--a", "archetype=trained_armed,stance=no_defense", "--b", "trained_armed",
                    "--n", "2000", "--seed", "1", "--workers", "1", "--quiet")
    assert "no_defense_bonus" in data["assumptions"]
    assert "dk_faces" in run_json("sim-check", "kurs", "--n", "2000", "--seed", "1", "--quiet")["assumptions"]


# ------------------------------------------------------------------ tools
def test_every_tool_lists_them():
    assert "dk_faces" in run_json("tune", "kurs", "--p", "0.7")["assumptions"]
    assert "dk_faces" in run_json("tune", "kurs", "--table")["assumptions"]
    assert "dk_faces" in run_json("worth", "kurs")["assumptions"]
    assert "dk_faces" in run_json("opposed", "kurs", "--a", "skill=1", "--b", "skill=0")["assumptions"]
    assert "dk_faces" in run_json("check", "kurs")["assumptions"]
    equiv = run_json("equiv", "--from", "kurs", "--skill", "2", "--to", "tun")
    assert "dk_faces" in equiv["from"]["assumptions"] and equiv["to"]["assumptions"] == {}
    table = run_json("equiv", "--from", "tun", "--to", "kurs", "--table")
    assert table["from"]["assumptions"] == {} and "dk_faces" in table["to"]["assumptions"]
    code, out, _ = run("table", "kurs", "--format", "csv")
    frame = pd.read_csv(io.StringIO(out))
    assert code == 0 and all("dk_faces" in json.loads(cell) for cell in frame["assumptions"])
    code, out, _ = run("table", "tun", "--format", "csv")
    assert code == 0 and "assumptions" not in out


def test_variants_and_design_list_them_per_row():
    from analysis.tools.design import design
    from analysis.tools.variants import variants

    kurs = get_system("kurs")
    plain = load_fighter(kurs, "trained_armed")
    report = variants(kurs, a=plain, b=plain, workers=1).to_dict()
    assert list(report["assumptions"]) == ["dk_faces"]
    stance = {p["label"]: p for p in report["policies"]}
    assert "no_defense_bonus" in stance["stance=no_defense"]["assumptions"]
    assert "no_defense_bonus" not in stance["stance=offensive"]["assumptions"]
    tri = get_system("tristat")
    vet = load_fighter(tri, "veteran")
    effects = {e["label"]: e for e in variants(tri).to_dict()["effects"]}
    assert list(effects["shock_rule=true"]["assumptions"]) == [] and effects["die=8"]["assumptions"] == {}
    res = design(tri, tri.rules(), vet, vet, "b.armor=0..1", rounds=3, lethality=0.2, top=2, workers=1).to_dict()
    by_armor = {p["setting"]["b.armor"]: p["assumptions"] for p in res["best"]}
    assert by_armor[0] == {} and by_armor[1]["armor"]["value"] == {"a": 0, "b": 1}
    assert "armor" in res["assumptions"]


def test_house_comparison_and_setup_echo_list_them():
    from analysis.tools.house_compare import compare_rules

    kurs = get_system("kurs")
    c = compare_rules({"kurs": kurs.rules(dk_faces="fudge")})["kurs"]
    assert c["assumptions"]["dk_faces"]["value"] == [-1, 0, 1] and c["book_assumptions"]["dk_faces"]["value"][0] == -2
    echo = Setup.build(a={"kurs": "archetype=trained_armed,stance=no_defense"}).echo()
    assert "no_defense_bonus" in echo["kurs"]["assumptions"] and echo["tun"]["assumptions"] == {}


# ----------------------------------------------------------------- sweeps
def test_sweep_writes_an_assumptions_column_and_parquet_metadata(tmp_path):
    import pyarrow.parquet as pq

    from analysis.front import sweep
    from analysis.front.sweep.run import ASSUMPTIONS_KEY

    config = tmp_path / "s.toml"
    config.write_text('[sweep]\nkind = "duel"\n\n[systems.kurs]\nvariants = { no_defense_bonus = [1, 3] }\n'
                      'a = { archetype = "novice", stance = ["normal", "no_defense"] }\nb = { archetype = "novice" }\n',
                      encoding="utf-8")
    for name in ("s.parquet", "s.csv"):
        sweep.run_sweep(config, tmp_path / name, workers=1)
    frame = pd.read_csv(tmp_path / "s.csv")
    for _, row in frame.iterrows():
        listed = json.loads(row["assumptions"])
        assert ("no_defense_bonus" in listed) == (row["a_stance"] == "no_defense")
        if "no_defense_bonus" in listed:
            assert listed["no_defense_bonus"]["value"] == row["variant_no_defense_bonus"]
    assert list(pd.read_parquet(tmp_path / "s.parquet")["assumptions"]) == list(frame["assumptions"])
    meta = json.loads(pq.read_schema(tmp_path / "s.parquet").metadata[ASSUMPTIONS_KEY.encode()])
    assert meta == {"kurs": {a.name: {"reason": a.reason, "plausible": [list(v) if isinstance(v, tuple) else v
                                                                        for v in a.plausible]}
                             for a in get_system("kurs").assumptions}}


# ------------------------------------------------------------------ the app
def test_app_panels_show_them():
    from analysis.front.app import views

    panel = views.echo("en", "kurs", {}, {}, "dicelab duel kurs", assumptions={"no_defense_bonus": {
        "value": 2, "reason": "no number", "plausible": [0, 1, 2, 3]}})
    shown = [c for c in panel.children if getattr(c, "id", None) == "assumptions"]
    assert len(shown) == 1 and "no_defense_bonus=2" in str(shown[0].children) and "no number" in shown[0].title
    assert not [c for c in views.echo("en", "tun", {}, {}, "x").children if getattr(c, "id", None) == "assumptions"]


# ---------------------------------------------------------------- the report
@pytest.fixture(scope="module")
def kurs_ranges():
    """The report's table of assumption ranges, for К.У.Р.С. only (its duels are quick)."""
    return compare.assumption_ranges(Setup.build(), systems=("kurs",))


def _duel(rules, a, b):
    kurs = get_system("kurs")
    return kurs.duel(rules.replace(after_out="finish"), a, b)


def test_not_defending_pays_only_as_much_as_the_bonus_says(kurs_ranges):
    """The tactics finding's range sentence: P(A wins) of stance=no_defense at each plausible no_defense_bonus,
    each checked against its own duel; not defending loses at 0 and wins at 3."""
    kurs = get_system("kurs")
    plain = load_fighter(kurs, "trained_armed")
    brave = plain.replace(stance="no_defense")
    expected = {str(v): _duel(kurs.rules(no_defense_bonus=v), brave, plain).solution.p_a_wins for v in (0, 1, 2, 3)}
    assert expected["0"] < 0.3 and expected["3"] > 0.75 and list(expected.values()) == sorted(expected.values())
    for lang in ("en", "ru"):
        said = {f.key: f for f in findings.tactics({"policies": compare.policy_effects(fields={"kurs": ["stance"]}),
                                                     "assumption_ranges": kurs_ranges}, lang)}
        facts = said["assumptions"].facts["ranges"][("kurs", "stance=no_defense", "no_defense_bonus")]
        assert facts.keys() == expected.keys()
        for v, p in expected.items():
            assert facts[v] == pytest.approx(p, abs=1e-12)
            assert percent(lang, p) in said["assumptions"].text
        assert "no_defense_bonus" in said["assumptions"].text


def test_mean_rounds_range_over_the_die_of_kurs(kurs_ranges):
    """The combat finding's range sentence: K.U.R.S.'s mean rounds under each dK of dk_faces' plausible values."""
    kurs = get_system("kurs")
    plain = load_fighter(kurs, "trained_armed")
    expected = {name: _duel(kurs.rules(dk_faces=name), plain, plain).solution.mean_rounds
                for name in ("default", "fudge", "d5")}
    rows = kurs_ranges[(kurs_ranges["option"] == "") & (kurs_ranges["assumption"] == "dk_faces")]
    assert list(rows["value"]) == list(expected) and list(rows["current"]) == [True, False, False]
    said = findings.assumed({"assumption_ranges": kurs_ranges}, "ru", "mean_rounds")
    facts = said[0].facts["ranges"][("kurs", "", "dk_faces")]
    for name, rounds in expected.items():
        assert facts[name] == pytest.approx(rounds, rel=1e-12)
        assert number("ru", rounds, 1) in said[0].text
    killed = findings.assumed({"assumption_ranges": kurs_ranges}, "en", "p_killed")
    finish = killed[0].facts["ranges"][("kurs", "", "finish_attacks")]
    for v in (3, 20):
        res = _duel(kurs.rules(finish_attacks=v), plain, plain).to_dict()
        both = res["final"].get("dying/dying", 0)
        assert finish[str(v)] == pytest.approx(res["p_a_killed"] + res["p_b_killed"] - both, abs=1e-12)


def test_a_figure_that_does_not_move_says_nothing():
    ranges = pd.DataFrame([{"system": "tun", "option": "", "assumption": "finish_attacks", "value": str(v),
                            "current": v == 10, "p_a_wins": 0.5, "p_killed": 0.25, "mean_rounds": 3.0, "note": ""}
                           for v in (3, 5, 10, 20)])
    assert findings.assumed({"assumption_ranges": ranges}, "en", "p_killed") == []
    assert findings.assumed({}, "en", "p_killed") == []


def test_report_captions_name_the_assumptions_each_figure_rests_on():
    from analysis.front.report import ITEMS, caption

    item = {i.name: i for i in ITEMS}
    plain = Setup.build()
    curves = caption(item["success_curves"], plain, "en")
    assert "dk_faces=-2,-1,0,0,1,2" in curves and "finish_attacks" not in curves
    killed = caption(item["lethality"], plain, "en")
    assert "finish_attacks=10" in killed and "carry_floor=-20" in killed and "no_defense_bonus" not in killed
    assert "no_defense_bonus=2" in caption(item["policy_effects"], plain, "en")
    assert "shock_rule=true" in caption(item["variant_effects"], plain, "en")
    brave = Setup.build(a={"kurs": "archetype=trained_armed,stance=no_defense"})
    assert "no_defense_bonus=2" in caption(item["skill_gap"], brave, "en")
    assert "допущения лаборатории: dk_faces" in caption(item["skill_gap"], brave, "ru")
