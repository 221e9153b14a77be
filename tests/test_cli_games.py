"""Sides, group fights, tactics, encounter and --play on the command line (analysis/front/cli/games.py): the JSON
contracts, one-fighter sides as today's duel, exact group fights against Monte Carlo, encounter against duel, the
played duel against tactics.  Parametrized over the systems whose hooks exist, so systems landing later are covered."""

from __future__ import annotations

import dataclasses
import json

import pandas as pd
import pytest

from analysis.fights.budget import exact_duel
from analysis.fights.fighters import load_fighter
from analysis.fights.sides import parse_side, split_side
from analysis.present.tables import dumps
from analysis.systems import SYSTEM_IDS, get_system
from sims.api import group_module, sim_module
from tests.test_cli import run, run_json

TACTICS = [s for s in SYSTEM_IDS if get_system(s).tactics is not None]
GROUPS = [s for s in SYSTEM_IDS if get_system(s).group is not None]
SIM_GROUPS = [s for s in GROUPS if group_module(s) is not None]
EXACT = {"onesix": ("--variant", "group_timing=order")}
"""What makes a system's one against two exact: 2K's default clock, the IN economy, is exact one against one only."""
PLAY_KEYS = {"value", "p_a_wins", "p_b_wins", "p_both_out", "mean_rounds"}
PAIR = ("trained_armed", "novice_armed")
"""The fighters every system's decision game is played with here."""


def one_line_error(code, out, err):
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# ------------------------------------------------------------------ the grammar of a side
def test_a_comma_starts_a_fighter_only_before_a_count_an_archetype_or_a_name():
    tun = get_system("tun")
    assert split_side(tun, "3*trained_armed,veteran") == [(3, "trained_armed"), (1, "veteran")]
    assert split_side(tun, "2*archetype=novice_armed,armor=1") == [(2, "archetype=novice_armed,armor=1")]
    assert split_side(tun, "archetype=veteran,weapon_b=3,archetype=red,aim=arm,2*blue") == [
        (1, "archetype=veteran,weapon_b=3"), (1, "archetype=red,aim=arm"), (2, "blue")]
    assert split_side(tun, "body=12,mind=11") == [(1, "body=12,mind=11")]
    side = parse_side(tun, "2*archetype=novice_armed,weapon_b=1,trained_armed")
    assert len(side) == 3 and side[0] == side[1] and side[0].weapon_b == 1
    assert side[2] == load_fighter(tun, "trained_armed")


@pytest.mark.parametrize("spec,word", [("0*red", "count 0"), ("2*", "no fighter"), ("51*red", "count 51")])
def test_a_bad_side_is_one_line(capsys, spec, word):
    line = one_line_error(*run(capsys, "duel", "tun", "--a", spec, "--b", "red"))
    assert word in line and "--a" in line


def test_a_side_file_is_the_side_its_text_names(capsys, tmp_path):
    """A side file (TOML or JSON, its ``side`` a text or a list of texts and tables with counts, files inside it
    read beside it) gives the fighters of the same side written on the command line, and the same fight."""
    tun = get_system("tun")
    (tmp_path / "captain.json").write_text('{"archetype": "trained_armed", "weapon_b": 1}', encoding="utf-8")
    (tmp_path / "party.toml").write_text('side = ["2*novice_armed", {archetype = "red", count = 2, name = "guard"}, '
                                         '"captain.json"]\n', encoding="utf-8")
    (tmp_path / "pair.json").write_text('{"side": "novice_armed,trained_armed"}', encoding="utf-8")
    party = parse_side(tun, str(tmp_path / "party.toml"))
    assert [f.name for f in party] == ["novice_armed", "novice_armed", "guard", "guard", "captain"]
    assert party[0] == load_fighter(tun, "novice_armed") and party[2] == load_fighter(tun, "red")
    assert party[4] == load_fighter(tun, "archetype=trained_armed,weapon_b=1")
    by_file = run(capsys, "duel", "tun", "--a", str(tmp_path / "pair.json"), "--b", "trained_armed", "--json")
    by_text = run(capsys, "duel", "tun", "--a", "novice_armed,trained_armed", "--b", "trained_armed", "--json")
    assert by_file[0] == by_text[0] == 0 and json.loads(by_file[1])["p_a_wins"] == json.loads(by_text[1])["p_a_wins"]


@pytest.mark.parametrize("text,word", [('side = [{archetype = "red", count = 0}]', "count 0"),
                                       ('side = [3]', "side[0] = 3"), ('side = "red"\nbody = 3', "beside 'side'"),
                                       ('side = []', "side = []")])
def test_a_bad_side_file_is_one_line_naming_the_entry(capsys, tmp_path, text, word):
    (tmp_path / "bad.toml").write_text(text + "\n", encoding="utf-8")
    line = one_line_error(*run(capsys, "duel", "tun", "--a", str(tmp_path / "bad.toml"), "--b", "red"))
    assert word in line and "side file" in line and "--a" in line


# ------------------------------------------------------------------ one fighter a side is today's duel
@pytest.mark.parametrize("system", SYSTEM_IDS)
def test_a_one_fighter_side_is_the_duel_to_the_bit(capsys, system):
    plain = run(capsys, "duel", system, "--a", "trained_armed", "--b", "novice_armed", "--json")
    counted = run(capsys, "duel", system, "--a", "1*trained_armed", "--b", "1*novice_armed", "--json")
    assert plain[0] == counted[0] == 0 and plain[1] == counted[1]
    s = get_system(system)
    a, b = load_fighter(s, "trained_armed"), load_fighter(s, "novice_armed")
    assert plain[1] == dumps({**exact_duel(s, s.rules(), a, b).to_dict(), "play": "book"})


# ------------------------------------------------------------------ group fights: exact against Monte Carlo
@pytest.mark.parametrize("system", SIM_GROUPS)
def test_one_against_two_exact_agrees_with_monte_carlo(capsys, system):
    extra = EXACT.get(system, ())
    exact = run_json(capsys, "duel", system, "--a", "trained_armed", "--b", "2*novice_armed", *extra)
    sim = run_json(capsys, "sim", system, "--a", "trained_armed", "--b", "2*novice_armed", "--n", "20000",
                   "--seed", "3", "--quiet", *extra)
    for data in (exact, sim):
        assert {"p_a_wins", "p_b_wins", "p_both_out", "survivors_a", "survivors_b", "fighters", "side_a", "side_b",
                "assumptions", "variants"} <= set(data)
        assert data["play"] == "book" and len(data["side_a"]) == 1 and len(data["side_b"]) == 2
        assert [f["side"] for f in data["fighters"]] == ["a", "b", "b"]
    assert set(exact["survivors_b"]) == {"0", "1", "2"}
    assert sum(exact["survivors_a"].values()) == pytest.approx(1 - exact["p_stalemate"], abs=1e-12)
    assert exact["survivors_a"]["0"] == pytest.approx(exact["p_b_wins"] + exact["p_both_out"], abs=1e-12)
    assert sim["n"] == 20000
    for key in ("p_a_wins", "p_b_wins", "p_both_out"):
        lo, hi = sim[f"ci_{key}"]
        assert lo <= sim[key] <= hi
        assert abs(sim[key] - exact[key]) <= 4 * max(sim[f"se_{key}"], 1 / sim["n"]), key
    for k in ("0", "1", "2"):
        assert abs(sim["survivors_b"][k] - exact["survivors_b"][k]) <= 4 * max(sim["se_survivors_b"][k], 1e-4)


@pytest.mark.parametrize("system", GROUPS)
def test_the_text_of_a_group_fight_leads_with_the_answer(capsys, system):
    code, out, _ = run(capsys, "duel", system, "--a", "trained_armed", "--b", "2*novice_armed", *EXACT.get(system, ()))
    data = run_json(capsys, "duel", system, "--a", "trained_armed", "--b", "2*novice_armed", *EXACT.get(system, ()))
    assert code == 0 and out.splitlines()[0] == f"P(side A wins) = {data['p_a_wins']:.6f}"


def test_2k_under_its_default_economy_refuses_one_against_two_naming_the_size_and_monte_carlo(capsys):
    line = one_line_error(*run(capsys, "duel", "onesix", "--a", "trained_armed", "--b", "2*novice_armed"))
    assert "1 against 2 under group_timing = economy is too large: about 2,011,164,600 states" in line
    assert "Monte Carlo dicelab sim" in line and "group_timing = order or average" in line


@pytest.fixture
def bare(monkeypatch) -> str:
    """ТУН as a system that models neither exact group fights nor decisions yet: every system the lab ships
    models both, so the refusals a new system would meet are checked on a copy stripped of them."""
    import analysis.systems.tun as module
    from analysis.engine import registry

    stripped = dataclasses.replace(module.SYSTEM, group=None, group_states=None, tactics=None, tactics_states=None)
    monkeypatch.setattr(module, "SYSTEM", stripped)
    monkeypatch.setitem(registry._REGISTERED, "tun", stripped)
    return "tun"


def test_a_system_without_group_fights_refuses_in_one_line(capsys, bare):
    line = one_line_error(*run(capsys, "duel", bare, "--a", "trained_armed", "--b", "2*novice_armed"))
    assert "group fights" in line


# ------------------------------------------------------------------ tactics
@pytest.fixture(scope="module")
def tactics_of(tmp_path_factory):
    """``dicelab tactics SYSTEM --a A --b B --quiet --policy-out FILE --json`` on the system's pair, run once per
    system and read by every test of that output (К.У.Р.С.'s game and its dominated scripts take minutes to solve):
    a function of (capsys, system) giving the JSON and the policy file."""
    done: dict[str, tuple[dict, object]] = {}

    def get(capsys, system):
        if system not in done:
            out = tmp_path_factory.mktemp(f"tactics_{system}") / "policy.csv"
            a, b = PAIR
            done[system] = run_json(capsys, "tactics", system, "--a", a, "--b", b, "--quiet", "--policy-out",
                                    str(out)), out
        return done[system]

    return get


@pytest.mark.parametrize("system", TACTICS)
def test_tactics_json_contract_and_the_book_is_the_duel(capsys, system, tactics_of):
    a, b = PAIR
    data, out = tactics_of(capsys, system)
    for key in ("book", "best_response", "equilibrium"):
        assert PLAY_KEYS <= set(data[key])
        assert data[key]["value"] == pytest.approx(data[key]["p_a_wins"] - data[key]["p_b_wins"], abs=1e-9)
    assert {"system", "variants", "assumptions", "a", "b", "play", "decisions", "dominated", "simple_rule",
            "tolerance"} <= set(data)
    assert data["system"] == system and data["a"]["name"] == a
    for d in data["decisions"]:
        assert {"name", "side", "share_taken", "worth"} <= set(d) and d["side"] in ("a", "b")
    assert all("=" in name for name in data["dominated"])
    assert data["simple_rule"] is None or {"text", "share_of_gain"} <= set(data["simple_rule"])
    duel = run_json(capsys, "duel", system, "--a", a, "--b", b)
    assert data["book"]["p_a_wins"] == pytest.approx(duel["p_a_wins"], abs=1e-9)
    assert data["best_response"]["value"] >= data["book"]["value"] - 1e-9
    assert data["best_response"]["value"] >= data["equilibrium"]["value"] - 1e-9
    table = pd.read_csv(out)
    assert {"decision", "side", "visits"} <= set(table.columns) and len(table) > 0
    names = {d["name"] for d in data["decisions"]}
    assert set(table["decision"]) == names
    for name, rows in table.groupby("decision"):
        probs = rows[[c for c in rows.columns if c.startswith("p_")]].dropna(axis=1, how="all")
        assert (probs.sum(axis=1) - 1).abs().max() < 1e-9, name


@pytest.mark.parametrize("system", TACTICS)
def test_tactics_refuses_an_unknown_decision_naming_the_allowed(capsys, system):
    line = one_line_error(*run(capsys, "tactics", system, "--a", "trained_armed", "--b", "novice_armed",
                               "--decide", "no_such_decision", "--quiet"))
    assert "no_such_decision" in line and "allowed: one of" in line


def test_tactics_says_plainly_when_no_option_matters(capsys):
    code, out, _ = run(capsys, "tactics", "tun", "--a", "trained_armed", "--b", "trained_armed", "--quiet",
                       "--decide", "posture")
    assert code == 0 and "No option matters under equilibrium play" in out


def test_a_system_without_decisions_refuses_tactics_and_play_in_one_line(capsys, bare):
    assert "decisions" in one_line_error(*run(capsys, "tactics", bare, "--a", "trained_armed", "--b",
                                              "novice_armed"))
    assert "decisions" in one_line_error(*run(capsys, "duel", bare, "--a", "trained_armed", "--b",
                                              "novice_armed", "--play", "equilibrium"))


@pytest.mark.parametrize("system", TACTICS)
def test_the_played_duel_is_the_tactics_play(capsys, system, tactics_of):
    a, b = PAIR
    tactics, _ = tactics_of(capsys, system)
    for play, key in (("book", "book"), ("best", "best_response"), ("equilibrium", "equilibrium")):
        duel = run_json(capsys, "duel", system, "--a", a, "--b", b, "--play", play)
        assert duel["play"] == play
        assert duel["p_a_wins"] - duel["p_b_wins"] == pytest.approx(tactics[key]["value"], abs=1e-9)
        assert duel["p_a_wins"] == pytest.approx(tactics[key]["p_a_wins"], abs=1e-12)


def test_sim_plays_the_equilibrium_tables_and_agrees_with_the_played_duel(capsys):
    system = next((s for s in TACTICS if hasattr(sim_module(s), "policy_call")), None)
    if system is None:
        pytest.skip("no simulator plays policy tables yet")
    a, b = PAIR
    duel = run_json(capsys, "duel", system, "--a", a, "--b", b, "--play", "equilibrium")
    sim = run_json(capsys, "sim", system, "--a", a, "--b", b, "--play", "equilibrium", "--n", "20000", "--seed", "5",
                   "--quiet")
    assert sim["play"] == "equilibrium"
    for key in ("p_a_wins", "p_b_wins"):
        assert abs(sim[key] - duel[key]) <= 4 * max(sim[f"se_{key}"], 1 / sim["n"]), key


def test_play_is_refused_for_group_fights(capsys):
    line = one_line_error(*run(capsys, "duel", "tun", "--a", "trained_armed", "--b", "2*novice_armed", "--play",
                               "best"))
    assert "one against one" in line


# ------------------------------------------------------------------ encounter
@pytest.mark.parametrize("system", GROUPS)
def test_encounter_fair_count_agrees_with_its_curve_and_with_duel(capsys, system):
    data = run_json(capsys, "encounter", system, "--a", "trained_armed", "--b", "novice_armed", "--p", "0.95",
                    "--max", "3", "--seed", "1", "--quiet")
    assert {"fair_count", "curve", "p", "method", "variants", "assumptions"} <= set(data)
    curve = data["curve"]
    assert [pt["count"] for pt in curve] == [1, 2, 3] and data["p"] == 0.95
    assert all({"count", "p_a_wins", "p_b_wins", "method"} <= set(pt) for pt in curve)
    below = [pt["count"] for pt in curve if pt["p_a_wins"] < 0.95]
    assert data["fair_count"] == (below[0] if below else None)
    for pt in curve:  # an independent path: the exact duel of that count, or a simulation of its own past the budget
        side = f"{pt['count']}*novice_armed"
        if pt["method"] == "exact":
            duel = run_json(capsys, "duel", system, "--a", "trained_armed", "--b", side)
            assert pt["p_a_wins"] == pytest.approx(duel["p_a_wins"], abs=1e-12)
        else:
            sim = run_json(capsys, "sim", system, "--a", "trained_armed", "--b", side, "--n", "20000", "--seed", "7",
                           "--quiet")
            se = (max(pt["se_p_a_wins"], 1 / pt["n"]) ** 2 + max(sim["se_p_a_wins"], 1 / sim["n"]) ** 2) ** 0.5
            assert abs(pt["p_a_wins"] - sim["p_a_wins"]) <= 4 * se


def test_encounter_without_a_fair_count_says_why_and_runs_every_system(capsys):
    system = GROUPS[0] if GROUPS else pytest.skip("no system has group fights")
    data = run_json(capsys, "encounter", system, "--a", "trained_armed", "--b", "novice_armed", "--p", "0.001",
                    "--max", "2", "--quiet")
    assert data["fair_count"] is None and "0.001" in data["fair_count_reason"]
    both = run_json(capsys, "encounter", system, "--a", "trained_armed", "--b", "novice_armed", "--max", "1",
                    "--systems", "all", "--quiet")
    assert set(both["systems"]) | set(both["skipped"]) == set(SYSTEM_IDS)
    assert all(len(e["curve"]) == 1 for e in both["systems"].values())
    code, out, _ = run(capsys, "encounter", system, "--a", "trained_armed", "--b", "novice_armed", "--max", "1",
                       "--systems", "all", "--quiet")
    assert code == 0 and out.startswith(f"{list(both['systems'])[0]}: ")
    assert json.loads(json.dumps(both)) == both


# ------------------------------------------------------------------ the README's examples run
def readme_commands() -> list[list[str]]:
    import shlex
    from pathlib import Path

    text = Path(__file__).resolve().parents[1].joinpath("README.md").read_text(encoding="utf-8")
    block = text.split("Sides, tactics and encounters", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    return [shlex.split(line.split("#", 1)[0].replace(".venv/bin/dicelab", "", 1))
            for line in block.splitlines() if line.strip()]


@pytest.mark.parametrize("argv", readme_commands(), ids=lambda argv: " ".join(argv[:2]))
def test_the_readme_examples_of_sides_tactics_and_encounter_run(capsys, monkeypatch, tmp_path, argv):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *argv, *(["--quiet"] if argv[0] in ("sim", "tactics", "encounter") else []))
    assert code == 0, err
    assert out.strip()
    if "--policy-out" in argv:
        assert len(pd.read_csv(tmp_path / argv[argv.index("--policy-out") + 1])) > 0


def test_design_and_variants_play_well_as_the_plain_duels_of_the_equilibrium_scripts(capsys):
    """2K's equilibrium between these fighters is both never parrying (the scripts' game), so ``--play
    equilibrium`` of design must give the plain chain's duel of two fighters who never parry; Tri-Stat's novices
    play their book at the equilibrium (total defence is dominated), so variants' base duel is the plain one."""
    onesix = get_system("onesix")
    rules = onesix.rules()
    a, b = load_fighter(onesix, "trained_armed"), load_fighter(onesix, "trained_armed")
    design = run_json(capsys, "design", "onesix", "--a", "trained_armed", "--b", "trained_armed",
                      "--vary", "a.reflexes=7..9", "--rounds", "3", "--lethality", "1", "--top", "3",
                      "--play", "equilibrium", "--quiet")
    assert design["play"] == "equilibrium" and len(design["best"]) == 3
    for point in design["best"]:
        fa = a.replace(reflexes=point["setting"]["a.reflexes"], parry="never")
        plain = onesix.duel(rules, fa, b.replace(parry="never")).solution
        assert point["p_a_wins"] == pytest.approx(plain.p_a_wins, abs=1e-9)
        assert point["mean_rounds"] == pytest.approx(plain.mean_rounds, abs=1e-9)
    tristat = get_system("tristat")
    novice = load_fighter(tristat, "novice")
    well = run_json(capsys, "variants", "tristat", "--a", "novice", "--b", "novice", "--quiet", "--play", "equilibrium")
    plain = tristat.duel(tristat.rules(), novice, novice).solution
    assert well["play"] == "equilibrium"
    assert well["base_duel"]["mean_rounds"] == pytest.approx(plain.mean_rounds, abs=1e-9)


def test_design_refuses_a_play_its_system_cannot_decide_in_one_line(capsys, bare):
    line = one_line_error(*run(capsys, "design", bare, "--a", "trained_armed", "--b", "trained_armed", "--vary",
                               "extra_defense=0..1", "--rounds", "3", "--lethality", "0.5", "--play", "equilibrium"))
    assert "decisions are not modelled yet" in line


@pytest.mark.parametrize("argv,word", [
    (["--from", "tristat", "--target", "8", "--to", "tun", "--play", "best"], "--play applies to a fight"),
    (["--from", "tristat", "--a", "novice", "--b", "trained", "--to", "tun", "--play", "well"], "play"),
])
def test_equiv_play_is_refused_in_one_line_where_it_cannot_apply(capsys, argv, word):
    line = one_line_error(*run(capsys, "equiv", *argv))
    assert word in line


def test_compare_plays_the_archetypes_duels_as_asked(capsys, tmp_path):
    """``compare --play equilibrium``: each archetype's matched duel is the decision game's, at the equilibrium;
    for Tri-Stat's archetypes the book's stance is the equilibrium (total defence is dominated), so the rows equal
    the plain duels (every system models decisions now; the refusal of one without them is checked in
    tests/test_app_state.py on a system with its hook taken away)."""
    rules = tmp_path / "house.toml"
    rules.write_text("[tristat]\nshock_rule = true\n", encoding="utf-8")
    well = run_json(capsys, "compare", "--rules", str(rules), "--play", "equilibrium")["systems"]["tristat"]
    tristat = get_system("tristat")
    assert well["play"] == "equilibrium"
    for row in well["duels"]:
        f = load_fighter(tristat, row["archetype"])
        house = tristat.duel(tristat.rules(shock_rule=True), f, f).solution
        assert row["p_a_wins_house"] == pytest.approx(house.p_a_wins, abs=1e-9)


def test_the_play_choices_are_the_library_plays():
    from analysis.fights.tactics import PLAYS
    from analysis.front.cli.games import PLAY_CHOICES

    assert PLAY_CHOICES == PLAYS


def test_a_played_duel_shows_its_steps_past_the_delay_and_nothing_when_quiet(capsys, monkeypatch):
    """Past the delay (here 0 s) a played duel reports its three steps on stderr; ``--quiet`` keeps stderr empty;
    the figures are the same either way."""
    monkeypatch.setattr("analysis.base.progress.DELAY", 0.0)
    argv = ("duel", "tun", "--a", "novice", "--b", "trained", "--play", "equilibrium")
    code, out, err = run(capsys, *argv)
    assert code == 0 and err.splitlines()[-1].startswith("dicelab duel: 3/3 steps (100.0%)")
    code, quiet, err = run(capsys, *argv, "--quiet")
    assert code == 0 and err == "" and quiet == out
