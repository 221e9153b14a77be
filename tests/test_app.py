"""`dicelab app` served for real and driven in headless Chromium: every page answers what the library answers,
a shared link reproduces the view, bad input gets the CLI's message, and the server stays up and local.

Skipped only when chromium is absent and ``DICELAB_REQUIRE_BROWSER`` is unset (CI sets it).
"""

from __future__ import annotations

import csv
import io
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

pytest.importorskip("dash")

from analysis import check, get_system  # noqa: E402
from analysis.fights.fighters import load_fighter  # noqa: E402
from analysis.front.app.pages.design import CLOSE  # noqa: E402
from analysis.front.app.text import outcome_name  # noqa: E402
from analysis.tools.design import design
from analysis.tools.tune import tune  # noqa: E402
from tests import brute  # noqa: E402
from tests.brute import close  # noqa: E402

BROWSER = os.environ.get("DICELAB_BROWSER") or shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
START = "from analysis.front.cli import main; raise SystemExit(main())"
needs_browser = pytest.mark.skipif(not BROWSER and not os.environ.get("DICELAB_REQUIRE_BROWSER"),
                                   reason="no chromium on this machine")


class App:
    """``dicelab app --port 0 --no-browser`` in its own process, with its own empty temporary and working folders."""

    def __init__(self, root: Path, *extra: str):
        self.tmp, self.cwd = root / "tmp", root / "cwd"
        self.tmp.mkdir(), self.cwd.mkdir()
        self.log = root / "server.log"
        env = {**os.environ, "TMPDIR": str(self.tmp)}
        with self.log.open("w") as log:
            self.proc = subprocess.Popen([sys.executable, "-c", START, "app", "--port", "0", "--no-browser", *extra],
                                         stdout=subprocess.PIPE, stderr=log, text=True, env=env, cwd=self.cwd)
        timer = threading.Timer(90, self.proc.kill)
        timer.start()
        self.first_line = self.proc.stdout.readline()
        timer.cancel()
        match = re.search(r"http://\S+", self.first_line)
        assert match, (self.first_line, self.log.read_text())
        self.url = match.group(0).rstrip("/")

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(20)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    server = App(tmp_path_factory.mktemp("app"))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser():
    if not BROWSER:
        pytest.fail("DICELAB_REQUIRE_BROWSER is set but no chromium was found")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=BROWSER, args=ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def context(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    yield ctx  # one context for the module: the app's scripts are fetched once and cached
    ctx.close()


@pytest.fixture
def page(context):
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    body = pg.inner_text("body")
    pg.close()
    assert "Traceback" not in body
    assert not errors, errors


# ------------------------------------------------------------------ helpers
def field(key: str) -> str:
    """The input of the control with this link key."""
    return f"input[id*='\"key\":\"{key}\"']"


def open_page(page, app, path: str, wait: str = "#results .card, #error", timeout: float = 30) -> None:
    page.goto(app.url + path)
    page.wait_for_selector(wait, timeout=timeout * 1000)


def value(page, name: str) -> float | None:
    raw = page.get_attribute(f"#out-{name}", "data-value")
    return None if raw == "null" else float(raw)


def change(page, selector: str, text: str, watch: str, press_enter: bool = False) -> None:
    """Type into a control and wait until the number ``watch`` (an ``out-`` name) is redrawn."""
    old = page.get_attribute(f"#out-{watch}", "data-value")
    page.locator(selector).fill(text)
    if press_enter:
        page.locator(selector).press("Enter")
    redrawn(page, watch, old)


def redrawn(page, watch: str, old: str, timeout: float = 60) -> None:
    """Wait until the number ``watch`` shows another value than ``old`` (a long computation shows its progress
    box meanwhile, so the number may be absent for a while)."""
    page.wait_for_function(
        f"(() => {{ const n = document.querySelector('#out-{watch}'); return n && n.dataset.value !== '{old}'; }})()",
        timeout=timeout * 1000)


def choose(page, key: str, option: str) -> None:
    page.locator(f"button[id*='\"key\":\"{key}\"']").click()
    page.locator("[role=option]", has_text=re.compile(f"^{re.escape(option)}$")).click()


# ------------------------------------------------------------ the server
def test_it_serves_on_localhost_and_prints_the_url(app):
    import psutil
    import requests

    assert app.first_line.startswith("dicelab app: serving on http://127.0.0.1:")
    listening = [c for c in psutil.Process(app.proc.pid).net_connections(kind="inet") if c.status == "LISTEN"]
    assert listening and all(c.laddr.ip == "127.0.0.1" for c in listening)
    assert requests.get(app.url + "/duel?system=kurs", timeout=10).status_code == 200


def test_a_broken_request_gets_an_error_and_the_server_lives_on(app):
    import requests

    for body in ("garbage", '{"output": "results.children", "inputs": 5}', "{" * 100_000):
        r = requests.post(app.url + "/_dash-update-component", data=body, timeout=10,
                          headers={"Content-Type": "application/json"})
        assert r.status_code >= 400
    assert requests.get(app.url + "/", timeout=10).status_code == 200
    assert app.proc.poll() is None


def test_a_busy_port_is_one_line_and_exit_2(app, tmp_path):
    port = app.url.rsplit(":", 1)[1]
    run = subprocess.run([sys.executable, "-c", START, "app", "--port", port, "--no-browser"], capture_output=True,
                         text=True, timeout=60, env={**os.environ, "TMPDIR": str(tmp_path)})
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1 and run.stderr.startswith(f"dicelab app: error: cannot listen on 127.0.0.1:{port}")
    assert not any(tmp_path.iterdir())


def test_sigterm_stops_it_cleanly_leaving_no_files(tmp_path):
    import requests

    server = App(tmp_path)
    assert requests.get(server.url + "/checks", timeout=10).status_code == 200
    assert [p.name.startswith("dicelab-app-") for p in server.tmp.iterdir()] == [True]
    assert server.stop() == 0
    assert not any(server.tmp.iterdir()) and not any(server.cwd.iterdir())


# ------------------------------------------------------------- the pages
EVERY_VIEW = [
    ("/checks?system=tun&show=at_most", "p_success"),
    ("/tune?system=kurs&c.skill=1", "modifier"),
    ("/duel?system=tristat", "p_a_wins"),
    ("/duel?system=tun&method=mc&n=2000&seed=3", "p_a_wins"),
    ("/compare?mode=variants&system=tun&r2.success_rule=le", "p_a_wins_2"),
    ("/compare?mode=fighters&system=kurs&a2=maximus&b2=tiberius", "p_a_wins_2"),
    ("/compare?mode=systems&system=tristat&system2=kurs", "p_a_wins_kurs"),
    ("/design?system=kurs&a=maximus&b=tiberius&vary=a.weapon=0..2", "best_distance"),
    ("/tactics?system=onesix&a=novice_armed&b=novice_armed", "p_a_wins_equilibrium"),
    ("/encounter?system=tun&max=3", "p_a_wins_1"),
]


@needs_browser
@pytest.mark.parametrize("lang", ["en", "ru"])
@pytest.mark.parametrize("path,number", EVERY_VIEW, ids=[p.split("?")[0].strip("/") + "-" + p.split("?")[1][:30]
                                                        for p, _ in EVERY_VIEW])
def test_every_page_and_mode_shows_a_result(page, app, path, number, lang):
    """Each page in each mode, rendered in Chromium: its headline number on screen and a figure drawn, no HTTP
    error on any request (the polls included) and no traceback in the server's log."""
    failed: list[str] = []
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    logged = app.log.stat().st_size
    open_page(page, app, f"{path}&lang={lang}", wait=f"#out-{number}, #error", timeout=180)  # a cold numba cache
    assert page.locator("#error").count() == 0, page.inner_text("#error")
    page.wait_for_selector(f"#out-{number}", state="visible", timeout=180_000)
    assert re.search(r"\d", page.inner_text(f"#out-{number}"))
    assert value(page, number) is not None and math.isfinite(value(page, number))
    if not path.startswith("/design"):  # the design page is a table of settings
        page.wait_for_selector("#results .js-plotly-plot .main-svg")
    assert page.locator("#results table tbody tr").count() >= 1
    page.wait_for_timeout(2 * 400)  # two polls more: a late failure would show
    assert not failed, failed
    with app.log.open() as log:
        log.seek(logged)
        assert "Traceback" not in log.read()


@needs_browser
def test_compare_two_systems_is_the_report_matching(page, app):
    from analysis.fights.lethality import skill_gap
    from analysis.fights.setup import Setup

    open_page(page, app, "/compare?mode=systems&system=tun&system2=kurs", wait="#out-p_a_wins_kurs, #error",
              timeout=180)  # two systems' skill-gap duels, kernels loaded cold on a busy machine
    for sid in ("tun", "kurs"):
        gaps = skill_gap(sid, Setup.build())
        assert value(page, f"p_a_wins_{sid}") == gaps[gaps["gap"] == 0]["p_a_wins"].iloc[0]
    header = page.locator("#table-gaps th").all_inner_texts()
    assert "p_killed" in " ".join(header) or "P(" in " ".join(header)


@needs_browser
def test_duel_page_shows_the_lethality_curve_of_the_report(page, app):
    tri = get_system("tristat")
    open_page(page, app, "/duel?system=tristat&a=trained_armed&b=trained_armed", wait="#out-p_killed_most")
    f = load_fighter(tri, "trained_armed")
    stop = tri.duel(tri.rules(), f, f).to_dict()
    most = tri.duel(tri.rules(after_out="finish"), f, f).to_dict()
    assert value(page, "p_killed_stop") == stop["p_killed"] == value(page, "p_killed")
    assert value(page, "p_killed_most") == pytest.approx(most["p_killed"], abs=1e-12)
    plot = "document.querySelector('#fig-finishing .js-plotly-plot')"
    page.wait_for_function(f"{plot} && {plot}.data")  # the figure draws after the numbers
    curve = page.evaluate(f"{plot}.data[0].y")
    assert curve[0] == stop["p_killed"] and len(curve) == tri.rules().finish_attacks + 1
    assert all(b >= a - 1e-12 for a, b in zip(curve, curve[1:]))


@needs_browser
def test_checks_page_answers_the_exact_check_and_downloads_its_table(page, app):
    open_page(page, app, "/checks?system=tun")
    change(page, field("c.limit"), "10", "p_success")
    p, pmf = brute.tun_check("3d6", 10)[:2]
    assert value(page, "p_success") == check("tun", limit=10).p_success
    assert close(value(page, "p_success"), p)
    assert "c.limit=10" in page.url
    with page.expect_download() as info:
        page.locator("button[id*='\"name\":\"distribution\"']").click()
    rows = list(csv.DictReader(io.StringIO(Path(info.value.path()).read_text())))
    column = outcome_name("en", "tun")
    assert {int(r[column]): float(r["exactly"]) for r in rows} == check("tun", limit=10).distribution.to_dict()
    assert all(close(float(r["exactly"]), pmf[int(r[column])]) for r in rows)


@needs_browser
def test_tune_page_answers_tune(page, app):
    tri = get_system("tristat")
    open_page(page, app, "/tune?system=tristat&c.target=7")
    change(page, field("p"), "0.9", "p_at_modifier")
    expected = tune(tri, tri.rules(), tri.args(target=7), 0.9)
    assert value(page, "modifier") == expected.modifier == 3
    assert value(page, "p_at_modifier") == expected.p_at_modifier
    assert close(value(page, "p_at_modifier"), brute.tristat_check(6, 10)[0])


@needs_browser
def test_duel_page_answers_the_exact_duel(page, app):
    kurs = get_system("kurs")
    open_page(page, app, "/duel?system=kurs&a=maximus&b=tiberius")
    change(page, field("a.armor"), "3", "p_a_wins")
    a, b = load_fighter(kurs, "archetype=maximus,armor=3"), load_fighter(kurs, "tiberius")
    exact = kurs.duel(kurs.rules(), a, b).to_dict()
    for name in ("p_a_wins", "p_b_wins", "p_a_dying", "p_b_out"):
        assert value(page, name) == exact[name]
    assert value(page, "p_a_dead") is None
    assert page.inner_text("#why-p_a_dead") == exact["null_reasons"]["p_a_dead"]
    choose(page, "b", "veteran")
    page.wait_for_function("window.location.search.includes('b=veteran')")
    redrawn(page, "p_a_wins", repr(exact["p_a_wins"]))
    assert value(page, "p_a_wins") == kurs.duel(kurs.rules(), a, load_fighter(kurs, "veteran")).solution.p_a_wins


@needs_browser
def test_tactics_page_answers_dicelab_tactics(page, app):
    """The Tactics page's numbers are ``dicelab tactics``' (the library's ``analyse``), and a changed fighter
    redraws them; 2K's book parries, and never parrying is the rule it shows (per moment: "always no parry")."""
    from analysis.fights.tactics import analyse

    onesix = get_system("onesix")
    open_page(page, app, "/tactics?system=onesix&a=trained_armed&b=trained_armed", timeout=120)
    a = load_fighter(onesix, "trained_armed")
    solved = analyse(onesix.tactics(onesix.rules(), a, a)).to_dict()
    for play in ("book", "best_response", "equilibrium"):
        assert value(page, f"p_a_wins_{play}") == solved[play]["p_a_wins"]
    assert page.inner_text("#out-rule") == solved["simple_rule"]["text"] == "parry: always no parry"
    assert "parry=always" in page.inner_text("#results .dominated")
    change(page, field("a.reflexes"), "10", "p_a_wins_equilibrium")
    faster = analyse(onesix.tactics(onesix.rules(), a.replace(reflexes=10), a)).to_dict()
    assert value(page, "p_a_wins_equilibrium") == faster["equilibrium"]["p_a_wins"]


@needs_browser
def test_encounter_page_answers_the_fair_count(page, app):
    """One trained_armed against K.U.R.S. novices: the page's fair count is the library's, and a changed side B
    (two novices a unit) redraws it."""
    from analysis.fights.sides import parse_side
    from analysis.tools.encounter import encounter

    kurs = get_system("kurs")
    open_page(page, app, "/encounter?system=kurs&max=4&n=4000&seed=3", timeout=180)
    page.wait_for_selector("#out-fair_count", timeout=180_000)
    lib = encounter(kurs, kurs.rules(), parse_side(kurs, "trained_armed"), parse_side(kurs, "novice_armed"), 0.5,
                    4, 4000, 3, workers=1)
    assert value(page, "fair_count") == lib.fair_count == 4
    assert value(page, "p_a_wins_1") == lib.curve[0].p_a_wins
    change(page, field("sb"), "2*novice_armed", "p_a_wins_1", press_enter=True)
    page.wait_for_function("window.location.search.includes('sb=2')")
    assert value(page, "p_a_wins_1") == lib.curve[1].p_a_wins


@needs_browser
def test_duel_page_monte_carlo_shows_its_interval(page, app):
    from sims.api import simulate_duel

    tun = get_system("tun")
    open_page(page, app, "/duel?system=tun&method=mc&n=20000&seed=5&a=red&b=blue")
    res = simulate_duel("tun", tun.rules(), load_fighter(tun, "red"), load_fighter(tun, "blue"), 20000, seed=5)
    assert value(page, "p_a_wins") == res.p_a_wins.value
    lo, hi = res.p_a_wins.ci
    assert page.inner_text("#ci-p_a_wins") == f"95% interval: [{lo:.6f}, {hi:.6f}]"


@needs_browser
def test_compare_page_two_pairings_side_by_side(page, app):
    tun = get_system("tun")
    open_page(page, app, "/compare?mode=fighters&system=tun&a2=red&b2=blue")
    change(page, field("a2.attack_feature"), "3", "p_a_wins_2")
    assert value(page, "p_a_wins_2") == tun.duel(tun.rules(), load_fighter(tun, "archetype=red,attack_feature=3"),
                                                 load_fighter(tun, "blue")).solution.p_a_wins
    a, b = load_fighter(tun, "veteran"), load_fighter(tun, "trained_armed")
    assert value(page, "p_a_wins_1") == tun.duel(tun.rules(), a, b).solution.p_a_wins


@needs_browser
def test_design_page_answers_the_search_and_says_when_nothing_is_close(page, app):
    kurs = get_system("kurs")
    open_page(page, app, "/design?system=kurs&a=maximus&b=tiberius&rounds=6&lethality=0.05")
    change(page, field("vary"), "a.weapon=0..3,b.armor=0..2", "best_distance", press_enter=True)
    res = design(kurs, kurs.rules(), load_fighter(kurs, "maximus"), load_fighter(kurs, "tiberius"),
                 "a.weapon=0..3,b.armor=0..2", 6, 0.05, workers=1)
    assert value(page, "best_distance") == res.best[0].distance
    assert page.inner_text("#out-best") == ", ".join(f"{k}={v}" for k, v in res.best[0].setting.items())
    assert (page.locator(".nothing-close").count() == 1) == (res.best[0].distance > CLOSE)
    change(page, field("rounds"), "40", "best_distance", press_enter=True)
    page.wait_for_selector(".nothing-close")


@needs_browser
def test_a_shared_link_reproduces_the_view(browser, app):
    link = "/checks?lang=ru&show=at_least&system=onesix&c.rating=7&r.explode_depth=2"
    six = get_system("onesix")
    expected = six.check(six.rules(explode_depth=2), six.args(rating=7)).p_success
    for _ in range(2):  # two fresh browsers: nothing but the link carries the view
        context = browser.new_context()
        pg = context.new_page()
        pg.goto(app.url + link)
        pg.wait_for_selector("#results .card")
        assert pg.url == app.url + link
        assert float(pg.get_attribute("#out-p_success", "data-value")) == expected
        assert pg.inner_text("#out-p_success") == f"{expected:.6f}".replace(".", ",")
        assert pg.locator(field("c.rating")).input_value() == "7"
        assert pg.locator(field("r.explode_depth")).input_value() == "2"
        assert "Рейтинг действия" in pg.inner_text("#controls")
        pg.wait_for_selector("#fig-distribution .gtitle")
        assert "(не меньше)" in pg.locator("#fig-distribution .gtitle").text_content()
        context.close()


@needs_browser
def test_bad_input_shows_the_cli_message_not_a_traceback(page, app, capsys):
    from analysis.front.cli import main

    open_page(page, app, "/checks?system=tristat")
    page.locator(field("c.target")).fill("500")
    page.wait_for_selector("#error-text")
    assert main(["check", "tristat", "--target", "500"]) == 2
    cli = capsys.readouterr().err.strip().split(": error: ", 1)[1]
    assert page.inner_text("#error-text") == cli
    open_page(page, app, "/duel?system=tristat&r.die=7")
    assert main(["duel", "tristat", "--a", "veteran", "--b", "trained_armed", "--variant", "die=7"]) == 2
    assert page.inner_text("#error-text") == capsys.readouterr().err.strip().split(": error: ", 1)[1]
    open_page(page, app, "/tune?system=nowhere")
    assert "system = 'nowhere' is not allowed" in page.inner_text("#error-text")


@needs_browser
def test_the_language_toggle_speaks_the_systems_terms(page, app):
    open_page(page, app, "/checks?system=tun&c.limit=12")
    choose(page, "lang", "Русский")
    page.wait_for_function("document.querySelector('#out-p_success').innerText === '0,625000'")
    assert "lang=ru" in page.url and "Предел" in page.inner_text("#controls")
    assert "Проверки" in page.inner_text("nav") and "3к6" in page.inner_text("#controls")


@needs_browser
def test_a_rules_file_sets_the_fields_and_the_answer(page, app, tmp_path):
    house = tmp_path / "house.toml"
    house.write_text("[onesix]\nexplode_depth = 1\nextra_die_ones = 'count'\n")
    six = get_system("onesix")
    open_page(page, app, "/checks?system=onesix")
    old = page.get_attribute("#out-p_success", "data-value")
    page.locator("input[type=file]").set_input_files(str(house))
    redrawn(page, "p_success", old)
    assert "r.explode_depth=1" in page.url and "r.extra_die_ones=count" in page.url
    assert value(page, "p_success") == six.check(six.rules(explode_depth=1, extra_die_ones="count"), six.args()).p_success
    assert [p.name for p in app.tmp.iterdir()] == [next(app.tmp.iterdir()).name] and not any(next(app.tmp.iterdir()).iterdir())


@needs_browser
def test_long_work_shows_progress_then_the_answer_and_can_be_cancelled(page, app):
    tri = get_system("tristat")
    a, b = load_fighter(tri, "veteran"), load_fighter(tri, "trained_armed")
    open_page(page, app, "/design?system=tristat&vary=a.weapon_damage=0..200&rounds=3", wait="#progress")
    page.wait_for_selector("#progress [role=progressbar]")
    assert page.locator("#progress [role=progressbar]").count() == 1
    page.locator("#progress button").click()
    page.wait_for_function("document.body.innerText.includes('Cancelled.')")
    open_page(page, app, "/design?system=tristat&vary=a.weapon_damage=0..50&rounds=3", wait="#progress, #results .card")
    page.wait_for_selector("#out-best_distance", timeout=60_000)
    res = design(tri, tri.rules(), a, b, "a.weapon_damage=0..50", 3, 0.3, workers=1)
    assert value(page, "best_distance") == res.best[0].distance


@needs_browser
def test_russian_takes_a_decimal_comma_and_shows_one(page, app):
    tri = get_system("tristat")
    open_page(page, app, "/tune?system=tristat&c.target=7&lang=ru")
    change(page, field("p"), "0,9", "p_at_modifier", press_enter=True)
    page.wait_for_function("window.location.search.includes('p=0.9')")
    expected = tune(tri, tri.rules(), tri.args(target=7), 0.9)
    assert value(page, "p_at_modifier") == expected.p_at_modifier
    assert page.inner_text("#out-p_at_modifier") == f"{expected.p_at_modifier:.6f}".replace(".", ",")
    ticks = page.eval_on_selector_all("#fig-tune .xtick text", "ts => ts.map(t => t.textContent)")
    assert ticks and any("," in t for t in ticks) and not any("." in t for t in ticks)
