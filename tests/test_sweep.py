"""Batch sweeps: tidy output, resumption after a kill, cases found again by their inputs, identical tables
everywhere, streamed output in strict form, clean config errors."""

from __future__ import annotations

import dataclasses
import importlib.util
import io
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from analysis import __version__
from analysis.base.params import DicelabError
from analysis.fights.fighters import load_fighter
from analysis.front import sweep
from analysis.front.cli import main
from analysis.front.sweep import output, work
from analysis.systems import SYSTEM_IDS, get_system
from analysis.tools.compare import success_curves

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "sweeps"

CHECKS = """
[sweep]
kind = "check"

[systems.tristat]
variants = { die = [6, 8] }
check = { target = { from = 2, to = 12 } }

[systems.onesix]
variants = { explode_depth = ["none", 1] }
check = { rating = { from = 8, to = 10 }, skilled = [true, false] }

[systems.tun]
variants = { crits = [false, true] }
check = { dice = ["3d6", "1d20"], limit = [10, 13] }

[systems.kurs]
variants = { dk_faces = ["default", "fudge", "-3,0,3"], defense_clamp = [true, false] }
check = { skill = { from = -2, to = 2 } }
"""

DUELS = """
[sweep]
kind = "duel"

[systems.tristat]
variants = { shock_rule = [false, true] }
a = { archetype = "veteran", weapon_damage = [0, 5, 10, 15, 20] }
b = { archetype = "trained", armor = { from = 0, to = 6 } }
"""

MONTE_CARLO = """
[sweep]
kind = "duel"
method = "monte_carlo"
n = 20000
seed = 7

[systems.tristat]
a = { archetype = ["trained_armed", "veteran"] }
b = { archetype = "veteran", armor = [0, 3] }
"""


def write(tmp_path: Path, text: str, name: str = "sweep.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def strict_json(text: str | bytes) -> object:
    """JSON that a strict parser accepts: NaN and Infinity are refused."""
    def refuse(name: str) -> None:
        raise ValueError(f"not strict JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def journal_lines(out: Path) -> list[dict]:
    """The journal's complete lines (a kill may leave a partial last line, which the next run cuts off)."""
    path = sweep.journal_path(out) / "rows.jsonl"
    return [strict_json(line) for line in path.read_bytes().split(b"\n")[:-1]] if path.exists() else []


def case_ids(config: Path) -> list[str]:
    """The ids of a config's cases in order, from its expansion."""
    return [c.case_id for c in sweep.expand(sweep.load_config(config)).cases()]


@pytest.fixture(scope="module")
def duel_reference(tmp_path_factory) -> pd.DataFrame:
    """The duel sweep run once, uninterrupted."""
    tmp = tmp_path_factory.mktemp("reference")
    out = tmp / "reference.parquet"
    sweep.run_sweep(write(tmp, DUELS), out, workers=1)
    return pd.read_parquet(out)


# ------------------------------------------------------------------ output
def test_check_sweep_writes_tidy_parquet_and_csv(tmp_path, capsys):
    config = write(tmp_path, CHECKS)
    for name, extra in (("t.parquet", []), ("t.csv", []), ("t.txt", ["--format", "csv"])):
        code, out, err = cli(capsys, "sweep", str(config), "--out", str(tmp_path / name), "--workers", "1", "--quiet",
                             *extra)
        assert code == 0, err
        assert out == "" and err == ""
    pq, csv = pd.read_parquet(tmp_path / "t.parquet"), pd.read_csv(tmp_path / "t.csv")
    assert len(pq) == 2 * 11 + 2 * 3 * 2 + 2 * 2 * 2 + 3 * 2 * 5
    assert list(pq["case"]) == list(range(len(pq)))
    assert pq["case_id"].is_unique
    assert set(pq["dicelab_version"]) == {__version__}
    for sid in SYSTEM_IDS:
        system = get_system(sid)
        for name in system.Rules.specs():
            assert f"variant_{name}" in pq.columns
        for name in system.CheckArgs.specs():
            assert f"check_{name}" in pq.columns
    for column in ("system", "kind", "method", "p_success", "p_fumble", "mean", "residual", "distribution"):
        assert column in pq.columns
    assert list(csv.columns) == list(pq.columns)
    pd.testing.assert_series_equal(csv["p_success"], pq["p_success"], check_exact=False, rtol=1e-15)
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "t.txt"), csv)
    row = pq[(pq["system"] == "kurs") & (pq["variant_dk_faces"] == "-3,0,3") & (pq["check_skill"] == 1)].iloc[0]
    kurs = get_system("kurs")
    rules = kurs.rules(dk_faces=(-3, 0, 3), defense_clamp=bool(row["variant_defense_clamp"]))
    exact = kurs.check(rules, kurs.args(skill=1))
    assert row["p_success"] == exact.p_success
    assert json.loads(row["distribution"]) == exact.to_dict()["distribution"]


def test_report_configs_reproduce_the_check_figures(tmp_path):
    from analysis.tools.compare import dice_families

    for name, reference in (("report_success_curves", success_curves()), ("report_dice_families", dice_families())):
        out = tmp_path / f"{name}.parquet"
        sweep.run_sweep(EXAMPLES / f"{name}.toml", out, workers=1)
        df = pd.read_parquet(out)
        value = df["check_target"].fillna(df["check_limit"])
        if name == "report_success_curves":
            value = value.fillna(df["check_rating"]).fillna(df["check_skill"])
        assert list(df["system"]) == list(reference["system"])
        assert list(value) == list(reference["value"])
        assert list(df["p_success"]) == list(reference["p_success"])


def test_example_configs_are_valid():
    names = {p.stem for p in EXAMPLES.glob("*.toml")}
    assert {"armor_weapon_clamp", "checks_all_systems", "report_success_curves", "report_dice_families",
            "skill_gap_duels", "skill_gap_exchanges", "tristat_archetype_duels", "tristat_duel_lethality",
            "tristat_duel_lethality_mc"} <= names
    for path in EXAMPLES.glob("*.toml"):
        assert len(sweep.expand(sweep.load_config(path))) > 0


@pytest.mark.parametrize("name", ["skill_gap_duels", "tristat_duel_lethality"])
def test_lethality_configs_hold_the_reports_skill_gap_duels(name):
    from analysis.fights import lethality

    expanded = sweep.expand(sweep.load_config(EXAMPLES / f"{name}.toml"))
    diagonals: dict[str, dict[int, sweep.Case]] = {}
    for row, case in zip(expanded.rows(), expanded.cases()):
        s = get_system(case.system)
        base = load_fighter(s, lethality.BASE)
        gaps = {row[f"a_{p}"] - getattr(base, p) for p in s.combat_skills}
        if len(gaps) == 1 and case.rules == s.rules(**lethality.GAP_RULES.get(case.system, {})):
            diagonals.setdefault(case.system, {})[gaps.pop()] = case
    assert set(diagonals) == ({"tristat"} if name.startswith("tristat") else set(SYSTEM_IDS))
    for sid, diagonal in diagonals.items():
        s = get_system(sid)
        base = load_fighter(s, lethality.BASE)
        assert sorted(diagonal) == list(lethality.GAPS)
        assert all(case.a == lethality.with_gap(s, base, gap) and case.b == base for gap, case in diagonal.items())
    row = sweep.compute(expanded.method, diagonals["tristat"][2])
    assert row["p_a_wins"] == lethality.skill_gap("tristat", gaps=(2,))["p_a_wins"].iloc[0]


def test_duel_rows_echo_fighters_and_results(duel_reference):
    df = duel_reference
    assert len(df) == 2 * 5 * 7
    s = get_system("tristat")
    row = df[(df["variant_shock_rule"]) & (df["a_weapon_damage"] == 10) & (df["b_armor"] == 3)].iloc[0]
    exact = s.duel(s.rules(shock_rule=True), load_fighter(s, "veteran").replace(weapon_damage=10),
                   load_fighter(s, "trained").replace(armor=3))
    assert row["p_a_wins"] == exact.solution.p_a_wins
    assert row["a_name"] == "veteran" and row["b_derived_health"] == 45
    for column in ("p_b_dead", "mean_rounds", "median_rounds", "rounds", "order"):
        assert column in df.columns


def test_fighters_from_archetypes_files_and_inline(tmp_path):
    (tmp_path / "fighters").mkdir()
    (tmp_path / "fighters" / "knight.toml").write_text("body = 6\nmind = 4\nsoul = 5\narmor = 3\n", encoding="utf-8")
    config = write(tmp_path, """
[sweep]
kind = "exchange"

[systems.tristat]
a = { file = "fighters/knight.toml", weapon_damage = [5, 10] }
b = { archetype = ["novice", "veteran"] }

[systems.kurs]
a = { name = "brawler", attack_skill = 2, strength = { from = 0, to = 2 } }
b = { archetype = "tiberius" }
""")
    out = tmp_path / "fighters.csv"
    sweep.run_sweep(config, out, workers=1)
    df = pd.read_csv(out)
    assert list(df["a_name"]) == ["knight"] * 4 + ["brawler"] * 3
    assert list(df["b_name"]) == ["novice", "veteran"] * 2 + ["tiberius"] * 3
    s = get_system("tristat")
    knight = load_fighter(s, str(tmp_path / "fighters" / "knight.toml")).replace(weapon_damage=10)
    row = df[(df["a_weapon_damage"] == 10) & (df["b_name"] == "veteran")].iloc[0]
    exact = s.exchange(s.rules(), knight, load_fighter(s, "veteran"))
    assert row["a_armor"] == 3 and row["p_hit"] == pytest.approx(exact.p_hit, rel=1e-15)
    assert {"p_miss", "p_defended", "p_graze", "mean_damage", "damage", "condition_after"} <= set(df.columns)


# ------------------------------------------------------------- resumption
def test_interrupt_keeps_finished_cases_and_resume_computes_the_rest(tmp_path, monkeypatch, duel_reference):
    config, out = write(tmp_path, DUELS), tmp_path / "duels.parquet"
    real, calls = work.compute, []

    def failing(method, case):
        calls.append(case.index)
        if len(calls) == 10:
            raise KeyboardInterrupt
        return real(method, case)

    monkeypatch.setattr(work, "compute", failing)
    with pytest.raises(sweep.Interrupted, match="run the same command again") as info:
        sweep.run_sweep(config, out, workers=1)
    assert info.value.exit_code == 130
    kept = journal_lines(out)
    assert 0 < len(kept) < 10 and [r["case_id"] for r in kept] == case_ids(config)[:len(kept)]
    assert not out.exists()
    monkeypatch.setattr(work, "compute", real)
    done = sweep.run_sweep(config, out, workers=1, keep_journal=True)
    assert (done.resumed, done.computed) == (len(kept), len(duel_reference) - len(kept))
    pd.testing.assert_frame_equal(pd.read_parquet(out), duel_reference)
    assert sorted(r["case_id"] for r in journal_lines(out)) == sorted(case_ids(config))


def _start(config: Path, out: Path, *extra: str) -> subprocess.Popen:
    code = "import sys; from analysis.front.cli import main; sys.exit(main())"
    return subprocess.Popen([sys.executable, "-c", code, "sweep", str(config), "--out", str(out), "--workers", "1",
                             "--quiet", *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for_rows(proc: subprocess.Popen, out: Path, more_than: int) -> None:
    deadline = time.monotonic() + 60
    while len(journal_lines(out)) <= more_than:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.02)


def test_killed_sweep_resumes_without_loss_or_duplicates(tmp_path, duel_reference):
    config, out = write(tmp_path, DUELS), tmp_path / "duels.parquet"
    proc = _start(config, out)
    _wait_for_rows(proc, out, 0)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130  # README: Ctrl-C or SIGTERM, exit 130
    assert "run the same command again to resume" in err and str(sweep.journal_path(out)) in err
    after_term = len(journal_lines(out))
    assert 0 < after_term < len(duel_reference)

    proc = _start(config, out)
    _wait_for_rows(proc, out, after_term)
    proc.kill()
    proc.communicate(timeout=30)
    after_kill = len(journal_lines(out))
    assert after_term < after_kill < len(duel_reference) and not out.exists()
    with open(sweep.journal_path(out) / "rows.jsonl", "ab") as fh:
        fh.write(b'{"case_id": "a half-writ')  # as if killed in the middle of a write

    done = sweep.run_sweep(config, out, workers=1, keep_journal=True)
    assert (done.resumed, done.computed) == (after_kill, len(duel_reference) - after_kill)
    pd.testing.assert_frame_equal(pd.read_parquet(out), duel_reference)
    ids = [r["case_id"] for r in journal_lines(out)]
    assert len(ids) == len(set(ids)) and sorted(ids) == sorted(case_ids(config))

    again = sweep.run_sweep(config, out, workers=1)
    assert (again.computed, again.resumed) == (0, len(duel_reference))
    assert not sweep.journal_path(out).exists()
    pd.testing.assert_frame_equal(pd.read_parquet(out), duel_reference)


def test_journal_is_removed_after_the_table_unless_kept(tmp_path, capsys):
    config = write(tmp_path, CHECKS)
    gone, kept = tmp_path / "gone.parquet", tmp_path / "kept.parquet"
    assert cli(capsys, "sweep", str(config), "--out", str(gone), "--workers", "1", "--quiet")[0] == 0
    assert gone.exists() and not sweep.journal_path(gone).exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    assert cli(capsys, "sweep", str(config), "--out", str(kept), "--workers", "1", "--quiet", "--keep-journal")[0] == 0
    assert len(journal_lines(kept)) == len(pd.read_parquet(kept))
    pd.testing.assert_frame_equal(pd.read_parquet(kept), pd.read_parquet(gone))


WIDE = DUELS.replace("weapon_damage = [0, 5, 10, 15, 20]", "weapon_damage = [25, 15, 5, 10, 0, 20]") \
    .replace("armor = { from = 0, to = 6 }", "armor = { from = 0, to = 7 }")


def test_a_widened_reordered_grid_reuses_the_finished_cases(tmp_path):
    narrow, wide = write(tmp_path, DUELS, "narrow.toml"), write(tmp_path, WIDE, "wide.toml")
    out, fresh = tmp_path / "grid.parquet", tmp_path / "fresh.parquet"
    first = sweep.run_sweep(narrow, out, workers=1, keep_journal=True)
    second = sweep.run_sweep(wide, out, workers=1, keep_journal=True)
    assert first.computed == 2 * 5 * 7
    assert (second.resumed, second.computed) == (2 * 5 * 7, 2 * 6 * 8 - 2 * 5 * 7)
    sweep.run_sweep(wide, fresh, workers=1)
    pd.testing.assert_frame_equal(pd.read_parquet(out), pd.read_parquet(fresh))
    df = pd.read_parquet(out)
    assert list(df["case"]) == list(range(len(df))) and list(df["a_weapon_damage"].unique()) == [25, 15, 5, 10, 0, 20]


def test_monte_carlo_cases_draw_the_same_numbers_wherever_they_sit(tmp_path):
    wider = MONTE_CARLO.replace('archetype = ["trained_armed", "veteran"]', 'archetype = ["novice", "veteran", '
                                '"trained_armed"]')
    small, big = tmp_path / "small.parquet", tmp_path / "big.parquet"
    sweep.run_sweep(write(tmp_path, MONTE_CARLO, "small.toml"), small, workers=1)
    sweep.run_sweep(write(tmp_path, wider, "big.toml"), big, workers=1)
    a, b = pd.read_parquet(small), pd.read_parquet(big)
    key = ["case_id", "p_a_wins", "mean_rounds", "se_p_a_wins"]
    merged = a[key].merge(b[key], on="case_id", suffixes=("", "_big"))
    assert len(merged) == len(a) == 4
    assert (merged["p_a_wins"] == merged["p_a_wins_big"]).all() and (merged["mean_rounds"] == merged["mean_rounds_big"]).all()


def test_a_damaged_meta_file_says_how_to_recover(tmp_path, capsys):
    config, out = write(tmp_path, CHECKS), tmp_path / "checks.parquet"
    reference = tmp_path / "reference.parquet"
    sweep.run_sweep(config, reference, workers=1)
    assert cli(capsys, "sweep", str(config), "--out", str(out), "--workers", "1", "--quiet", "--keep-journal")[0] == 0
    meta = sweep.journal_path(out) / "meta.json"
    meta.write_text('{"format": 2, "dicelab_ver', encoding="utf-8")
    code, _, err = cli(capsys, "sweep", str(config), "--out", str(out), "--workers", "1", "--quiet")
    assert code == 2 and err.count("\n") == 1
    assert f"{meta} is damaged; delete {meta} to keep the finished cases" in err and "to start over" in err
    meta.unlink()  # the recovery the message gives
    done = sweep.run_sweep(config, out, workers=1)
    assert done.computed == 0 and done.resumed == len(pd.read_parquet(reference))
    pd.testing.assert_frame_equal(pd.read_parquet(out), pd.read_parquet(reference))


def test_a_second_writer_is_refused(tmp_path, capsys):
    config, out = write(tmp_path, DUELS), tmp_path / "duels.parquet"
    proc = _start(config, out)
    try:
        _wait_for_rows(proc, out, 0)
        code, _, err = cli(capsys, "sweep", str(config), "--out", str(out), "--workers", "1", "--quiet")
        assert code == 2 and "in use by another sweep" in err
    finally:
        proc.kill()
        proc.communicate(timeout=30)


# ---------------------------------------------------- local and distributed
def test_same_table_on_one_and_two_workers_and_on_dask(tmp_path):
    from dask.distributed import LocalCluster

    config = write(tmp_path, MONTE_CARLO)
    one, two, on_dask = (tmp_path / f"{name}.parquet" for name in ("one", "two", "dask"))
    sweep.run_sweep(config, one, workers=1)
    sweep.run_sweep(config, two, workers=2)
    with LocalCluster(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as cluster:
        sweep.run_sweep(config, on_dask, scheduler=cluster.scheduler_address)
    reference = pd.read_parquet(one)
    assert len(reference) == 4 and reference["mean_rounds"].nunique() == 4
    for other in (two, on_dask):
        pd.testing.assert_frame_equal(pd.read_parquet(other), reference, check_exact=True)
    for column in ("n", "seed", "model", "se_p_a_wins", "ci_p_a_wins_low", "ci_p_a_wins_high", "mean_rounds"):
        assert column in reference.columns


def test_unreachable_scheduler_is_a_clean_error(tmp_path, capsys):
    config, out = write(tmp_path, CHECKS), tmp_path / "x.parquet"
    code, _, err = cli(capsys, "sweep", str(config), "--out", str(out), "--scheduler", "nonsense://nowhere")
    assert code == 2 and "scheduler" in err and not out.exists() and not sweep.journal_path(out).exists()


# ---------------------------------------------------------------- progress
def test_progress_lines_bar_and_quiet(tmp_path):
    config = write(tmp_path, CHECKS)
    for mode, expected in (("lines", ("cases/s", "ETA", "cases to compute")), ("bar", ("case/s", "sweep")),
                           ("quiet", ())):
        stream = io.StringIO()
        sweep.run_sweep(config, tmp_path / f"{mode}.parquet", workers=1, progress=mode, every=0.0, stream=stream)
        text = stream.getvalue()
        assert all(e in text for e in expected) and (text == "") == (mode == "quiet"), (mode, text)


def test_help_shows_an_example_and_the_config_format(capsys):
    code, out, _ = cli(capsys, "sweep", "--help")
    assert code == 0 and "Example:" in out and "{from = A, to = B, step = S}" in out and "[systems.tristat]" in out


# -------------------------------------------------------------- bad configs
BAD = {
    "unknown top key": ('[sweep]\nkind = "check"\n[systems.tristat]\n[extra]\n', "extra is not a known key"),
    "unknown sweep key": ('[sweep]\nkind = "check"\nmethd = "exact"\n[systems.tristat]\n', "sweep.methd"),
    "missing kind": ("[sweep]\n[systems.tristat]\n", "sweep.kind is missing"),
    "unknown kind": ('[sweep]\nkind = "melee"\n[systems.tristat]\n', "sweep.kind"),
    "unknown system": ('[sweep]\nkind = "check"\n[systems.gurps]\n',
                       "systems.gurps is not a known key; allowed: tristat"),
    "no systems": ('[sweep]\nkind = "check"\n[systems]\n', "systems.<id> is missing"),
    "unknown variant": ('[sweep]\nkind = "check"\n[systems.kurs]\nvariants = { clamp = [true] }\n',
                        "systems.kurs.variants.clamp is not a known key; allowed: dk_faces, defense_clamp"),
    "variant out of range": ('[sweep]\nkind = "check"\n[systems.tristat]\nvariants = { die = [6, 7] }\n',
                             "systems.tristat.variants.die = 7 is not allowed; allowed: one of 4, 6, 8"),
    "wrong type": ('[sweep]\nkind = "check"\n[systems.tristat]\ncheck = { target = "seven" }\n',
                   'systems.tristat.check.target = "seven" is not allowed; allowed: an integer'),
    "wrong bool type": ('[sweep]\nkind = "check"\n[systems.tristat]\nvariants = { shock_rule = 3 }\n',
                        "systems.tristat.variants.shock_rule = 3 is not allowed; allowed: true or false"),
    "check key in a duel": ('[sweep]\nkind = "duel"\n[systems.tristat]\ncheck = { target = 7 }\n'
                            'a = { archetype = "veteran" }\nb = { archetype = "trained" }\n',
                            "systems.tristat.check is not a known key; allowed: rules, variants, a, b"),
    "missing fighter": ('[sweep]\nkind = "duel"\n[systems.tristat]\na = { archetype = "veteran" }\n',
                        "systems.tristat.b is missing"),
    "unknown archetype": ('[sweep]\nkind = "exchange"\n[systems.tristat]\na = { archetype = "ninja" }\n'
                          'b = { archetype = "trained" }\n', 'systems.tristat.a.archetype = "ninja" is not allowed'),
    "fighter out of range": ('[sweep]\nkind = "duel"\n[systems.tristat]\na = { archetype = "veteran" }\n'
                             'b = { archetype = "trained", armor = [1, 500] }\n', "systems.tristat.b.armor = 500"),
    "derived value out of range": ('[sweep]\nkind = "duel"\n[systems.tristat]\na = { body = 40, soul = 40 }\n'
                                   'b = { archetype = "trained" }\n', "systems.tristat.a: tristat fighter: health"),
    "missing fighter file": ('[sweep]\nkind = "duel"\n[systems.tristat]\na = { file = "nope.toml" }\n'
                             'b = { archetype = "trained" }\n', 'systems.tristat.a.file = "nope.toml"'),
    "backwards range": ('[sweep]\nkind = "check"\n[systems.tristat]\ncheck = { target = { from = 6, to = 0 } }\n',
                        "systems.tristat.check.target"),
    "range as text": ('[sweep]\nkind = "check"\n[systems.tristat]\ncheck = { target = "2..12" }\n',
                      "{from = A, to = B, step = S}"),
    "empty list": ('[sweep]\nkind = "check"\n[systems.tristat]\ncheck = { target = [] }\n',
                   "systems.tristat.check.target = []"),
    "duplicate value": ('[sweep]\nkind = "check"\n[systems.tristat]\ncheck = { target = [6, 6] }\n',
                        "comes twice"),
    "n with exact": ('[sweep]\nkind = "check"\nn = 1000\n[systems.tristat]\n', "sweep.n = 1000"),
    "monte carlo without seed": ('[sweep]\nkind = "check"\nmethod = "monte_carlo"\nn = 1000\n[systems.tristat]\n',
                                 "sweep.seed is missing"),
    "monte carlo n out of range": ('[sweep]\nkind = "check"\nmethod = "monte_carlo"\nn = 0\nseed = 1\n'
                                   '[systems.tristat]\n', "sweep.n = 0"),
    "monte carlo exchange": ('[sweep]\nkind = "exchange"\nmethod = "monte_carlo"\nn = 10\nseed = 1\n'
                             '[systems.tristat]\na = { archetype = "veteran" }\nb = { archetype = "trained" }\n',
                             'sweep.method = "monte_carlo" is not allowed; allowed: exact'),
    "bad value in a second block": ('[sweep]\nkind = "check"\n[[systems.tristat]]\ncheck = { target = 5 }\n'
                                    '[[systems.tristat]]\ncheck = { target = 500 }\n',
                                    "systems.tristat[1].check.target = 500"),
    "empty block": ('[sweep]\nkind = "check"\n[systems.kurs]\n', "systems.kurs is empty"),
    "empty block in an array": ('[sweep]\nkind = "check"\n[[systems.kurs]]\ncheck = { skill = 1 }\n[[systems.kurs]]\n',
                                "systems.kurs[1] is empty"),
    "empty array of blocks": ('[sweep]\nkind = "check"\n[systems]\nkurs = []\n', "systems.kurs = []"),
    "a list for one list value": ('[sweep]\nkind = "check"\n[systems.kurs]\nvariants = { dk_faces = [-1, 0, 1] }\n',
                                  "for one list value write [[-1, 0, 1]]"),
    "rule set twice": ('[sweep]\nkind = "check"\n[systems.kurs]\nrules = { luck_tokens = 1 }\n'
                       'variants = { luck_tokens = [0, 2] }\n', "luck_tokens is set twice, in rules (1) and in variants"),
    "unknown inline rule": ('[sweep]\nkind = "check"\n[systems.kurs]\nrules = { luck = 1 }\n', "luck = 1 is not allowed"),
    "bad inline rule value": ('[sweep]\nkind = "check"\n[systems.kurs]\nrules = { luck_tokens = 99 }\n',
                              "luck_tokens = 99 is not allowed"),
    "missing rules file": ('[sweep]\nkind = "check"\n[systems.kurs]\nrules = "nope.toml"\n',
                           "systems.kurs.rules: rules file"),
    "rules as a number": ('[sweep]\nkind = "check"\n[systems.kurs]\nrules = 3\n', "systems.kurs.rules = 3"),
    "not toml": ('[sweep\nkind = "check"\n', "not valid TOML"),
    "a duplicate key": ('[sweep]\nkind = "check"\nkind = "duel"\n[systems.kurs]\ncheck = { skill = 1 }\n',
                        "not valid TOML"),
    "two identical blocks": ('[sweep]\nkind = "check"\n[[systems.kurs]]\ncheck = { skill = [1, 2] }\n'
                             '[[systems.kurs]]\ncheck = { skill = [1, 2] }\n', "systems.kurs[1] repeats systems.kurs[0]"),
    "an empty check table": ('[sweep]\nkind = "check"\n[systems.kurs]\ncheck = {}\n', "systems.kurs.check = {}"),
    "an empty variants table": ('[sweep]\nkind = "check"\n[systems.kurs]\nvariants = {}\ncheck = { skill = 1 }\n',
                                "systems.kurs.variants = {}"),
    "an empty fighter table": ('[sweep]\nkind = "duel"\n[systems.kurs]\na = {}\nb = { archetype = "novice" }\n',
                               "systems.kurs.a = {}"),
    "an invalid fighter in the last block": (
        '[sweep]\nkind = "duel"\n[[systems.tristat]]\na = { archetype = "veteran", weapon_damage = { from = 0, to = 20 } }'
        '\nb = { archetype = "trained" }\n[[systems.tristat]]\nvariants = { die = 4 }\na = { archetype = "veteran" }\n'
        'b = { archetype = "trained" }\n', "systems.tristat[1].a: tristat fighter 'veteran': body = 5 is not allowed"),
}


@pytest.mark.parametrize("name", BAD)
def test_bad_config_fails_cleanly(tmp_path, capsys, name):
    text, message = BAD[name]
    config, out = write(tmp_path, text, "bad config.toml"), tmp_path / "out.parquet"
    code, stdout, err = cli(capsys, "sweep", str(config), "--out", str(out))
    assert code == 2 and stdout == ""
    assert err.count("\n") == 1 and err.startswith("dicelab sweep: error: ") and str(config) in err, err
    assert message in err, err
    assert not out.exists() and not sweep.journal_path(out).exists()


def test_missing_feature_is_a_config_error(tmp_path, capsys, monkeypatch):
    real = sweep.config.get_system
    monkeypatch.setattr(sweep.config, "get_system",
                        lambda sid: dataclasses.replace(real(sid), duel=None) if sid == "kurs" else real(sid))
    text = '[sweep]\nkind = "duel"\n[systems.kurs]\na = { archetype = "novice" }\nb = { archetype = "novice" }\n'
    config, out = write(tmp_path, text), tmp_path / "out.parquet"
    code, _, err = cli(capsys, "sweep", str(config), "--out", str(out))
    assert code == 2 and 'systems.kurs: method = "exact" for kind = "duel" is not available for kurs' in err
    assert not out.exists()


def test_monte_carlo_without_a_simulator_is_a_config_error(tmp_path, capsys, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "sims.onesix" else real(name, *a))
    text = '[sweep]\nkind = "check"\nmethod = "monte_carlo"\nn = 100\nseed = 1\n[systems.onesix]\n'
    config, out = write(tmp_path, text), tmp_path / "out.parquet"
    code, _, err = cli(capsys, "sweep", str(config), "--out", str(out))
    assert code == 2 and "systems.onesix: " in err and "is not available for onesix" in err
    assert "allowed: systems tristat" in err and not out.exists()


# ------------------------------------------------------- refused before work
@pytest.mark.parametrize("out", ["", "   "])
def test_an_empty_out_is_refused_before_any_work(tmp_path, capsys, monkeypatch, out):
    monkeypatch.chdir(tmp_path)
    config = write(tmp_path, CHECKS)
    code, stdout, err = cli(capsys, "sweep", str(config), "--out", out)
    assert code == 2 and not stdout and err.count("\n") == 1 and "--out" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sweep.toml"]
    with pytest.raises(DicelabError, match="out = "):
        sweep.run_sweep(config, out, workers=1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sweep.toml"]


def test_an_out_in_a_missing_directory_is_refused_before_any_work(tmp_path, capsys):
    config = write(tmp_path, CHECKS)
    code, _, err = cli(capsys, "sweep", str(config), "--out", str(tmp_path / "nowhere" / "t.parquet"))
    assert code == 2 and "does not exist" in err and sorted(p.name for p in tmp_path.iterdir()) == ["sweep.toml"]


def test_parquet_without_pyarrow_is_one_line_saying_how_to_get_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # as if not installed: importing it fails
    config, out = write(tmp_path, CHECKS), tmp_path / "t.parquet"
    code, _, err = cli(capsys, "sweep", str(config), "--out", str(out), "--workers", "1", "--quiet")
    assert code == 2 and err.count("\n") == 1 and "needs pyarrow" in err and "'parquet' extra" in err and ".csv" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sweep.toml"]
    assert cli(capsys, "sweep", str(config), "--out", str(tmp_path / "t.csv"), "--workers", "1", "--quiet")[0] == 0


# ------------------------------------------------------------ house rules
def test_a_rules_file_relative_to_the_config_and_an_inline_table(tmp_path):
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "house.toml").write_text("[kurs]\nluck_tokens = 2\ndk_faces = \"fudge\"\n", encoding="utf-8")
    config = write(tmp_path, """
[sweep]
kind = "check"

[[systems.kurs]]
rules = "rules/house.toml"
variants = { defense_clamp = [true, false] }
check = { skill = [0, 1] }

[[systems.kurs]]
rules = { luck_tokens = 1 }
variants = { dk_faces = ["default", "d5"] }
check = { skill = 0 }
""")
    out = tmp_path / "house.csv"
    sweep.run_sweep(config, out, workers=1)
    df = pd.read_csv(out)
    kurs = get_system("kurs")
    assert list(df["variant_luck_tokens"]) == [2] * 4 + [1] * 2
    assert list(df["variant_dk_faces"][:4]) == ["-1,0,1"] * 4
    for _, row in df.iterrows():
        rules = kurs.rules(luck_tokens=int(row["variant_luck_tokens"]),
                           dk_faces=tuple(int(x) for x in row["variant_dk_faces"].split(",")),
                           defense_clamp=bool(row["variant_defense_clamp"]))
        assert row["p_success"] == kurs.check(rules, kurs.args(skill=int(row["check_skill"]))).p_success
    assert df["p_success"].nunique() > 2


def test_a_rules_file_without_the_blocks_system_is_refused(tmp_path, capsys):
    (tmp_path / "house.toml").write_text("[onesix]\nexplode_depth = 2\n", encoding="utf-8")
    config, out = write(tmp_path, '[sweep]\nkind = "check"\n[systems.kurs]\nrules = "house.toml"\n'), tmp_path / "o.csv"
    code, _, err = cli(capsys, "sweep", str(config), "--out", str(out))
    assert code == 2 and 'systems.kurs.rules = "house.toml" has no [kurs] table' in err and not out.exists()


def _sweepable_constant(system) -> tuple[str, list[int]] | None:
    """The first integer rule constant with a neighbour of its book value that the ruleset accepts: (name, [book,
    neighbour])."""
    def accepted(name: str, value: int) -> bool:
        try:
            system.check(system.rules(**{name: value}), system.args())
        except DicelabError:
            return False
        return True

    for name, spec in system.Rules.specs("constant").items():
        if isinstance(spec, sweep.config.Int):
            book = getattr(system.rules(), name)
            other = [v for v in (book + 1, book - 1) if accepted(name, v)]
            if other:
                return name, sorted([book, other[0]])
    return None


@pytest.mark.parametrize("system_id", SYSTEM_IDS)
def test_a_rule_constant_sweeps_like_a_variant(tmp_path, system_id):
    system = get_system(system_id)
    found = _sweepable_constant(system)
    if found is None:
        pytest.skip(f"{system_id} has no integer rule constant yet")
    name, values = found
    book = getattr(system.rules(), name)
    config = write(tmp_path, f'[sweep]\nkind = "check"\n[systems.{system_id}]\n'
                             f'variants = {{ {name} = {values} }}\n')
    out = tmp_path / "constant.csv"
    sweep.run_sweep(config, out, workers=1)
    df = pd.read_csv(out)
    assert list(df[f"variant_{name}"]) == values
    for value, p in zip(values, df["p_success"]):
        assert p == system.check(system.rules(**{name: value}), system.args()).p_success
    changed = df[df[f"variant_{name}"] != book]
    assert len(changed) == 1 and json.loads(changed["house_rules"].iloc[0]) == {name: int(changed[f"variant_{name}"].iloc[0])}


# ----------------------------------------------------------- strict output
NEVER_ENDS = """
[sweep]
kind = "duel"
method = "monte_carlo"
n = 300
seed = 3

[systems.tristat]
a = { archetype = "novice", armor = [0, 60] }
b = { archetype = "novice", armor = 60 }
"""


@pytest.mark.parametrize("name", ["never.csv", "never.parquet"])
def test_undefined_values_are_empty_cells_and_journals_strict_json(tmp_path, name):
    config, out = write(tmp_path, NEVER_ENDS), tmp_path / name
    sweep.run_sweep(config, out, workers=1, keep_journal=True)
    for row in journal_lines(out):  # strict_json refuses NaN and Infinity
        assert "mean_rounds" in row
    text = out.read_bytes()
    assert b"nan" not in text.lower() and b"inf" not in text.lower().replace(b"info", b"")
    df = pd.read_csv(out) if name.endswith(".csv") else pd.read_parquet(out)
    ended, endless = df.iloc[0], df.iloc[1]
    assert pd.notna(ended["mean_rounds"]) and ended["never_ends"] == False  # noqa: E712
    assert pd.isna(endless["mean_rounds"]) and pd.isna(endless["median_rounds"]) and endless["never_ends"] == True  # noqa: E712
    assert endless["rounds_note"].startswith("this fight never ends")


def test_rows_stream_in_row_groups(tmp_path, monkeypatch):
    monkeypatch.setattr(output, "ROW_GROUP", 7)
    config, out = write(tmp_path, CHECKS), tmp_path / "groups.parquet"
    sweep.run_sweep(config, out, workers=1)
    import pyarrow.parquet as pq

    whole = pd.read_parquet(out)
    assert pq.ParquetFile(out).num_row_groups == -(-len(whole) // 7)
    monkeypatch.setattr(output, "ROW_GROUP", 10_000)
    sweep.run_sweep(config, tmp_path / "one.parquet", workers=1)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "one.parquet"), whole)


def test_an_exact_duel_past_the_memory_ceiling_is_refused_before_work(tmp_path, capsys):
    config = write(tmp_path, """
[sweep]
kind = "duel"

[systems.tristat]
variants = { stat_limits = "warn" }
a = { health = [20, 300] }
b = { health = 300 }
""")
    out = tmp_path / "big.csv"
    code, stdout, err = cli(capsys, "sweep", str(config), "--out", str(out), "--max-memory", "0.3", "--quiet")
    assert code == 2 and not stdout and err.count("\n") == 1
    assert "case 1 (tristat): tristat duel too large" in err and "--max-memory 1 allows it" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sweep.toml"]


# ------------------------------------------------ what is kept is counted; a full disk (issue 26.5, 26.7)
def test_the_journal_counts_what_it_holds_as_it_grows(tmp_path):
    config = write(tmp_path, '[sweep]\nkind = "check"\n[systems.tristat]\ncheck = { target = { from = 2, to = 11 } }\n')
    cases = sweep.expand(sweep.load_config(config))
    with sweep.Journal(tmp_path / "o.csv", cases.ids, str(config)) as journal:
        assert int(journal.done().sum()) == 0
        journal.append([{"case_id": f"{int(cases.ids[i]):016x}", "dicelab_version": __version__, "p": 0.5}
                        for i in range(4)])
        assert int(journal.done().sum()) == 4  # not the count at open


def test_a_full_disk_is_one_line_and_keeps_the_finished_cases(tmp_path):
    """The journal's file may not grow past 2,500 bytes (RLIMIT_FSIZE: writes fail as on a full disk): one line,
    exit 2, the whole lines before kept; run again with room, the sweep resumes from them."""
    import resource

    config = write(tmp_path, '[sweep]\nkind = "check"\n[systems.tristat]\ncheck = { target = { from = 2, to = 12 } }\n')
    out = tmp_path / "o.csv"
    argv = [sys.executable, "-c", "import sys; from analysis.front.cli import main; sys.exit(main())", "sweep",
            str(config), "--out", str(out), "--workers", "1", "--quiet"]
    full = subprocess.run(argv, capture_output=True, text=True, timeout=120,
                          preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (2500, 2500)))
    assert full.returncode == 2 and full.stderr.count("\n") == 1, full.stderr
    assert "rows.jsonl: cannot be written (File too large)" in full.stderr and "kept in" in full.stderr
    lines = (sweep.journal_path(out) / "rows.jsonl").read_bytes()
    assert lines.endswith(b"\n") and 0 < lines.count(b"\n") < 11
    again = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and len(pd.read_csv(out)) == 11


# ------------------------------------------------------------------ play
def test_a_played_sweep_is_the_duel_of_the_equilibrium_scripts(tmp_path):
    """``play = "equilibrium"``: 2K's equilibrium here is both never parrying (the scripts' game), so each row is
    the plain chain's duel of two fighters who never parry; every row echoes the play."""
    from analysis.fights.fighters import load_fighter
    from analysis.systems import get_system

    config = write(tmp_path, """
[sweep]
kind = "duel"
play = "equilibrium"

[systems.onesix]
a = { archetype = "trained_armed", reflexes = [7, 9] }
b = { archetype = "trained_armed" }
""")
    out = tmp_path / "played.parquet"
    sweep.run_sweep(config, out, workers=1)
    df = pd.read_parquet(out)
    onesix = get_system("onesix")
    plain = load_fighter(onesix, "trained_armed").replace(parry="never")
    assert list(df["play"]) == ["equilibrium"] * 2
    for row in df.itertuples():
        duel = onesix.duel(onesix.rules(), plain.replace(reflexes=int(row.a_reflexes)), plain).solution
        assert row.p_a_wins == pytest.approx(duel.p_a_wins, abs=1e-9)


@pytest.mark.parametrize("head,word", [('kind = "check"\nplay = "best"', "play"),
                                       ('kind = "duel"\nplay = "well"', "play")])
def test_a_play_the_sweep_cannot_use_is_refused(tmp_path, head, word):
    config = write(tmp_path, f"[sweep]\n{head}\n\n[systems.onesix]\n")
    with pytest.raises(DicelabError, match=word):
        sweep.expand(sweep.load_config(config))


# ------------------------------------------------------------------ group fights
def test_a_group_sweep_is_the_exact_group_chain_and_one_against_one_the_duel(tmp_path):
    """``kind = "group"``: sides written as on the command line (side files read beside the config); a one-fighter
    side is the duel, a larger one the exact group chain, every row naming its sides; Monte Carlo rows agree with the
    exact chain within 4 SE."""
    from analysis.fights.budget import exact_duel, exact_group
    from analysis.fights.fighters import load_fighter
    from analysis.systems import get_system

    (tmp_path / "party.toml").write_text('side = ["novice_armed", "trained_armed"]\n', encoding="utf-8")
    config = write(tmp_path, """
[sweep]
kind = "group"

[systems.tun]
a = { side = ["trained_armed", "party.toml"] }
b = { side = ["novice_armed", "2*novice_armed"] }
""")
    out = tmp_path / "groups.parquet"
    sweep.run_sweep(config, out, workers=1)
    df = pd.read_parquet(out).set_index(["a_side", "b_side"])
    tun = get_system("tun")
    hero, mook = load_fighter(tun, "trained_armed"), load_fighter(tun, "novice_armed")
    assert df.loc[("trained_armed", "novice_armed"), "p_a_wins"] == pytest.approx(
        exact_duel(tun, tun.rules(), hero, mook).solution.p_a_wins, abs=1e-12)
    party = exact_group(tun, tun.rules(), [mook, hero], [mook, mook]).solution
    assert df.loc[("party.toml", "2*novice_armed"), "p_a_wins"] == pytest.approx(party.p_a_wins, abs=1e-12)
    assert list(df["b_fighters"]) == [1, 2, 1, 2] and set(df["kind"]) == {"group"}
    mc = write(tmp_path, """
[sweep]
kind = "group"
method = "monte_carlo"
n = 4000
seed = 3

[systems.tun]
a = { side = "trained_armed" }
b = { side = "2*novice_armed" }
""", "mc.toml")
    sweep.run_sweep(mc, tmp_path / "mc.csv", workers=1)
    row = pd.read_csv(tmp_path / "mc.csv").iloc[0]
    two = exact_group(tun, tun.rules(), [hero], [mook, mook]).solution
    assert abs(row["p_a_wins"] - two.p_a_wins) <= 4 * max(row["se_p_a_wins"], 1 / 4000)


@pytest.mark.parametrize("body,word", [('a = { side = "0*red" }\nb = { side = "red" }', "count 0"),
                                       ('a = { archetype = "red" }\nb = { side = "red" }', "archetype")])
def test_a_bad_group_block_is_refused_naming_its_key(tmp_path, body, word):
    config = write(tmp_path, f'[sweep]\nkind = "group"\n\n[systems.tun]\n{body}\n')
    with pytest.raises(DicelabError, match=word):
        sweep.expand(sweep.load_config(config))


def test_a_group_block_without_a_simulator_is_refused(tmp_path, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "sims.onesix" else real(name, *a))
    config = write(tmp_path, '[sweep]\nkind = "group"\nmethod = "monte_carlo"\nn = 100\nseed = 1\n\n'
                             '[systems.onesix]\na = { side = "red" }\nb = { side = "red" }\n')
    with pytest.raises(DicelabError, match="not available for onesix"):
        sweep.expand(sweep.load_config(config))
