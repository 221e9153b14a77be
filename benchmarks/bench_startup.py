"""Start-up time of the command line: this tree against an older commit, in one run, as ratios (issue 14.5).

The older commit is checked out into a temporary git worktree; both trees run with this interpreter, their
``analysis`` package first on ``sys.path``, and the runs alternate so that both see the same machine load.

    .venv/bin/python benchmarks/bench_startup.py [--base 790a921] [--repeat 9]

Target: ``--version``, ``--help``, ``check``, ``table`` and ``tune`` under 0.3 s wall (median).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = [
    ["--version"],
    ["--help"],
    ["check", "tristat", "--target", "7"],
    ["table", "tristat"],
    ["tune", "tristat", "--target", "7", "--p", "0.75"],
    ["duel", "tristat", "--a", "veteran", "--b", "trained"],
]
TARGET = 0.3
RUNNER = "import sys; from analysis.front.cli import main; sys.exit(main())"


def wall(tree: Path, args: list[str]) -> float:
    """Seconds for one run of ``dicelab ARGS`` from ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", RUNNER, *args], cwd=tree, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    took = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{tree}: dicelab {' '.join(args)} failed: {proc.stderr.strip()}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", default="790a921", help="the commit to compare with (default 790a921)")
    parser.add_argument("--repeat", type=int, default=9, help="runs per command and tree (default 9)")
    ns = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="dicelab-base-")) / "tree"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(base), ns.base], check=True)
    try:
        for tree in (base, ROOT):  # compile the .pyc files once, outside the timing
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "analysis")], check=True)
        print(f"dicelab start-up, median of {ns.repeat} runs (wall seconds); base {ns.base}, this tree {ROOT}")
        print(f"{'command':<48} {'base':>7} {'now':>7} {'ratio':>7}  target < {TARGET} s")
        for args in COMMANDS:
            old, new = [], []
            for _ in range(ns.repeat):
                old.append(wall(base, args))
                new.append(wall(ROOT, args))
            o, n = statistics.median(old), statistics.median(new)
            label = " ".join(args)
            print(f"{label:<48} {o:7.3f} {n:7.3f} {o / n:6.1f}x  {'yes' if n < TARGET else 'NO'}")
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=False)
        shutil.rmtree(base.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
