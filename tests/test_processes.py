"""Workers die with their parent: a sweep, a design search, variants, a fight translation and a simulation
killed with SIGKILL — which nothing in the parent can catch — leave no process of their group behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from analysis.base.pool import WATCH_EVERY, check_workers, max_workers

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
