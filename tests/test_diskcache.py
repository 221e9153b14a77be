"""The disk store of solved figures (analysis/base/diskcache.py) and 2K's solved chains kept in it: a chain solved
once is read back bit for bit by a later process, any change to what the solver reads or to its code solves anew,
and a broken or unwritable store never changes an answer."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from analysis.base import diskcache
from analysis.base.interrupt import Interrupted
from analysis.systems import onesix
from analysis.systems.onesix import solver

RULES = onesix.Rules(track_length=2, reserve=1)
A = onesix.Fighter(attack_rating=10, defense_rating=6, reflexes=7, weapon_ps=7)
B = onesix.Fighter(attack_rating=9, reflexes=6, weapon_ps=6, weapon_class="shock", personality=0)


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The store on, in a fresh directory; the solver's memory cleared before and after."""
    monkeypatch.setenv(diskcache.CACHE_ENV, str(tmp_path))
    solver.cache_clear()
    yield tmp_path
    solver.cache_clear()


def entries(root: Path) -> list[Path]:
    return sorted((root / solver.DISK_KIND).glob("*.npz"))


def no_kernel(*args, **kwargs):
    raise AssertionError("the compiled solver ran")


def test_a_solved_chain_is_read_back_bit_for_bit_without_the_solver(store, monkeypatch):
    first = onesix.duel(RULES, A, B)
    assert len(entries(store)) == 1
    solver.cache_clear()
    monkeypatch.setattr(solver, "run_kernel", no_kernel)
    again = onesix.duel(RULES, A, B)
    assert again.to_dict() == first.to_dict()
    assert again.solution.rounds == first.solution.rounds and again.solution.states == first.solution.states


@pytest.mark.parametrize("change", ["rules", "fighter", "code", "knob"])
def test_any_change_to_what_the_solver_reads_or_runs_solves_anew(store, monkeypatch, change):
    onesix.duel(RULES, A, B)
    solver.cache_clear()
    rules, a = RULES, A
    if change == "rules":
        rules = RULES.replace(parry_window=1)
    elif change == "fighter":
        a = A.replace(weapon_ps=8)
    elif change == "code":
        monkeypatch.setattr(solver, "_stamp", lambda: b"other code")
    else:
        monkeypatch.setattr(solver, "PRUNE", solver.PRUNE * 10)
    monkeypatch.setattr(solver, "run_kernel", no_kernel)
    with pytest.raises(AssertionError, match="the compiled solver ran"):
        onesix.duel(rules, a, B)


def test_the_source_of_every_kernel_module_keys_the_store():
    """Every module a kernel the solver reaches is compiled from is named in its stamp (a change to any of them
    must miss): the numba dispatchers reachable from the solver's module, module by module, live in those files."""
    import importlib

    import analysis

    root = Path(analysis.__file__).parent
    seen, todo = set(), [solver.__name__]
    while todo:
        mod = importlib.import_module(todo.pop())
        for v in vars(mod).values():
            if hasattr(v, "py_func") and hasattr(v, "overloads") and v.py_func.__module__ not in seen:
                seen.add(v.py_func.__module__)
                todo.append(v.py_func.__module__)
    files = {str(Path(importlib.import_module(m).__file__).relative_to(root)) for m in seen}
    assert len(files) >= 5 and files <= set(solver.SOURCES)
    for name in solver.SOURCES:
        assert (root / name).is_file()


def test_a_corrupt_entry_is_solved_again_and_replaced(store):
    first = onesix.duel(RULES, A, B).to_dict()
    (path,) = entries(store)
    path.write_bytes(b"not a numpy archive")
    solver.cache_clear()
    assert onesix.duel(RULES, A, B).to_dict() == first
    assert diskcache.load(solver.DISK_KIND, path.stem, store) is not None


def test_an_interrupted_solve_keeps_nothing(store, monkeypatch):
    def halted(*args, **kwargs):
        raise Interrupted()

    monkeypatch.setattr(solver, "run_kernel", halted)
    with pytest.raises(Interrupted):
        onesix.duel(RULES, A, B)
    assert entries(store) == []


def test_off_keeps_nothing_and_an_unwritable_store_changes_no_answer(tmp_path, monkeypatch):
    solver.cache_clear()
    reference = onesix.duel(RULES, A, B).to_dict()  # conftest: the store is off for the tests
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    solver.cache_clear()
    assert onesix.duel(RULES, A, B).to_dict() == reference
    assert not (tmp_path / "xdg").exists() and not (tmp_path / "home").exists()
    blocker = tmp_path / "a file"
    blocker.write_text("x")
    monkeypatch.setenv(diskcache.CACHE_ENV, str(blocker / "store"))
    solver.cache_clear()
    assert onesix.duel(RULES, A, B).to_dict() == reference
    solver.cache_clear()


def test_the_default_directory_follows_xdg_then_home(tmp_path, monkeypatch):
    monkeypatch.delenv(diskcache.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert diskcache.cache_dir() == tmp_path / "xdg" / "dicelab"
    monkeypatch.setenv("XDG_CACHE_HOME", "")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert diskcache.cache_dir() == tmp_path / "home" / ".cache" / "dicelab"
    monkeypatch.setenv(diskcache.CACHE_ENV, " OFF ")
    assert diskcache.cache_dir() is None


def test_the_store_keeps_the_most_recently_used_within_its_bytes(tmp_path, monkeypatch):
    monkeypatch.setattr(diskcache, "TRIM_EVERY", 1)
    keys = [diskcache.digest(bytes([i]), stamp=b"s") for i in range(6)]
    for i, key in enumerate(keys):
        if i == 3:
            assert diskcache.load("k", keys[0], tmp_path) is not None  # a hit makes it the most recent
        diskcache.save("k", key, (np.full(100, i, dtype=np.float64),), tmp_path)
        path = tmp_path / "k" / f"{key}.npz"
        if i == 0:
            monkeypatch.setattr(diskcache, "MAX_BYTES", 3 * path.stat().st_size + path.stat().st_size // 2)
        os.utime(path, (1000 + i, 1000 + i))
    kept = {p.stem for p in (tmp_path / "k").glob("*.npz")}
    assert kept == {keys[0], keys[4], keys[5]}
    assert sum(p.stat().st_size for p in (tmp_path / "k").glob("*.npz")) <= diskcache.MAX_BYTES
    assert [a.tolist()[0] for a in diskcache.load("k", keys[5], tmp_path)] == [5.0]


def test_the_next_process_reads_the_chain_back(tmp_path):
    """Across processes, as a designer running the same command twice: the second run answers the same, bit for
    bit, without loading the compiled solver."""
    code = ("import json, sys\n"
            "from analysis.systems import onesix\n"
            "from analysis.systems.onesix import solver\n"
            "r = onesix.Rules(track_length=2, reserve=1)\n"
            "a = onesix.Fighter(attack_rating=10, defense_rating=6, reflexes=7, weapon_ps=7)\n"
            "b = onesix.Fighter(attack_rating=9, reflexes=6, weapon_ps=6, weapon_class='shock', personality=0)\n"
            "d = onesix.duel(r, a, b).to_dict()\n"
            "print(json.dumps({'duel': d, 'compiled': len(solver._solve.overloads)}))\n")
    env = {**os.environ, diskcache.CACHE_ENV: str(tmp_path)}
    runs = [json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                                      check=True, timeout=300).stdout) for _ in range(2)]
    assert runs[0]["duel"] == runs[1]["duel"]
    assert runs[0]["compiled"] and not runs[1]["compiled"]
    assert len(entries(tmp_path)) == 1


def test_a_read_only_store_still_answers(tmp_path, monkeypatch):
    key = diskcache.digest(b"x", stamp=b"s")
    diskcache.save("k", key, (np.arange(4),), tmp_path)

    def refused(*args, **kwargs):
        raise PermissionError("read-only file system")

    monkeypatch.setattr(diskcache.os, "utime", refused)
    assert diskcache.load("k", key, tmp_path)[0].tolist() == [0, 1, 2, 3]


def test_the_cache_command_shows_and_clears_the_store(store, monkeypatch, capsys):
    from analysis.front.cli import main

    onesix.duel(RULES, A, B)
    (path,) = entries(store)
    assert main(["cache", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["directory"] == str(store) and info["on"] is True
    assert info["kinds"] == {solver.DISK_KIND: {"entries": 1, "bytes": path.stat().st_size}}
    assert main(["cache"]) == 0
    text = capsys.readouterr().out
    assert str(store) in text and re.search(rf"{solver.DISK_KIND}\s+1 entry\s+\d", text)
    assert main(["cache", "--clear", "--json"]) == 0
    done = json.loads(capsys.readouterr().out)
    assert done["removed"] == {"entries": 1, "bytes": info["kinds"][solver.DISK_KIND]["bytes"]}
    assert done["kinds"] == {} and entries(store) == []
    solver.cache_clear()
    monkeypatch.setattr(solver, "run_kernel", no_kernel)
    with pytest.raises(AssertionError, match="the compiled solver ran"):
        onesix.duel(RULES, A, B)


def test_the_cache_command_says_when_the_store_is_off(capsys):
    from analysis.front.cli import main

    assert main(["cache", "--clear"]) == 0  # conftest: off, so nothing of the user's is touched
    assert "off (DICELAB_CACHE=off)" in capsys.readouterr().out
    assert main(["cache", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["on"] is False


def test_a_process_trims_at_its_first_write_and_every_trim_every_writes_after(tmp_path, monkeypatch):
    monkeypatch.setattr(diskcache, "TRIM_EVERY", 3)
    monkeypatch.setattr(diskcache, "_writes", {})
    trims = []
    monkeypatch.setattr(diskcache, "_trim", lambda paths, limit: trims.append(limit))
    for i in range(7):
        diskcache.save("k", diskcache.digest(bytes([i]), stamp=b"s"), (np.arange(2),), tmp_path)
    assert len(trims) == 3 and len(list((tmp_path / "k").glob("*.npz"))) == 7
