"""The repository stands alone and its examples run: every file in ``examples/`` (sweeps cut down to a case per
block, house rules, the report setup), every command and Python block the README shows, nothing cited from
outside the repository, and ``docs/app.png`` made from today's app."""

from __future__ import annotations

import contextlib
import csv
import importlib.util
import io
import json
import re
import shlex
import shutil
import tomllib
from pathlib import Path

import pytest

from analysis.front.cli import main
from analysis.front.sweep import expand, load_config

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
SWEEPS = sorted((EXAMPLES / "sweeps").glob("*.toml"))
HOUSE = sorted((EXAMPLES / "house_rules").glob("*.toml"))
README = (ROOT / "README.md").read_text(encoding="utf-8")
LONG_RUNNING = ("make ", ".venv/bin/python benchmarks/")
"""README lines that start a program rather than show an example: make targets (an install, the whole suite, a
server) and the benchmark scripts (minutes by design); every other command runs below."""
REPORT_CUT = ["--sections", "checks,lethality"]
"""A report command runs with two sections (a page, figures, findings and a baseline in a minute), not seven,
unless it names its own."""


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def cut_down(value):
    """A sweep value cut to its ends: the first and last of a list, of a range (its last step), tables walked
    (n trials: 2,000); the extremes are where a grid breaks a limit."""
    if isinstance(value, list):
        ends = dict.fromkeys(json.dumps(v) for v in value[:1] + value[-1:])
        return [json.loads(v) for v in ends]
    if isinstance(value, dict):
        if "from" in value and "to" in value:
            step = value.get("step", 1)
            return sorted({value["from"], value["from"] + (value["to"] - value["from"]) // step * step})
        return {k: (min(v, 2000) if k == "n" else cut_down(v)) for k, v in value.items()}
    return value


def toml_text(data: dict, prefix: str = "") -> str:
    """A mapping as TOML (tables of tables and arrays of tables; values as inline TOML)."""
    scalars = {k: v for k, v in data.items() if not isinstance(v, (dict, list)) or _inline(v)}
    lines = [f"[{prefix}]"] if prefix and scalars else []
    lines += [f"{k} = {_value(v)}" for k, v in scalars.items()]
    for k, v in data.items():
        if k in scalars:
            continue
        name = f"{prefix}.{k}" if prefix else k
        if isinstance(v, list):
            for item in v:
                lines.append(f"[[{name}]]")
                lines += [f"{kk} = {_value(vv)}" for kk, vv in item.items()]
        else:
            lines.append(toml_text(v, name))
    return "\n".join(lines) + "\n"


def _inline(v) -> bool:
    return isinstance(v, dict) and not any(isinstance(x, dict) for x in v.values()) or (
        isinstance(v, list) and not all(isinstance(x, dict) for x in v))


def _value(v) -> str:
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {_value(x)}" for k, x in v.items()) + " }"
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    return json.dumps(v) if not isinstance(v, bool) else str(v).lower()


@pytest.fixture(scope="module")
def examples_copy(tmp_path_factory) -> Path:
    """``examples/`` copied, every sweep cut down to one case per block (files they name travel with them)."""
    root = tmp_path_factory.mktemp("examples")
    shutil.copytree(EXAMPLES, root / "examples")
    for path in (root / "examples" / "sweeps").glob("*.toml"):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        data["systems"] = {sid: cut_down(blocks) if isinstance(blocks, dict) else [cut_down(b) for b in blocks]
                           for sid, blocks in data["systems"].items()}
        data["sweep"] = cut_down(data["sweep"])
        path.write_text(toml_text(data), encoding="utf-8")
    return root / "examples"


@pytest.mark.parametrize("path", SWEEPS, ids=lambda p: p.stem)
def test_every_example_sweep_runs(examples_copy, path, tmp_path):
    small = examples_copy / "sweeps" / path.name
    cases = len(expand(load_config(small)))
    assert 0 < cases <= len(expand(load_config(path)))
    out = tmp_path / f"{path.stem}.csv"
    code, _, err = run(["sweep", str(small), "--out", str(out), "--workers", "1", "--quiet"])
    assert code == 0, err
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == cases
    for row in rows:
        for key, value in row.items():
            if key.startswith("p_") and value not in ("", None):
                assert 0 <= float(value) <= 1 + 1e-9, (key, value)


@pytest.mark.parametrize("path", HOUSE, ids=lambda p: p.stem)
def test_every_house_rules_file_reads_and_changes_something(path):
    code, out, err = run(["rules", "diff", str(path), "--json"])
    assert code == 0, err
    systems = json.loads(out)["systems"]
    assert systems and all(s["changes"] for s in systems.values())
    house = tomllib.loads(path.read_text())
    for sid, body in systems.items():
        assert {c["field"] for c in body["changes"]} <= set(house[sid])


def test_the_report_setup_runs(tmp_path):
    from analysis.front.report.config import load_setup, read_config

    config = EXAMPLES / "report.toml"
    setup = load_setup(str(config), None, [], [], [], default_name="mine")
    assert setup.name == read_config(str(config))["name"] and setup.changed("tristat") == {"die": 8}
    code, out, err = run(["report", "--config", str(config), "--out", str(tmp_path), *REPORT_CUT])
    assert code == 0, err
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert "die=8" in page and "maximus" in page and (tmp_path / "lethality.png").is_file()
    assert out.count("notebooks:") == 1


# ------------------------------------------------------------------ README
def readme_blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", README, re.S)


def readme_commands() -> list[str]:
    lines = [line.split("  #")[0].strip() for block in readme_blocks("sh") for line in block.splitlines()]
    return [line for line in lines if line and not line.startswith(LONG_RUNNING)]


def test_the_readme_shows_commands_to_run():
    commands = readme_commands()
    assert len(commands) > 30 and all(c.startswith(".venv/bin/dicelab ") for c in commands), commands


@pytest.mark.parametrize("line", readme_commands())
def test_every_readme_command_runs(line, examples_copy, tmp_path, monkeypatch):
    """Each command as the README prints it, from the repository's root; a sweep runs its cut-down config with its
    --out in a temporary folder and one local worker (no cluster here); a report writes two sections there."""
    monkeypatch.chdir(ROOT)
    argv = shlex.split(line)[1:]
    if argv[0] == "sweep":
        argv[1] = str(examples_copy / "sweeps" / Path(argv[1]).name)
        argv[argv.index("--out") + 1] = str(tmp_path / Path(argv[argv.index("--out") + 1]).name)
        if "--scheduler" in argv:
            del argv[argv.index("--scheduler"):argv.index("--scheduler") + 2]
        argv = [a for i, a in enumerate(argv) if a != "--workers" and argv[i - 1] != "--workers"]
        argv += ["--workers", "1", "--quiet"]
    if argv[0] == "report":
        if "--out" in argv:
            argv[argv.index("--out") + 1] = str(tmp_path / "report")
        else:
            argv += ["--out", str(tmp_path / "report")]
        argv += [] if "--sections" in argv else REPORT_CUT
    code, out, err = run(argv)
    assert code == 0, err
    if argv[0] == "sweep":  # its answer is the table it writes
        assert Path(argv[argv.index("--out") + 1]).stat().st_size > 0
    else:
        assert out.strip(), "a command the README shows prints its answer"


def test_the_readme_python_block_runs():
    (block,) = [b for b in readme_blocks("python")]
    namespace: dict = {}
    exec(compile(block, "README.md", "exec"), namespace)  # noqa: S102 - the README's own example
    assert 0 < namespace["check"]("onesix", rating=9).p_success < 1


def test_the_repository_cites_nothing_outside_itself():
    """No document, example, notebook or data file a designer reads points outside the repository: the lab's rules
    reference is docs/rules/, not the spec it was written from."""
    texts = [ROOT / "README.md", *ROOT.glob("docs/**/*.md"), *EXAMPLES.rglob("*.toml"), *ROOT.glob("notebooks/*.py"),
             *ROOT.glob("analysis/data/**/*.toml")]
    outside = [(p.relative_to(ROOT), m) for p in texts
               for m in re.findall(r"\.\./[\w./-]+|/work/[\w./-]+|\bRULES\.md\b|shared/spec", p.read_text(encoding="utf-8"))]
    assert not outside, outside


def test_the_quick_start_says_how_long_it_takes():
    quick = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert re.search(r"make report`[^.]*\b(minutes?|seconds?)\b", quick) and re.search(r"make test`", quick)


# ----------------------------------------------------------- docs/app.png
def screenshot_module():
    spec = importlib.util.spec_from_file_location("app_screenshot", ROOT / "docs" / "app_screenshot.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_app_screenshot_is_made_from_todays_app():
    """docs/app.png.json records what the picture was made from: the app's code and the numbers it shows.  Either
    changed since: run `make screenshot`."""
    shot = screenshot_module()
    made = json.loads((ROOT / "docs" / "app.png.json").read_text())
    assert (ROOT / "docs" / "app.png").is_file()
    assert made["inputs"] == shot.inputs_hash(), "the app changed since docs/app.png was taken: run make screenshot"
    assert made["shows"] == pytest.approx(shot.shown_numbers(made["path"]), abs=1e-12), \
        "the numbers docs/app.png shows changed: run make screenshot"


def test_make_report_says_where_the_report_is_once():
    """The command prints where the report is and how to open the notebooks; the make target adds no second hint."""
    recipe = re.search(r"^report:.*?\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text(), re.M).group(1)
    assert "dicelab report" in recipe and "index.html" not in recipe and "notebooks" not in recipe
