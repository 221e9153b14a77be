"""The ``dicelab`` command line: contract fields, agreement with brute force, clear errors."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from fractions import Fraction

import pandas as pd
import pytest

from analysis.front.cli import main
from tests import brute
from tests.brute import close, pmf_close


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv: str):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


# ------------------------------------------------------------- check --json
CHECK_CASES = [
    (["tristat", "--die", "6", "--target", "7"], lambda: brute.tristat_check(6, 7)),
    (["tristat", "--die", "20", "--target", "23"], lambda: brute.tristat_check(20, 23)),
    (["tristat", "--variant", "die=4", "--target", "5"], lambda: brute.tristat_check(4, 5)),
    (["onesix", "--rating", "9"], lambda: brute.onesix_check(9)),
    (["onesix", "--rating", "5", "--mod", "3", "--skilled", "false"], lambda: brute.onesix_check(5, 3, skilled=False)),
    (["onesix", "--rating", "7", "--variant", "explode_depth=2", "--variant", "extra_die_ones=count"],
     lambda: brute.onesix_check(7, depth=2, ones_count=True)),
    (["tun", "--limit", "13"], lambda: brute.tun_check("3d6", 13)),
    (["tun", "--limit", "11", "--dice", "1d20", "--variant", "success_rule=le"], lambda: brute.tun_check("1d20", 11, le=True)),
    (["tun", "--limit", "2", "--dice", "1d6x3", "--variant", "crits=true"], lambda: brute.tun_check("1d6x3", 2, crits=True)),
    (["kurs", "--skill", "2"], lambda: brute.kurs_check(2)),
    (["kurs", "--skill", "1", "--difficulty", "3", "--variant", "dk_faces=fudge"], lambda: brute.kurs_check(1, 3, brute.KURS_FACES["fudge"])),
    (["kurs", "--skill", "0", "--variant", "luck_tokens=1", "--variant", "dk_faces=-3,0,3"], lambda: brute.kurs_check(0, 0, (-3, 0, 3), 1)),
]


@pytest.mark.parametrize("argv,expected", CHECK_CASES, ids=[" ".join(c[0]) for c in CHECK_CASES])
def test_check_json_agrees_with_enumeration(capsys, argv, expected):
    data = run_json(capsys, "check", *argv)
    p_success, pmf = expected()[:2]
    assert data["system"] == argv[0]
    assert close(data["p_success"], p_success)
    assert pmf_close(data["distribution"], pmf)
    assert all(isinstance(k, str) for k in data["distribution"])
    assert abs(sum(data["distribution"].values()) + data["residual"] - 1) < 1e-12


@pytest.mark.parametrize("system_id,variants", [
    ("tristat", {"die", "contest_tie", "cv_rounding", "initiative_once", "acv_in_max", "damage_rounding", "shock_rule"}),
    ("onesix", {"extra_die_ones", "explode_depth", "excess_over", "armor_wear"}),
    ("tun", {"success_rule", "crits", "last_word"}),
    ("kurs", {"dk_faces", "defense_clamp", "luck_tokens", "wound_penalty"}),
])
def test_check_json_echoes_every_variant(capsys, system_id, variants):
    data = run_json(capsys, "check", system_id)
    assert variants <= set(data["variants"])
    assert {"system", "variants", "p_success", "distribution", "residual"} <= set(data)


def test_check_json_crit_fields(capsys):
    tri = run_json(capsys, "check", "tristat", "--die", "8", "--target", "9")
    assert tri["p_critical"] == pytest.approx(1 / 64) and tri["p_fumble"] == pytest.approx(1 / 64)
    six = run_json(capsys, "check", "onesix", "--rating", "2")
    assert close(six["p_fumble"], brute.onesix_check(2)[2])
    assert six["p_equipment_fault"] == pytest.approx(1 / 36)
    assert 0 < six["residual"] < 1e-15
    tun = run_json(capsys, "check", "tun", "--limit", "12", "--variant", "crits=true")
    assert tun["p_critical"] == pytest.approx(1 / 216) and tun["p_fumble"] == pytest.approx(1 / 216)
    kurs = run_json(capsys, "check", "kurs", "--skill", "1")
    assert close(kurs["p_complication"], brute.kurs_check(1)[2])


def test_check_text_output(capsys):
    code, out, _ = run(capsys, "check", "tristat", "--target", "7")
    assert code == 0 and "P(success)" in out and "0.583333" in out


# --------------------------------------------------------------- bad input
BAD = [
    (["check", "tristat", "--die", "7"], ["die", "7", "4, 6, 8, 10, 12, 20"]),
    (["check", "tun", "--dice", "2d6"], ["dice", "2d6", "3d6, 1d20, 1d6x3"]),
    (["check", "kurs", "--variant", "dk_faces="], ["dk_faces", "()", "non-empty"]),
    (["check", "tristat", "--target", "7.5"], ["target", "7.5", "integer"]),
    (["check", "onesix", "--rating", str(10**9)], ["rating", str(10**9), "-100..100"]),
    (["check", "tun", "--variant", "crits=maybe"], ["crits", "maybe", "true or false"]),
    (["check", "kurs", "--variant", "luck=1"], ["luck", "dk_faces"]),
    (["opposed", "kurs", "--a", "skill=2", "--b", "skil=3"], ["skil", "skill"]),
]


@pytest.mark.parametrize("argv,words", BAD, ids=[" ".join(b[0]) for b in BAD])
def test_bad_input_gives_one_clear_line(capsys, argv, words):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    for word in words:
        assert word in err


def test_console_script_exits_non_zero_without_traceback():
    exe = shutil.which("dicelab") or f"{sys.prefix}/bin/dicelab"
    proc = subprocess.run([exe, "check", "tristat", "--die", "7"], capture_output=True, text=True)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr and "die = '7'" in proc.stderr


@pytest.mark.parametrize("command", ["systems", "check", "table", "opposed", "seedcheck", "report"])
def test_every_command_has_help_with_an_example(capsys, command):
    code, out, _ = run(capsys, command, "--help")
    assert code == 0 and "Example" in out


# -------------------------------------------------------------------- table
def test_table_covers_every_die_and_target(capsys):
    code, out, _ = run(capsys, "table", "tristat", "--format", "csv")
    df = pd.read_csv(io.StringIO(out))
    for die in (4, 6, 8, 10, 12, 20):
        part = df[df["dice"] == f"2d{die}"]
        assert sorted(part["target"]) == list(range(2, 2 * die + 1))
        for _, row in part.iterrows():
            assert close(row["p_success"], brute.tristat_check(die, int(row["target"]))[0])


def test_table_covers_every_tun_dice_mode(capsys):
    code, out, _ = run(capsys, "table", "tun", "--format", "json")
    rows = json.loads(out)
    assert {r["dice"] for r in rows} == {"3d6", "1d20", "1d6x3"}
    for r in rows:
        assert close(r["p_success"], brute.tun_check(r["dice"], r["limit"])[0])


def test_table_markdown_and_atomic_file(capsys, tmp_path):
    out_file = tmp_path / "kurs.md"
    code, out, _ = run(capsys, "table", "kurs", "--out", str(out_file))
    assert code == 0 and out == ""
    text = out_file.read_text()
    header = next(line for line in text.splitlines() if line.startswith("|"))
    assert text.startswith("# K.U.R.S.") and "skill" in header and "p_success" in header
    assert [p.name for p in tmp_path.iterdir()] == ["kurs.md"]


# ---------------------------------------------------------------- seedcheck
# The seed's table as printed, transcribed independently of analysis/data: (v, 3d6, 1d20, 1d6x3).
PRINTED = [
    (20, None, "1", None), (19, None, "0.95", None), (18, "1", "0.90", "1"), (17, "0.99", "0.85", None),
    (16, "0.98", "0.80", None), (15, "0.98", "0.75", "0.83"), (14, "0.95", "0.70", None), (13, "0.84", "0.65", None),
    (12, "0.74", "0.60", "0.67"), (11, "0.63", "0.55", None), (10, "0.50", "0.50", None), (9, "0.38", "0.45", "0.50"),
    (8, "0.26", "0.40", None), (7, "0.16", "0.35", None), (6, "0.09", "0.30", "0.33"), (5, "0.05", "0.25", None),
    (4, "0.018", "0.20", None), (3, "0.005", "0.15", "0.16"), (2, None, "0.10", None), (1, None, "0.05", None),
]


def test_seedcheck_json_flags_exactly_the_unexplained_cells(capsys):
    data = run_json(capsys, "seedcheck", "tun")
    cells = {(c["dice"], c["v"]): c for c in data["cells"]}
    expected = {}
    for v, *printed in PRINTED:
        for dice, text in zip(("3d6", "1d20", "1d6x3"), printed):
            if text is not None:
                expected[(dice, v)] = text
    assert set(cells) == set(expected)
    assert len(cells) == 42
    for key, text in expected.items():
        dice, v = key
        exact = sum((p for roll, p in brute.tun_rolls(dice) if roll <= v), Fraction(0))
        unit = Fraction(1, 10 ** len(text.partition(".")[2]))
        cell = cells[key]
        assert cell["printed"] == pytest.approx(float(Fraction(text)))
        assert close(cell["exact"], exact)
        assert cell["flagged"] == (abs(Fraction(text) - exact) >= unit)
    assert sorted(k for k, c in cells.items() if c["flagged"]) == [("3d6", 14), ("3d6", 15)]


# ------------------------------------------------------------------- opposed
def test_opposed_json(capsys):
    data = run_json(capsys, "opposed", "kurs", "--a", "skill=2", "--b", "skill=3")
    a = [(p, sum(r) + 2) for r, p in brute.enumerate_dice(brute.KURS_FACES["default"], 3)]
    b = [(p, sum(r) + 3) for r, p in brute.enumerate_dice(brute.KURS_FACES["default"], 3)]
    win, tie, lose = brute.contest(a, b)
    assert close(data["p_a_wins"], win) and close(data["p_tie"], tie) and close(data["p_b_wins"], lose)


def test_systems_lists_every_variant(capsys):
    data = run_json(capsys, "systems")
    assert [s["id"] for s in data] == ["tristat", "onesix", "tun", "kurs"]
    kurs = data[3]
    faces = next(v for v in kurs["variants"] if v["name"] == "dk_faces")
    assert faces["default"] == [-2, -1, 0, 0, 1, 2]


# ------------------------------------------- ambiguous input is refused (issue 17)
def refused(capsys, *argv: str) -> str:
    """Exit 2, nothing on stdout, one line on stderr (plus at most one hint line), no traceback."""
    code, out, err = run(capsys, *argv)
    assert code == 2, err
    assert out == ""
    lines = err.splitlines()
    assert 1 <= len(lines) <= 2 and "Traceback" not in err, err
    assert len(lines) == 1 or lines[1].startswith("hint: ")
    return lines[0]


def test_duplicate_key_in_an_inline_fighter(capsys):
    line = refused(capsys, "duel", "tristat", "--a", "body=5,body=6", "--b", "novice")
    assert "body is given twice ('5' and '6')" in line and "--a" in line


def test_duplicate_key_in_one_variant(capsys):
    assert "die is given twice ('6' and '8')" in refused(capsys, "check", "tristat", "--variant", "die=6,die=8")


def test_duplicate_key_across_repeated_variants(capsys):
    line = refused(capsys, "check", "tristat", "--variant", "die=6", "--variant", "die=8", "--target", "7")
    assert "--variant" in line and "die is given twice ('6' and '8')" in line


def test_ruleset_flag_and_variant_naming_the_same_field(capsys):
    line = refused(capsys, "check", "tristat", "--die", "6", "--variant", "die=8")
    assert "die is given twice" in line and "--die '6'" in line and "die='8'" in line


def test_duplicate_key_in_rolls(capsys):
    line = refused(capsys, "resolve", "tristat", "--a", "novice", "--b", "novice", "--rolls", "attack=5,attack=6")
    assert "attack is given twice ('5' and '6')" in line


def test_repeated_rolls_option(capsys):
    line = refused(capsys, "resolve", "tristat", "--a", "novice", "--b", "novice", "--rolls", "attack=5",
                   "--rolls", "attack=6")
    assert "--rolls is given twice" in line and "attack=5" in line and "attack=6" in line


def test_repeated_option(capsys):
    line = refused(capsys, "check", "tristat", "--target", "7", "--target", "8")
    assert "--target is given twice" in line and "'7'" in line and "'8'" in line


def test_repeated_option_through_its_other_spelling(capsys):
    line = refused(capsys, "check", "onesix", "--gear-rating", "3", "--gear_rating", "4")
    assert "--gear_rating is given twice (--gear-rating '3' and --gear_rating '4')" in line


def test_repeated_fighter_option(capsys):
    assert "--a is given twice" in refused(capsys, "duel", "tristat", "--a", "novice", "--a", "veteran", "--b", "novice")


def test_duplicate_key_in_an_opposed_side(capsys):
    assert "skill is given twice ('2' and '3')" in refused(capsys, "opposed", "kurs", "--a", "skill=2,skill=3",
                                                              "--b", "skill=1")


def test_empty_fighter(capsys):
    line = refused(capsys, "duel", "tristat", "--a", "", "--b", "novice")
    assert "--a = ''" in line and "archetype name" in line


def test_blank_fighter(capsys):
    assert "--b = '  '" in refused(capsys, "exchange", "tun", "--a", "red", "--b", "  ")


def test_name_only_inline_fighter(capsys):
    line = refused(capsys, "duel", "tristat", "--a", "name=bob", "--b", "novice")
    assert "names no fighter parameter and no archetype" in line and "only name" in line


def test_empty_variant(capsys):
    assert "--variant = ''" in refused(capsys, "check", "tristat", "--variant", "")


def test_empty_opposed_side(capsys):
    assert "--a = ''" in refused(capsys, "opposed", "kurs", "--a", "", "--b", "skill=2")


def test_empty_system_name_for_archetypes(capsys):
    assert "system = ''" in refused(capsys, "archetypes", "")


def test_empty_system_name_for_check(capsys):
    assert "invalid choice: ''" in refused(capsys, "check", "")


def test_empty_rolls(capsys):
    assert "--rolls = ''" in refused(capsys, "resolve", "tristat", "--a", "novice", "--b", "novice", "--rolls", "")


def test_missing_equals_is_named(capsys):
    line = refused(capsys, "duel", "tristat", "--a", "body=5,mind", "--b", "novice")
    assert "'mind' has no '='" in line and "'5,mind'" not in line


def test_list_values_keep_their_commas(capsys):
    data = run_json(capsys, "check", "kurs", "--variant", "dk_faces=-1,0,1,luck_tokens=1")
    assert data["variants"]["dk_faces"] == [-1, 0, 1] and data["variants"]["luck_tokens"] == 1


def test_a_long_value_is_cut_with_its_length(capsys):
    line = refused(capsys, "duel", "tristat", "--a", "body=" + "9" * 5000, "--b", "novice")
    assert "(5,000 characters)" in line and len(line) < 250


def test_a_long_parsed_integer_is_cut_with_its_length(capsys, tmp_path):
    path = tmp_path / "hero.toml"
    path.write_text(f"body = {'7' * 400}\n")
    line = refused(capsys, "duel", "tristat", "--a", str(path), "--b", "novice")
    assert "(400 digits)" in line and len(line) < 300


def test_a_long_archetype_name_is_cut(capsys):
    line = refused(capsys, "duel", "tristat", "--a", "x" * 3000, "--b", "novice")
    assert "(3,000 characters)" in line and len(line) < 400


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "1e400", "Infinity"])
def test_inf_and_nan_refused_where_a_number_is_typed(capsys, value):
    line = refused(capsys, "check", "tristat", f"--target={value}")
    assert f"target = '{value}'" in line and "integer" in line


def test_inf_refused_in_an_optional_number(capsys):
    line = refused(capsys, "check", "onesix", "--rating", "9", "--variant", "explode_depth=inf")
    assert "explode_depth = 'inf'" in line and "or none" in line


def test_probability_printed_with_enough_digits():
    from analysis.present.tables import prob

    for p in (1 - 1e-7, 1 - 1e-12, 1e-9, 3e-7):
        assert float(prob(p)) not in (0.0, 1.0)
        assert abs(float(prob(p)) - p) <= abs(p - round(p)) / 2


@pytest.mark.parametrize("argv,words", [
    (["check"], ["required: SYSTEM"]),
    (["check", "tristat", "--target"], ["--target", "expected one argument"]),
    (["check", "tristat", "--bogus"], ["unrecognized arguments: --bogus"]),
    (["chekc"], ["invalid choice: 'chekc'"]),
    (["duel", "tristat", "--a", "novice"], ["required: --b"]),
    (["check", "tristat", "--tar", "7"], ["unrecognized arguments: --tar"]),
    ([], ["required: COMMAND"]),
])
def test_usage_errors_are_one_line_and_a_hint(capsys, argv, words):
    code, out, err = run(capsys, *argv)
    lines = err.splitlines()
    assert code == 2 and out == "" and len(lines) == 2, err
    assert lines[0].startswith("dicelab") and ": error: " in lines[0] and "usage:" not in err
    assert lines[1].startswith("hint: try 'dicelab") and lines[1].endswith("--help'")
    for word in words:
        assert word in lines[0]


def test_usage_error_hint_names_the_command_and_system(capsys):
    _, _, err = run(capsys, "check", "tristat", "--bogus")
    assert err.splitlines() == ["dicelab check tristat: error: unrecognized arguments: --bogus",
                                "hint: try 'dicelab check tristat --help'"]


def test_unexpected_exception_is_one_line_exit_1(capsys, monkeypatch):
    import analysis.front.cli.checks

    def broken(ns):
        raise RuntimeError("boom")

    monkeypatch.setattr(analysis.front.cli.checks, "run_check", broken)
    monkeypatch.delenv("DICELAB_DEBUG", raising=False)
    code, out, err = run(capsys, "check", "tristat")
    assert code == 1 and out == ""
    assert err.splitlines() == ["dicelab check tristat: error: internal error: RuntimeError: boom "
                                "(set DICELAB_DEBUG=1 to see the traceback)"]
    monkeypatch.setenv("DICELAB_DEBUG", "1")
    code, _, err = run(capsys, "check", "tristat")
    assert code == 1 and "Traceback" in err and "RuntimeError: boom" in err


def test_ctrl_c_exits_130(capsys, monkeypatch):
    import analysis.front.cli.checks

    def interrupted(ns):
        raise KeyboardInterrupt

    monkeypatch.setattr(analysis.front.cli.checks, "run_check", interrupted)
    code, _, err = run(capsys, "check", "tristat")
    assert code == 130 and err == "dicelab check tristat: interrupted\n"


def test_help_and_version_exit_0(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.startswith("dicelab ")
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "Exit codes: 0 done, 2 bad input, 130 interrupted, 1 internal error" in out


def test_console_script_exit_codes():
    exe = shutil.which("dicelab") or f"{sys.prefix}/bin/dicelab"
    usage = subprocess.run([exe, "check", "tristat", "--target"], capture_output=True, text=True)
    assert usage.returncode == 2 and len(usage.stderr.splitlines()) == 2 and usage.stdout == ""
    done = subprocess.run([exe, "check", "tristat", "--target", "7"], capture_output=True, text=True)
    assert done.returncode == 0 and "0.583333" in done.stdout


def test_closed_pipe_is_quiet():
    exe = shutil.which("dicelab") or f"{sys.prefix}/bin/dicelab"
    proc = subprocess.run(f"'{exe}' table tristat --format csv | head -c 10 >/dev/null; echo ${{PIPESTATUS[0]}}",
                          shell=True, executable="/bin/bash", capture_output=True, text=True)
    assert proc.stdout.strip() == "0" and proc.stderr == ""


# ------------------------------------------------------------------ fast start
@pytest.mark.parametrize("argv,heavy", [
    (["--version"], ("numpy", "pandas", "scipy", "numba")),
    (["--help"], ("numpy", "pandas", "scipy", "numba")),
    (["check", "tristat", "--target", "7"], ("pandas", "scipy", "numba")),
    (["table", "tristat"], ("pandas", "scipy", "numba")),
    (["duel", "tristat", "--help"], ("pandas", "scipy", "numba")),
])
def test_start_up_imports_nothing_heavy(argv, heavy):
    code = ("import sys; from analysis.front.cli import main; rc = main(sys.argv[1:]); "
            f"print(repr(sorted(m for m in {heavy!r} if m in sys.modules)), file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "[]"


def test_lazy_parser_has_the_same_options_as_the_full_one():
    from analysis.front.cli import build_parser

    def options(parser, path):
        for word in path:
            parser = next(a for a in parser._actions if a.dest in ("command", "system")).choices[word]
        return sorted(s for a in parser._actions for s in a.option_strings)

    full = build_parser()
    for path in (["check", "tristat"], ["duel", "kurs"], ["table", "onesix"], ["systems"], ["archetypes"]):
        assert options(build_parser(path + ["--x"]), path) == options(full, path)


@pytest.mark.parametrize("command", ["duel", "sim"])
def test_duel_help_notes_the_changed_meaning_of_dead(capsys, command):
    assert main([command, "kurs", "--help"]) == 0
    out = capsys.readouterr().out
    assert "p_a_dead/p_b_dead mean explicit death only" in out and "p_a_dying/p_b_dying" in out


# -------------------------------------------- odd input, any terminal (issue 26.6, 26.7, 26.8, 26.9)
CONSOLE = "import sys; from analysis.front.cli import main; sys.exit(main())"


def console(*argv: str, env: dict | None = None, **kwargs) -> subprocess.CompletedProcess:
    """The console script in a subprocess; its output read in the encoding it was given (``PYTHONIOENCODING``)."""
    import os

    encoding = (env or {}).get("PYTHONIOENCODING", "utf-8")
    return subprocess.run([sys.executable, "-c", CONSOLE, *argv], capture_output=True, encoding=encoding,
                          env={**os.environ, **(env or {})}, timeout=120, **kwargs)


def one_refusal(code: int, out: str, err: str, *words: str) -> None:
    """Exit 2, nothing on stdout, one line on stderr (plus at most a hint) holding ``words``."""
    lines = err.splitlines()
    assert code == 2 and out == "" and 1 <= len(lines) <= 2 and lines[0].startswith("dicelab"), err
    assert len(lines) == 1 or lines[1].startswith("hint: ")
    assert all(w in lines[0] for w in words), (words, lines[0])


@pytest.mark.parametrize("fighter, words", [
    ("body=5,,mind=4", ["has an empty item"]),
    ("body=5,", ["has an empty item"]),
    (",body=5", ["has an empty item"]),
    ("archetype=veteran,name=", ["--a: name = '' is not allowed"]),
    ("archetype=veteran,name=" + "n" * 500_000, ["(500,000 characters)", "text of 1 to 80 characters"]),
    ("archetype=veteran,name=\udcff", ["lone surrogate"]),
])
def test_odd_fighters_are_one_line_refusals(capsys, fighter, words):
    one_refusal(*run(capsys, "duel", "tristat", "--a", fighter, "--b", "trained"), *words)


@pytest.mark.parametrize("text, words", [
    ('name = ""\nbody = 5\n', ["name = '' is not allowed"]),
    ("name = 5\nbody = 5\n", ["name = 5 is not allowed"]),
    ('note = ""\nbody = 5\n', ["note = '' is not allowed"]),
    ("note = [1]\nbody = 5\n", ["note = [1] is not allowed"]),
    ('archetype = 3\n', ["archetype = 3 is not allowed"]),
])
def test_empty_or_non_text_names_and_notes_in_files_are_refused(capsys, tmp_path, text, words):
    path = tmp_path / "f.toml"
    path.write_text(text, encoding="utf-8")
    one_refusal(*run(capsys, "duel", "tristat", "--a", str(path), "--b", "trained"), f"fighter file '{path}'", *words)


def test_control_characters_in_names_never_reach_the_terminal_raw(capsys):
    name = "red\x1b[31m\x07\r\u202eX"
    code, out, _ = run(capsys, "duel", "tristat", "--a", f"archetype=veteran,name={name}", "--b", "trained")
    assert code == 0 and "red\\x1b[31m\\x07\\r\\u202eX (A)" in out
    assert not any(c in out for c in "\x1b\x07\r\u202e")
    code, out, _ = run(capsys, "duel", "tristat", "--a", f"archetype=veteran,name={name}", "--b", "trained", "--json")
    assert code == 0 and not any(c in out for c in "\x1b\x07\r\u202e") and json.loads(out)["a"]["name"] == name


def test_an_integral_float_is_read_alike_in_rules_and_fighter_files(capsys, tmp_path):
    rules, fighter = tmp_path / "r.toml", tmp_path / "f.toml"
    rules.write_text("[tristat]\ndie = 8.0\n", encoding="utf-8")
    fighter.write_text("body = 5.0\nmind = 4\nsoul = 4\n", encoding="utf-8")
    as_float = run_json(capsys, "duel", "tristat", "--a", str(fighter), "--b", "trained", "--rules", str(rules))
    rules.write_text("[tristat]\ndie = 8\n", encoding="utf-8")
    fighter.write_text("body = 5\nmind = 4\nsoul = 4\n", encoding="utf-8")
    as_int = run_json(capsys, "duel", "tristat", "--a", str(fighter), "--b", "trained", "--rules", str(rules))
    assert as_float["variants"]["die"] == 8 and as_float["p_a_wins"] == as_int["p_a_wins"]
    rules.write_text("[tristat]\ndie = 6.5\n", encoding="utf-8")
    one_refusal(*run(capsys, "duel", "tristat", "--a", "veteran", "--b", "trained", "--rules", str(rules)),
                "die = 6.5 is not allowed")


def test_a_byte_order_mark_is_named(capsys, tmp_path):
    for suffix in (".toml", ".json"):
        path = tmp_path / f"f{suffix}"
        path.write_bytes(b"\xef\xbb\xbf" + (b"body = 5\n" if suffix == ".toml" else b'{"body": 5}'))
        one_refusal(*run(capsys, "duel", "tristat", "--a", str(path), "--b", "trained"), "byte order mark (BOM)")


@pytest.mark.parametrize("argv, words", [
    (["design", "tristat", "--a", "veteran", "--b", "veteran", "--vary", "weapon_damage=0..4,", "--rounds", "3",
      "--lethality", "0.2"], ["has an empty item"]),
    (["design", "tristat", "--a", "veteran", "--b", "veteran", "--vary", "weapon_damage=0.." + "9" * 5000,
      "--rounds", "3", "--lethality", "0.2"], ["is not of the form", "(5,017 characters)"]),
    (["tune", "tristat", "--target", "7", "--p", "0_5"], ["'0_5'"]),
    (["equiv", "--from", "tristat", "--target", "8", "--to", "kurs", "--top", "3"], ["--top applies to a fight"]),
    (["equiv", "--from", "tristat", "--target", "8", "--to", "kurs", "--workers", "1", "--budget", "9"],
     ["--workers, --budget apply to a fight"]),
    (["equiv", "--from", "tristat", "--target", "8", "--max-memory", "2", "--to", "kurs"], ["--max-memory applies"]),
    (["rules", "kurs", "--json"], ["--json applies to rules diff"]),
    (["report", "--compare", ""], ["--compare = '' is not allowed"]),
    (["report", "--variant", "tristat.die=8", "--variant", "tristat.die=6"], ["die is given twice ('8' and '6')"]),
    (["report", "--a", "kurs=veteran", "--a", "kurs=novice"], ["kurs is given twice ('veteran' and 'novice')"]),
    (["check", "tristat", "--target", "7", "--out", "x" * 235_000], ["unrecognized arguments: --out"]),
])
def test_what_the_readme_refuses_is_refused_in_one_short_line(capsys, tmp_path, argv, words):
    code, out, err = run(capsys, *[a if a != "OUT" else str(tmp_path) for a in argv])
    one_refusal(code, out, err, *words)
    assert len(err.splitlines()[0]) < 400


def test_a_non_text_fighter_in_a_report_config_is_refused(capsys, tmp_path):
    config = tmp_path / "mine.toml"
    config.write_text("[kurs]\na = 5\n", encoding="utf-8")
    one_refusal(*run(capsys, "report", "--config", str(config), "--out", str(tmp_path / "r")), "[kurs] a = 5")


@pytest.mark.parametrize("out, words", [
    ("/dev/stdout", ["'/dev/stdout': is not a regular file (standard output", "left alone"]),
    ("x" * 300 + ".csv", ["File name too long"]),
])
def test_an_output_that_cannot_be_a_file_is_named(tmp_path, out, words):
    config = tmp_path / "c.toml"
    config.write_text('[sweep]\nkind = "check"\n[systems.tristat]\ncheck = { target = 7 }\n', encoding="utf-8")
    done = console("sweep", str(config), "--out", out, "--quiet", cwd=tmp_path)
    one_refusal(done.returncode, done.stdout, done.stderr, *words)
    report = console("report", "--out", "y" * 300, cwd=tmp_path)
    one_refusal(report.returncode, report.stdout, report.stderr, "File name too long")


@pytest.mark.parametrize("encoding", ["koi8-r", "cp866", "cp1251", "latin-1", "ascii"])
def test_any_terminal_encoding(encoding):
    """Characters the terminal's encoding lacks are escaped, never an internal error; JSON stays the same JSON."""
    for argv in (["rules", "kurs"], ["--help"], ["archetypes", "kurs"], ["duel", "kurs", "--help"]):
        done = console(*argv, env={"PYTHONIOENCODING": encoding})
        assert done.returncode == 0 and done.stderr == "", (argv, done.stderr)
    reference = json.loads(console("archetypes", "--json", env={"PYTHONIOENCODING": "utf-8"}).stdout)
    done = console("archetypes", "--json", env={"PYTHONIOENCODING": encoding})
    assert done.returncode == 0 and done.stdout.isascii() and json.loads(done.stdout) == reference


def test_closed_stdout_and_odd_environment_are_not_internal_errors():
    import os

    closed = subprocess.run([sys.executable, "-c", CONSOLE, "check", "tristat", "--target", "7"],
                            capture_output=False, stderr=subprocess.PIPE, text=True, timeout=60,
                            preexec_fn=lambda: os.close(1))
    assert closed.returncode == 0 and closed.stderr == ""
    threads = console("sim-check", "tristat", "--target", "7", "--n", "1000", env={"NUMBA_NUM_THREADS": "0"})
    one_refusal(threads.returncode, threads.stdout, threads.stderr, "NUMBA_NUM_THREADS = '0' is not allowed")
    import time

    start = time.monotonic()
    dice = console("sweep", "nowhere.toml", "--out", "o.csv", "--scheduler", "🎲")
    one_refusal(dice.returncode, dice.stdout, dice.stderr, "scheduler = '🎲' is not allowed")
    assert time.monotonic() - start < 20


@pytest.mark.parametrize("value, traceback", [("false", False), ("0", False), ("off", False), ("1", True),
                                               ("true", True)])
def test_debug_switch_reads_like_a_boolean(capsys, monkeypatch, value, traceback):
    import analysis.front.cli.checks

    monkeypatch.setattr(analysis.front.cli.checks, "run_check", lambda ns: 1 / 0)
    monkeypatch.setenv("DICELAB_DEBUG", value)
    code, _, err = run(capsys, "check", "tristat")
    assert code == 1 and ("Traceback" in err) == traceback
