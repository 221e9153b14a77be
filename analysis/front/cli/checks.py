"""Commands on checks: ``systems``, ``check``, ``opposed``, ``table``, ``seedcheck``."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from analysis.base.files import check_output_path, write_atomic
from analysis.base.params import DicelabError, parse_pairs
from analysis.engine.assumptions import declared
from analysis.engine.results import assumptions_echo
from analysis.front.cli import (
    add_params_options,
    add_rules_options,
    command,
    emit,
    emit_json,
    params_from,
    per_system,
    rules_from,
)
from analysis.present.tables import FORMATS, assumptions_line, pairs, prob, render, success_rows, text
from analysis.systems import all_systems, get_system

if TYPE_CHECKING:
    from analysis.engine.results import CheckResult

CHECK_EXAMPLES = {
    "tristat": "dicelab check tristat --die 6 --target 7",
    "onesix": "dicelab check onesix --rating 9",
    "tun": "dicelab check tun --limit 13 --dice 3d6",
    "kurs": "dicelab check kurs --skill 2 --difficulty 0 --json",
}
TABLE_EXAMPLES = {
    "tristat": "dicelab table tristat --format csv",
    "onesix": "dicelab table onesix --variant extra_die_ones=count",
    "tun": "dicelab table tun --variant success_rule=le",
    "kurs": "dicelab table kurs --variant dk_faces=fudge --format json",
}
OPPOSED_EXAMPLES = {
    "tristat": "dicelab opposed tristat --a target=8 --b target=7",
    "onesix": "dicelab opposed onesix --a rating=9 --b rating=8",
    "tun": "dicelab opposed tun --a limit=12 --b limit=11",
    "kurs": "dicelab opposed kurs --a skill=2 --b skill=3 --json",
}


def register(sub: Any) -> None:
    p = command(sub, "systems", "List the systems, their dice and rule variants with defaults.",
                "dicelab systems --json", run_systems)
    p.add_argument("--json", action="store_true", help="print JSON")

    def add_check(p: argparse.ArgumentParser, system: Any) -> None:
        add_params_options(p, system.CheckArgs)
        add_rules_options(p, system)
        p.add_argument("--json", action="store_true", help="print one JSON object")

    per_system(sub, "check", "One exact check: P(success), outcome distribution, crits and fumbles",
               CHECK_EXAMPLES, run_check, add_check)

    def add_table(p: argparse.ArgumentParser, system: Any) -> None:
        add_params_options(p, system.CheckArgs)
        add_rules_options(p, system)
        p.add_argument("--format", choices=FORMATS, default="md", help="md (default), csv or json")
        p.add_argument("--out", metavar="FILE", help="write to FILE (atomically) instead of stdout")

    per_system(sub, "table", "The success-probability table over the system's whole range",
               TABLE_EXAMPLES, run_table, add_table)

    def add_opposed(p: argparse.ArgumentParser, system: Any) -> None:
        names = ", ".join(i.name for i in system.CheckArgs.describe())
        p.add_argument("--a", required=True, metavar="K=V,...", help=f"side A's check parameters ({names})")
        p.add_argument("--b", required=True, metavar="K=V,...", help=f"side B's check parameters ({names})")
        add_rules_options(p, system)
        if "resist" in system.extras:
            p.add_argument("--mode", choices=("contest", "resist"), default="contest",
                           help="contest: both roll, larger result wins (default); resist: A's sudden action against "
                                "B's resistance, A's effectiveness taken off B's limit")
        p.add_argument("--json", action="store_true", help="print one JSON object")

    per_system(sub, "opposed", "An opposed check: P(A wins), P(tie), P(B wins), margin distribution",
               OPPOSED_EXAMPLES, run_opposed, add_opposed)

    def add_seedcheck(p: argparse.ArgumentParser, system: Any) -> None:
        add_rules_options(p, system)
        p.add_argument("--json", action="store_true", help='print {"cells": [...]}')

    per_system(sub, "seedcheck", "The seed's printed probability table, cell by cell beside the exact value",
               {"tun": "dicelab seedcheck tun --json"}, run_seedcheck, add_seedcheck, systems=("tun",))


def run_systems(ns: argparse.Namespace) -> int:
    data = [
        {
            "id": s.id,
            "title": s.title,
            "title_ru": s.title_ru,
            "seed": s.seed,
            "rules_page": f"docs/rules/{s.id}.md",
            "dice": s.dice,
            "variants": [vars(i) for i in s.Rules.describe() if i.kind == "variant"],
            "constants": [vars(i) for i in s.Rules.describe() if i.kind == "constant"],
            "duel_options": [vars(i) for i in s.Rules.describe() if i.kind == "option"],
            "check_params": [vars(i) for i in s.CheckArgs.describe()],
            "fighter_params": [vars(i) for i in s.Fighter.describe() if i.kind == "param"] if s.Fighter else [],
            "policies": [vars(i) for i in s.Fighter.describe() if i.kind == "policy"] if s.Fighter else [],
            "assumptions": declared(s.assumptions),
        }
        for s in all_systems()
    ]
    if ns.json:
        emit_json(data)
        return 0
    for s in data:
        emit(f"{s['id']}: {s['title']} ({s['title_ru']}) — {s['dice']}\n")
        for heading, key in (("variants (readings of the text)", "variants"), ("constants (book values)", "constants"),
                             ("duel options", "duel_options")):
            if s[key]:
                emit(f"  {heading}:\n")
            for v in s[key]:
                emit(f"    --variant {v['name']}={text(v['default'])}  [{v['allowed']}]  {v['help']}\n")
        if s["assumptions"]:
            emit("  assumptions (the lab's numbers, no seed gives them; listed in every output that rests on them):\n")
        for name, a in s["assumptions"].items():
            emit(f"    {name}  [plausible: {' | '.join(text(v) for v in a['plausible'])}]  {a['reason']}\n")
    return 0


def run_check(ns: argparse.Namespace) -> int:
    system = get_system(ns.system)
    result = system.check(rules_from(ns, system), params_from(ns, system.CheckArgs))
    if ns.json:
        emit_json(result.to_dict())
    else:
        emit(format_check(result))
    return 0


def format_check(res: "CheckResult") -> str:
    """A check result as text a designer reads at the table."""
    lines = [f"{res.system} check: {pairs(res.params)}", f"  rules: {pairs(res.variants)}",
             *assumptions_line(res.to_dict()["assumptions"]).splitlines(), f"  P(success)   {prob(res.p_success)}"]
    if res.p_critical is not None:
        lines.append(f"  P(critical)  {prob(res.p_critical)}")
    if res.p_fumble is not None:
        lines.append(f"  P(fumble)    {prob(res.p_fumble)}")
    for k, v in res.extra.items():
        lines.append(f"  {k:<12} {prob(v)}")
    if res.residual:
        lines.append(f"  residual     {res.residual:.3g}  (truncated mass of the unbounded explosion)")
    lines.append(f"  {res.outcome} distribution (value: P = k, P >= k):")
    d = res.distribution
    for k, p in d.to_dict().items():
        if p >= 5e-7:
            lines.append(f"    {k:>4}: {p:.6f}  {float(d.total() - d.cdf(k - 1)):.6f}")
    return "\n".join(lines) + "\n"


def run_table(ns: argparse.Namespace) -> int:
    system = get_system(ns.system)
    if ns.out is not None:
        check_output_path(ns.out)
    rules = rules_from(ns, system)
    rows = success_rows(system, rules, params_from(ns, system.CheckArgs))
    mode = "dice" if rows and "dice" in rows[0] else "mode"
    title = f"# {system.title}: P(success) by {system.value}\n\nRules: {pairs(rules.to_dict())}"
    assumed = assumptions_echo(system.id, rules.to_dict())
    if assumed:
        title += "\n\n" + assumptions_line(assumed, indent="").strip()
    if assumed and ns.format != "md":
        cell = assumed if ns.format == "json" else json.dumps(assumed, ensure_ascii=False)
        rows = [{**row, "assumptions": cell} for row in rows]
    body = render(rows, ns.format, title=title, pivot=(system.value, mode, "p_success"))
    if ns.out is not None:
        write_atomic(ns.out, body)
    else:
        emit(body)
    return 0


def run_opposed(ns: argparse.Namespace) -> int:
    system = get_system(ns.system)
    a = system.CheckArgs.from_text(parse_pairs(ns.a, "--a"))
    b = system.CheckArgs.from_text(parse_pairs(ns.b, "--b"))
    opposed = system.extras["resist"] if getattr(ns, "mode", "contest") == "resist" else system.opposed
    res = opposed(rules_from(ns, system), a, b)
    data = res.to_dict()
    if ns.json:
        emit_json(data)
        return 0
    emit(f"{res.system} opposed: A {pairs(res.a)} vs B {pairs(res.b)}\n  rules: {pairs(res.variants)}\n"
         + assumptions_line(data["assumptions"])
         + f"  P(A wins) {prob(res.p_a_wins)}\n  P(tie)    {prob(res.p_tie)}  ({res.tie_rule})\n"
         f"  P(B wins) {prob(res.p_b_wins)}\n")
    for k, v in res.extra.items():
        if isinstance(v, float):
            emit(f"  {k:<17} {prob(v)}\n")
    return 0


def run_seedcheck(ns: argparse.Namespace) -> int:
    system = get_system(ns.system)
    if "seed_table" not in system.extras:
        raise DicelabError(f"system = {ns.system!r} has no printed probability table; allowed: tun")
    rules = rules_from(ns, system)
    cells = system.extras["seed_table"](rules)
    warning = system.extras["seed_table_warning"](rules)
    if ns.json:
        emit_json({"system": system.id, "seed": system.seed, "variants": rules.to_dict(), "warning": warning,
                   "cells": cells})
        return 0
    emit(f"{warning}\n\n")
    emit(f"{system.title_ru}: the seed's table P(roll <= v), printed vs exact, and P(success at limit v) "
         f"under success_rule={rules.success_rule}\n")
    emit(f"{'dice':>6} {'v':>3} {'printed':>8} {'P(<=v)':>9} {'diff':>9} {'P(succ)':>9}  explained by\n")
    for c in cells:
        flag = "  <-- FLAGGED" if c["flagged"] else ""
        emit(f"{c['dice']:>6} {c['v']:>3} {c['printed']:>8g} {c['exact']:>9.6f} {c['difference']:>+9.6f} "
             f"{c['p_success']:>9.6f}  {c['explained_by']}{flag}\n")
    flagged = sum(c["flagged"] for c in cells)
    emit(f"{flagged} of {len(cells)} printed numbers are a full unit of their last digit or more off.\n")
    return 0
