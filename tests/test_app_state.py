"""The app without a browser: the link codec, controls generated from the library, messages identical to the CLI's,
pages computing what the library computes, rules files, jobs."""

from __future__ import annotations

import base64
import json
import shlex
import time
from fractions import Fraction

import pytest

pytest.importorskip("dash")

from analysis import get_system  # noqa: E402
from analysis.base.params import DicelabError  # noqa: E402
from analysis.fights.fighters import load_fighter  # noqa: E402
from analysis.front.app import jobs as jobs_mod  # noqa: E402
from analysis.front.app.controls import check_panel, default_archetype, fighter_panel, rules_panel  # noqa: E402
from analysis.front.app.model import command, fighter_of  # noqa: E402
from analysis.front.app.pages import checks, compare, design, duel, encounter, tactics, tune  # noqa: E402
from analysis.front.app.shell import apply_rules_file, known  # noqa: E402
from analysis.front.app.state import MAX_QUERY, decode, encode, structure, update  # noqa: E402
from analysis.front.cli import main  # noqa: E402
from analysis.systems import SYSTEM_IDS  # noqa: E402
from analysis.tools.design import design as lib_design
from analysis.tools.equiv import equiv
from analysis.tools.tune import tune as lib_tune  # noqa: E402
from tests import brute  # noqa: E402
from tests.brute import close  # noqa: E402


# ---------------------------------------------------------------- the link
@pytest.mark.parametrize("state", [
    {},
    {"system": "kurs", "c.skill": "2", "r.dk_faces": "-1,0,1"},
    {"lang": "ru", "a": "maximus", "a.body": "5", "vary": "a.weapon=0..6,armor=0..4", "p": "0.75"},
    {"r.note": "Предел & 3к6 = ?#%"},
])
def test_a_state_survives_its_link(state):
    assert decode(encode(state)) == state
    assert decode(encode(state).lstrip("?")) == state


def test_the_link_is_canonical_plain_keys_first():
    assert encode({"r.die": "8", "system": "tristat", "c.target": "9", "lang": "ru"}) == \
        "?lang=ru&system=tristat&c.target=9&r.die=8"
    assert encode({"a": "", "b": "x"}) == "?b=x"
    assert encode({}) == ""


def test_a_value_equal_to_its_default_leaves_the_link():
    state = update({"c.limit": "12", "r.crits": "true"}, {"c.limit": "13", "r.crits": "true"},
                   {"c.limit": "13", "r.crits": "false"})
    assert state == {"r.crits": "true"}
    assert update({"c.limit": "12"}, {"c.limit": None}, {"c.limit": "13"}) == {}


def test_changing_the_system_drops_what_belonged_to_the_old_one():
    old = {"system": "tun", "c.limit": "12", "r.crits": "true", "a": "red", "a.body": "11", "lang": "ru"}
    values = {"system": "kurs", "c.limit": "12", "r.crits": "true", "a": "red", "a.body": "11", "lang": "ru"}
    defaults = {"system": "tristat", "c.limit": "13", "r.crits": "false", "a": "veteran", "a.body": "10", "lang": "en"}
    assert update(old, values, defaults, changed="system") == {"system": "kurs", "lang": "ru"}


def test_changing_an_archetype_drops_that_fighters_edits_only():
    old = {"a": "veteran", "a.body": "5", "b.body": "3"}
    new = update(old, {"a": "master", "a.body": "5", "b.body": "3"}, {"a": "veteran", "a.body": "4", "b.body": "4"},
                 changed="a")
    assert new == {"a": "master", "b.body": "3"}


def test_a_link_too_long_is_refused_with_a_message():
    with pytest.raises(DicelabError, match=f"allowed: at most {MAX_QUERY:,}"):
        decode("?x=" + "1" * MAX_QUERY)


def test_the_controls_structure_ignores_values_but_not_the_system():
    assert structure("duel", {"system": "kurs", "a.body": "3"}) == structure("duel", {"system": "kurs"})
    assert structure("duel", {"system": "kurs"}) != structure("duel", {"system": "tun"})


# ------------------------------------------------ controls from the library
def control_keys(component) -> set[str]:
    """Every field key in a component tree."""
    out = set()
    stack = [component]
    while stack:
        node = stack.pop()
        if isinstance(node, (list, tuple)):
            stack.extend(node)
            continue
        ident = getattr(node, "id", None)
        if isinstance(ident, dict) and ident.get("type") == "field":
            out.add(ident["key"])
        stack.extend(c for c in [getattr(node, "children", None)] if c is not None)
    return out


@pytest.mark.parametrize("sid", SYSTEM_IDS)
def test_every_field_of_the_system_has_a_control(sid):
    system = get_system(sid)
    keys = control_keys([rules_panel(system, {}, "r", "en", ("variant", "constant", "option")),
                         check_panel(system, {}, "c", "en"), fighter_panel(system, {}, "a", "en")])
    assert {f"r.{i.name}" for i in system.Rules.describe()} <= keys
    assert {f"c.{i.name}" for i in system.CheckArgs.describe()} <= keys
    assert {f"a.{i.name}" for i in system.Fighter.describe()} <= keys
    assert "a" in keys


@pytest.mark.parametrize("page", [checks, tune, duel, compare, design, tactics, encounter])
@pytest.mark.parametrize("lang", ["en", "ru"])
def test_every_page_draws_its_controls_for_every_system(page, lang):
    for sid in SYSTEM_IDS:
        keys = control_keys(page.controls({"system": sid}, lang))
        assert "system" in keys or "mode" in keys
        assert all(known(page, k) or k == "lang" for k in keys), keys


# ------------------------------------------- the CLI's messages, word for word
def cli_error(capsys, line: str) -> str:
    try:
        code = main(shlex.split(line)[1:])
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    return err.split(": error: ", 1)[1]


BAD = [
    (checks, {"system": "tristat", "c.target": "abc"}, "dicelab check tristat --target abc"),
    (checks, {"system": "tristat", "r.die": "7"}, "dicelab check tristat --variant die=7"),
    (checks, {"system": "kurs", "r.dk_faces": "x"}, "dicelab check kurs --variant dk_faces=x"),
    (checks, {"system": "tun", "c.limit": "500"}, "dicelab check tun --limit 500"),
    (checks, {"system": "dnd"}, "dicelab check tun --variant system=dnd"),
    (duel, {"system": "kurs", "a": "maximus", "a.attack_skill": "99"},
     "dicelab duel kurs --a archetype=maximus,attack_skill=99 --b trained_armed"),
    (duel, {"system": "tun", "a": "nobody"}, "dicelab duel tun --a nobody --b trained_armed"),
    (tune, {"system": "tristat", "p": "2"}, "dicelab tune tristat --p 2"),
]


@pytest.mark.parametrize("page,state,line", BAD, ids=[b[2] for b in BAD])
def test_bad_input_gets_the_cli_message(capsys, page, state, line):
    if state.get("system") == "dnd":
        with pytest.raises(DicelabError) as err:
            page.compute(state)
        assert str(err.value) == "system = 'dnd' is not allowed; allowed: one of " + ", ".join(SYSTEM_IDS)
        return
    try:
        res = page.compute(state)
        message = str(res.tune)  # tune keeps its own part's refusal and still answers the rest of the page
    except DicelabError as err:
        message = str(err)
    assert message == cli_error(capsys, line)


def test_the_page_names_the_same_command_line():
    assert command("check", {"system": "kurs", "c.skill": "2", "r.dk_faces": "fudge"}) == \
        "dicelab check kurs --skill 2 --variant dk_faces=fudge"
    assert command("duel", {"system": "kurs", "a": "maximus", "a.armor": "2"}) == \
        "dicelab duel kurs --a archetype=maximus,armor=2 --b trained_armed"


# ------------------------------------------------ the library's numbers
def test_checks_page_is_the_exact_check():
    res = checks.compute({"system": "tristat", "c.target": "7"})
    assert close(res.check.p_success, Fraction(21, 36))
    p, pmf = brute.tun_check("3d6", 10)[:2]
    res = checks.compute({"system": "tun", "c.limit": "10"})
    assert close(res.check.p_success, p)
    table = checks.distribution_table(res.check.distribution)
    for value, exactly, at_least, at_most in table.itertuples(index=False):
        assert close(exactly, pmf[value])
        assert close(at_least, sum(q for k, q in pmf.items() if k >= value))
        assert close(at_most, sum(q for k, q in pmf.items() if k <= value))


def test_tune_page_is_tune_and_equiv():
    tri, kurs = get_system("tristat"), get_system("kurs")
    res = tune.compute({"system": "tristat", "c.target": "7", "p": "0.9", "to": "kurs", "tc.skill": "1"})
    assert res.tune == lib_tune(tri, tri.rules(), tri.args(target=7), 0.9)
    assert res.equiv == equiv(tri, tri.rules(), tri.args(target=7), kurs, kurs.rules(), kurs.args(skill=1))
    # 2d6 <= 7 + m >= 0.9: 2d6 <= 10 has P = 33/36 = 0.9167, <= 9 has 30/36 = 0.833
    assert res.tune.modifier == 3 and close(res.tune.p_at_modifier, Fraction(33, 36))


def test_tune_out_of_reach_keeps_the_rest_of_the_page():
    res = tune.compute({"system": "tun", "r.crits": "true", "p": "1"})  # the maximum roll always fails
    assert isinstance(res.tune, DicelabError) and str(res.tune).startswith("no modifier brings this tun check")
    assert res.table.rows and res.equiv.value is not None


@pytest.mark.parametrize("sid", SYSTEM_IDS)
def test_duel_page_is_the_exact_duel(sid):
    system = get_system(sid)
    state = {"system": sid}
    res = duel.compute(state)
    a, b = (load_fighter(system, default_archetype(system, s)) for s in "ab")
    assert res.duel == system.duel(system.rules(), a, b).to_dict()
    assert res.exchanges[0].to_dict() == system.exchange(system.rules(), a, b).to_dict()


def test_duel_page_monte_carlo_is_the_simulation_and_agrees_with_exact():
    from sims.api import simulate_duel

    state = {"system": "kurs", "a": "maximus", "b": "tiberius", "method": "mc", "n": "20000", "seed": "3",
             "model": "exact"}
    res = duel.compute(state)
    kurs = get_system("kurs")
    a, b = load_fighter(kurs, "maximus"), load_fighter(kurs, "tiberius")
    assert res.duel == simulate_duel("kurs", kurs.rules(), a, b, 20000, seed=3, model="exact").to_dict()
    exact = kurs.duel(kurs.rules(), a, b).solution.p_a_wins
    assert abs(res.duel["p_a_wins"] - exact) <= 4 * res.duel["se_p_a_wins"]
    assert "--n 20000 --seed 3 --model exact" in res.cli


def test_duel_page_refuses_a_simulation_too_large_for_it():
    with pytest.raises(DicelabError, match="n = 20000000 is not allowed"):
        duel.compute({"system": "tun", "method": "mc", "n": "20000000"})


def test_compare_page_two_rule_sets_and_two_pairings():
    tun = get_system("tun")
    res = compare.compute({"system": "tun", "r2.success_rule": "le"})
    a, b = (load_fighter(tun, default_archetype(tun, s)) for s in "ab")
    assert res.duels[0] == tun.duel(tun.rules(), a, b).to_dict()
    assert res.duels[1] == tun.duel(tun.rules(success_rule="le"), a, b).to_dict()
    res = compare.compute({"mode": "fighters", "system": "tun", "a2": "red", "b2": "blue"})
    assert res.duels[1] == tun.duel(tun.rules(), load_fighter(tun, "red"), load_fighter(tun, "blue")).to_dict()


def test_compare_page_second_setup_says_which_it_is():
    with pytest.raises(DicelabError, match=r"^setup 2: tun ruleset: success_rule = 'x'"):
        compare.compute({"system": "tun", "r2.success_rule": "x"})


def test_compare_page_two_systems_as_the_report_matches_them():
    from analysis.fights.lethality import skill_gap
    from analysis.fights.setup import Setup

    res = compare.compute({"mode": "systems", "system": "tun", "system2": "kurs"})
    assert set(res.gaps["system"]) == {"tun", "kurs"} == set(res.aligned["system"])
    expected = skill_gap("kurs", Setup.build())
    got = res.gaps[res.gaps["system"] == "kurs"].reset_index(drop=True)
    assert got["p_a_wins"].tolist() == expected["p_a_wins"].tolist()


def test_design_page_is_the_design_search():
    kurs = get_system("kurs")
    state = {"system": "kurs", "a": "maximus", "b": "tiberius", "vary": "a.weapon=0..3", "rounds": "6",
             "lethality": "0.1", "top": "3"}
    res = design.compute(state)
    expected = lib_design(kurs, kurs.rules(), load_fighter(kurs, "maximus"), load_fighter(kurs, "tiberius"),
                          "a.weapon=0..3", 6, 0.1, None, 3, workers=1)
    assert res == expected


def test_tactics_page_is_dicelab_tactics_and_the_plain_duels(capsys):
    """The Tactics page shows what ``dicelab tactics --json`` prints for the same duel; its book is the plain duel,
    and 2K's equilibrium here (both never parry) is the plain duel of two fighters who never parry."""
    state = {"system": "onesix", "a": "trained_armed", "b": "trained_armed"}
    res = tactics.compute(state)
    assert main(["tactics", "onesix", "--a", "trained_armed", "--b", "trained_armed", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    for play in ("book", "best_response", "equilibrium"):
        assert res.tactics[play] == cli[play]
    onesix = get_system("onesix")
    a = load_fighter(onesix, "trained_armed")
    book = onesix.duel(onesix.rules(), a, a).solution
    never = onesix.duel(onesix.rules(), a.replace(parry="never"), a.replace(parry="never")).solution
    assert res.tactics["book"]["p_a_wins"] == pytest.approx(book.p_a_wins, abs=1e-12)
    assert res.tactics["equilibrium"]["mean_rounds"] == pytest.approx(never.mean_rounds, abs=1e-9)
    assert "parry=always" in res.tactics["dominated"] and res.cli.startswith("dicelab tactics onesix --a")
    body, tables = tactics.view(res, state, "en")
    assert list(tables["plays"]["P(A wins)"]) == [res.tactics[p]["p_a_wins"] for p in ("book", "best_response",
                                                                                      "equilibrium")]


def test_tactics_page_refuses_a_system_without_decisions_as_the_cli_does(monkeypatch):
    """Every system models decisions now: one without the hook (К.У.Р.С. with it taken away) is refused in the
    CLI's words."""
    import dataclasses

    bare = dataclasses.replace(get_system("kurs"), tactics=None)
    monkeypatch.setattr(tactics, "system_of", lambda state: bare)
    with pytest.raises(DicelabError, match="kurs: decisions are not modelled yet"):
        tactics.compute({"system": "kurs"})


def test_encounter_page_is_dicelab_encounter():
    """The Encounter page is the library's encounter for the same sides, numbers and seed: exact points equal the
    exact group chain, and the command line it shows prints the same curve."""
    from analysis.fights.budget import exact_group
    from analysis.fights.sides import parse_side
    from analysis.tools.encounter import encounter as lib_encounter

    kurs = get_system("kurs")
    state = {"system": "kurs", "sa": "trained_armed", "sb": "novice_armed", "max": "4", "n": "3000", "seed": "7"}
    res = encounter.compute(state)
    side_a, unit_b = parse_side(kurs, "trained_armed"), parse_side(kurs, "novice_armed")
    lib = lib_encounter(kurs, kurs.rules(), side_a, unit_b, 0.5, 4, 3000, 7, workers=1)
    assert res.encounter.curve == lib.curve and res.encounter.fair_count == lib.fair_count == 4
    two = exact_group(kurs, kurs.rules(), side_a, unit_b * 2).solution
    assert res.encounter.curve[1].method == "exact" and res.encounter.curve[1].p_a_wins == two.p_a_wins
    assert res.cli == ("dicelab encounter kurs --a trained_armed --b novice_armed --p 0.5 --max 4 --n 3000 "
                       "--seed 7")


def test_encounter_page_bad_side_is_the_library_message():
    with pytest.raises(DicelabError, match="side B: count 0\\* is not allowed"):
        encounter.compute({"system": "tun", "sb": "0*red"})


def test_design_page_refuses_a_search_over_its_budget():
    with pytest.raises(DicelabError, match=r"design: 10,000,000 settings take about .* allowed: at most 300 s"):
        design.compute({"system": "kurs", "vary": "a.weapon=0..99,b.weapon=0..99,armor=0..999"})


def test_design_page_bad_wish_gets_the_library_message():
    with pytest.raises(DicelabError, match="lethality = 'lots' is not allowed"):
        design.compute({"system": "kurs", "vary": "a.weapon=0..1", "lethality": "lots"})


# ----------------------------------------------------------- rules files
def upload(text: str) -> str:
    return "data:application/octet-stream;base64," + base64.b64encode(text.encode()).decode()


def test_a_rules_file_goes_into_the_link_field_by_field(tmp_path):
    state = apply_rules_file({"system": "tun", "r.crits": "false", "c.limit": "12"}, "r", "house.toml",
                             upload("[tun]\ncrits = true\nsuccess_rule = 'le'\n[kurs]\nluck_tokens = 2\n"), tmp_path)
    assert state == {"system": "tun", "c.limit": "12", "r.crits": "true", "r.success_rule": "le"}
    assert not any(tmp_path.iterdir())


def test_a_bad_rules_file_names_the_uploaded_file(tmp_path):
    with pytest.raises(DicelabError) as err:
        apply_rules_file({"system": "tun"}, "r", "../../house.toml", upload("[tun]\ncrits = 3\n"), tmp_path)
    assert str(err.value).startswith("rules file 'house.toml': [tun] ")
    with pytest.raises(DicelabError, match="rules file 'h.toml': not valid TOML"):
        apply_rules_file({"system": "tun"}, "r", "h.toml", upload("[tun\n"), tmp_path)
    with pytest.raises(DicelabError, match=r"has no \[kurs\] table; it has \[tun\]"):
        apply_rules_file({"system": "kurs"}, "r", "h.toml", upload("[tun]\ncrits = true\n"), tmp_path)
    assert not any(tmp_path.iterdir())


# ------------------------------------------------------------------- jobs
def test_a_job_is_computed_once_per_key_and_its_errors_are_messages():
    jobs = jobs_mod.Jobs(workers=1)
    calls = []
    first = jobs.submit("k", lambda: calls.append(1) or 7)
    assert first.wait(5) and first.value == 7
    assert jobs.submit("k", lambda: calls.append(1) or 8).value == 7 and calls == [1]
    bad = jobs.submit("bad", lambda: get_system("dnd"))
    assert bad.wait(5) and bad.status == "error" and bad.error.startswith("system = 'dnd' is not allowed")
    jobs.close()


def test_a_newer_job_of_the_same_client_cancels_the_older_pending_one():
    jobs = jobs_mod.Jobs(workers=1, spare=0)  # one worker, busy: the older job is still waiting
    blocker = jobs.submit("slow", lambda: time.sleep(0.5))
    old = jobs.submit("old", lambda: 1, slot=("client", "duel"))
    new = jobs.submit("new", lambda: 2, slot=("client", "duel"))
    assert new.wait(5) and new.value == 2
    assert old.status == "cancelled"
    assert blocker.wait(5)
    jobs.close()


def test_a_job_reports_its_estimate():
    jobs = jobs_mod.Jobs(workers=1)
    job = jobs.submit("e", lambda: jobs_mod.report_estimate(12.5))
    assert job.wait(5) and job.estimate == 12.5
    jobs.close()


def test_fighter_of_is_the_cli_fighter():
    kurs = get_system("kurs")
    assert fighter_of(kurs, {"a": "maximus", "a.armor": "3"}, "a") == load_fighter(kurs, "archetype=maximus,armor=3")


def test_a_dropdown_keeps_a_value_from_the_link_it_does_not_offer():
    """A dropdown would drop the value and rewrite the link; the value stays and the page says what is wrong."""
    from analysis.front.app.controls import system_select

    dropdown = system_select("system", {"system": "nowhere"}, "en").children[1]
    assert dropdown.value == "nowhere" and "nowhere" in [o["value"] for o in dropdown.options]
    panel = rules_panel(get_system("tun"), {"r.crits": "maybe"}, "r", "en")
    keys = {}
    stack = list(panel)
    while stack:
        node = stack.pop()
        ident = getattr(node, "id", None)
        if isinstance(ident, dict) and ident.get("key") == "r.crits":
            keys = {o["value"] for o in node.options}
            assert node.value == "maybe"
        children = getattr(node, "children", None)
        stack.extend(children if isinstance(children, list) else [children] if children is not None else [])
    assert keys == {"true", "false", "maybe"}


# -------------------------------------------- cancel, fairness, guards (issue 26.2, 26.3, 26.10)
def _cpu_seconds(window: float) -> float:
    """CPU seconds this process spends over ``window`` seconds of wall time."""
    start = time.process_time()
    time.sleep(window)
    return time.process_time() - start


@pytest.mark.parametrize("what", ["design search", "2K duel"])
def test_cancel_stops_the_work_for_real(what):
    """A cancelled job stops computing: within a second the process is idle again, and the worker takes the next
    job (a design search polls between duels; the 2K kernel polls its halt flag inside one duel)."""
    tri, six = get_system("tristat"), get_system("onesix")
    if what == "design search":
        a = load_fighter(tri, "veteran")
        work = lambda: lib_design(tri, tri.rules(), a, a, "weapon_damage=0..200,armor=0..20", 3, 0.2, workers=1,
                                  budget=1e6)
    else:
        a = load_fighter(six, "trained_armed")
        six.duel(six.rules(), load_fighter(six, "trained"), load_fighter(six, "trained"))  # kernels loaded
        work = lambda: six.duel(six.rules(track_length=10), a, a)  # 1.2 million states: seconds
    jobs = jobs_mod.Jobs(workers=1, spare=0)
    job = jobs.submit(("long", what), work, slot=("me", "page"))
    time.sleep(1.0)
    assert job.status == "running" and not job.future.done()  # it computes (for seconds more)
    jobs.cancel(("long", what), "me")
    assert job.wait(2.0) and job.status == "cancelled"  # a second on a quiet machine; this one may be busy
    assert _cpu_seconds(0.5) < 0.1  # idle: nothing left computing
    after = jobs.submit("next", lambda: 42)
    assert after.wait(5) and after.value == 42
    jobs.close()


def test_a_cancel_of_one_window_leaves_a_job_another_window_wants():
    jobs = jobs_mod.Jobs(workers=1, spare=0)
    gate = __import__("threading").Event()
    job = jobs.submit("shared", lambda: gate.wait(5) and 7, slot=("one", "duel"))
    assert jobs.submit("shared", lambda: 0, slot=("two", "duel")) is job
    jobs.cancel("shared", "one")
    gate.set()
    assert job.wait(5) and job.status == "done" and job.value == 7
    jobs.close()


def test_a_cheap_request_never_waits_behind_another_clients_long_jobs():
    """Sixty long jobs of one client fill its queue; another client's check is answered at once."""
    import threading

    gate = threading.Event()
    jobs = jobs_mod.Jobs(workers=2, waiting=100)
    long = [jobs.submit(("duel", i), lambda: gate.wait(30), slot=("busy", f"duel{i}")) for i in range(60)]
    time.sleep(0.2)
    start = time.monotonic()
    check = jobs.submit(("checks", "quick"), lambda: 0.5, slot=("newcomer", "checks"))
    assert check.wait(2) and check.value == 0.5 and time.monotonic() - start < 1.0
    assert sum(j.status == "running" for j in long) == 60 and not any(j.future.running() for j in long[2:])
    gate.set()
    jobs.close()


def test_one_client_keeps_at_most_so_many_jobs_waiting():
    import threading

    gate = threading.Event()
    jobs = jobs_mod.Jobs(workers=1, spare=0, waiting=3)
    kept = [jobs.submit(("k", 0), lambda: gate.wait(30), slot=("greedy", "p0"))]
    while not kept[0].future.running():
        time.sleep(0.01)
    kept += [jobs.submit(("k", i), lambda: gate.wait(30), slot=("greedy", f"p{i}")) for i in range(1, 4)]
    refused = jobs.submit(("k", 9), lambda: 1, slot=("greedy", "p9"))
    assert refused.wait(0.1) and refused.status == "error" and "too many computations are waiting" in refused.error
    assert all(j.status == "running" for j in kept)
    other = jobs.submit(("other", 1), lambda: 2, slot=("someone", "p"))
    gate.set()
    assert other.wait(5) and other.value == 2
    jobs.close()


def test_the_app_refuses_what_the_command_line_refuses_the_same_way(capsys):
    """The issue's link: a 2K duel the CLI refuses as too large is refused by the app before anything is built,
    by the same guard (the message's estimate is the CLI's), with a way past it the app has."""
    link = {"system": "onesix", "r.armor_wear": "true", "a": "veteran_armed", "b": "veteran_armed",
            **{f"{s}.{k}": v for s in "ab" for k, v in (("training", "20"), ("personality", "20"), ("armor", "20"),
                                                        ("weapon_ps", "30"))}}
    spec = lambda side: ",".join(["archetype=veteran_armed", *(f"{k}={v}" for k, v in (("training", 20),
                                  ("personality", 20), ("armor", 20), ("weapon_ps", 30)))])
    assert main(["duel", "onesix", "--a", spec("a"), "--b", spec("b"), "--variant", "armor_wear=true"]) == 2
    cli = capsys.readouterr().err
    jobs = jobs_mod.Jobs(workers=1)
    job = jobs.submit("big", lambda: duel.compute(link))
    assert job.wait(30) and job.status == "error"
    estimate = cli.split("duel too large: ", 1)[1].split(";", 1)[0]
    assert job.error.startswith(f"onesix duel too large: {estimate};") and "DICELAB_MAX_MEMORY=" in job.error
    assert "Monte Carlo method" in job.error and "--max-memory" not in job.error
    jobs.close()


def test_the_design_page_refusal_names_no_flag_the_app_lacks():
    """Inside a job the budget is the app's and the way past it is the command line, named as such."""
    from analysis.fights import budget

    jobs = jobs_mod.Jobs(workers=1)
    job = jobs.submit("d", lambda: budget.check_budget("design", 2 * jobs_mod.BUDGET_SECONDS, 1))
    assert job.wait(5) and job.status == "error"
    assert job.error.startswith("design: about 10 min of exact duels (estimated); allowed: at most 5 min; narrow "
                                "the search here, or run it on the command line (dicelab design ... --budget 900)")
    inside = jobs.submit("ok", lambda: budget.check_budget("design", 0.5 * jobs_mod.BUDGET_SECONDS, 1))
    assert inside.wait(5) and inside.value == 0.5 * jobs_mod.BUDGET_SECONDS  # the CLI's 60 s would refuse it
    jobs.close()


def _guarded(hosts, policy="default-src 'self'", max_body=100):
    from analysis.front.app.server import Guard

    seen = {}

    def inner(environ, start_response):
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"ok"]

    guard = Guard(inner, policy, max_body)
    guard.hosts = hosts

    def call(host, length=0):
        environ = {"HTTP_HOST": host, "CONTENT_LENGTH": str(length), "REQUEST_METHOD": "POST"}
        body = b"".join(guard(environ, lambda status, headers, exc=None: seen.update(status=status,
                                                                                      headers=dict(headers))))
        return seen["status"], seen["headers"], body.decode()

    return call


def test_the_front_door_answers_only_its_own_address_with_security_headers():
    from analysis.front.app.server import served_hosts

    call = _guarded(served_hosts("127.0.0.1", 8050))
    status, headers, body = call("127.0.0.1:8050")
    assert status == "200 OK" and body == "ok"
    assert headers["X-Frame-Options"] == "DENY" and headers["Content-Security-Policy"] == "default-src 'self'"
    assert call("localhost:8050")[0] == "200 OK"
    status, headers, body = call("evil.example:8050")  # a DNS-rebinding page's requests carry its own name
    assert status.startswith("421") and body.count("\n") == 1 and "evil.example" in body
    assert headers["X-Frame-Options"] == "DENY"
    assert call("127.0.0.1:9999")[0].startswith("421")
    status, _, body = call("127.0.0.1:8050", length=101)
    assert status.startswith("413") and "at most 100 bytes" in body
    assert served_hosts("0.0.0.0", 8050) is None  # every address: the user chose it


@pytest.mark.parametrize("name, contents, says", [
    ("..", upload("[tun]\ncrits = true\n"), None),
    ("a\x00b.toml", upload("[tun]\ncrits = 3\n"), "rules file 'a\\x00b.toml': [tun] "),
    ("house.toml", "data:application/octet-stream;base64,@@@not base64@@@", "is not an upload the app can read"),
    ("house.toml", "no comma at all", "is not an upload the app can read"),
    (None, 12345, "rules file 'rules.toml': is not an upload"),
    ("x" * 5000 + ".toml", upload("[tun]\ncrits = 3\n"), "(5,005 characters)"),
])
def test_a_malformed_upload_is_one_line_not_a_crash(tmp_path, name, contents, says):
    if says is None:
        assert apply_rules_file({"system": "tun"}, "r", name, contents, tmp_path)["r.crits"] == "true"
    else:
        with pytest.raises(DicelabError) as err:
            apply_rules_file({"system": "tun"}, "r", name, contents, tmp_path)
        assert says in str(err.value) and "\n" not in str(err.value)
    assert not any(tmp_path.iterdir())


def test_every_exact_duel_of_the_fronts_and_tools_passes_the_memory_guard():
    """One code path for the CLI and the app: no module above the systems calls ``system.duel`` but
    ``budget.exact_duel``, which refuses a duel past the memory ceiling before building it."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "analysis"
    direct = []
    for layer in ("fights", "tools", "front"):
        for path in (root / layer).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "duel":
                    direct.append(f"{path.relative_to(root)}:{node.lineno}")
    assert [place.split(":")[0] for place in direct] == ["fights/budget.py"], direct


# ------------------------------------------------------------ in Russian
RU_VIEWS = [
    *((checks, {"system": s}) for s in SYSTEM_IDS),
    *((tune, {"system": s, "to": t}) for s, t in zip(SYSTEM_IDS, SYSTEM_IDS[1:] + SYSTEM_IDS[:1])),
    (tune, {"system": "tun", "r.crits": "true", "p": "1"}),  # out of reach
    (tune, {"system": "onesix", "p": "0.01"}),  # every modifier reaches it
    *((duel, {"system": s}) for s in SYSTEM_IDS),
    (duel, {"system": "kurs", "method": "mc", "n": "2000", "seed": "1"}),
    (compare, {"mode": "variants", "system": "tristat", "r2.die": "8"}),
    (compare, {"mode": "fighters", "system": "kurs", "a2": "maximus", "b2": "tiberius"}),
    (compare, {"mode": "systems", "system": "tun", "system2": "kurs"}),
    (design, {"system": "kurs", "a": "maximus", "b": "tiberius", "vary": "a.weapon=0..2", "rounds": "40"}),
    *((tactics, {"system": s, "a": "novice", "b": "novice"}) for s in ("tristat", "onesix", "tun")),
    (encounter, {"system": "kurs", "max": "3", "n": "500"}),
    (encounter, {"system": "tun", "max": "2"}),  # no fair count up to 2
]
RU_REFUSALS = [(page, state) for page, state, _ in BAD if state.get("system") != "dnd"] + [
    (duel, {"system": "kurs", "a": "maximu"}), (checks, {"system": "tun", "r.sucess_rule": "le"}),
    (duel, {"system": "tristat", "a.bdy": "5"}),
]


def test_every_string_the_russian_app_shows_is_russian():
    """Every page in every mode and every system, its controls (names, tooltips, choices) and its results (cards,
    notes, tables, figures), and its refusals: walked from the components, no English word left."""
    from analysis.front.app.shell import Refused, frame, lang_select, nav, progress, refused_or, show
    from tests.russian import component_texts, english_words

    shown: dict[str, str] = {}
    for page, state in RU_VIEWS:
        body, _ = page.view(page.compute(state), state, "ru")
        for text in component_texts([page.controls(state, "ru"), body]):
            shown.setdefault(text, f"{page.__name__.rsplit('.', 1)[-1]} {state}")
    for page, state in RU_REFUSALS:
        job = type("Done", (), {"status": "done", "value": refused_or(page.compute, state)})()
        body = show(job, page, state, "ru")[0]
        assert isinstance(job.value, Refused) or "Ошибка" in " ".join(component_texts(body)), state
        for text in component_texts(body):
            shown.setdefault(text, f"refusal {state}")
    for text in component_texts([nav("duel", {}, "ru"), lang_select("ru"), frame()]):
        shown.setdefault(text, "frame")
    slow = jobs_mod.Jobs(workers=1) if "workers" in jobs_mod.Jobs.__init__.__code__.co_varnames else jobs_mod.Jobs()
    try:
        job = slow.submit(("ru", 1), lambda: time.sleep(0.2), slot=("ru", "x"))
        for text in component_texts(progress(job, "ru")):
            shown.setdefault(text, "progress")
    finally:
        slow.close()
    english = {text: (where, english_words(text)) for text, where in shown.items() if english_words(text)}
    assert not english, list(english.items())[:10]


def test_every_lab_assumption_gives_its_reason_in_russian():
    """The Russian app's hover over the assumptions line: each declared assumption's reason in Russian, by name."""
    from analysis.present.phrases import assumption_reason
    from analysis.systems import all_systems
    from tests.russian import english_words

    for system in all_systems():
        for a in system.assumptions:
            said = assumption_reason("ru", a.name, a.reason)
            assert a.reason not in said and not english_words(said), (system.id, a.name, said)
            assert assumption_reason("en", a.name, a.reason) == f"{a.name}: {a.reason}"


def test_a_probability_may_be_typed_as_a_percentage_and_with_a_decimal_comma():
    from analysis.front.app.state import from_screen, on_screen

    assert tune.compute({"system": "tristat", "c.target": "7", "p": "75%"}).tune == \
        tune.compute({"system": "tristat", "c.target": "7", "p": "0.75"}).tune
    wish = design.wish({"lethality": "30%", "pwin": "60%", "rounds": "4.5"})
    assert wish == {"rounds": 4.5, "lethality": 0.3, "pwin": 0.6, "top": 5}
    assert from_screen("ru", "p", "0,9") == "0.9" and on_screen("ru", "p", "0.9") == "0,9"
    assert from_screen("ru", "r.dk_faces", "-1,0,1") == "-1,0,1"  # a list keeps its commas
    assert update({}, {"p": from_screen("ru", "p", "0,75")}, {"p": "0.75"}) == {}  # the default, typed in Russian
