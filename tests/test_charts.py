"""The figures say what the data says: each check below reads a figure's own data (its traces, axes, categories,
marks, layout) against an independent computation, for the defects a designer found: axes stretched by
negligible tails, conditions in the wrong order, one setup's range cut to the other's, a hover showing one
system, an inconsistent standard check, empty rows, unreadable labels and figures that say nothing."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from analysis import get_system
from analysis.fights.fighters import load_fighter
from analysis.present import plots
from analysis.systems.tristat import DICE
from analysis.tools import compare
from tests import brute

pytest.importorskip("dash")

from analysis.front.app.pages import checks, duel  # noqa: E402
from analysis.front.app.pages import compare as compare_page  # noqa: E402


def figure(body, name: str) -> dict:
    """The plotly figure of the graph ``fig-NAME`` in a page's body."""
    for node in _walk(body):
        if type(node).__name__ == "Graph" and node.id == f"fig-{name}":
            return node.figure
    raise AssertionError(f"no figure {name}")


def _walk(node):
    yield node
    children = getattr(node, "children", None) if not isinstance(node, (list, tuple)) else node
    if isinstance(children, (list, tuple)):
        for child in children:
            yield from _walk(child)
    elif children is not None and not isinstance(children, str):
        yield from _walk(children)


# ------------------------------------------------------------------ the app
def test_an_exploding_die_does_not_stretch_the_distribution_axis():
    """2K's rule of 1 and 6 explodes without limit: the distribution holds values far out at 1e-18, but the axis
    runs over the values a bar can show (P >= 0.01%), taken from an independent enumeration."""
    state = {"system": "onesix", "c.rating": "9"}
    res = checks.compute(state)
    fig = figure(checks.view(res, state, "en")[0], "distribution")
    level = {k: float(v) for k, v in brute.onesix_check(9)[1].items()}
    shown = [k for k, p in level.items() if p >= 1e-4]
    assert max(fig["data"][0]["x"]) > max(shown) + 10  # the data's tail is there ...
    assert fig["layout"]["xaxis"]["range"] == [min(shown) - 0.6, max(shown) + 0.6]  # ... the axis is not


def test_the_damage_axis_follows_the_visible_damage():
    six = get_system("onesix")
    a, b = load_fighter(six, "veteran"), load_fighter(six, "trained_armed")
    ex = six.exchange(six.rules(), a, b)
    body, _ = duel.exchange_view(ex, "ab", "en")
    fig = figure(body, "damage-ab")
    visible = [k for k, p in ex.damage.to_dict().items() if p >= 1e-4]
    assert fig["layout"]["xaxis"]["range"] == [min(visible) - 0.6, max(visible) + 0.6]


LEVELS = ("fatigue", "light", "medium", "heavy")


def kurs_severity(label: str) -> tuple:
    """K.U.R.S. conditions from the lightest: by the heaviest level marked, then the counts (RULES.md section 4's
    track: fatigue < light < medium < heavy < incapacitated < dying)."""
    if label in ("incapacitated", "dying"):
        return (len(LEVELS) + ("incapacitated", "dying").index(label),)
    marked = dict(part.rsplit(" ", 1) for part in label.split(", ")) if label != "unhurt" else {}
    return tuple(int(marked.get(level, 0)) for level in reversed(LEVELS))


def test_the_condition_chart_runs_from_unhurt_to_dying_with_a_whole_title():
    kurs = get_system("kurs")
    ex = kurs.exchange(kurs.rules(), load_fighter(kurs, "maximus"), load_fighter(kurs, "tiberius"))
    fig = figure(duel.exchange_view(ex, "ab", "en")[0], "after-ab")
    x = fig["data"][0]["x"]
    assert set(x) == set(ex.condition_after) and len(x) > 4
    assert x == sorted(x, key=kurs_severity) and x[0] == "unhurt" and x[-1] == "dying"
    title = fig["layout"]["title"]["text"]
    assert title.split("<br>")[0] == "Defender's condition after it" and "offense" in title.split("<br>")[1]
    assert fig["layout"]["margin"]["t"] >= 80


def test_two_setups_compare_over_both_ranges():
    """Tri-Stat on d6 against d8: the d8's targets past the d6's range stay (2d8 runs to 16)."""
    state = {"mode": "variants", "system": "tristat", "r2.die": "8"}
    body, tables = compare_page.view(compare_page.compute(state), state, "en")
    curve = tables["checks"]
    for column, die in (("Setup 1", 6), ("Setup 2", 8)):
        part = curve[curve[column].notna()]
        assert set(range(2, 2 * die + 1)) <= set(part["target"])
        for t, p in zip(part["target"], part[column]):
            if 2 <= t <= 2 * die:
                assert brute.close(p, brute.tristat_check(die, t)[0])
    fig = figure(body, "checks")
    assert max(fig["data"][1]["x"]) >= 16 and fig["data"][0]["y"][list(fig["data"][0]["x"]).index(16)] is None


def test_app_axes_speak_russian_numbers():
    state = {"system": "tun", "lang": "ru"}
    fig = figure(checks.view(checks.compute(state), state, "ru")[0], "curve")
    assert fig["layout"]["separators"][0] == ","


# --------------------------------------------------------------- the report
def test_line_charts_hover_every_system_at_once():
    chart = plots.success_curves(compare.success_curves())
    layout = chart.plotly().layout
    assert layout.hovermode == "x unified" and len(chart.panels[0].traces) == 4
    assert plots.variant_effects(compare.variant_effects()).plotly().layout.hovermode == "closest"


def test_legends_stand_clear_of_the_titles():
    from analysis.fights import lethality

    fig = plots.skill_gap(lethality.skill_gap("tun", gaps=(0, 1))).plotly()
    assert fig.layout.legend.orientation == "v" and fig.layout.legend.x > 1


@pytest.mark.parametrize("die", DICE)
def test_the_standard_check_is_the_target_nearest_one_half_lower_on_a_tie(die):
    """Every die alike: P(2dX <= t) from an enumeration, the target whose P is nearest 1/2; a tie (symmetric 2dX)
    goes to the lower target, on 2d12 as on 2d6."""
    p = {t: brute.tristat_check(die, t)[0] for t in range(2, 2 * die + 1)}
    want = min(p, key=lambda t: (abs(p[t] - Fraction(1, 2)), t))
    crits = compare.crits_and_fumbles()
    row = crits[(crits["system"] == "tristat") & (crits["dice"] == f"2d{die}")].iloc[0]
    assert row["value"] == want and brute.close(row["p_success"], p[want])


@pytest.fixture(scope="module")
def effects():
    return compare.variant_effects()


def test_no_variant_row_is_left_blank(effects):
    """Every row of every panel has a bar or says why not: 0, refused (the rules refused the duel: Tri-Stat's d4
    puts trained_armed past its stat limits) or n/a (the check table already runs over every die)."""
    chart = plots.variant_effects(effects)
    for panel in chart.panels:
        bars = {c for t in panel.traces for c, v in zip(t.y, t.x) if v not in (None, 0.0)}
        marked = dict(panel.marks)
        assert set(panel.categories) == bars | set(marked), panel.title
    die4 = "Tri-Stat: die=4"
    assert dict(chart.panels[0].marks)[die4] == "n/a" and dict(chart.panels[1].marks)[die4] == "refused"
    zero = effects[(effects["d_p_a_wins"] == 0) & (effects["d_p_killed"] == 0) & (effects["check_shift"] == 0)]
    assert len(zero) and all(dict(chart.panels[1].marks)[f"{plots.label('en', 'short', s)}: {v}"] == "0"
                             for s, v in zip(zero["system"], zero["variant"]))


def test_variant_labels_are_readable(effects):
    chart = plots.variant_effects(effects)
    assert chart.cols == 2 and chart.row_height / len(effects) >= 0.25
    fig = chart.plotly()
    assert fig.layout.yaxis.tickfont.size >= 11
    ax = chart.matplotlib().axes[0]
    assert min(t.get_fontsize() for t in ax.get_yticklabels()) >= 8


def test_tables_hold_no_float_noise(effects):
    for df in (effects, compare.policy_effects()):
        values = df.select_dtypes("float").to_numpy().ravel()
        values = values[~np.isnan(values)]
        assert not ((values != 0) & (np.abs(values) < 1e-12)).any()


def test_the_swing_figure_is_the_points_from_ten_to_ninety_percent():
    """Tri-Stat 2d6: P(2d6 <= t) enumerated, the targets where it crosses 10% and 90% interpolated between
    neighbours; the figure's bar is their distance."""
    p = {t: float(brute.tristat_check(6, t)[0]) for t in range(2, 13)}

    def cross(level: float) -> float:
        t = min(t for t in p if p[t] >= level)
        return t - 1 + (level - p[t - 1]) / (p[t] - p[t - 1])

    chart = plots.swing(compare.swing_table(compare.success_curves()))
    bars = {t.name: t.x[0] for t in chart.panels[0].traces}
    assert bars["Tri-Stat dX"] == pytest.approx(cross(0.9) - cross(0.1), abs=1e-12)
    assert len(set(round(v, 6) for v in bars.values())) == len(bars) == 4  # four different answers, not flat lines
