"""Running a benchmark script against another git revision, in the same run: the revision is checked out in a
temporary ``git worktree`` and the script runs there in a subprocess (``PYTHONPATH`` = that tree), so both
sides share the machine's load of the moment.

    with worktree("HEAD~1") as tree:
        text = run_in(tree, __file__, "--json")
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

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
