"""Monte Carlo simulators: agreement with the exact engine, reproducibility, interfaces."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from analysis.base.params import DicelabError
from analysis.fights.fighters import load_fighter
from analysis.front.cli import main
from analysis.systems import SYSTEM_IDS, get_system
from sims.api import options_for, simulate_check, simulate_duel
from sims.engine import CHUNK, Stopped, run_chunks, seed_sequence
from tests.procs import catching_sigterm

CHECKS = {
    "tristat": [dict(target=7), dict(target=3), dict(target=11)],
    "onesix": [dict(rating=9), dict(rating=4, mod=2), dict(rating=13, skilled=False)],
    "tun": [dict(limit=13), dict(limit=9, dice="1d20"), dict(limit=12, dice="1d6x3")],
    "kurs": [dict(skill=2), dict(skill=-1, difficulty=1), dict(skill=0, mod=1)],
}
CHECK_VARIANTS = {
    "tristat": [dict(die=20)],
    "onesix": [dict(extra_die_ones="count", explode_depth=2)],
    "tun": [dict(success_rule="le", crits=True)],
    "kurs": [dict(dk_faces=(-1, 0, 1), luck_tokens=1)],
}
PAIRS = {
    "tristat": [("veteran", "trained"), ("novice_armed", "novice_armed")],
    "onesix": [("daisy", "poacher"), ("trained_armed", "veteran_armed")],
    "tun": [("red", "blue"), ("novice", "trained")],
    "kurs": [("maximus", "tiberius"), ("trained", "veteran")],
}
N_CHECK = 200_000
N_DUEL = 60_000


def strict_json(text: str) -> dict:
    """JSON that a strict parser accepts: NaN and Infinity are refused."""
    def refuse(name: str) -> None:
        raise ValueError(f"not strict JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def within(estimate, exact, k=4.0):
    return abs(estimate.value - exact) <= k * max(estimate.se, 1.0 / estimate.n)


@pytest.mark.parametrize("system_id", SYSTEM_IDS)
def test_simulated_checks_agree_with_exact(system_id):
    system = get_system(system_id)
    cases = [(system.rules(), kw) for kw in CHECKS[system_id]]
    cases += [(system.rules(**v), CHECKS[system_id][0]) for v in CHECK_VARIANTS[system_id]]
    for i, (rules, kw) in enumerate(cases):
        args = system.args(**kw)
        exact = system.check(rules, args)
        sim = simulate_check(system_id, rules, args, N_CHECK, seed=100 + i)
        assert within(sim.p_success, exact.p_success), (kw, sim.p_success, exact.p_success)
        data = sim.to_dict()
        assert data["n"] == N_CHECK and "se_p_success" in data and len(data["ci_p_success"]) == 2
        for name in ("p_critical", "p_fumble"):
            value = getattr(exact, name)
            if value is not None and name in data:
                assert abs(data[name] - value) <= 4 * max(data[f"se_{name}"], 1 / N_CHECK)


@pytest.mark.parametrize("system_id", SYSTEM_IDS)
def test_simulated_duels_agree_with_the_exact_chain(system_id):
    system = get_system(system_id)
    rules = system.rules()
    for i, (a_name, b_name) in enumerate(PAIRS[system_id]):
        a, b = load_fighter(system, a_name), load_fighter(system, b_name)
        exact = system.duel(rules, a, b).solution
        sim = simulate_duel(system_id, rules, a, b, N_DUEL, seed=7 + i, model="exact")
        label = f"{system_id} {a_name} vs {b_name}"
        assert within(sim.p_a_wins, exact.p_a_wins), (label, sim.p_a_wins, exact.p_a_wins)
        assert within(sim.p_both_out, exact.p_both_out), (label, sim.p_both_out, exact.p_both_out)
        assert within(sim.p_a_dying, exact.p_a_dying), (label, sim.p_a_dying, exact.p_a_dying)
        if exact.p_stalemate == 0:
            assert within(sim.mean_rounds, exact.mean_rounds), (label, sim.mean_rounds, exact.mean_rounds)


@pytest.mark.parametrize("model", ["full", "exact"])
@pytest.mark.parametrize("system_id", SYSTEM_IDS)
def test_both_models_run_every_archetype_pairing(system_id, model):
    from analysis.fights.fighters import archetypes

    system = get_system(system_id)
    names = list(archetypes(system_id))
    rules = system.rules()
    for a_name in names:
        for b_name in names:
            res = simulate_duel(system_id, rules, load_fighter(system, a_name), load_fighter(system, b_name), 400,
                                seed=1, model=model)
            total = res.p_a_wins.value + res.p_b_wins.value + res.p_both_out.value + res.p_unfinished.value
            assert res.model == model and total == pytest.approx(1.0)


@pytest.mark.parametrize("system_id", SYSTEM_IDS)
def test_same_seed_same_numbers_whatever_the_workers(system_id):
    system = get_system(system_id)
    a, b = (load_fighter(system, x) for x in PAIRS[system_id][0])
    rules = system.rules()
    runs = [simulate_duel(system_id, rules, a, b, 150_000, seed=42, workers=w).counts for w in (1, 2, 3)]
    assert all(np.array_equal(runs[0], r) for r in runs[1:])
    other = simulate_duel(system_id, rules, a, b, 150_000, seed=43, workers=2).counts
    assert not np.array_equal(runs[0], other)


def test_a_generator_seed_is_reproducible_and_advances():
    s = get_system("tristat")
    args = s.args(target=7)
    one = simulate_check("tristat", s.rules(), args, 10_000, seed=np.random.default_rng(5)).counts
    two = simulate_check("tristat", s.rules(), args, 10_000, seed=np.random.default_rng(5)).counts
    assert np.array_equal(one, two)
    rng = np.random.default_rng(5)
    first = simulate_check("tristat", s.rules(), args, 10_000, seed=rng).counts
    second = simulate_check("tristat", s.rules(), args, 10_000, seed=rng).counts
    assert np.array_equal(first, one) and not np.array_equal(first, second)


def test_chunk_streams_are_children_of_the_seed():
    children = seed_sequence(9).spawn(3)
    assert [c.spawn_key for c in children] == [(0,), (1,), (2,)]
    with pytest.raises(DicelabError, match="n = 0"):
        run_chunks(lambda n, rng: np.zeros(1), 0, seed=1)
    with pytest.raises(DicelabError, match="seed"):
        seed_sequence(-3)


@pytest.mark.parametrize("system_id", SYSTEM_IDS)
def test_exact_model_switches_every_full_rule_off(system_id):
    exact = options_for(system_id, "exact")
    full = options_for(system_id, "full")
    assert all(v is False for v in exact.to_dict().values())
    assert set(exact.to_dict()) == set(full.to_dict())


def test_sim_cli_json_fields(capsys):
    code = main(["sim", "tristat", "--a", "veteran", "--b", "trained", "--n", "20000", "--seed", "1", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    for key in ("p_a_wins", "p_b_wins", "p_both_out", "p_a_dead", "p_b_dead", "rounds", "mean_rounds", "n",
                "se_p_a_wins", "se_p_b_wins", "se_p_both_out", "se_mean_rounds", "ci_p_a_wins"):
        assert key in data
    assert data["n"] == 20000 and data["seed"] == 1 and data["model"] == "full"


def test_sim_check_cli(capsys):
    code = main(["sim-check", "tristat", "--target", "7", "--n", "50000", "--seed", "3", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and abs(data["p_success"] - 7 / 12) <= 4 * data["se_p_success"]


@pytest.mark.parametrize("argv,word", [
    (["sim", "tristat", "--a", "veteran", "--b", "trained", "--n", "0"], "n = 0"),
    (["sim", "tristat", "--a", "veteran", "--b", "trained", "--seed", "-1"], "seed"),
    (["sim", "tristat", "--a", "veteran", "--b", "trained", "--option", "warp=true"], "warp"),
    (["sim", "tristat", "--a", "veteran", "--b", "trained", "--option", "x=1"], "there are no tristat simulation options"),
    (["sim", "onesix", "--a", "daisy", "--b", "poacher", "--option", "pain_shock=false"], "--variant NAME=VALUE"),
])
def test_sim_bad_input(capsys, argv, word):
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and word in err and err.count("\n") == 1


@pytest.mark.parametrize("variant", [dict(shock_rule=True), dict(initiative_once=True), dict(acv_in_max=True),
                                     dict(damage_rounding="nearest", die=10)])
def test_tristat_duel_variants_agree_with_the_chain(variant):
    system = get_system("tristat")
    rules = system.rules(**variant)
    a, b = load_fighter(system, "veteran"), load_fighter(system, "trained_armed")
    exact = system.duel(rules, a, b).solution
    sim = simulate_duel("tristat", rules, a, b, N_DUEL, seed=11, model="exact")
    for name in ("p_a_wins", "p_both_out", "mean_rounds"):
        assert within(getattr(sim, name), getattr(exact, name)), (variant, name)


# ------------------------------------------------------- runs at scale
def _chunk_counter(stop_at: int | None = None):
    """A kernel stand-in counting draws below 0.5 per chunk; at chunk ``stop_at`` it presses Ctrl-C."""
    calls = []

    def call(n, rng):
        calls.append(n)
        if stop_at is not None and len(calls) == stop_at:
            os.kill(os.getpid(), signal.SIGINT)
        return np.array([int((rng.random(n) < 0.5).sum()), n], dtype=np.int64)

    return call


@pytest.mark.parametrize("workers", [1, 2])
def test_ctrl_c_keeps_a_prefix_of_chunks_that_a_shorter_run_reproduces(workers):
    n = 2000 * CHUNK
    with pytest.raises(Stopped) as info:
        run_chunks(_chunk_counter(stop_at=5), n, seed=11, workers=workers)
    done = info.value.n
    assert 5 * CHUNK <= done < n and done % CHUNK == 0
    assert info.value.counts[1] == done
    assert np.array_equal(info.value.counts, run_chunks(_chunk_counter(), done, seed=11, workers=1))


def test_an_interrupted_simulation_reports_what_finished(monkeypatch):
    import sims.api as api

    s = get_system("tristat")
    real = api.run_chunks

    def stopped(call, n, seed, workers, progress=None):
        counts = real(call, 3 * CHUNK, seed, workers)
        raise Stopped(counts, 3 * CHUNK)

    monkeypatch.setattr(api, "run_chunks", stopped)
    res = simulate_check("tristat", s.rules(), s.args(target=7), 10 * CHUNK, seed=5)
    monkeypatch.setattr(api, "run_chunks", real)
    whole = simulate_check("tristat", s.rules(), s.args(target=7), 3 * CHUNK, seed=5)
    data = res.to_dict()
    assert res.interrupted and data["interrupted"] is True and (data["n"], data["n_requested"]) == (3 * CHUNK, 10 * CHUNK)
    assert data["p_success"] == whole.p_success.value and data["se_p_success"] == whole.p_success.se
    assert whole.to_dict()["interrupted"] is False


def test_ctrl_c_on_the_command_line_prints_the_trials_so_far():
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from analysis.front.cli import main; sys.exit(main())",
                             "sim", "tristat", "--a", "veteran", "--b", "trained", "--n", "4000000000", "--seed", "3",
                             "--workers", "2", "--json", "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.monotonic() + 120  # a slow machine may take seconds to start: signal the command, not its imports
    while proc.poll() is None and not catching_sigterm(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(4)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    data = strict_json(out)
    assert proc.returncode == 130 and err.count("\n") == 1 and "interrupted after" in err
    assert data["interrupted"] is True and data["n_requested"] == 4_000_000_000
    assert 0 < data["n"] < data["n_requested"] and data["n"] % CHUNK == 0
    assert data["se_p_a_wins"] == pytest.approx((data["p_a_wins"] * (1 - data["p_a_wins"]) / data["n"]) ** 0.5)


def test_memory_does_not_grow_with_the_number_of_chunks():
    import tracemalloc

    def big(n, rng):
        return np.full(1 << 17, n, dtype=np.int64)  # 1 MB of counts per chunk

    tracemalloc.start()
    try:
        total = run_chunks(big, 300 * 1024, seed=1, workers=2, chunk=1024)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert total[0] == 300 * 1024
    assert peak < 30 * (1 << 20), f"{peak / 2**20:.0f} MB for 300 chunks of 1 MB"


def test_progress_hears_every_trial():
    class Tally:
        def __init__(self):
            self.done = 0

        def update(self, count):
            self.done += count

    tally = Tally()
    run_chunks(_chunk_counter(), 5 * CHUNK + 17, seed=2, workers=2, progress=tally)
    assert tally.done == 5 * CHUNK + 17


def test_a_cold_kernel_cache_says_so_once(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    argv = [sys.executable, "-c", "import sys; from analysis.front.cli import main; sys.exit(main())", "sim-check", "tun",
            "--n", "1000", "--seed", "1", "--workers", "2"]
    cold = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
    warm = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
    assert cold.returncode == warm.returncode == 0
    assert cold.stderr.count("compiling kernels (first run only)") == 1, cold.stderr
    assert "compiling" not in warm.stderr and cold.stdout == warm.stdout


def test_a_fight_that_never_ends_says_so(capsys):
    argv = ["sim", "tristat", "--a", "armor=50", "--b", "armor=50", "--n", "3000", "--seed", "1"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "this fight never ends (simulated up to 2,000 rounds)" in text and "nan" not in text.lower()
    assert main([*argv, "--json"]) == 0
    data = strict_json(capsys.readouterr().out)
    assert data["never_ends"] is True and data["mean_rounds"] is None and data["median_rounds"] is None
    assert data["p_unfinished"] == 1.0 and data["rounds_note"].startswith("this fight never ends")


def test_an_option_given_twice_is_refused_with_both_values(capsys):
    argv = ["sim", "onesix", "--a", "daisy", "--b", "poacher", "--n", "1000", "--option", "stopping_effect=true",
            "--option", "stopping_effect=false"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--option: stopping_effect is given twice ('true' and 'false')" in err
