"""``dicelab rules``: the project's rules reference, and what a house rules file changes."""

from __future__ import annotations

import argparse
from typing import Any

from analysis.front.cli import command, emit, emit_json
from analysis.systems import SYSTEM_IDS


def register(sub: Any) -> None:
    p = command(sub, "rules", "Print a system's rules reference (docs/rules/SYSTEM.md), the index, or what a house "
                "rules file changes (rules diff FILE.toml).", "dicelab rules diff examples/house_rules/gritty_2k.toml",
                run_rules)
    p.add_argument("topic", nargs="?", choices=(*SYSTEM_IDS, "diff"), metavar="SYSTEM|diff",
                   help=f"a system ({', '.join(SYSTEM_IDS)}) to print its page; diff FILE.toml to list what a house "
                   "rules file changes; nothing for the index")
    p.add_argument("file", nargs="?", metavar="FILE.toml", help="rules diff: the house rules file")
    p.add_argument("--json", action="store_true", help="rules diff: print JSON")


def run_rules(ns: argparse.Namespace) -> int:
    from analysis.base.params import DicelabError, shown
    from analysis.present.rules_docs import read_page

    if ns.topic != "diff":
        if ns.file is not None:
            raise DicelabError(f"rules {ns.topic or ''}: {shown(ns.file)} is not allowed; allowed: a file only after "
                               "diff")
        if ns.json:
            raise DicelabError("rules: --json applies to rules diff FILE.toml only; a rules page is Markdown")
        emit(read_page(ns.topic))
        return 0
    if ns.file is None:
        raise DicelabError("rules diff: FILE.toml is missing; allowed: a house rules file, e.g. "
                           "examples/house_rules/gritty_2k.toml")
    return _diff(ns.file, ns.json)


def _diff(path: str, as_json: bool) -> int:
    from analysis.present.rules_docs import rules_page
    from analysis.systems import get_system
    from analysis.tools.house_compare import changes
    from analysis.tools.house_rules import load_rules, ruleset

    house = load_rules(path)
    found = {sid: changes(sid, ruleset(get_system(sid), house)) for sid in house}
    if as_json:
        emit_json({"file": path, "systems": {sid: {"changes": rows, "rules_page": rules_page(sid),
                                                   "same_as_book": sorted(set(house[sid]) - {r["field"] for r in rows})}
                                             for sid, rows in found.items()}})
        return 0
    for sid, rows in found.items():
        system = get_system(sid)
        emit(f"{sid} ({system.title}): {len(rows)} change{'s' if len(rows) != 1 else ''} from the book "
             f"(see {rules_page(sid)})\n")
        width = max((len(r["field"]) for r in rows), default=0)
        for r in rows:
            emit(f"  {r['field']:<{width}}  {r['book']} -> {r['house']}  [{r['kind']}] {r['help']}\n")
        for name in sorted(set(house[sid]) - {r["field"] for r in rows}):
            emit(f"  {name}: set to the book's value\n")
    return 0
