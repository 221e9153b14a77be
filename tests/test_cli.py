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

from analysis.cli import main
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
