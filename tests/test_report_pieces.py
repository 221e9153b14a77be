"""`make report`'s pieces that need no whole report: the command line's section names, the lethality and
hits-to-out tables against the rule text and the duels, a report drawn against a baseline, captions, charts in a
notebook and without a backend, the success curves' fifty-percent alignment, and the Russian explanations of every
field (split from tests/test_report.py, whose default report takes minutes, so the two files run side by side)."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import matplotlib.image as mpimg
import numpy as np
import pandas as pd
import pytest

from analysis.base.params import DicelabError
from analysis.fights import lethality
from analysis.fights.setup import Setup
from analysis.front.report import ITEMS, SECTIONS, build_report, findings
from analysis.front.report.config import load_setup
from analysis.present import plots
from analysis.present.chart import Chart
from analysis.present.i18n import system_name
from analysis.systems import SYSTEM_IDS, get_system
from analysis.tools import compare
from analysis.tools.compare import fifty_point, success_curves
from tests import brute
from tests.brute import close
from tests.test_report import spying_on_compute

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "report.toml"


def test_the_command_line_names_the_report_sections():
    from analysis.front.cli import report as cli_report

    assert cli_report.SECTIONS == SECTIONS


def test_the_report_tables_do_not_depend_on_how_their_parts_are_shared_out(monkeypatch):
    """``compute`` runs its independent parts in worker processes, the longest first; in one process, in the
    order they are listed, every table is the same (each part is deterministic) and the tables come in the same
    order."""
    import analysis.front.report as report

    sections = ["checks", "tactics"]
    parallel = report.compute(Setup.build(), sections)
    monkeypatch.setattr(report, "cores", lambda: 1)
    alone = report.compute(Setup.build(), sections)
    assert list(parallel) == list(alone) and {"policies", "assumption_ranges", "curves"} <= set(alone)
    for name, table in alone.items():
        pd.testing.assert_frame_equal(parallel[name], table, check_exact=True)


def test_tactics_cover_every_policy_and_say_which_are_refused():
    """Generic over the fighters' policy fields: one row per other value; a fighter who stops defending in ТУН
    gives up its Body defense, which can only cost it; an option the rules refuse for this fighter is noted."""
    df = compare.policy_effects()
    from analysis.systems import all_systems
    from analysis.tools.variants import alternatives

    setup = Setup.build()
    expected = [(s.id, label) for s in all_systems()
                for _, _, label in alternatives(s.Fighter.specs("policy"), setup.fighters(s.id)[0])]
    assert expected == list(zip(df["system"], df["option"]))
    undefended = df[df["option"] == "defends=false"].iloc[0]
    assert undefended["d_p_a_wins"] < -0.1
    said = {f.key: f for f in findings.tactics({"policies": df}, "en")}
    assert "defends=false" in said["worth"].facts["bad"]
    refused = df[df["note"] != ""]
    assert set(said.get("refused", findings.Finding("", {"options": []}, "")).facts["options"]) == set(refused["option"])
    chart = plots.policy_effects(df)
    assert len(chart.panels) == 4 and len(chart.panels[0].categories) == len(df) - len(refused)


def test_hits_to_out_against_the_rule_text():
    """Tri-Stat trained_armed on itself, enumerated from RULES.md section 1: attack 2d6 <= acv 5 + 1 (natural 2 a
    critical: 2 x 10 + 5, no defense; natural 12 misses), defense 2d6 <= dcv 3 + 1, damage 10 x (100, 75, 50, 25%)
    floored + 5 by the damage roll; out once more than Health 45 is taken."""
    two = {s: Fraction(sum(1 for a in range(1, 7) for b in range(1, 7) if a + b == s), 36) for s in range(2, 13)}
    hit = sum(p for s, p in two.items() if 2 < s <= 6)
    defends = sum(p for s, p in two.items() if s == 2 or (s <= 4 and s != 12))
    band = {s: 15 if s <= 3 else 12 if s <= 6 else 10 if s <= 10 else 7 for s in two}
    damage: dict[int, Fraction] = {0: 1 - hit - two[2] + hit * defends, 25: two[2]}
    for s, p in two.items():
        damage[band[s]] = damage.get(band[s], 0) + hit * (1 - defends) * p
    landed = {d: p / (1 - damage[0]) for d, p in damage.items() if d}

    def out_by(per_attack: dict[int, Fraction], k: int) -> Fraction:
        taken = {0: Fraction(1)}
        for _ in range(k):
            nxt: dict[int, Fraction] = {}
            for t, p in taken.items():
                for d, q in per_attack.items():
                    key = min(t + d, 46)
                    nxt[key] = nxt.get(key, 0) + p * q
            taken = nxt
        return taken.get(46, Fraction(0))

    df = lethality.hits_to_out("tristat")
    for measure, per, ks in (("attacks", damage, (1, 2, 3, 4, 5, 8, 12, 20)), ("hits", landed, (1, 2, 3, 4, 5))):
        for k in ks:
            row = df[(df["measure"] == measure) & (df["k"] == k)]
            assert close(row["p_out"].iloc[0], out_by(per, k)), (measure, k)


@pytest.mark.parametrize("sid", SYSTEM_IDS)
def test_hits_to_out_is_a_distribution_in_every_system(sid):
    df = lethality.hits_to_out(sid)
    for measure, part in df.groupby("measure"):
        p = part["p_out"].to_numpy()
        assert (np.diff(p) >= -1e-12).all() and p[-1] > 1 - 1e-6
    first = get_system(sid).exchange(get_system(sid).rules(), *Setup.build().fighters(sid))
    assert df[(df["measure"] == "attacks") & (df["k"] == 1)]["p_out"].iloc[0] <= first.p_hit + first.p_graze + 1e-12


@pytest.mark.parametrize("sid", SYSTEM_IDS)
def test_lethality_curve_is_the_duel_at_each_allowance(sid):
    """The figure's curve, point by point: k = 0 is the duel stopped at the first out (no finishing code at all),
    k >= 1 the duel with after_out=finish and finish_attacks=k, each solved on its own."""
    s, setup = get_system(sid), Setup.build()
    a, b = setup.fighters(sid)
    chart = plots.lethality(lethality.finishing(sid, setup))
    (trace,) = chart.panels[0].traces
    assert list(trace.x) == list(range(s.rules().finish_attacks + 1))
    for k in (0, 1, 2, 5, trace.x[-1]):
        rules = s.rules() if k == 0 else s.rules(after_out="finish", finish_attacks=k)
        d = s.duel(rules, a, b).to_dict()
        both = sum(p for pair, p in d["final"].items() if set(pair.split("/")) <= {"dying", "dead"})
        assert trace.y[k] == pytest.approx(d["p_a_dying"] + d["p_b_dying"] - both, abs=1e-12), k
    assert all(y2 >= y1 - 1e-12 for y1, y2 in zip(trace.y, trace.y[1:])) and 0 <= trace.y[0] and trace.y[-1] <= 1
    (bar,) = chart.panels[1].traces
    stop = s.duel(s.rules(), a, b).to_dict()
    decided = stop["p_a_wins"] + stop["p_b_wins"] + stop["p_both_out"]
    assert bar.x[0] == pytest.approx(trace.y[0] / decided, abs=1e-12)


def test_lethal_at_dead_is_not_defined_where_a_system_has_no_dead():
    setup = Setup.build(rules={s: {"lethal_at": "dead"} for s in SYSTEM_IDS})
    t = pd.concat([lethality.finishing(s, setup) for s in SYSTEM_IDS], ignore_index=True)
    missing = set(t[t["p_killed"].isna()]["system"])
    assert missing == {s for s in SYSTEM_IDS if get_system(s).levels.get("dead") is None}
    chart = plots.lethality(t)
    assert {tr.name for tr in chart.panels[0].traces} == {system_name("en", s) for s in SYSTEM_IDS if s not in missing}
    assert all(system_name("en", s) in chart.panels[0].note for s in missing)
    said = {f.key: f for f in findings.lethality({"lethality": t, "hits_to_out": lethality.hits_to_out("tun")}, "en")}
    assert said["undefined"].facts["systems"] == [s for s in SYSTEM_IDS if s in missing]
    if len(SYSTEM_IDS) - len(missing) >= 2:
        assert set(said["order"].facts["stop"]) == set(SYSTEM_IDS) - missing
    else:  # one system with a dead level: nothing to order
        assert "order" not in said


def test_compare_draws_every_figure_against_a_baseline(tmp_path, monkeypatch):
    mine = load_setup(EXAMPLE)
    computed = spying_on_compute(monkeypatch)
    build_report(tmp_path, sections=("checks", "lethality"), setup=mine, baseline=Setup.build(name="default"))
    page = html.unescape((tmp_path / "index.html").read_text(encoding="utf-8"))
    assert 'id="house"' in page and "heroic campaign" in page and "die" in page
    df = pd.read_csv(tmp_path / "success_curves.csv")
    assert set(df["setup"]) == {"heroic campaign", "default"}
    assert '"heroic campaign: Tri-Stat dX"' in page or "heroic campaign: Tri-Stat dX" in page
    (tables,) = [t for setup, sections, t in computed if setup == mine and sections == ("checks", "lethality")]
    for item in (i for i in ITEMS if i.section in ("checks", "lethality")):
        chart = plots.CHARTS[item.name](tables[item.table])
        assert mpimg.imread(tmp_path / f"{item.name}.png").shape[1] > 900
        assert len(chart.panels) >= 1


def test_captions_name_the_model_and_every_reading(tmp_path):
    setup = Setup.build(rules={"tristat": {"die": 8}, "kurs": {"defense_clamp": "false"}})
    from analysis.front.report import caption

    check = caption(next(i for i in ITEMS if i.name == "success_curves"), setup, "en")
    assert "Exact" in check and "die=8" in check and "defense_clamp=false" in check and "book's rules" in check
    duel = caption(next(i for i in ITEMS if i.name == "lethality"), setup, "en")
    assert "Markov" in duel and "after_out=stop (0) or after_out=finish (1 to 10 attacks)" in duel and "trained_armed" in duel


def test_plotting_picks_no_backend():
    code = ("import sys; import analysis.present.plots, analysis.front.report, analysis.present.chart as c; "
            "c.Chart('x', 'x', (c.Panel((c.Trace((0, 1), (0, 1), 'a'),)),)).png(); "
            "print('matplotlib.pyplot' in sys.modules)")
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "False"


def test_chart_shows_itself_in_a_notebook():
    chart = plots.rounds(lethality.rounds_distribution("tun"))
    bundle = chart._repr_mimebundle_()
    assert bundle["image/png"] and bundle["application/vnd.plotly.v1+json"]["data"]
    assert isinstance(chart, Chart)


def test_success_curves_are_aligned_at_fifty_percent():
    df = success_curves()
    assert set(df["system"]) == set(SYSTEM_IDS)
    for _, part in df.groupby("system"):
        below = part[part["modifier"] < 0]["p_success"]
        above = part[part["modifier"] > 0]["p_success"]
        assert (below < 0.5).all() and (above >= 0.5).all()
    tristat = df[df["system"] == "tristat"]
    for _, row in tristat.iterrows():
        assert close(row["p_success"], brute.tristat_check(6, int(row["value"]))[0])


def test_fifty_point_interpolates():
    assert fifty_point(np.array([0, 1]), np.array([0.0, 1.0])) == pytest.approx(0.5)
    with pytest.raises(ValueError):
        fifty_point(np.array([0, 1]), np.array([0.6, 0.7]))


def test_report_rejects_an_unknown_language(tmp_path):
    with pytest.raises(DicelabError, match="lang"):
        build_report(tmp_path, lang="fr")
    assert not any(tmp_path.iterdir())


def test_every_rule_field_has_a_russian_explanation():
    """The Russian report explains every variant, constant, option and fighter field it may name."""
    from analysis.present.i18n import field_text

    missing = [(s, i.name) for s in SYSTEM_IDS for cls in (get_system(s).Rules, get_system(s).Fighter)
               for i in cls.describe() if not re.search("[а-я]", field_text("ru", s, i.name, i.help))]
    assert not missing, f"add to analysis/present/i18n.py FIELDS_RU: {missing}"
