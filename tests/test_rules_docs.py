"""The project's own rules reference: docs/rules/ has a page per system naming every field of its ruleset and
fighter, `dicelab rules` prints it, and the report cites it instead of files outside the repository."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from analysis.front.cli import main
from analysis.present.rules_docs import RULES_DIR, read_page, rules_page
from analysis.systems import SYSTEM_IDS, get_system

ROOT = Path(__file__).resolve().parents[1]


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_the_reference_lives_in_the_repository():
    assert RULES_DIR == ROOT / "docs" / "rules"
    index = (RULES_DIR / "README.md").read_text(encoding="utf-8")
    for sid in SYSTEM_IDS:
        assert f"({sid}.md)" in index and rules_page(sid) == f"docs/rules/{sid}.md"


@pytest.mark.parametrize("sid", SYSTEM_IDS)
def test_each_system_page_names_every_field(sid):
    """Every ruleset field (reading, constant, duel option) and fighter parameter or policy is on the page."""
    page = (RULES_DIR / f"{sid}.md").read_text(encoding="utf-8")
    system = get_system(sid)
    fields = [i.name for i in system.Rules.describe()] + [i.name for i in system.Fighter.describe()]
    missing = [name for name in fields if not re.search(rf"\b{re.escape(name)}\b", page)]
    assert not missing, f"docs/rules/{sid}.md does not name {missing}"


@pytest.mark.parametrize("sid", SYSTEM_IDS)
def test_rules_prints_the_page(sid):
    code, out, err = run("rules", sid)
    assert code == 0 and not err and out == read_page(sid)


def test_rules_prints_the_index():
    code, out, _ = run("rules")
    assert code == 0 and out.startswith("# The rules reference")


def test_the_report_cites_the_reference_not_outside_files(tmp_path):
    from analysis.front.report import build_report

    build_report(tmp_path, sections=("rules",))
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert "docs/rules/tun.md" in page
    seeds = [get_system(s).seed for s in SYSTEM_IDS]
    assert "RULES.md" not in page and not any(seed in page for seed in seeds)
    for path in ("analysis/front/report/__init__.py", "analysis/front/report/findings.py", "analysis/present/plots.py",
                 "analysis/present/i18n.py", "analysis/tools/compare.py", "analysis/fights/lethality.py", "analysis/front/cli/rules.py",
                 "analysis/front/cli/compare.py", "analysis/tools/house_compare.py"):
        text = (ROOT / path).read_text(encoding="utf-8")
        assert "RULES.md" not in text and not any(seed in text for seed in seeds), path
