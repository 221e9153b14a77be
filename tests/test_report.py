"""`make report`'s job: tables per system and the success-curve figure."""

from __future__ import annotations

import matplotlib.image as mpimg
import pandas as pd
import pytest

from analysis.compare import fifty_point, success_curves
from analysis.plots import success_curves as plot_curves
from analysis.report import build_report
from analysis.system import SYSTEM_IDS
from tests import brute
from tests.brute import close


def test_report_writes_tables_and_figure(tmp_path):
    written = build_report(tmp_path)
    names = {p.name for p in written}
    for sid in SYSTEM_IDS:
        assert {f"{sid}_checks.csv", f"{sid}_checks.md"} <= names
        df = pd.read_csv(tmp_path / f"{sid}_checks.csv")
        assert df["p_success"].between(0, 1).all() and len(df) > 5
    image = mpimg.imread(tmp_path / "success_curves.png")
    assert image.shape[0] > 300 and image.shape[1] > 500
    assert not any(p.name.endswith(".tmp") for p in tmp_path.iterdir())


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
    import numpy as np

    assert fifty_point(np.array([0, 1]), np.array([0.0, 1.0])) == pytest.approx(0.5)
    with pytest.raises(ValueError):
        fifty_point(np.array([0, 1]), np.array([0.6, 0.7]))


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_figure_has_title_labels_and_legend(lang):
    fig = plot_curves(success_curves(), lang=lang)
    ax = fig.axes[0]
    assert ax.get_title() and ax.get_xlabel() and ax.get_ylabel()
    assert len(ax.get_legend().get_texts()) == 4
