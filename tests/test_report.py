"""`make report`: one self-contained index.html with findings, interactive figures and inline tables; PNG and
CSV for rulebooks; the designer's setup and a baseline; Russian throughout; figures that say what made them."""

from __future__ import annotations

import contextlib
import html
import io
import os
import re
import shutil
from fractions import Fraction

import matplotlib.image as mpimg
import numpy as np
import pandas as pd
import pytest

from analysis.fights import lethality
from analysis.fights.fighters import load_fighter
from analysis.fights.setup import Setup
from analysis.front.cli import main
from analysis.front.report import ITEMS, SECTIONS, build_report, findings
from analysis.present import plots
from analysis.present.i18n import label, percent
from analysis.systems import SYSTEM_IDS, get_system
from analysis.tools import crowds
from tests import brute
from tests.brute import close

BROWSER = os.environ.get("DICELAB_BROWSER") or shutil.which("chromium") or shutil.which("chromium-browser")


def spying_on_compute(mp: pytest.MonkeyPatch) -> list[tuple[Setup, tuple[str, ...], dict]]:
    """Every ``compute(setup, sections)`` the report makes from now on, recorded with the tables it returned (the
    real computation, only watched: a test can read the very tables a report was written from)."""
    import analysis.front.report as report_module

    real, seen = report_module.compute, []

    def watched(setup, sections):
        tables = real(setup, sections)
        seen.append((setup, tuple(sections), tables))
        return tables

    mp.setattr(report_module, "compute", watched)
    return seen


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """The default report, made through the command line as `make report` makes it, what it printed, and the
    tables it computed (watched, not replaced)."""
    out = tmp_path_factory.mktemp("report")
    printed = io.StringIO()
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stdout(printed):
        computed = spying_on_compute(mp)
        assert main(["report", "--out", str(out)]) == 0
    return out, printed.getvalue(), computed


@pytest.fixture(scope="module")
def report(made):
    return made[0]


@pytest.fixture(scope="module")
def tables(made):
    """``compute(Setup.build(), SECTIONS)``: the tables the command line computed once for the default report (the
    computation takes minutes; every test here reads the same numbers the report was written from)."""
    (setup, sections, tables), = made[2]
    assert setup == Setup.build() and sections == SECTIONS
    return tables


@pytest.fixture(scope="module")
def russian_dir(tmp_path_factory, tables):
    """The default report in Russian, from the same tables (none depends on the language)."""
    out = tmp_path_factory.mktemp("ru")
    build_report(out, lang="ru", tables=tables)
    return out


@pytest.fixture(scope="module")
def russian(russian_dir):
    return (russian_dir / "index.html").read_text(encoding="utf-8")


def test_the_russian_report_carries_the_english_reports_data(report, russian_dir):
    """Tables computed once serve both languages: every data file of the Russian report is the English one's."""
    for csv in sorted(report.glob("*.csv")):
        assert (russian_dir / csv.name).read_bytes() == csv.read_bytes(), csv.name


def _visible(page: str) -> str:
    """The page without plotly.js itself and without the files carried in data: links."""
    from plotly.offline import get_plotlyjs

    page = page.replace(get_plotlyjs(), "")
    page = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), page)
    return re.sub(r'href="data:[^"]*"', 'href=""', page)


def test_report_writes_every_figure_and_table(report, made):
    names = {p.name for p in report.iterdir()}
    for sid in SYSTEM_IDS:
        assert {f"{sid}_checks.csv", f"{sid}_checks.md"} <= names
    for item in ITEMS:
        assert {f"{item.name}.png", f"{item.name}.csv"} <= names
        image = mpimg.imread(report / f"{item.name}.png")
        assert image.shape[0] > 250 and image.shape[1] > 500
    assert "crits_and_fumbles.csv" in names and not any(n.endswith(".tmp") for n in names)
    assert f"{report}/index.html" in made[1] and "make notebooks" in made[1]


def test_index_stands_alone(report):
    from plotly.offline import get_plotlyjs

    page = (report / "index.html").read_text(encoding="utf-8")
    assert page.count(get_plotlyjs()) == 1
    for ref in re.findall(r'(?:src|href)="([^"]*)"', page.replace(get_plotlyjs(), "")):
        assert ref.startswith(("data:", "#")), ref
    assert page.count('class="plotly-graph-div"') == len(ITEMS)
    contents = re.search(r"<nav>.*?</nav>", page, re.S).group(0)
    for section in SECTIONS:
        assert f'href="#{section}"' in contents and f'id="{section}"' in page


def test_lethality_table_is_its_own(report):
    leth = pd.read_csv(report / "lethality.csv")
    gap = pd.read_csv(report / "skill_gap.csv")
    assert (report / "lethality.csv").read_bytes() != (report / "skill_gap.csv").read_bytes()
    assert "p_killed" in leth.columns and "p_killed" not in gap.columns and "p_a_wins" not in leth.columns
    for sid, part in leth.groupby("system"):
        assert list(part["finish_attacks"]) == list(range(get_system(sid).rules().finish_attacks + 1))
        assert list(part["after_out"]) == ["stop"] + ["finish"] * (len(part) - 1)


def test_findings_open_every_section_and_match_the_page(report, tables):
    page = html.unescape((report / "index.html").read_text(encoding="utf-8"))
    for section in SECTIONS:
        said = findings.SECTION_FINDINGS[section](tables, "en")
        assert 1 <= len(said) <= 4, section
        block = page.split(f'id="{section}"')[1].split("</ul>")[0]
        for f in said:
            assert f.text in block


def test_check_findings_hold(tables):
    said = {f.key: f for f in findings.checks(tables, "en")}
    curves = tables["curves"]
    tail = {}
    for sid in SYSTEM_IDS:
        part = curves[(curves["system"] == sid) & (curves["modifier"] <= -4)].sort_values("value")
        tail[sid] = part["p_success"].iloc[-1]
    most = max(tail, key=tail.get)
    assert said["tail"].facts["most"] == most == "onesix"
    assert percent("en", tail[most]) in said["tail"].text
    # Tri-Stat 2d6 tops out at 1 - 1/36: a natural 12 always fails (independent enumeration)
    top = brute.tristat_check(6, 12)[0]
    assert said["top"].facts["capped"] == ["tristat"] and close(said["top"].facts["best"]["tristat"], top)
    assert percent("en", float(top)) in said["top"].text
    # one point of target on 2d4 moves a check by up to 1/4 (the 4 -> 5 step), on 2d20 by 1/20
    assert close(said["die"].facts["pp_first"], Fraction(1, 4)) and close(said["die"].facts["pp_last"], Fraction(1, 20))


def test_combat_and_lethality_findings_hold(tables):
    gap = tables["skill_gap"]
    said = {f.key: f for f in findings.combat(tables, "en")}
    moved = {s: float(gap.query("system == @s and gap == 1")["p_a_wins"].iloc[0]
                      - gap.query("system == @s and gap == 0")["p_a_wins"].iloc[0]) for s in SYSTEM_IDS}
    assert said["decisive"].facts["most"] == max(moved, key=moved.get)
    assert said["decisive"].facts["least"] == min(moved, key=moved.get)
    assert label("en", "short", max(moved, key=moved.get)) in said["decisive"].text
    rounds = gap[gap["gap"] == 0].set_index("system")["mean_rounds"]
    assert said["length"].facts["shortest"] == rounds.idxmin() and said["length"].facts["longest"] == rounds.idxmax()
    leth = {f.key: f for f in findings.lethality(tables, "en")}
    assert "after_out=stop" in leth["how"].text and "after_out=finish" in leth["how"].text
    t = tables["lethality"]
    most = t["finish_attacks"].max()
    for k, key in ((0, "stop"), (most, "finish")):
        at = t[t["finish_attacks"] == k].set_index("system")["p_killed"]
        order = sorted(at.index, key=lambda s: (-at[s], SYSTEM_IDS.index(s)))
        assert leth["order"].facts[key] == order
        shown = ", ".join(f"{label('en', 'short', s)} {percent('en', at[s])}" for s in order)
        assert shown in leth["order"].text
    wide = t.pivot(index="finish_attacks", columns="system", values="p_killed")
    orders = [sorted(SYSTEM_IDS, key=lambda s, row=row: -row[s]) for _, row in wide.iterrows()]
    changed = [k for k in range(1, most + 1) if orders[k] != orders[k - 1]]
    assert bool(leth["rests_on"].facts["overtakes"]) == bool(changed)
    medians = {s: int(p[p["p_out"] >= 0.5]["k"].min())
               for s, p in tables["hits_to_out"].query("measure == 'hits'").groupby("system")}
    assert leth["hits"].facts["medians"] == medians


def test_rule_and_tactics_findings_hold(tables):
    said = {f.key: f for f in findings.rules(tables, "en")}
    v = tables["variants"]
    row = v.loc[v["check_shift"].abs().idxmax()]
    assert said["largest_check_shift"].facts["variant"] == row["variant"]
    # ТУН success_rule=le: P(3d6 <= L) - P(3d6 < L) = P(3d6 = L), at most 27/216 (L = 10, 11) ... but the largest
    # shift over every dice mode is 1d6x3's P(roll = L) = 1/6
    tun = v[(v["system"] == "tun") & (v["variant"] == "success_rule=le")].iloc[0]
    assert close(tun["check_shift"], Fraction(1, 6))
    inert = said["inert"].facts["variants"]
    assert ("tristat", "initiative_once=true") in inert and ("tun", "success_rule=le") not in inert
    tactics = findings.tactics(tables, "en")
    assert len(tactics) >= 1 and tactics[0].text


def test_group_findings_hold_and_the_page_carries_their_data(report, tables):
    """The Groups section: its sentences state the tables' numbers, and the CSVs beside the page refit the exponents
    the figure draws."""
    said = {f.key: f.facts for f in findings.groups(tables, "en")}
    fair, crowd, k = tables["fair_counts"], tables["crowd"], tables["exponents"]
    hero = fair[(fair["a"] == crowds.HERO) & (fair["b"] == crowds.MOOK)]
    assert said["crowd"]["fair"] == {r.system: int(r.fair_count) for r in hero.itertuples()}
    last = crowd[crowd["count"] == crowds.COUNTS]
    assert said["crowd"]["at"] == {r.system: r.p_a_wins for r in last.itertuples()}
    assert said["lanchester"]["k"] == dict(zip(k["system"], k["k"]))
    assert said["lanchester"]["most"] == k.loc[k["k"].idxmax(), "system"]
    assert "missing" not in said and set(k["system"]) == set(crowds.GROUPED) == set(SYSTEM_IDS)
    refit = crowds.exponents(pd.read_csv(report / "exponent_points.csv"))
    shown = pd.read_csv(report / "lanchester.csv")
    assert np.allclose(refit["k"], shown["k"], atol=1e-9) and np.allclose(refit["k_hi"], shown["k_hi"], atol=1e-9)
    table = pd.read_csv(report / "fair_counts.csv")
    assert len(table) == len(crowds.GROUPED) * (1 + len(crowds.LADDER) * (len(crowds.LADDER) - 1) // 2)


def test_the_page_shows_2k_group_figures_under_economy_and_order(report, tables):
    """2K's group figures under both readings of its timing: the default's row is the main tables' numbers, the
    order row's fair count is where the exact chains cross 1/2 (one against one is the economy duel, one against
    two the order chain), and the sentence and the page carry the CSV's numbers."""
    six = get_system("onesix")
    readings = pd.read_csv(report / "group_readings.csv").set_index("reading")
    assert list(readings.index) == ["group_timing=economy", "group_timing=order"]
    assert set(readings["system"]) == {"onesix"}
    economy, order = readings.loc["group_timing=economy"], readings.loc["group_timing=order"]
    main = tables["exponents"].set_index("system").loc["onesix"]
    assert economy["k"] == pytest.approx(main["k"], abs=1e-12)
    fair = tables["fair_counts"].set_index(["system", "a", "b"]).loc[("onesix", crowds.HERO, crowds.MOOK)]
    assert economy["fair_count"] == fair["fair_count"]
    hero, mook = load_fighter(six, crowds.HERO), load_fighter(six, crowds.MOOK)
    rules = six.rules(group_timing="order")
    one = six.duel(rules, hero, mook).solution.p_a_wins
    two = six.group(rules, [hero], [mook, mook]).solution.p_a_wins
    assert one >= 0.5 > two and order["fair_count"] == 2
    said = {f.key: f.facts for f in findings.groups(tables, "en")}["readings"]
    assert said["system"] == "onesix"
    assert said["readings"]["group_timing=order"]["k"] == pytest.approx(order["k"], abs=1e-12)
    page = (report / "index.html").read_text()
    assert 'id="group-readings"' in page and "group_timing=order" in page and "group_timing=economy" in page


def test_played_well_findings_hold_against_the_plain_duels(report, tables):
    """The Played-well section: a system said to gain nothing from playing well has the book's numbers at every
    gap; 2K's equilibrium (never parry, both sides) is the plain duel of two fighters who never parry, and A's best
    reply gains at least what never parrying against a parrying B gains in the plain duel; the page carries the
    options table."""
    said = {f.key: f.facts for f in findings.played(tables, "en")}
    curve, opts = tables["played"], tables["played_options"]
    for sid in said["no_option"]["systems"]:
        part = curve[curve["system"] == sid]
        book, eq = (part[part["play"] == p].set_index("gap") for p in ("book", "equilibrium"))
        assert np.allclose(book["p_a_wins"], eq["p_a_wins"], atol=1e-12)
    matters = {f.facts["system"]: f.facts for f in findings.played(tables, "en") if f.key == "matters"}
    assert "onesix" in matters and "kurs" in matters  # К.У.Р.С.'s stance and effort dodge change its numbers
    kurs_eq = curve[(curve["system"] == "kurs") & (curve["play"] == "equilibrium") & (curve["gap"] == 0)].iloc[0]
    kurs_book = curve[(curve["system"] == "kurs") & (curve["play"] == "book") & (curve["gap"] == 0)].iloc[0]
    assert abs(kurs_eq["mean_rounds"] - kurs_book["mean_rounds"]) > 0.5
    onesix = get_system("onesix")
    rules = lethality.duel_rules(onesix.rules())
    a, b = Setup.build().fighters("onesix")
    never = onesix.duel(rules, a.replace(parry="never"), b.replace(parry="never")).solution
    eq = curve[(curve["system"] == "onesix") & (curve["play"] == "equilibrium") & (curve["gap"] == 0)].iloc[0]
    assert eq["mean_rounds"] == pytest.approx(never.mean_rounds, abs=1e-9)
    assert eq["p_a_wins"] == pytest.approx(never.p_a_wins, abs=1e-9)
    book = onesix.duel(rules, a, b).solution
    alone = onesix.duel(rules, a.replace(parry="never"), b).solution
    gain = (alone.p_a_wins - alone.p_b_wins) - (book.p_a_wins - book.p_b_wins)
    assert matters["onesix"]["best_gain"] >= gain - 1e-12 and gain > 0.05
    assert ("onesix", "parry=always") in said["rules"]["options"]
    assert said["rules"]["missing"] == [] and said["rules"]["rules"]["onesix"] == "parry: always no parry"
    assert (pd.read_csv(report / "played_options.csv")["system"].unique().tolist()
            == list(opts["system"].unique()))


@pytest.mark.skipif(not BROWSER and not os.environ.get("DICELAB_REQUIRE_BROWSER"), reason="no chromium on this machine")
def test_figures_render_alone_in_a_headless_browser(report, tmp_path):
    """index.html copied alone (as an e-mail attachment): every plotly figure drawn, hover shows a value, and the
    page asks for nothing from outside."""
    from playwright.sync_api import sync_playwright

    assert BROWSER, "DICELAB_REQUIRE_BROWSER is set but no chromium was found"
    alone = tmp_path / "attachment.html"
    shutil.copy(report / "index.html", alone)
    args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"]
    requests, errors = [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=BROWSER, args=args)
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        page.on("request", lambda r: requests.append(r.url))
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(alone.as_uri(), timeout=180_000)  # plotly.js and twelve figures: slow on a busy machine
        page.wait_for_function("document.querySelectorAll('.plotly-graph-div .main-svg').length > 0")
        drawn = page.evaluate("""Array.from(document.querySelectorAll('.plotly-graph-div')).map(d => [d.id,
            d.querySelectorAll('.main-svg').length, d.querySelectorAll('.scatterlayer .trace, .barlayer .trace').length,
            d.querySelectorAll('.annotation').length])""")
        point = page.locator("#plot-rounds .scatterlayer .trace .points path").nth(5)
        point.scroll_into_view_if_needed()
        box = point.bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_timeout(500)
        hover = page.evaluate("document.querySelector('#plot-rounds .hoverlayer').textContent")
        title = page.title()
        browser.close()
    assert title and not errors
    assert all(url.startswith(("file:", "data:")) for url in requests), requests
    assert len(drawn) == len(ITEMS)
    for name, svgs, traces, notes in drawn:
        assert svgs > 0 and (traces > 0 or notes > 0), name
    assert re.search(r"\d", hover), hover


def test_russian_page_has_no_english_dice_or_raw_ids(russian):
    text = _visible(russian)
    assert 'lang="ru"' in text and "Предел" in text and "Рейтинг действия" in text and "Содержание" in text
    dice = r"(?<![#0-9a-fA-F])\d+d\d+(?![0-9a-fA-F])"
    assert not re.search(dice, text), re.findall(rf".{{30}}{dice}.{{10}}", text)[:3]
    assert "3к6" in text and "2к6" in text and "2К" in text
    shown = re.sub(r"docs/rules/\w+\.md|<code>.*?</code>|<script.*?</script>", "", text, flags=re.S)
    shown = re.sub(r"<[^>]+>", " ", shown)
    for sid in SYSTEM_IDS:
        assert not re.search(rf"\b{sid}\b", shown), sid
    assert "У — " in text or "У /" in text or "/ У" in text
    assert re.search(r"\d,\d%", text)


def test_every_string_the_russian_report_shows_is_russian(russian):
    """The whole page walked: its text, tables, captions, findings and every figure's titles, axes, legends, hover
    texts and category names; no English word left (identifiers only as name=value, in code or beside their name)."""
    from plotly.offline import get_plotlyjs

    from tests.russian import english_words, html_texts

    page = russian.replace(get_plotlyjs(), "")
    assert page.count("Plotly.newPlot") == len(ITEMS)
    english = {text: english_words(text) for text in html_texts(page) if english_words(text)}
    assert not english, list(english.items())[:10]


def test_russian_findings_and_legends(tables):
    for section in SECTIONS:
        for f in findings.SECTION_FINDINGS[section](tables, "ru"):
            assert re.search("[а-я]", f.text) and not re.search(r"\b\d+\.\d", f.text), f.text


def test_variant_effects_share_one_signed_scale_per_measure(tables):
    v = tables["variants"]
    chart = plots.variant_effects(v)
    assert [p.title.split("\n")[-1] for p in chart.panels][0].startswith("largest")
    for panel, column, scale in zip(chart.panels, ("check_shift", "d_p_a_wins", "d_p_killed", "d_mean_rounds"),
                                    (100, 100, 100, 1)):
        values = v[column].dropna().to_numpy() * scale
        lo, hi = panel.x_range
        assert lo <= values.min() and hi >= values.max() and lo <= 0 <= hi
        assert panel.categories == tuple(f"{plots.label('en', 'short', s)}: {r}" for s, r in zip(v["system"], v["variant"]))
    assert (v["check_shift"] < 0).any() and (v["check_shift"] > 0).any()
    from analysis.tools.variants import rule_alternatives

    expected = [(s, label) for s in SYSTEM_IDS for _, _, label in rule_alternatives(get_system(s), get_system(s).rules())]
    assert list(zip(v["system"], v["variant"])) == expected


def test_integer_axes_get_integer_ticks(tables):
    for name in ("rounds", "damage", "success_absolute", "outcome_distributions", "lethality"):
        item = next(i for i in ITEMS if i.name == name)
        chart = plots.CHARTS[name](tables[item.table])
        assert all(p.x_integer for p in chart.panels if not p.categories), name
        fig = chart.matplotlib()
        for ax, panel in zip(fig.axes, chart.panels):
            if ax.get_visible() and ax.get_xlabel() and panel.x_integer:
                ticks = [t for t in ax.get_xticks() if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
                assert all(float(t).is_integer() for t in ticks), (name, ticks)


def test_crits_table_tells_zero_from_not_applicable(tables):
    from analysis.front.report.page import cell

    crits = tables["crits"]
    onesix = crits[crits["system"] == "onesix"].iloc[0]
    assert cell(onesix["p_fumble"], "odds", "en") == "0"
    assert cell(onesix["p_critical"], "odds", "en") == "—"
    tri = crits[(crits["system"] == "tristat") & (crits["dice"] == "2d6")].iloc[0]
    assert close(tri["p_critical"], brute.tristat_check(6, 6)[2])
    assert cell(tri["p_critical"], "odds", "en") == "2.8% (1 in 36)"
    assert cell(tri["p_critical"], "odds", "ru") == "2,8% (1 из 36)"


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_every_chart_has_a_title_labels_and_named_series(tables, lang):
    for item in ITEMS:
        chart = plots.CHARTS[item.name](tables[item.table], lang, caption="made by")
        assert chart.title and chart.caption == "made by"
        for panel in chart.panels:
            assert panel.traces or panel.note
            assert all(t.name for t in panel.traces)
            assert panel.xlabel or panel.title or panel.note
