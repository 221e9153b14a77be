"""House rules against the book (`rules diff`, `compare`), the example rulesets, and the report's own setup
(`report --config`, `--variant SYSTEM.NAME=VALUE`, `--a/--b SYSTEM=FIGHTER`, `--compare`)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from analysis.base.params import DicelabError
from analysis.fights.fighters import archetypes
from analysis.front.cli import main
from analysis.front.report.config import load_baseline, load_setup, read_config
from analysis.systems import SYSTEM_IDS, get_system
from analysis.tools.house_compare import book_of, changes, compare_rules
from analysis.tools.house_rules import load_rules
from tests import brute
from tests.brute import close

ROOT = Path(__file__).resolve().parents[1]
HOUSE = ROOT / "examples" / "house_rules"
CONTRACT = {"onesix": {"success_threshold", "level_step"}, "kurs": {"track"}, "tun": {"death_multiple"},
            "tristat": {"critical_multiplier"}}


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture()
def house(tmp_path):
    path = tmp_path / "house.toml"
    path.write_text('[tun]\nsuccess_rule = "le"\ncrits = false\n\n[tristat]\ncontest_tie = "reroll"\n', encoding="utf-8")
    return path


def test_rules_diff_lists_each_change_and_what_stays(house):
    code, out, err = run("rules", "diff", str(house))
    assert code == 0 and not err
    assert "tun (TUN): 1 change from the book (see docs/rules/tun.md)" in out
    assert "success_rule  lt -> le  [variant]" in out and "crits: set to the book's value" in out
    code, out, _ = run("rules", "diff", str(house), "--json")
    data = json.loads(out)["systems"]
    assert [c["field"] for c in data["tun"]["changes"]] == ["success_rule"] and data["tun"]["same_as_book"] == ["crits"]
    assert data["tristat"]["changes"][0] == {"system": "tristat", "field": "contest_tie", "kind": "variant",
                                             "book": "draw", "house": "reroll",
                                             "help": get_system("tristat").Rules.describe()[1].help}


@pytest.mark.parametrize("argv, message", [
    (("rules", "diff"), "rules diff: FILE.toml is missing"),
    (("rules", "diff", "/nonexistent/house.toml"), "no such file"),
    (("rules", "tun", "extra.toml"), "a file only after diff"),
    (("compare",), "required"),
])
def test_rules_and_compare_refuse_bad_input_in_one_line(argv, message):
    code, out, err = run(*argv)
    lines = err.strip().splitlines()
    assert code == 2 and message in lines[0] and (len(lines) == 1 or (len(lines) == 2 and lines[1].startswith("hint: ")))


def test_bad_field_in_a_rules_file_is_one_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[tun]\nsuccess_rule = \"maybe\"\n", encoding="utf-8")
    for argv in (("rules", "diff", str(bad)), ("compare", "--rules", str(bad))):
        code, out, err = run(*argv)
        assert code == 2 and "success_rule" in err and "maybe" in err and len(err.strip().splitlines()) == 1


def test_compare_sets_the_book_against_the_house_rules(house):
    code, out, err = run("compare", "--rules", str(house), "--json")
    assert code == 0
    data = json.loads(out)["systems"]
    tun = data["tun"]
    for row in tun["checks"]:
        limit = row["value"]
        book, house_p = brute.tun_check("3d6", limit)[0], brute.tun_check("3d6", limit, le=True)[0]
        assert close(row["book"], book) and close(row["house"], house_p) and close(row["diff"], house_p - book)
    for row in tun["worth"]:
        limit = row["value"]
        step = brute.tun_check("3d6", limit + 1, le=True)[0] - brute.tun_check("3d6", limit, le=True)[0]
        assert close(row["house"], step)
    assert [d["archetype"] for d in tun["duels"]] == list(archetypes("tun"))
    # a contest tie rule cannot touch a check table or a duel
    tri = data["tristat"]
    assert all(r["diff"] == 0 for r in tri["checks"]) and all(r["p_a_wins_diff"] == 0 for r in tri["duels"])
    assert tri["changes"][0]["field"] == "contest_tie" and tri["rules_page"] == "docs/rules/tristat.md"
    code, text, _ = run("compare", "--rules", str(house))
    assert code == 0 and "tun (TUN):" in text and "against the book" in text and "A_wins.diff" in text


def test_book_of_keeps_the_duel_options():
    tun = get_system("tun")
    house = tun.rules(success_rule="le", lethal_at="dead", finish_attacks=3)
    book = book_of(house)
    assert (book.success_rule, book.lethal_at, book.finish_attacks) == ("lt", "dead", 3)
    assert [c["field"] for c in changes("tun", house, book)] == ["success_rule"]


def test_a_duel_that_never_ends_is_said_so():
    kurs = get_system("kurs")
    result = compare_rules({"kurs": kurs.rules(dk_faces="fudge")})["kurs"]["duels"].set_index("archetype")
    assert result.loc["tiberius", "mean_rounds_house"] is None or result["mean_rounds_house"].isna()["tiberius"]
    assert "never ends" in result.loc["tiberius", "note"]


def test_house_rule_examples_validate_with_the_contract_names():
    """Two realistic house rulesets; they use the contract constant names, so they validate once the systems do."""
    files = sorted(HOUSE.glob("*.toml"))
    assert {p.stem for p in files} >= {"gritty_2k", "fudge_kurs"}
    for path in files:
        rules = load_rules(path)
        for sid, table in rules.items():
            assert set(table) & (CONTRACT[sid] | set(get_system(sid).Rules.specs("variant")))
    assert load_rules(HOUSE / "gritty_2k.toml")["onesix"]["success_threshold"] == 14
    assert load_rules(HOUSE / "fudge_kurs.toml")["kurs"]["track"] == [4, 3, 1, 1, 1, 1]


# ------------------------------------------------------------------------------------------- report setup
def test_report_example_config_loads():
    setup = load_setup(ROOT / "examples" / "report.toml")
    assert setup.name == "heroic campaign" and setup.ruleset("tristat").die == 8
    assert setup.fighters("kurs")[0].name == "maximus" and setup.fighters("tun")[0].name == "trained_armed"
    assert read_config(ROOT / "examples" / "report.toml")["lang"] == "en"


def test_setup_precedence_book_file_config_command_line(tmp_path):
    (tmp_path / "house.toml").write_text("[tun]\ncrits = true\nsuccess_rule = \"le\"\n", encoding="utf-8")
    (tmp_path / "other.toml").write_text("[tun]\nlast_word = false\n", encoding="utf-8")
    config = tmp_path / "mine.toml"
    config.write_text('rules = "house.toml"\n[tun]\nvariants = { success_rule = "lt" }\na = "veteran"\n', encoding="utf-8")
    s = load_setup(config)
    assert (s.ruleset("tun").crits, s.ruleset("tun").success_rule) == (True, "lt")
    s = load_setup(config, variants=["tun.crits=false"], a=["tun=master"], b=["kurs=novice"])
    assert s.ruleset("tun").crits is False and s.fighters("tun")[0].name == "master"
    assert s.fighters("kurs")[1].name == "novice"
    s = load_setup(config, rules=tmp_path / "other.toml")
    assert (s.ruleset("tun").crits, s.ruleset("tun").last_word) == (False, False)
    assert load_baseline("default").name == "default" and load_baseline(str(config)).name == "baseline"


@pytest.mark.parametrize("text, message", [
    ("colour = 'red'\n", "colour is not allowed"),
    ("[tun]\nvariant = { crits = true }\n", "[tun] variant is not allowed"),
    ("[tun]\nvariants = 3\n", "variants = 3 is not allowed"),
    ("[tun]\nvariants = { crits = 'perhaps' }\n", "crits = 'perhaps' is not allowed"),
    ("[dnd]\na = 'x'\n", "dnd is not allowed"),
    ("name = ''\n", "name = '' is not allowed"),
])
def test_bad_report_config_is_one_line(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DicelabError, match=None) as err:
        load_setup(path)
    assert message in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("argv, message", [
    (("--variant", "die=8"), "SYSTEM.... with SYSTEM one of"),
    (("--variant", "dnd.die=8"), "'dnd.die=8' is not allowed"),
    (("--variant", "tristat.die=7"), "tristat ruleset: die = '7' is not allowed"),
    (("--a", "veteran"), "--a 'veteran' is not allowed"),
    (("--b", "kurs=nobody"), "archetype = 'nobody' is not allowed"),
    (("--compare", "/nonexistent.toml"), "no such file"),
    (("--lang", "ru", "--config", "/nonexistent.toml"), "no such file"),
])
def test_report_refuses_bad_setup_before_any_work(tmp_path, argv, message):
    out = tmp_path / "out"
    code, _, err = run("report", "--out", str(out), *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not out.exists()
