"""Workers die with their parent: a sweep, a design search, variants, a fight translation and a simulation
killed with SIGKILL — which nothing in the parent can catch — leave no process of their group behind; and every
long command, sent Ctrl-C or SIGTERM at a random moment, exits 130 with one line and keeps what it finished."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from analysis.base.pool import WATCH_EVERY, check_workers, max_workers
from analysis.front.sweep import journal_path
from tests.procs import catching_sigterm

GRACE = 10.0
"""Seconds the group has to be gone after the parent is killed."""

SWEEP = """
[sweep]
kind = "duel"

[systems.tristat]
variants = { shock_rule = [false, true] }
a = { archetype = "veteran", weapon_damage = { from = 0, to = 40 } }
b = { archetype = "trained", armor = { from = 0, to = 20 } }
"""

COMMANDS = {
    "sweep": ["sweep", "{config}", "--out", "{out}", "--workers", "2", "--quiet"],
    "design": ["design", "tristat", "--a", "veteran", "--b", "veteran", "--vary", "weapon_damage=0..200,armor=0..20",
               "--rounds", "3", "--lethality", "0.2", "--workers", "2", "--budget", "100000", "--quiet"],
    "variants": ["variants", "tristat", "--a", "health=200,weapon_damage=5", "--b", "health=200", "--variant",
                 "stat_limits=warn", "--workers", "2", "--budget", "100000", "--quiet"],
    "equiv": ["equiv", "--from", "tristat", "--a", "veteran", "--b", "trained", "--to", "kurs", "--variant",
              "luck_tokens=3", "--workers", "2", "--budget", "100000", "--quiet"],
}


def group(pgid: int) -> list[psutil.Process]:
    """The live (not zombie) processes of a process group."""
    out = []
    for p in psutil.process_iter(["status"]):
        try:
            if os.getpgid(p.pid) == pgid and p.info["status"] != psutil.STATUS_ZOMBIE:
                out.append(p)
        except (ProcessLookupError, psutil.Error):
            continue
    return out


def start(argv: list[str]) -> subprocess.Popen:
    code = "import sys; from analysis.front.cli import main; sys.exit(main())"
    return subprocess.Popen([sys.executable, "-c", code, *argv], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


def wait_for_workers(proc: subprocess.Popen, count: int) -> None:
    deadline = time.monotonic() + 90
    while len(psutil.Process(proc.pid).children()) < count:
        assert proc.poll() is None, "the command ended before its workers started"
        assert time.monotonic() < deadline, "the workers never started"
        time.sleep(0.05)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_sigkill_leaves_no_worker_behind(tmp_path, command):
    config = tmp_path / "sweep.toml"
    config.write_text(SWEEP, encoding="utf-8")
    argv = [a.format(config=config, out=tmp_path / "out.parquet") for a in COMMANDS[command]]
    proc = start(argv)
    try:
        wait_for_workers(proc, 2)
        time.sleep(4 * WATCH_EVERY)  # the workers' watchdogs are running
        assert proc.poll() is None
        assert len(group(proc.pid)) >= 3  # the parent and its two workers
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        deadline = time.monotonic() + GRACE
        while group(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = group(proc.pid)
        assert not left, [(p.pid, p.cmdline()) for p in left]
    finally:
        for p in group(proc.pid):
            p.kill()


def test_a_killed_simulation_leaves_nothing_behind():
    proc = start(["sim", "tristat", "--a", "veteran", "--b", "trained", "--n", "4000000000", "--workers", "2",
                  "--quiet"])
    deadline = time.monotonic() + 60
    while psutil.Process(proc.pid).num_threads() < 3:  # the main thread and two kernel threads
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    time.sleep(0.5)
    assert not group(proc.pid)


def test_worker_counts_are_capped_with_a_message():
    assert check_workers(max_workers("threads"), "threads") == max_workers("threads")
    with pytest.raises(Exception, match=rf"workers = 100000 is not allowed; allowed: at most {max_workers('threads')} "
                                        r"threads \(4 per core"):
        check_workers(100000, "threads")
    with pytest.raises(Exception, match=r"at most \d+ processes \(2 per core"):
        check_workers(max_workers("processes") + 1, "processes")


@pytest.mark.parametrize("argv", [
    ["sim", "tristat", "--a", "veteran", "--b", "veteran", "--workers", "100000"],
    ["sim-check", "tristat", "--workers", "100000"],
    ["sweep", "CONFIG", "--out", "OUT", "--workers", "100000"],
    ["design", "tristat", "--a", "veteran", "--b", "veteran", "--vary", "armor=0..1", "--rounds", "3",
     "--lethality", "0", "--workers", "100000"],
])
def test_too_many_workers_is_one_line_and_nothing_runs(tmp_path, argv):
    config = tmp_path / "sweep.toml"
    config.write_text(SWEEP, encoding="utf-8")
    argv = [str(config) if a == "CONFIG" else str(tmp_path / "o.parquet") if a == "OUT" else a for a in argv]
    done = subprocess.run([sys.executable, "-c", "import sys; from analysis.front.cli import main; sys.exit(main())", *argv],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
    assert "workers = 100000 is not allowed; allowed: at most" in done.stderr
    assert sorted(p.name for p in Path(tmp_path).iterdir()) == ["sweep.toml"]


# ------------------------------------------------- Ctrl-C and SIGTERM at random moments (issue 26.1, 26.4)
SIGNAL_RUNS = int(os.environ.get("DICELAB_SIGNAL_RUNS", "2"))
"""Runs per command and signal (each at a random moment); e.g. ``DICELAB_SIGNAL_RUNS=20`` for a long run."""
BIG_TRISTAT = ["--variant", "stat_limits=warn", "--a", "health=300,weapon_damage=4", "--b", "health=300,weapon_damage=4"]
LONG_COMMANDS = {
    "duel tristat": ["duel", "tristat", *BIG_TRISTAT],
    "duel onesix": ["duel", "onesix", "--a", "master_armed", "--b", "master_armed", "--variant", "track_length=10"],
    "sim tun": ["sim", "tun", "--a", "trained_armed", "--b", "trained_armed", "--n", "4000000000", "--quiet"],
    "duel kurs": ["duel", "kurs", "--a", "trained", "--b", "trained", "--variant", "luck_tokens=8"],
    "sim": ["sim", "tristat", "--a", "veteran", "--b", "trained", "--n", "4000000000", "--quiet", "--json"],
    "sim-check": ["sim-check", "kurs", "--skill", "2", "--n", "10000000000", "--quiet"],
    "sweep": ["sweep", "{config}", "--out", "{out}", "--workers", "1", "--quiet"],
    "design": ["design", "onesix", "--a", "trained_armed", "--b", "trained_armed", "--vary", "a.reflexes=6..16",
               "--rounds", "3", "--lethality", "0.1", "--workers", "1", "--budget", "100000", "--quiet", "--json"],
    "variants": ["variants", "tristat", *BIG_TRISTAT, "--workers", "1", "--budget", "100000", "--quiet"],
    "variants-processes": ["variants", "onesix", "--a", "trained_armed", "--b", "trained_armed", "--workers", "2",
                           "--budget", "100000", "--quiet"],
    "equiv": ["equiv", "--from", "tristat", "--a", "veteran", "--b", "trained", "--to", "onesix", "--workers", "1",
              "--budget", "100000", "--quiet"],
    "report": ["report", "--out", "{report}"],
}
INTERRUPTED = re.compile(r"^dicelab(?: [\w-]+){0,2}: (?:error: )?interrupted\b[^\n]*\n$")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("command", sorted(LONG_COMMANDS))
def test_ctrl_c_and_sigterm_at_random_moments_exit_130_with_one_line(tmp_path, command, signum):
    """Each run is signalled at a random moment while it works: exit 130 (never a crash or core dump), one line on
    stderr, what finished kept (a sweep's journal) and nothing half-written that claims to be complete."""
    config = tmp_path / "sweep.toml"
    config.write_text(SWEEP, encoding="utf-8")
    rng = random.Random(f"{command} {signum}")
    for run in range(SIGNAL_RUNS):
        report, out = tmp_path / f"report{run}", tmp_path / f"out{run}.parquet"
        argv = [a.format(config=config, out=out, report=report) for a in LONG_COMMANDS[command]]
        proc = subprocess.Popen([sys.executable, "-c", START, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, start_new_session=True, env={**os.environ, "PYTHONFAULTHANDLER": "1"})
        try:
            deadline = time.monotonic() + 60
            while proc.poll() is None and not catching_sigterm(proc.pid) and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(rng.uniform(0.0, 2.0))
            assert proc.poll() is None, f"{command} ended before the signal: {proc.communicate()}"
            proc.send_signal(signum)
            try:
                stdout, stderr = proc.communicate(timeout=120)
            except subprocess.TimeoutExpired:  # a hang: every thread's stack, for the failure message
                proc.send_signal(signal.SIGABRT)
                pytest.fail(f"{command}: no exit 120 s after {signal.Signals(signum).name}: {proc.communicate()[1]}")
        finally:
            if proc.poll() is None:
                proc.kill()
        assert proc.returncode == 130 and INTERRUPTED.match(stderr), (command, proc.returncode, stderr[-2000:])
        if command == "report":
            assert not (report / "index.html").exists() and not list(tmp_path.glob(".report*"))
        if command == "sweep":  # interrupted once its journal is open: the journal keeps what finished
            assert not out.exists()
            assert ("run the same command again to resume" in stderr) == journal_path(out).exists(), stderr
        if stdout and "--json" in argv:
            data = json.loads(stdout)
            assert data["interrupted"] is True


START = "import sys; from analysis.front.cli import main; sys.exit(main())"


def test_an_interruption_a_library_swallowed_still_stops_the_next_batch():
    """Ctrl-C that lands in code catching it (an optional import turning it into an ImportError) is remembered:
    the next batch stops before its first chunk instead of running to the end with exit 0."""
    import numpy as np

    from analysis.base.interrupt import Interrupted, received, signals
    from sims.engine import run_chunks

    with signals():
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1.0)  # the handler raises here
        except KeyboardInterrupt:
            pass  # swallowed, as a library might
        assert received() == signal.SIGINT
        with pytest.raises(Interrupted):
            run_chunks(lambda n, rng: np.ones(1), 10**10, seed=1, workers=1)
    assert received() == 0


# ------------------------------------------------- 2K memory estimates against measured peaks (issue 26.11)
PEAK = """
import json, sys
from analysis.fights.fighters import load_fighter
from analysis.systems import get_system
from analysis.tools.house_rules import ruleset
six = get_system("onesix")
rules = ruleset(six, None, json.loads(sys.argv[1]))
fighter = load_fighter(six, sys.argv[2])
six.duel(rules, fighter, fighter)
with open("/proc/self/status", encoding="ascii") as fh:  # this process's own high-water mark, not its parent's
    print(next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:")))
"""
MEMORY_LADDER = [({"track_length": 6}, "trained_armed"), ({"track_length": 10}, "trained_armed"),
                 ({"armor_wear": True}, "archetype=veteran_armed,armor=3"),
                 ({"armor_wear": True}, "archetype=veteran_armed,armor=5")]
"""2K duels from 90 thousand to 2 million chain states, with and without armor wear (whose conditions the old
estimate counted as every level times every wear, 3 to 12 times too many).  Gear faults' chains (each weapon
intact or broken) take 100-150 s of CPU to solve, too long for the suite."""


@pytest.mark.parametrize("variants, fighter", MEMORY_LADDER, ids=[f"{v} {f}" for v, f in MEMORY_LADDER])
def test_the_2k_memory_estimate_is_within_1_5x_of_the_measured_peak(variants, fighter):
    """The estimate the memory ceiling compares (analysis/fights/budget.py, from chain.states_bound) against the
    peak resident memory of a fresh process solving the duel (its own VmHWM: wait4 would report the forking parent's)."""
    from analysis.fights import budget
    from analysis.fights.fighters import load_fighter
    from analysis.systems import get_system
    from analysis.tools.house_rules import ruleset

    six = get_system("onesix")
    small = load_fighter(six, "trained")
    six.duel(six.rules(), small, small)  # the kernels compiled and cached here: the peak is the duel's, not numba's
    rules, f = ruleset(six, None, variants), load_fighter(six, fighter)
    estimate = budget.duel_bytes(six, rules, f, f) / budget.MB
    out = subprocess.run([sys.executable, "-c", PEAK, json.dumps(variants), fighter], capture_output=True, text=True,
                         check=True).stdout
    peak = int(out.split()[-1]) / 1024
    assert 1 / 1.5 <= estimate / peak <= 1.5, (estimate, peak)
