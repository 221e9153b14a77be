"""Running a benchmark script against another git revision, in the same run: the revision is checked out in a
temporary ``git worktree`` and the script runs there in a subprocess (``PYTHONPATH`` = that tree), so both
sides share the machine's load of the moment.

    with worktree("HEAD~1") as tree:
        text = run_in(tree, __file__, "--json")
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

ROOT = Path(__file__).resolve().parents[1]


@contextmanager
def worktree(rev: str) -> Iterator[Path]:
    """A temporary worktree of ``rev`` (detached), removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="dicelab-against-"))
    tree = folder / "tree"
    subprocess.run(["git", "worktree", "add", "--detach", "-q", str(tree), rev], cwd=ROOT, check=True)
    try:
        yield tree
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False)
        shutil.rmtree(folder, ignore_errors=True)


def run_in(tree: Path, script: str | Path, *args: str) -> str:
    """The standard output of ``python script args`` run against the library of ``tree``."""
    done = subprocess.run([sys.executable, str(script), *args], cwd=tree, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(tree)})
    if done.returncode:
        raise RuntimeError(f"{script} in {tree} failed:\n{done.stderr[-3000:]}")
    return done.stdout


def identity_main(doc: str, script: str, digests: Callable[[int, int], dict[str, str]], cases: int, n: int,
                  n_help: str, describe: Callable[[dict[str, str], int], str]) -> None:
    """The command line of an identity script: ``--json`` prints this tree's digests (``digests(cases, n)``: a
    hash of every case's counts by label); ``--against REV`` compares them with the same script's run in a
    worktree of ``REV``, prints ``describe(digests, n)``, how many are identical and which differ, and exits 1 when
    any differs."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--against", help="the git revision to compare with (run in a temporary worktree)")
    parser.add_argument("--cases", type=int, default=cases)
    parser.add_argument("--n", type=int, default=n, help=n_help)
    parser.add_argument("--json", action="store_true", help="print this tree's digests as JSON and stop")
    ns = parser.parse_args()
    if ns.json:
        print(json.dumps(digests(ns.cases, ns.n)))
        return
    if not ns.against:
        parser.error("--against REV is needed (or --json)")
    mine = digests(ns.cases, ns.n)
    with worktree(ns.against) as tree:
        theirs = json.loads(run_in(tree, script, "--json", "--cases", str(ns.cases), "--n", str(ns.n)))
    differ = [label for label in mine if mine[label] != theirs.get(label)]
    print(f"{describe(mine, ns.n)}: {len(mine) - len(differ)} identical to {ns.against}, {len(differ)} differ")
    for label in differ:
        print("  differs:", label)
    sys.exit(1 if differ or set(mine) != set(theirs) else 0)
