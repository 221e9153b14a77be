"""The command line under random input (issues 14.4, 16.2, 17.6).

Hypothesis builds argument lists for every command: random options and values, fighters (archetypes, inline
pairs, files with random contents), duplicates and empties.  The only allowed outcomes are exit 0 with valid
output (strict JSON where JSON is asked for: no NaN, no Infinity) or exit 2 with one line on stderr (plus at most
one hint line); never a traceback, never a hang (each case has a timeout).

Cases run in-process through ``main()``; a few run the console script.  Size: ``DICELAB_FUZZ_EXAMPLES`` cases per
command (default 12; e.g. ``DICELAB_FUZZ_EXAMPLES=500 pytest tests/test_fuzz.py`` for a long run), derandomized
unless ``DICELAB_FUZZ_RANDOM=1``.  Expensive commands get small bounded inputs; ``report`` and unknown commands
(``app`` serves until stopped) get refusals and ``--help`` only.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analysis.base.params import Bool, Choice, Faces, Float, Int
from analysis.fights.fighters import archetypes
from analysis.front.cli import build_parser, main
from analysis.systems import SYSTEM_IDS, get_system

EXAMPLES = int(os.environ.get("DICELAB_FUZZ_EXAMPLES", "12"))
RANDOM = os.environ.get("DICELAB_FUZZ_RANDOM", "") not in ("", "0")
TIMEOUT = {"sim": 180, "sim-check": 180, "design": 60, "variants": 60, "equiv": 60, "sweep": 60}
DEFAULT_TIMEOUT = 30
ERROR_LINE = re.compile(r"^dicelab(?: [\w-]+){0,2}: (?:error: .+|interrupted)$")


# ----------------------------------------------------------------- values
@dataclass(frozen=True)
class FileArg:
    """A file the case needs: written into the case's directory, its path put in the argument list."""

    suffix: str
    content: bytes


@dataclass(frozen=True)
class OutArg:
    """An output path of some kind: new, existing file, directory, missing parent, empty, trailing slash."""

    kind: str
    suffix: str


JUNK = st.one_of(
    st.sampled_from(["", " ", "inf", "-inf", "nan", "NaN", "1e400", "9" * 5000, "-1", "0", "none", "null", "true",
                     "1.5", "0x10", " 5 ", "5,6", "a=b", "=", ",", "x" * 300, "é", "\t", "--json"]),
    st.integers(-10**6, 10**6).map(str),
    st.text(max_size=12),
)


def near_default(spec, default) -> st.SearchStrategy[str]:
    """A valid value (as text) near the book's default, so duels stay small."""
    if isinstance(spec, Int):
        base = default if isinstance(default, int) else max(spec.lo, 0)
        lo, hi = max(spec.lo, base - 3), min(spec.hi, base + 3)
        values = st.integers(lo, hi).map(str)
        return st.one_of(values, st.just("none")) if spec.optional else values
    if isinstance(spec, Bool):
        return st.sampled_from(["true", "false", "yes", "0"])
    if isinstance(spec, Choice):
        return st.sampled_from([str(c) for c in spec.choices])
    if isinstance(spec, Faces):
        return st.one_of(st.sampled_from(list(spec.presets) or ["-1,0,1"]),
                         st.lists(st.integers(-3, 3), min_size=1, max_size=6).map(lambda v: ",".join(map(str, v))))
    if isinstance(spec, Float):
        return st.floats(0.05, 0.95).map(lambda v: f"{v:.3f}")
    return st.text(max_size=8)


def value_for(spec, default, dirty: bool) -> st.SearchStrategy[str]:
    """A valid value; in a dirty case, junk one time in three."""
    valid = near_default(spec, default)
    return st.one_of(valid, valid, JUNK) if dirty else valid


def pairs_text(specs: dict, defaults: dict, dirty: bool) -> st.SearchStrategy[str]:
    """``k=v,...`` from these specs; a dirty case adds junk keys, a missing ``=``, duplicates, empties."""
    names = sorted(specs)
    key = st.one_of(st.sampled_from(names), st.sampled_from(names), st.sampled_from(["", "x", "Body", "name", "note"])) \
        if dirty else st.sampled_from(names)

    @st.composite
    def build(draw) -> str:
        items, seen = [], set()
        for _ in range(draw(st.integers(0 if dirty else 1, 3))):
            k = draw(key)
            if not dirty and k in seen:
                continue
            seen.add(k)
            v = draw(value_for(specs[k], defaults.get(k), dirty)) if k in specs else draw(JUNK)
            items.append(k if dirty and draw(st.integers(0, 9)) == 0 else f"{k}={v}")
        if dirty and items and draw(st.integers(0, 5)) == 0:
            items.append(items[0].split("=")[0] + "=" + draw(JUNK))  # a duplicate key
        return ",".join(items)

    return build()


def spec_table(cls) -> tuple[dict, dict]:
    return cls.specs(), cls.defaults()


def fighter(system_id: str, dirty: bool) -> st.SearchStrategy:
    system = get_system(system_id)
    specs, defaults = spec_table(system.Fighter)
    names = list(archetypes(system_id))
    novices = [n for n in names if n.startswith("novice")] or names[:1]
    toml_value = st.one_of(st.integers(-3, 12), st.booleans(), st.text(max_size=5), st.just(10**400),
                           st.lists(st.integers(0, 3), max_size=3))

    @st.composite
    def file_arg(draw) -> FileArg:
        kind = draw(st.sampled_from(["toml", "json", "junk", "empty", "dup", "deep", "name"]))
        entry = {k: draw(toml_value) for k in draw(st.lists(st.sampled_from(sorted(specs)), max_size=3, unique=True))}
        if kind == "toml":
            lines = [f"{k} = {json.dumps(v) if not isinstance(v, bool) else str(v).lower()}" for k, v in entry.items()]
            return FileArg(".toml", "\n".join(lines).encode())
        if kind == "json":
            return FileArg(".json", json.dumps(entry).encode())
        if kind == "dup":
            k = draw(st.sampled_from(sorted(specs)))
            return FileArg(".json", f'{{"{k}": 1, "{k}": 2}}'.encode())
        if kind == "deep":
            depth = draw(st.sampled_from([40, 5000]))
            return FileArg(".json", ('{"body": ' + "[" * depth + "]" * depth + "}").encode())
        if kind == "name":
            return FileArg(".toml", b'name = "only a name"\n')
        if kind == "empty":
            return FileArg(draw(st.sampled_from([".toml", ".json"])), b"")
        return FileArg(draw(st.sampled_from([".toml", ".json"])), draw(st.binary(max_size=40)))

    if not dirty:
        return st.one_of(st.sampled_from(novices), st.sampled_from(names), pairs_text(specs, defaults, False))
    return st.one_of(st.sampled_from(novices), st.sampled_from(names), pairs_text(specs, defaults, True), file_arg(),
                     JUNK)


@st.composite
def rules_options(draw, system_id: str, dirty: bool) -> list:
    system = get_system(system_id)
    specs, defaults = spec_table(system.Rules)
    out: list = []
    for _ in range(draw(st.integers(0, 2 if dirty else 1))):
        out += ["--variant", draw(pairs_text(specs, defaults, dirty))]
    for flag in system.rule_flags:
        if draw(st.booleans()):
            out += [f"--{flag.replace('_', '-')}", draw(value_for(specs[flag], defaults[flag], dirty))]
    if dirty and draw(st.integers(0, 5)) == 0:
        table = "\n".join(f"{k} = {json.dumps(v)}" for k, v in draw(st.dictionaries(
            st.sampled_from(sorted(specs) + ["x"]), st.one_of(st.integers(-2, 20), st.booleans()), max_size=2)).items())
        content = draw(st.sampled_from([f"[{system_id}]\n{table}\n", "", "[dnd]\nx = 1\n", f"[{system_id}]\n"]))
        out += ["--rules", FileArg(".toml", content.encode())]
    return out


@st.composite
def check_options(draw, system_id: str, dirty: bool) -> list:
    specs, defaults = spec_table(get_system(system_id).CheckArgs)
    out: list = []
    for name in draw(st.lists(st.sampled_from(sorted(specs)), max_size=3, unique=not dirty)):
        flag = draw(st.sampled_from([name, name.replace('_', '-')]))
        out += [f"--{flag}", draw(value_for(specs[name], defaults[name], dirty))]
    return out


def system(dirty: bool) -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(SYSTEM_IDS), st.sampled_from(["", "dnd", "TRISTAT"])) if dirty \
        else st.sampled_from(SYSTEM_IDS)


def extra(dirty: bool) -> st.SearchStrategy[list]:
    return st.lists(st.sampled_from(["--json", "--bogus", "--help", "-x"] if dirty else ["--json"]), max_size=1)


def small(dirty: bool, values: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(values, JUNK) if dirty else values


DIRTY = st.booleans()


def shuffled(draw, head: list, options: list, dirty: bool) -> list:
    """``head`` then ``options`` (pairs kept together) in a random order, plus maybe a stray flag."""
    groups, i = [], 0
    while i < len(options):
        step = 2 if i + 1 < len(options) and isinstance(options[i], str) and options[i].startswith("--") \
            and not (isinstance(options[i + 1], str) and options[i + 1].startswith("--")) else 1
        groups.append(options[i:i + step])
        i += step
    order = draw(st.permutations(groups)) if groups else []
    return head + [token for group in order for token in group] + draw(extra(dirty))


@st.composite
def per_system(draw, command: str) -> list:
    """A per-system command: the system, then options drawn for it (in a dirty case, junk besides)."""
    dirty = draw(DIRTY)
    sid = draw(system(dirty))
    opts_for = sid if sid in SYSTEM_IDS else draw(st.sampled_from(SYSTEM_IDS))
    options: list = draw(rules_options(opts_for, dirty))
    if command in ("check", "table", "tune", "worth", "sim-check"):
        options += draw(check_options(opts_for, dirty))
    if command in ("opposed",):
        cls = get_system(opts_for).CheckArgs
        options += ["--a", draw(pairs_text(*spec_table(cls), dirty)), "--b", draw(pairs_text(*spec_table(cls), dirty))]
    if command in ("exchange", "resolve", "duel", "sim", "design") or (command == "variants" and draw(st.integers(0, 3)) == 0):
        options += ["--a", draw(fighter(opts_for, dirty)), "--b", draw(fighter(opts_for, dirty))]
    if command == "resolve":
        names = get_system(opts_for).roll_names
        rolls = {n: Int(-20, 40) for n in names}
        options += ["--rolls", draw(pairs_text(rolls, {n: 5 for n in names}, dirty))]
    if command == "table":
        formats = [[], ["--format", "csv"], ["--format", "json"]] + ([["--format", "xml"]] if dirty else [])
        options += draw(st.sampled_from(formats))
        kinds = ["new", "file", "dir", "missing", "empty", "slash"] if dirty else ["new", "file"]
        if draw(st.booleans()):
            options += ["--out", OutArg(draw(st.sampled_from(kinds)), ".md")]
    if command == "tune":
        p = draw(small(dirty, st.floats(0.01, 1).map(str)))
        options += draw(st.sampled_from([["--p", p], ["--table"], ["--table", "--p", draw(JUNK)], []] if dirty
                                        else [["--p", p], ["--table"]]))
    if command in ("sim", "sim-check"):
        options += ["--n", draw(small(dirty, st.integers(1, 3000).map(str))),
                    "--seed", draw(small(dirty, st.integers(0, 99).map(str))),
                    "--workers", draw(small(dirty, st.sampled_from(["1", "2"])))]
    if command == "sim":
        options += draw(st.sampled_from([[], ["--model", "exact"], ["--model", "nope"]] if dirty else [[]]))
        if dirty and draw(st.booleans()):
            options += ["--option", draw(st.one_of(st.just(""), st.text(max_size=6).map(lambda t: f"{t}=1"), JUNK))]
    if command == "design":
        specs = get_system(opts_for).Fighter.specs()
        name = draw(st.sampled_from(sorted(specs)))
        lo = draw(st.integers(0, 3))
        options += ["--vary", draw(small(dirty, st.sampled_from([f"{name}={lo}..{lo + 1}", f"a.{name}={lo}..{lo}"]))),
                    "--rounds", draw(small(dirty, st.sampled_from(["3", "5.5"]))),
                    "--lethality", draw(small(dirty, st.sampled_from(["0.1", "0.5"]))), "--workers", "1"]
    if command in ("variants", "equiv"):
        options += ["--workers", "1"]
    return shuffled(draw, [command, sid], options, dirty or command == "table")


@st.composite
def equiv(draw) -> list:
    dirty = draw(DIRTY)
    src, dst = draw(system(dirty)), draw(system(dirty))
    a = draw(check_options(src if src in SYSTEM_IDS else "tristat", dirty))
    b = draw(check_options(dst if dst in SYSTEM_IDS else "kurs", dirty))
    tail = draw(st.sampled_from([[], ["--table"], ["--json"], ["--top", draw(small(dirty, st.just("2")))]]))
    return ["equiv", "--from", src, *a, "--to", dst, *b, *tail]


@st.composite
def sweep(draw) -> list:
    sid = draw(st.sampled_from(SYSTEM_IDS))
    name, spec = next(iter(get_system(sid).CheckArgs.specs().items()))
    value = draw(st.one_of(near_default(spec, get_system(sid).CheckArgs.defaults()[name]), JUNK))
    config = draw(st.sampled_from([
        f'[sweep]\nkind = "check"\nmethod = "exact"\n[systems.{sid}]\ncheck = {{ {name} = {json.dumps(value)} }}\n',
        f'[sweep]\nkind = "check"\n[systems.{sid}]\n',
        "[sweep]\n", "", "x = ", f'[sweep]\nkind = "duel"\n[systems.{sid}]\na = {{ archetype = "novice" }}\n'
        f'b = {{ archetype = "novice" }}\n',
    ]))
    out = draw(st.sampled_from([OutArg("new", ".csv"), OutArg("empty", ".csv"), OutArg("dir", ".csv"),
                                OutArg("missing", ".csv")]))
    return ["sweep", FileArg(".toml", config.encode()), "--out", out, "--workers", "1", "--quiet"]


@st.composite
def other(draw, command: str) -> list:
    """Commands without a generator here (report, and those added later, e.g. app): refusals and --help only."""
    return draw(st.sampled_from([[command, "--help"], [command, "--bogus-option"], [command, "--out", ""],
                                 [command, "--lang", "xx"]]))


def strategy(command: str) -> st.SearchStrategy[list]:
    if command == "systems":
        return st.lists(st.sampled_from(["--json", "--bogus", "x"]), max_size=2).map(lambda t: ["systems", *t])
    if command == "archetypes":
        return st.tuples(st.one_of(system(True), st.just(None)), extra(True)).map(
            lambda t: ["archetypes", *([t[0]] if t[0] is not None else []), *t[1]])
    if command == "seedcheck":
        return st.tuples(system(True), extra(True)).map(lambda t: ["seedcheck", t[0], *t[1]])
    if command == "equiv":
        return equiv()
    if command == "sweep":
        return sweep()
    if command in PER_SYSTEM:
        return per_system(command)
    return other(command)


def commands() -> tuple[list[str], set[str]]:
    """Every top-level command of the full parser, and those taking a system first."""
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    names = list(sub.choices)
    per = {n for n, p in sub.choices.items() if any(a.dest == "system" and a.choices for a in p._actions
                                                     if isinstance(a, type(sub)))}
    return names, per


COMMANDS, PER_SYSTEM = commands()


# ------------------------------------------------------------------ running
class Hang(BaseException):
    """A case ran past its timeout (a BaseException, so that main() cannot swallow it)."""


def materialise(argv: list, where: Path) -> list[str]:
    out, n = [], 0
    for token in argv:
        n += 1
        if isinstance(token, FileArg):
            path = where / f"in{n}{token.suffix}"
            path.write_bytes(token.content)
            out.append(str(path))
        elif isinstance(token, OutArg):
            path = where / f"out{n}{token.suffix}"
            if token.kind == "file":
                path.write_text("old")
            elif token.kind == "dir":
                path.mkdir()
            elif token.kind == "missing":
                path = where / "missing" / path.name
            out.append({"empty": "", "slash": f"{path}/"}.get(token.kind, str(path)))
        else:
            out.append(token)
    return out


def run_case(argv: list[str], timeout: int) -> tuple[int, str, str]:
    def alarm(*_):
        raise Hang(f"no answer within {timeout} s: {argv!r}"[:2000])

    out, err = io.StringIO(), io.StringIO()
    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(timeout)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return code, out.getvalue(), err.getvalue()


def strict_json(text: str):
    def refuse(name):
        raise AssertionError(f"not strict JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def check_outcome(argv: list[str], code: int, out: str, err: str) -> None:
    shown = f"argv={argv!r}"[:3000] + f"\nexit={code}\nstderr={err[:2000]!r}\nstdout={out[:500]!r}"
    assert "Traceback" not in err and "Traceback" not in out, shown
    if code == 0:
        if "--help" in argv or "-h" in argv:
            assert out.startswith("usage:"), shown
            return
        fmt = argv[argv.index("--format") + 1] if "--format" in argv else None
        to_file = "--out" in argv and argv[0] in ("table", "sweep")
        if not to_file:
            assert out.strip(), shown
        if "--json" in argv and not to_file:
            strict_json(out)
        if fmt == "json" and not to_file:
            strict_json(out)
        if fmt == "csv" and not to_file:
            rows = list(csv.reader(io.StringIO(out)))
            assert rows and all(len(r) == len(rows[0]) for r in rows), shown
            assert not any(cell.lower() in ("nan", "inf", "-inf") for r in rows for cell in r), shown
        return
    assert code == 2, shown
    assert out == "", shown
    lines = err.splitlines()
    assert 1 <= len(lines) <= 2, shown
    assert ERROR_LINE.match(lines[0]), shown
    assert len(lines) == 1 or lines[1].startswith("hint: "), shown


@pytest.fixture(scope="module")
def workdir():
    """Cases run in a scratch directory (relative outputs land there), removed afterwards."""
    base = Path(tempfile.mkdtemp(prefix="dicelab-fuzz-"))
    before = os.getcwd()
    os.chdir(base)
    yield base
    os.chdir(before)
    shutil.rmtree(base, ignore_errors=True)


@pytest.mark.parametrize("command", COMMANDS)
@settings(max_examples=EXAMPLES, deadline=None, derandomize=not RANDOM, database=None,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_fuzz_command(command, workdir, data):
    where = Path(tempfile.mkdtemp(dir=workdir))
    try:
        args = materialise(data.draw(strategy(command), label="argv"), where)
        code, out, err = run_case(args, TIMEOUT.get(command, DEFAULT_TIMEOUT))
        check_outcome(args, code, out, err)
    finally:
        shutil.rmtree(where, ignore_errors=True)


def test_every_command_is_fuzzed():
    """The generators cover the core commands by name; a command added later is fuzzed with refusals and --help."""
    core = {"systems", "check", "table", "opposed", "seedcheck", "archetypes", "exchange", "resolve", "duel", "sim",
            "sim-check", "tune", "equiv", "worth", "variants", "design", "report", "sweep"}
    assert core <= set(COMMANDS)
    assert {"check", "duel", "sim", "tune", "design"} <= PER_SYSTEM


# ---------------------------------------------------------- a few for real
SUBPROCESS_CASES = [
    ["check", "tristat", "--target", "7", "--json"],
    ["duel", "tristat", "--a", "body=5,body=6", "--b", "novice"],
    ["check", "kurs", "--variant", "dk_faces=" + "9" * 5000],
    ["table", "tun", "--format", "csv", "--out", ""],
    ["opposed", "onesix", "--a", "", "--b", "rating=3"],
    ["chekc"],
]


@pytest.mark.parametrize("argv", SUBPROCESS_CASES, ids=[" ".join(a)[:40] for a in SUBPROCESS_CASES])
def test_fuzz_console_script(argv):
    exe = shutil.which("dicelab") or f"{sys.prefix}/bin/dicelab"
    proc = subprocess.run([exe, *argv], capture_output=True, text=True, timeout=60)
    check_outcome(argv, proc.returncode, proc.stdout, proc.stderr)
