"""`make report`: every table and figure, index.html readable from disk in a real browser, and --lang ru."""

from __future__ import annotations

import os
import re
import shutil

import matplotlib.image as mpimg
import pandas as pd
import pytest

from analysis import compare, lethality, plots
from analysis.compare import fifty_point, success_curves
from analysis.report import build_report
from analysis.system import SYSTEM_IDS
from tests import brute
from tests.brute import close

BROWSER = os.environ.get("DICELAB_BROWSER") or shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    return out, build_report(out)


def test_report_writes_every_table_and_figure(report):
    out, written = report
    names = {p.name for p in written}
    for sid in SYSTEM_IDS:
        assert {f"{sid}_checks.csv", f"{sid}_checks.md"} <= names
    pngs = [n for n in names if n.endswith(".png")]
    assert len(pngs) >= 10
    for png in pngs:
        assert png.replace(".png", ".csv") in names
        image = mpimg.imread(out / png)
        assert image.shape[0] > 300 and image.shape[1] > 500
    assert not any(p.name.endswith(".tmp") for p in out.iterdir())


def test_index_links_every_figure_and_table(report):
    out, _ = report
    page = (out / "index.html").read_text(encoding="utf-8")
    for src in re.findall(r'(?:src|href)="([^"]+)"', page):
        assert (out / src).is_file(), src
    assert "die=6" in page and "dk_faces=-2,-1,0,0,1,2" in page


@pytest.mark.skipif(not BROWSER and not os.environ.get("DICELAB_REQUIRE_BROWSER"), reason="no chromium on this machine")
def test_figures_load_in_a_headless_browser(report):
    from playwright.sync_api import sync_playwright

    out, _ = report
    assert BROWSER, "DICELAB_REQUIRE_BROWSER is set but no chromium was found"
    args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=BROWSER, args=args)
        page = browser.new_page()
        page.goto((out / "index.html").as_uri())
        images = page.evaluate("Array.from(document.images).map(i => [i.getAttribute('src'), i.complete, i.naturalWidth])")
        title = page.title()
        browser.close()
    assert title and len(images) >= 10
    assert all(complete and width > 0 for _, complete, width in images), images


def test_russian_report_uses_the_systems_terms(tmp_path):
    build_report(tmp_path, lang="ru", sections=("checks",))
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert 'lang="ru"' in page and "Предел" in page and "Рейтинг действия" in page and "Проверки" in page


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


TABLES = {
    "success_curves": compare.success_curves, "success_absolute": compare.success_curves,
    "worth": compare.worth_table, "outcome_distributions": compare.outcome_at_fifty,
    "crits_and_fumbles": compare.crits_and_fumbles, "dice_families": compare.dice_families,
}


@pytest.mark.parametrize("lang", ["en", "ru"])
@pytest.mark.parametrize("name", list(TABLES) + ["skill_gap", "rounds", "lethality", "damage"])
def test_every_plot_has_a_title_axis_labels_and_a_legend(name, lang):
    if name in TABLES:
        df = TABLES[name]()
    else:
        table = {"skill_gap": "skill_gap", "lethality": "skill_gap", "rounds": "rounds", "damage": "damage"}[name]
        df = pd.concat([getattr(lethality, {"skill_gap": "skill_gap", "rounds": "rounds_distribution",
                                            "damage": "damage_per_exchange"}[table])(s) for s in SYSTEM_IDS])
    fig = getattr(plots, name)(df, lang=lang)
    title = fig._suptitle.get_text() if fig._suptitle else fig.axes[0].get_title()
    assert title
    for ax in fig.axes:
        assert ax.get_xlabel() and ax.get_ylabel() is not None
        assert ax.get_legend() is not None and ax.get_legend().get_texts()


def test_report_rejects_an_unknown_language(tmp_path):
    from analysis.params import DicelabError

    with pytest.raises(DicelabError, match="lang"):
        build_report(tmp_path, lang="fr")
    assert not any(tmp_path.iterdir())
