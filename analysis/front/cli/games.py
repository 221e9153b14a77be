"""Tactics and group fights on the command line: sides for ``duel`` and ``sim``, ``--play``, ``tactics`` and
``encounter`` (RULES.md sections 7 and 8).

A side (``--a``/``--b``) is fighters separated by commas with optional counts,
``3*trained_armed,veteran_armed`` (:mod:`analysis.fights.sides`); one fighter
on each side is the duel as before.  ``--play`` plays a duel by the book, by
A's best response or by the equilibrium (:mod:`analysis.fights.play`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Sequence

from analysis.base.params import DicelabError, Float
from analysis.front.cli import (
    add_rules_options,
    caveats,
    emit,
    emit_json,
    number,
    per_system,
    rules_from,
    rules_line,
    typed,
)
from analysis.present.tables import prob
from analysis.systems import all_systems, get_system

SIDE_HELP = ("a fighter (an archetype name, a .toml/.json file, or inline key=value,...) or a side: fighters "
             "separated by commas, each optionally led by a count N* (3*trained_armed,veteran_armed; a comma starts "
             "a new fighter only before N*, archetype= or an archetype/file name)")
PLAY_CHOICES = ("book", "best", "equilibrium")
"""``analysis.fights.tactics.PLAYS``, written here so that building the options imports nothing heavy."""
PLAY_HELP = ("book (default: the fighters' policies), best (A's best response to B's book play) or equilibrium "
             "(both sides play well)")
TACTICS_EXAMPLES = {
    "tristat": "dicelab tactics tristat --a veteran --b trained --json",
    "onesix": "dicelab tactics onesix --a veteran_armed --b trained_armed",
    "tun": "dicelab tactics tun --a trained_armed --b trained_armed",
    "kurs": "dicelab tactics kurs --a maximus --b tiberius --json",
}
ENCOUNTER_EXAMPLES = {sid: f"dicelab encounter {sid} --a trained_armed --b novice_armed --max 4"
                      for sid in ("tristat", "onesix", "tun", "kurs")}
POLICY_ROWS_SHOWN = 12
"""How many of the equilibrium's most visited decision states the text shows (``--policy-out`` writes all)."""


def add_play(p: argparse.ArgumentParser) -> None:
    """``--play book|best|equilibrium`` of ``duel`` and ``sim``."""
    p.add_argument("--play", choices=PLAY_CHOICES, default="book", help=f"how both sides play: {PLAY_HELP}")


def sides_from(ns: argparse.Namespace, system: Any) -> tuple[Any, tuple[Any, ...], tuple[Any, ...]]:
    """(rules, side A, side B) from the command line."""
    from analysis.fights.sides import parse_side

    return rules_from(ns, system), parse_side(system, ns.a, "--a"), parse_side(system, ns.b, "--b")


def refuse_group_play(play: str) -> None:
    """Decisions are modelled one against one only."""
    if play != "book":
        raise DicelabError(f"--play {play}: decisions are solved one against one only (RULES.md section 8); "
                           "allowed: --play book with more than one fighter on a side")


# ------------------------------------------------------------------ duel and sim of two sides
def group_duel(ns: argparse.Namespace, system: Any, rules: Any, side_a: Sequence[Any], side_b: Sequence[Any]) -> int:
    """``dicelab duel`` with more than one fighter on a side: the exact group fight."""
    from analysis.fights.budget import exact_group

    refuse_group_play(ns.play)
    res = exact_group(system, rules, side_a, side_b)
    data = {**res.to_dict(), "play": ns.play, "a": ns.a, "b": ns.b}
    if ns.json:
        emit_json(data)
        return 0
    _group_text(system.id, f"group fight ({res.model})", data, side_a, side_b)
    emit(f"  rounds: mean {_num(data['mean_rounds'])}, states {data['states']}\n")
    return 0


def group_sim(ns: argparse.Namespace, system: Any, rules: Any, side_a: Sequence[Any], side_b: Sequence[Any],
              bar: Any) -> Any:
    """``dicelab sim`` with more than one fighter on a side: the Monte Carlo group fight (returns the result)."""
    from analysis.engine.results import fight_assumptions
    from sims.api import simulate_group

    refuse_group_play(ns.play)
    res = simulate_group(system.id, rules, side_a, side_b, ns.n, seed=ns.seed, workers=ns.workers, progress=bar)
    data = res.to_dict()
    data = {**data, "assumptions": fight_assumptions(system.id, data["variants"], data["side_a"], data["side_b"]),
            "play": ns.play, "a": ns.a, "b": ns.b}
    if ns.json:
        emit_json(data)
        return res
    n = f"{res.n} of {res.n_requested} (interrupted)" if res.n_requested and res.n < res.n_requested else res.n
    _group_text(system.id, f"group sim (n={n}, seed={res.seed})", data, side_a, side_b)
    emit(f"  rounds: mean {_num(data['mean_rounds'])} (se {_num(data['se_mean_rounds'])})\n")
    return res


def _group_text(sid: str, what: str, data: dict[str, Any], side_a: Sequence[Any], side_b: Sequence[Any]) -> None:
    """The answer first (P(side A wins)), then the rest of a group fight."""
    from analysis.fights.sides import side_text

    def figure(key: str) -> str:
        se = data.get(f"se_{key}")
        lo_hi = data.get(f"ci_{key}")
        return prob(data[key]) + (f"  se {se:.6f}  95% CI [{lo_hi[0]:.6f}, {lo_hi[1]:.6f}]" if se is not None else "")

    emit(f"P(side A wins) = {figure('p_a_wins')}\n{sid} {what}: side A [{side_text(side_a)}] vs side B "
         f"[{side_text(side_b)}]\n  play: {data['play']}\n  {rules_line(sid, data['variants'])}\n" + caveats(data))
    for key in ("p_b_wins", "p_both_out"):
        emit(f"  {key:<12} {figure(key)}\n")
    for side in "ab":
        shown = ", ".join(f"{k}: {v:.4f}" for k, v in data[f"survivors_{side}"].items())
        emit(f"  survivors {side.upper()} able to act: {shown}\n")
    for f in data["fighters"]:
        emit(f"  {f['side'].upper()}{f['index'] + 1} {f['name']}: out {prob(f['p_out'])}, dying {prob(f['p_dying'])}, "
             f"dead {prob(f['p_dead'])}\n")


def _num(value: Any) -> str:
    return "n/a" if value is None else f"{value:.3f}"


# ------------------------------------------------------------------ tactics
def register(sub: Any) -> None:
    def add_tactics(p: argparse.ArgumentParser, system: Any) -> None:
        p.add_argument("--a", required=True, metavar="FIGHTER", help="fighter A: an archetype name, a file or inline")
        p.add_argument("--b", required=True, metavar="FIGHTER", help="fighter B: an archetype name, a file or inline")
        p.add_argument("--decide", metavar="NAME[,NAME...]", help="solve only these decisions (the rest stay at the "
                       "fighters' policies); default: every decision")
        p.add_argument("--objective", choices=("wins", "survive"), default="wins",
                       help="wins (default: value = P(A wins) - P(B wins)) or survive (A plays not to end dying)")
        p.add_argument("--policy-out", metavar="FILE.csv|FILE.parquet",
                       help="write the equilibrium's full state -> action table (CSV or Parquet by suffix)")
        p.add_argument("--quiet", action="store_true", help="no progress on stderr")
        add_rules_options(p, system)
        p.add_argument("--json", action="store_true", help="print one JSON object")

    def add_encounter(p: argparse.ArgumentParser, system: Any) -> None:
        p.add_argument("--a", required=True, metavar="SIDE", help=f"the hero (side A): {SIDE_HELP}")
        p.add_argument("--b", required=True, metavar="FIGHTER", help="the mook counted (one fighter; with --sides a "
                       "whole side, repeated as a unit)")
        p.add_argument("--p", type=typed(Float(0, 1, open_lo=True, open_hi=True), "p"), default=0.5,
                       help="the fair line: the smallest count with P(side A wins) below it (default 0.5)")
        p.add_argument("--max", type=number(int), default=8, help="the largest count tried (default 8)")
        p.add_argument("--systems", choices=("one", "all"), default="one",
                       help="all: the same archetype names in every system side by side (default: the one named)")
        p.add_argument("--sides", action="store_true", help="--a and --b are sides (mixed); the curve repeats side "
                       "B as a unit, count 1 is the sides as given")
        p.add_argument("--n", type=number(int), default=20_000,
                       help="Monte Carlo fights per count past the exact budget (default 20000)")
        p.add_argument("--seed", type=number(int), default=None, help="seed of the Monte Carlo counts")
        p.add_argument("--workers", type=number(int), default=None, help="threads for the Monte Carlo counts")
        p.add_argument("--quiet", action="store_true", help="no progress on stderr")
        add_rules_options(p, system)
        p.add_argument("--json", action="store_true", help="print one JSON object")

    per_system(sub, "tactics", "A duel played well: book vs best response vs equilibrium, each decision's worth",
               TACTICS_EXAMPLES, run_tactics, add_tactics)
    per_system(sub, "encounter", "How many B make a fair fight against A: the count where P(A wins) falls below p",
               ENCOUNTER_EXAMPLES, run_encounter, add_encounter)


def progress_bar(ns: argparse.Namespace, what: str, total: int, unit: str) -> Any:
    """The command's progress on stderr (none with ``--quiet``), silent for its first :data:`~analysis.base.progress.DELAY` seconds."""
    from analysis.base.progress import DELAY, Progress, auto_mode

    return Progress(auto_mode(ns.quiet), total=total, unit=unit, desc=f"dicelab {what}", delay=DELAY)


def run_tactics(ns: argparse.Namespace) -> int:
    from analysis.base.files import check_output_path
    from analysis.engine.combat import describe_fighter, duel_assumptions
    from analysis.fights.budget import check_tactics
    from analysis.fights.fighters import load_fighter
    from analysis.fights.tactics import PLAYS, analyse, decided, require_decisions

    system = get_system(ns.system)
    require_decisions(system)
    rules = rules_from(ns, system)
    a, b = load_fighter(system, ns.a, "--a"), load_fighter(system, ns.b, "--b")
    decide = None if ns.decide is None else [name.strip() for name in ns.decide.split(",")]
    out = check_output_path(ns.policy_out, "--policy-out") if ns.policy_out is not None else None
    if out is not None:
        from analysis.front.sweep.output import output_format

        fmt = output_format(out, None)
    check_tactics(system, rules, a, b)
    bar = progress_bar(ns, "tactics", 2, "step")
    try:
        dg = system.tactics(rules, a, b)
        decided(dg, decide)
        bar.update(1)
        res = analyse(dg, decide, ns.objective)
        bar.update(1)
    finally:
        bar.close()
    if out is not None:
        _write_policy(out, fmt, res.policy)
    fa, fb = describe_fighter(a, rules), describe_fighter(b, rules)
    data = {"system": system.id, "variants": rules.to_dict(), "assumptions": duel_assumptions(system.id,
            rules.to_dict(), fa, fb), "a": fa, "b": fb, "play": list(PLAYS), **res.to_dict()}
    if out is not None:
        data["policy_out"] = str(out)
    if ns.json:
        emit_json(data)
        return 0
    _tactics_text(system.id, data, res)
    return 0


def _write_policy(out: Any, fmt: str, rows: Sequence[dict[str, Any]]) -> None:
    from analysis.front.sweep.output import column_kind, write_rows

    names = list(dict.fromkeys(k for row in rows for k in row))
    kinds = {k: column_kind({type(row.get(k)) for row in rows}) for k in names}
    write_rows(out, fmt, names, kinds, iter(rows))


def _tactics_text(sid: str, data: dict[str, Any], res: Any) -> None:
    import pandas as pd

    book, eq = data["book"], data["equilibrium"]
    units = "P(A wins) - P(B wins)" if data["objective"] == "wins" else "-P(A ends dying or worse)"
    emit(f"P(A wins) played well (equilibrium) = {prob(eq['p_a_wins'])}; by the book {prob(book['p_a_wins'])}\n"
         f"{sid} tactics: {data['a']['name']} (A) vs {data['b']['name']} (B); objective {data['objective']} "
         f"(value = {units}); decisions solved: {', '.join(data['decide']) or 'none'}\n"
         f"  decisions model: {data['decisions_model']}\n"
         f"  {rules_line(sid, data['variants'])}\n" + caveats(data))
    emit(f"  {'play':<14} {'value':>9} {'P(A wins)':>10} {'P(B wins)':>10} {'P(both out)':>11} {'rounds':>7}\n")
    for key, label in (("book", "book"), ("best_response", "best response"), ("equilibrium", "equilibrium")):
        p = data[key]
        emit(f"  {label:<14} {p['value']:>9.4f} {p['p_a_wins']:>10.4f} {p['p_b_wins']:>10.4f} "
             f"{p['p_both_out']:>11.4f} {_num(p['mean_rounds']):>7}\n")
    tol = max(1e-9, 10 * data["tolerance"])
    matters = abs(eq["value"] - book["value"]) > tol or any(abs(d["worth"]) > tol for d in data["decisions"])
    if not matters:
        emit("  No option matters under equilibrium play: playing well gains nothing over the book here.\n")
    emit("  decisions under equilibrium play (taken: share of its moments with an option other than the plain one; "
         "worth: the value the side loses when forbidden it):\n")
    for d in data["decisions"]:
        taken = "n/a (never reached)" if d["share_taken"] is None else f"{100 * max(0.0, d['share_taken']):.1f}%"
        emit(f"    {d['name']} ({d['side'].upper()}): taken {taken}, worth {max(0.0, d['worth']):.4f}\n")
    by_side = data["dominated_by_side"]
    emit("  dominated fixed policies: " + ("; ".join(f"{s.upper()}: {', '.join(v)}" for s, v in by_side.items() if v)
                                         or "none") + "\n")
    rule = data["simple_rule"]
    if rule is not None:
        share = "n/a (no gain to keep)" if rule["share_of_gain"] is None else f"{100 * rule['share_of_gain']:.0f}%"
        emit(f"  simple rule ({rule['side'].upper()}): {rule['text']}; keeps {share} of the equilibrium's gain, "
             f"agrees with {100 * rule['agreement']:.0f}% of its play\n")
    emit(f"  equilibrium policy by state, each decision's {POLICY_ROWS_SHOWN} most visited (--policy-out writes "
         "all):\n")
    for d in data["decisions"]:
        rows = sorted((r for r in res.policy if r["decision"] == d["name"] and r["side"] == d["side"]
                       and r["visits"] > 0), key=lambda r: -r["visits"])[:POLICY_ROWS_SHOWN]
        if not rows:
            continue
        table = pd.DataFrame(rows).drop(columns=["decision", "side", "state"])
        shown = [c for c in table.columns if c.startswith("p_") or c == "visits" or table[c].nunique() > 1]
        emit(f"    {d['name']} ({d['side'].upper()}):\n" + "\n".join(
            "      " + line for line in table[shown].to_string(index=False, float_format=lambda x: f"{x:.3f}")
            .splitlines()) + "\n")


# ------------------------------------------------------------------ encounter
def run_encounter(ns: argparse.Namespace) -> int:
    from analysis.fights.sides import parse_side
    from analysis.tools.encounter import encounter

    named = get_system(ns.system)
    systems = [named] if ns.systems == "one" else all_systems()
    found, skipped = [], {}
    for system in systems:
        if system.group is None and not _simulates_groups(system.id):
            skipped[system.id] = "group fights are not modelled yet (RULES.md section 7)"
            continue
        try:
            rules = rules_from(ns, system) if system.id == named.id else system.rules()
            side_a, unit_b = parse_side(system, ns.a, "--a"), parse_side(system, ns.b, "--b")
        except DicelabError as err:
            if ns.systems == "one":
                raise
            skipped[system.id] = str(err)
            continue
        if not ns.sides and len(unit_b) > 1:
            raise DicelabError(f"--b names {len(unit_b)} fighters; allowed: one fighter counted, or --sides to "
                               "repeat a mixed side B as a unit")
        bar = lambda total, sid=system.id: progress_bar(ns, f"encounter {sid}", total, "count")  # noqa: E731
        found.append(encounter(system, rules, side_a, unit_b, ns.p, ns.max, ns.n, ns.seed, ns.workers, bar))
        if found[-1].interrupted:
            break
    if not found:
        raise DicelabError(f"{named.id}: group fights are not modelled yet (RULES.md section 7); allowed: "
                           "dicelab duel for one against one")
    data = found[0].to_dict() if ns.systems == "one" else {"systems": {e.system: e.to_dict() for e in found},
                                                           "skipped": skipped, "p": ns.p, "max": ns.max}
    data.update({"a": ns.a, "b": ns.b, "sides": ns.sides, "play": "book"})
    if ns.json:
        emit_json(data)
    else:
        _encounter_text(found, skipped, ns)
    if any(e.interrupted for e in found):
        print("dicelab encounter: interrupted; the curve is over the counts finished", file=sys.stderr)
        return 130
    return 0


def _simulates_groups(system_id: str) -> bool:
    from sims.api import group_module

    return group_module(system_id) is not None


def _encounter_text(found: Sequence[Any], skipped: dict[str, str], ns: argparse.Namespace) -> None:
    unit = "side B" if ns.sides else "B"
    for e in found:
        answer = (f"{e.fair_count} of {unit} make a fair fight (P(side A wins) < {e.p:g})" if e.fair_count is not None
                  else f"no fair count up to {e.max_count}: {e.reason}")
        emit(f"{e.system}: {answer}\n")
    e0 = found[0]
    emit(f"  A: {', '.join(f['name'] for f in e0.side_a)}; {unit} counted: {', '.join(f['name'] for f in e0.unit_b)}; "
         f"play: book\n")
    for e in found:
        emit(f"  {e.system} {rules_line(e.system, e.variants)}\n" + caveats({"assumptions": e.assumptions}))
    counts = range(1, max(len(e.curve) for e in found) + 1)
    emit("  count " + "".join(f"{e.system + ' P(A wins)':>22}" for e in found) + "\n")
    for k in counts:
        cells = []
        for e in found:
            pt = e.curve[k - 1] if k <= len(e.curve) else None
            cells.append("" if pt is None else f"{pt.p_a_wins:.4f}" + (f" ±{pt.se_p_a_wins:.4f} MC" if pt.se_p_a_wins
                                                                       is not None else " exact"))
        emit(f"  {k:>5} " + "".join(f"{c:>22}" for c in cells) + "\n")
    if any(pt.method == "monte_carlo" for e in found for pt in e.curve):
        emit(f"  MC: Monte Carlo past the exact budget, n={ns.n} per count, ± one standard error; seed {ns.seed}\n")
    for sid, why in skipped.items():
        emit(f"  {sid}: skipped: {why}\n")
