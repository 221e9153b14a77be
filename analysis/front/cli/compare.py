"""``dicelab compare --rules FILE.toml``: the book against the house rules, side by side with the differences."""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from analysis.front.cli import command, emit, emit_json


def register(sub: Any) -> None:
    p = command(sub, "compare", "The book against a house rules file, per system it names: the check table, each "
                "archetype's matched duel and the worth of +1, side by side with the differences.",
                "dicelab compare --rules examples/house_rules/gritty_2k.toml", run_compare)
    p.add_argument("--rules", required=True, metavar="FILE.toml", help="house rules: one table per system "
                   "([onesix] success_threshold = 14)")
    from analysis.front.cli.games import PLAY_CHOICES, PLAY_HELP

    p.add_argument("--play", choices=PLAY_CHOICES, default="book",
                   help=f"how both sides play the archetypes' duels: {PLAY_HELP}")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run_compare(ns: argparse.Namespace) -> int:
    from analysis.present.rules_docs import rules_page
    from analysis.present.tables import assumptions_line
    from analysis.systems import get_system
    from analysis.tools.house_compare import compare_rules
    from analysis.tools.house_rules import load_rules, ruleset

    house = load_rules(ns.rules)
    result = compare_rules({sid: ruleset(get_system(sid), house) for sid in house}, play=ns.play)
    if ns.json:
        emit_json({"file": ns.rules, "systems": {
            sid: {**{k: v for k, v in c.items() if k not in ("checks", "duels", "worth")}, "rules_page": rules_page(sid),
                  **{k: c[k].replace({np.nan: None}).to_dict(orient="records") for k in ("checks", "duels", "worth")}}
            for sid, c in result.items()}})
        return 0
    for sid, c in result.items():
        system = get_system(sid)
        rules = c["variants"]
        emit(f"{sid} ({system.title}): {ns.rules} against the book (see {rules_page(sid)})\n")
        for r in c["changes"]:
            emit(f"  {r['field']}: {r['book']} -> {r['house']}  [{r['kind']}] {r['help']}\n")
        if not c["changes"]:
            emit("  no change: every field the file sets has the book's value\n")
        emit(assumptions_line(c["assumptions"]))
        emit(f"\n  P(success) of the standard check by {system.value}:\n")
        emit(_table(c["checks"].rename(columns={"value": system.value})))
        emit(f"\n  each archetype against itself (after_out={rules['after_out']}, killed = {rules['lethal_at']}, "
             f"play {c['play']}):\n")
        emit(_table(c["duels"].rename(columns=_SHORT)))
        emit(f"\n  what +1 buys, ΔP(success) by {system.value}:\n")
        emit(_table(c["worth"].rename(columns={"value": system.value})) + "\n")
    return 0


_SHORT = {f"{k}_{w}": f"{short}.{w2}" for k, short in (("p_a_wins", "A_wins"), ("p_killed", "killed"),
                                                       ("mean_rounds", "rounds"))
          for w, w2 in (("book", "book"), ("house", "house"), ("diff", "diff"))}


def _table(df: Any) -> str:
    """A table at 4 decimals, signed differences, blanks for what does not exist, indented."""
    def number(column: str) -> Any:
        sign = "+" if column.endswith("diff") else ""
        return lambda v: "" if v == "" else "0" if sign and abs(v) < 1e-12 else f"{v:{sign}.4f}"

    formatters = {c: number(c) for c in df.columns if df[c].dtype.kind == "f" or c.endswith(("book", "house", "diff"))}
    shown = df.astype(object).where(df.notna(), "")
    text = shown.to_string(index=False, formatters=formatters)
    return "".join(f"    {line.rstrip()}\n" for line in text.splitlines())
