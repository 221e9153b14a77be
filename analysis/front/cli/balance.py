"""Balance commands: ``tune``, ``equiv``, ``worth``, ``variants``, ``design``."""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any, Callable

from analysis.base.params import DicelabError, plain_number
from analysis.base.progress import DELAY, Progress, auto_mode
from analysis.engine.system import System
from analysis.fights.budget import BUDGET_SECONDS, MAX_MEMORY_GB
from analysis.fights.fighters import load_fighter
from analysis.front.cli import (
    Formatter,
    add_params_options,
    add_rules_options,
    caveats,
    command,
    emit,
    emit_json,
    number,
    params_from,
    per_system,
    probability,
    rules_from,
    rules_line,
)
from analysis.front.cli.combat import FIGHTER_HELP, fighters_from
from analysis.front.cli.games import PLAY_CHOICES, PLAY_HELP, add_play
from analysis.present.tables import assumed_pairs, assumptions_line, pairs, render
from analysis.systems import SYSTEM_IDS, get_system
from analysis.tools.curve import show_p
from analysis.tools.design import design
from analysis.tools.equiv import equiv, equiv_fight, equiv_table
from analysis.tools.tune import tune, tune_table
from analysis.tools.variants import variants
from analysis.tools.worth import worth

TUNE_EXAMPLES = {
    "tristat": "dicelab tune tristat --target 7 --p 0.75 --json",
    "onesix": "dicelab tune onesix --rating 9 --p 0.9",
    "tun": "dicelab tune tun --limit 10 --dice 1d20 --table",
    "kurs": "dicelab tune kurs --skill 1 --difficulty 2 --p 0.75 --json",
}
WORTH_EXAMPLES = {
    "tristat": "dicelab worth tristat --die 8",
    "onesix": "dicelab worth onesix --skilled false --json",
    "tun": "dicelab worth tun --dice 3d6 --variant crits=true",
    "kurs": "dicelab worth kurs --difficulty 2",
}
VARIANTS_EXAMPLES = {
    "tristat": "dicelab variants tristat --a veteran --b trained_armed",
    "onesix": "dicelab variants onesix --json",
    "tun": "dicelab variants tun --a red --b blue",
    "kurs": "dicelab variants kurs --a maximus --b tiberius --json",
}
DESIGN_EXAMPLES = {
    "tristat": "dicelab design tristat --a veteran --b veteran --vary weapon_damage=0..60,b.armor=0..6 --rounds 3 --lethality 0.2",
    "onesix": "dicelab design onesix --a trained --b trained --vary weapon_ps=3..15 --rounds 4 --lethality 0.1 --json",
    "tun": "dicelab design tun --a red --b blue --vary a.weapon_n=1..3,b.extra_defense=0..4 --rounds 3 --lethality 0.05 --p-win 0.6",
    "kurs": "dicelab design kurs --a maximus --b tiberius --vary a.weapon=0..6,armor=0..4 --rounds 5 --lethality 0.3 --top 3",
}
EQUIV_EXAMPLE = (
    "dicelab equiv --from tristat --die 6 --target 8 --to onesix --mod 3 --json\n"
    "  dicelab equiv --from kurs --skill 2 --to tun --dice 1d20 --table\n"
    "  dicelab equiv --from tristat --a veteran --b trained_armed --to kurs --top 3"
)
GLOBAL_FLAGS = ("--json", "--table", "--verbose")
GLOBAL_VALUES = {"--top": int, "--workers": int, "--budget": float, "--max-memory": float}
"""Options of ``equiv`` that may sit on either side of --to, with their types."""
PROGRESS_DELAY = DELAY
EQUIV_TOP = 3
"""How many pairings ``equiv`` of a fight shows by default."""
FIGHT_ONLY = ("top", "workers", "budget", "max_memory", "play")
"""Options of ``equiv`` that only a fight (--a/--b) uses."""


def add_fight_options(p: argparse.ArgumentParser) -> None:
    """``--workers``, ``--budget``, ``--max-memory`` and ``--quiet`` of the tools that solve many exact duels."""
    p.add_argument("--workers", type=number(int), metavar="N",
                   help="processes for the duels (default: the cores; at most 2 per core); results do not depend on it")
    p.add_argument("--budget", type=number(float), metavar="SECONDS",
                   help=f"refuse when the duels' estimated time is past this (default {BUDGET_SECONDS:g} s)")
    p.add_argument("--max-memory", type=number(float), metavar="GB",
                   help=f"skip a duel whose estimated peak memory is past this (default {MAX_MEMORY_GB:g} GB)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")


def progress_for(ns: argparse.Namespace, what: str) -> Callable[[int], Progress]:
    """The progress factory handed to the balance tools: a bar (terminal) or lines on stderr after 2 s."""
    mode = auto_mode(getattr(ns, "quiet", False))
    return lambda total: Progress(mode, total=total, unit="duel", desc=f"dicelab {what}", delay=PROGRESS_DELAY)


def _frame(rows: list[dict[str, Any]]) -> Any:
    """The rows as a DataFrame for :func:`~analysis.present.tables.render` (pandas imported here: start-up stays quick)."""
    import pandas as pd

    return pd.DataFrame(rows)


def _title_line(lines: str) -> str:
    """Lines to append to a table's title: after a line break, without the last one (empty stays empty)."""
    return f"\n{lines.rstrip()}" if lines else ""


def _rounds(value: float) -> str:
    """Mean rounds to the first out; infinite when nobody ever goes out (the fight never ends, or every fight
    ends at a round cap such as Tri-Stat's total defence)."""
    return "nobody goes out" if math.isinf(value) else f"{value:.3f}"


def _finish(label: str, done: int, total: int, what: str) -> int:
    """0 when all ``total`` are done; else 130 and one line on stderr: an interruption cut the search short and
    the output is over the ``done`` finished."""
    if done >= total:
        return 0
    print(f"{label}: interrupted after {done:,} of {total:,} {what}; the output is over those finished",
          file=sys.stderr)
    return 130


def register(sub: Any) -> None:
    def add_tune(p: argparse.ArgumentParser, system: System) -> None:
        add_params_options(p, system.CheckArgs)
        add_rules_options(p, system)
        p.add_argument("--p", type=probability, metavar="P", help="wished P(success), in (0, 1]: 0.75 or 75%%")
        p.add_argument("--table", action="store_true", help="the modifier needed for every P of 5%%, 10%%, ..., 95%%")
        p.add_argument("--json", action="store_true", help="print one JSON object")

    per_system(sub, "tune", "The smallest modifier to the check's main value that brings P(success) to at least P",
               TUNE_EXAMPLES, run_tune, add_tune)

    p = command(sub, "equiv", "Translate a check (or a fight) from one system to another: the nearest P(success) "
                "(or the archetype pairings with the nearest P(A wins) and mean rounds)", EQUIV_EXAMPLE, run_equiv)
    p.add_argument("--from", dest="source", nargs=argparse.REMAINDER, metavar="SYSTEM [OPTIONS]",
                   help="the source system and its check options (or --a/--b fighters and ruleset options); "
                        "`dicelab equiv --from SYSTEM --help` lists them")
    p.add_argument("--to", dest="target", nargs=argparse.REMAINDER, metavar="SYSTEM [OPTIONS]",
                   help="the target system and its fixed options (check options and ruleset options); its own main "
                        "value only breaks ties")
    p.add_argument("--table", action="store_true", help="map the source's whole range (at its dice)")
    p.add_argument("--top", type=number(int), default=None, metavar="K",
                   help=f"fights: how many pairings to show (default {EQUIV_TOP})")
    add_fight_options(p)
    p.add_argument("--play", choices=PLAY_CHOICES, default=None,
                   help=f"fights: how both sides play, in both systems: {PLAY_HELP}")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--verbose", action="store_true", help="text output: echo every rule field of both systems")

    def add_worth(p: argparse.ArgumentParser, system: System) -> None:
        add_params_options(p, system.CheckArgs)
        add_rules_options(p, system)
        p.add_argument("--json", action="store_true", help="print one JSON object")

    per_system(sub, "worth", "At each place of the range: P(success), what one more point buys, how swingy",
               WORTH_EXAMPLES, run_worth, add_worth)

    def add_variants(p: argparse.ArgumentParser, system: System) -> None:
        p.add_argument("--a", metavar="FIGHTER", help=f"side A, to measure the duel too: {FIGHTER_HELP}")
        p.add_argument("--b", metavar="FIGHTER", help=f"side B: {FIGHTER_HELP}")
        add_rules_options(p, system)
        add_fight_options(p)
        add_play(p)
        p.add_argument("--json", action="store_true", help="print one JSON object")

    per_system(sub, "variants", "Every rule variant's effect on the check table (and a duel), largest first; with "
               "fighters, also what each policy of A (stance, option) does against the plain B",
               VARIANTS_EXAMPLES, run_variants, add_variants)

    def add_design(p: argparse.ArgumentParser, system: System) -> None:
        names = ", ".join(i.name for i in system.Fighter.describe()) if system.Fighter else ""
        p.add_argument("--a", required=True, metavar="FIGHTER", help=f"side A: {FIGHTER_HELP}")
        p.add_argument("--b", required=True, metavar="FIGHTER", help=f"side B: {FIGHTER_HELP}")
        p.add_argument("--vary", required=True, action="append", metavar="PARAM=LO..HI[,...]",
                       help=f"fighter parameters to search (repeatable); a.NAME or b.NAME for one side, a bare NAME "
                            f"gives both fighters the same value; parameters: {names}")
        p.add_argument("--rounds", required=True, type=number(float), metavar="R", help="wished mean rounds")
        p.add_argument("--lethality", required=True, type=probability, metavar="L", help="wished P(at least one killed): the fight ends with someone at the ruleset's lethal_at level or worse")
        p.add_argument("--p-win", type=probability, metavar="W", help="wished P(A wins) (optional): 0.6 or 60%%")
        p.add_argument("--top", type=number(int), default=5, metavar="K", help="how many settings to show (default 5)")
        add_fight_options(p)
        add_play(p)
        add_rules_options(p, system)
        p.add_argument("--json", action="store_true", help="print one JSON object")

    per_system(sub, "design", "Search fighter parameters for the duel nearest a wished mean rounds, P(at least one killed) and P(A wins)",
               DESIGN_EXAMPLES, run_design, add_design)


# ------------------------------------------------------------------- tune
def run_tune(ns: argparse.Namespace) -> int:
    system = get_system(ns.system)
    rules, args = rules_from(ns, system), params_from(ns, system.CheckArgs)
    if ns.table and ns.p is not None:
        raise DicelabError(f"--p {ns.p!r} does not apply with --table (the table lists every P from 5% to 95%); "
                           "give one of them")
    if ns.table:
        table = tune_table(system, rules, args)
        data = table.to_dict()
        if ns.json:
            emit_json(data)
            return 0
        df = _frame([{"P(success) >=": r["p"],
                            "modifier": "any" if r["at_floor"] else "none" if r["modifier"] is None else f"{r['modifier']:+d}",
                            table.value_name: "" if r["value"] is None else str(r["value"]),
                            "P at it": r["p_at_modifier"]} for r in table.rows])
        emit(render(df, "md", title=f"The modifier needed for each P(success) ({system.id} tune: {pairs(table.params)}); "
                                    f"P(success) runs from {show_p(table.floor)} to {show_p(table.ceiling)} over the "
                                    "allowed range\n" + caveats(data, indent="")
                                    + rules_line(system.id, table.variants, ns.verbose)))
        return 0
    if ns.p is None:
        raise DicelabError("tune needs --p P (the wished P(success)) or --table")
    res = tune(system, rules, args, ns.p)
    data = res.to_dict()
    if ns.json:
        emit_json(data)
        return 0
    below = "" if res.p_below is None else f"; at {res.modifier - 1:+d}: {show_p(res.p_below)}"
    emit(f"modifier {res.modifier:+d} ({res.value_name} {res.value}): P(success) {show_p(res.p_at_modifier)} >= "
         f"{res.p!r}{below}\n" + caveats(data) + "".join(f"  note: {n}\n" for n in res.notes)
         + f"  {system.id} tune from {pairs(res.params)}\n  {rules_line(system.id, res.variants, ns.verbose)}\n")
    return 0


# ------------------------------------------------------------------ equiv
class _SideParser(argparse.ArgumentParser):
    """One side of ``equiv``: its errors become one-line :class:`DicelabError` messages."""

    def __init__(self, side: str, **kwargs: Any):
        super().__init__(**kwargs)
        self.side = side

    def error(self, message: str) -> Any:
        raise DicelabError(f"{self.side}: {message}")


def _sides(ns: argparse.Namespace) -> tuple[list[str], list[str]]:
    """(source tokens, target tokens) from the two REMAINDER options, whichever came first."""
    source, target = ns.source, ns.target
    if source is not None and "--to" in source:
        i = source.index("--to")
        source, target = source[:i], source[i + 1:]
    elif target is not None and "--from" in target:
        i = target.index("--from")
        target, source = target[:i], target[i + 1:]
    for name, tokens in (("--from", source), ("--to", target)):
        if tokens and tokens[0] in SYSTEM_IDS and ("-h" in tokens or "--help" in tokens):
            _side_parser(get_system(tokens[0]), name, fights=name == "--from").parse_args(["--help"])
    if source is None or target is None:
        raise DicelabError("equiv needs --from SYSTEM [its options] and --to SYSTEM [its options]")
    for name, tokens in (("--from", source), ("--to", target)):
        if "--from" in tokens or "--to" in tokens:
            raise DicelabError("equiv: --from and --to may each be given once")
        if not tokens or tokens[0] not in SYSTEM_IDS:
            got = repr(tokens[0]) if tokens else "nothing"
            raise DicelabError(f"equiv: {name} takes a system first, got {got}; allowed: one of {', '.join(SYSTEM_IDS)}")
    if any(t.partition("=")[0] in ("--a", "--b") for t in target):
        raise DicelabError("equiv: --a/--b (a fight) belong to the source system, before --to")
    return source, target


def _global_flags(ns: argparse.Namespace, tokens: list[str]) -> list[str]:
    """Pull ``--json``, ``--table``, ``--quiet`` and the options of :data:`GLOBAL_VALUES` out of a side's tokens
    into ``ns``."""
    rest: list[str] = []
    it = iter(tokens)
    for token in it:
        head, eq, tail = token.partition("=")
        if token in GLOBAL_FLAGS or token == "--quiet":
            setattr(ns, token[2:], True)
        elif head == "--play":
            ns.play = tail if eq else next(it, None)
        elif head in GLOBAL_VALUES:
            value = tail if eq else next(it, None)
            kind = GLOBAL_VALUES[head]
            try:
                setattr(ns, head[2:].replace("-", "_"), plain_number(value, kind))
            except (TypeError, ValueError):
                what = "an integer" if kind is int else "a number"
                raise DicelabError(f"equiv: {head} = {value!r} is not allowed; allowed: {what}") from None
        else:
            rest.append(token)
    return rest


def _side_parser(system: System, side: str, fights: bool) -> _SideParser:
    p = _SideParser(f"{side} {system.id}", prog=f"dicelab equiv {side} {system.id}", formatter_class=Formatter,
                    description=f"Options of the {'source' if side == '--from' else 'target'} system {system.title}",
                    epilog=f"Example:\n  {EQUIV_EXAMPLE}")
    add_params_options(p, system.CheckArgs, prefix="check_")
    add_rules_options(p, system)
    if fights:
        p.add_argument("--a", metavar="FIGHTER", help=f"a fight instead of a check; side A: {FIGHTER_HELP}")
        p.add_argument("--b", metavar="FIGHTER", help=f"side B: {FIGHTER_HELP}")
    return p


def run_equiv(ns: argparse.Namespace) -> int:
    source_tokens, target_tokens = _sides(ns)
    source_tokens, target_tokens = _global_flags(ns, source_tokens), _global_flags(ns, target_tokens)
    source, target = get_system(source_tokens[0]), get_system(target_tokens[0])
    src = _side_parser(source, "--from", fights=True).parse_args(source_tokens[1:])
    dst = _side_parser(target, "--to", fights=False).parse_args(target_tokens[1:])
    check_options = [i.name for i in source.CheckArgs.describe() if getattr(src, f"check_{i.name}") is not None]
    if src.a is not None or src.b is not None:
        return _equiv_fight(ns, source, src, target, dst, check_options)
    given = [f"--{name.replace('_', '-')}" for name in FIGHT_ONLY if getattr(ns, name, None) is not None]
    if given:
        raise DicelabError(f"equiv: {', '.join(given)} {'applies' if len(given) == 1 else 'apply'} to a fight "
                           "(--from SYSTEM --a A --b B), not to a check; leave "
                           f"{'it' if len(given) == 1 else 'them'} out")
    rules, args = rules_from(src, source), params_from(src, source.CheckArgs, prefix="check_")
    t_rules, t_args = rules_from(dst, target), params_from(dst, target.CheckArgs, prefix="check_")
    if ns.table:
        table = equiv_table(source, rules, args, target, t_rules, t_args)
        if ns.json:
            emit_json(table.to_dict())
            return 0
        df = _frame([{f"{source.id} {table.source_value}": r["from"], "P from": r["p_from"],
                            f"{target.id} {table.value_name}": r["value"], "P to": r["p_to"]} for r in table.rows])
        emit(render(df, "md", title=f"{source.id} -> {target.id}: the nearest P(success) at each {table.source_value}\n"
                                    + _sides_assumed(table.source, table.target, "")
                                    + f"from: {pairs(table.source['params'])}; "
                                    f"{rules_line(source.id, table.source['variants'], ns.verbose)}\n"
                                    f"to: {pairs(table.target['params'])}; "
                                    f"{rules_line(target.id, table.target['variants'], ns.verbose)}"))
        return 0
    res = equiv(source, rules, args, target, t_rules, t_args)
    if ns.json:
        emit_json(res.to_dict())
        return 0
    emit(f"{target.id} {res.value_name} {res.value}: P(success) {res.p_to:.6f}, nearest to {source.id}'s "
         f"{res.p_from:.6f}\n" + _sides_assumed(res.source, res.target)
         + f"  from: {pairs(res.source['params'])}; {rules_line(source.id, res.source['variants'], ns.verbose)}\n"
         f"  to:   {pairs(res.target['params'])}; {rules_line(target.id, res.target['variants'], ns.verbose)}\n")
    return 0


def _sides_assumed(source: Any, target: Any, indent: str = "  ") -> str:
    """A line for each side of ``equiv`` whose numbers rest on the lab's assumptions."""
    return "".join(assumptions_line(side["assumptions"], indent=f"{indent}{name} ")
                   for name, side in (("from", source), ("to", target)))


def _equiv_fight(ns: argparse.Namespace, source: System, src: argparse.Namespace, target: System,
                 dst: argparse.Namespace, check_options: list[str]) -> int:
    if src.a is None or src.b is None:
        raise DicelabError("equiv: a fight needs both --a and --b (before --to)")
    target_checks = [i.name for i in target.CheckArgs.describe() if getattr(dst, f"check_{i.name}") is not None]
    if check_options or target_checks:
        raise DicelabError(f"equiv: a fight (--a/--b) takes no check options ({', '.join(check_options + target_checks)}); "
                           "only ruleset options on either side")
    if ns.table:
        raise DicelabError("equiv: --table maps a check's range; a fight has none")
    res = equiv_fight(source, rules_from(src, source), load_fighter(source, src.a), load_fighter(source, src.b),
                      target, rules_from(dst, target), top=EQUIV_TOP if ns.top is None else ns.top,
                      workers=ns.workers, budget=ns.budget, max_memory=ns.max_memory,
                      progress=progress_for(ns, "equiv"), play=ns.play or "book")
    done = _finish("dicelab equiv", res.pairings if res.searched is None else res.searched, res.pairings, "pairings")
    if ns.json:
        emit_json(res.to_dict())
        return done
    f = res.figures
    best = res.matches[0] if res.matches else None
    if best is not None:
        emit(f"nearest {target.id} pairing: {best.a} vs {best.b} (distance {best.distance:.3f}): P(A wins) "
             f"{best.figures.p_a_wins:.4f}, mean rounds {_rounds(best.figures.mean_rounds)}\n")
    emit(_sides_assumed(res.source, res.target)
         + f"  source: {source.id} {res.source['a']['name']} (A) vs {res.source['b']['name']} (B): P(A wins) "
         f"{f.p_a_wins:.4f}, mean rounds {_rounds(f.mean_rounds)}, P(at least one killed) {f.p_killed:.4f}\n"
         f"  nearest of {res.pairings} {target.id} archetype pairings (distance {res.distance}):\n")
    for m in res.matches:
        emit(f"    {m.distance:7.3f}  {m.a} vs {m.b}: P(A wins) {m.figures.p_a_wins:.4f}, "
             f"mean rounds {_rounds(m.figures.mean_rounds)}, P(at least one killed) {m.figures.p_killed:.4f}\n")
    for s in res.skipped:
        emit(f"  skipped: {s}\n")
    emit(f"  from {rules_line(source.id, res.source['variants'], ns.verbose)}\n"
         f"  to {rules_line(target.id, res.target['variants'], ns.verbose)}\n")
    return done


# ------------------------------------------------------------------ worth
def run_worth(ns: argparse.Namespace) -> int:
    system = get_system(ns.system)
    res = worth(system, rules_from(ns, system), params_from(ns, system.CheckArgs))
    data = res.to_dict()
    if ns.json:
        emit_json(data)
        return 0
    df = _frame([{res.value_name: r["value"], "modifier": f"{r['modifier']:+d}", "P(success)": r["p_success"],
                        "dP of +1": r["delta_p"], f"mean {res.outcome}": r["mean"], f"std {res.outcome}": r["std"]}
                       for r in res.rows])
    emit(render(df, "md", title=f"What one more point buys at each {res.value_name} ({system.id} worth: "
                                f"{pairs(res.params)})" + _title_line(caveats(data, indent=""))
                                + f"\n{rules_line(system.id, res.variants, ns.verbose)}"))
    return 0


# --------------------------------------------------------------- variants
def run_variants(ns: argparse.Namespace) -> int:
    system = get_system(ns.system)
    if (ns.a is None) != (ns.b is None):
        raise DicelabError("variants: give both --a and --b, or neither")
    a, b = (load_fighter(system, ns.a), load_fighter(system, ns.b)) if ns.a is not None else (None, None)
    res = variants(system, rules_from(ns, system), a=a, b=b, workers=ns.workers, budget=ns.budget,
                   max_memory=ns.max_memory, progress=progress_for(ns, "variants"), play=ns.play)
    duels = 1 + len(res.effects) + len(res.policies) if res.base_duel is not None else 0
    done = _finish(f"dicelab variants {system.id}", duels - res.unsolved, duels, "duels")
    if ns.json:
        emit_json(res.to_dict())
        return done
    rows = []
    for e in res.effects:
        row = {"variant": e.label, "effect": e.effect, "check max |dP|": e.check_max_dp, "check mean |dP|": e.check_mean_dp}
        if res.base_duel is not None:
            d = e.duel_delta or {}
            row.update({"dP(A wins)": d.get("p_a_wins"), "dP(at least one killed)": d.get("p_killed"), "d mean rounds": d.get("mean_rounds")})
        row["note"] = _with_assumed("; ".join(filter(None, [e.note, *e.warnings])), e.assumptions, res.assumptions)
        rows.append(row)
    top = res.effects[0] if res.effects else None
    title = (f"the reading that moves the most: {top.label} (effect {top.effect:.2f})" if top is not None else
             f"{system.id} has no rule reading to vary") + _title_line(assumptions_line(res.assumptions, "")) + \
        f"\n{system.id} variants, largest effect first, against {rules_line(system.id, res.variants, ns.verbose)}" \
        "\neffect: the largest change in distance units (0.10 of a probability, a factor 1.5 of mean rounds)"
    if res.base_duel is not None:
        bd = res.base_duel
        title += (f"\nduel {res.a['name']} (A) vs {res.b['name']} (B), play {res.play}: P(A wins) {bd.p_a_wins:.4f}, "
                  f"P(at least one killed) {bd.p_killed:.4f}, mean rounds {_rounds(bd.mean_rounds)}")
    emit(render(_frame(rows), "md", title=title))
    if res.base_duel is not None:
        emit("\n" + _policies_text(res))
    return done


def _with_assumed(note: str, assumed: Any, base: Any) -> str:
    """A row's note, with the lab's assumptions it rests on beyond the base's (``rests on no_defense_bonus=2``)."""
    extra = {k: v for k, v in assumed.items() if k not in base}
    return "; ".join(filter(None, [note, f"rests on {assumed_pairs(extra)}" if extra else ""]))


def _policies_text(res: Any) -> str:
    """The policies of A ranked by their gain in P(A wins) against the plain B."""
    lethal = res.variants.get("lethal_at", "dying")
    if not res.policies:
        return f"{res.system} fighters have no policies (stances, tactical options) to rank\n"
    rows = []
    for p in res.policies:
        d = p.duel_delta or {}
        rows.append({"policy of A": p.label, "dP(A wins)": d.get("p_a_wins"), f"dP(A {lethal})": d.get("p_a_killed"),
                     f"dP(B {lethal})": d.get("p_b_killed"), "d mean rounds": d.get("mean_rounds"),
                     "note": _with_assumed("; ".join(filter(None, [p.note, *p.warnings])), p.assumptions, res.assumptions)})
    return render(_frame(rows), "md", title=f"policies of {res.a['name']} (A) against the plain {res.b['name']} "
                                                   "(B), largest gain in P(A wins) first")


# ----------------------------------------------------------------- design
def run_design(ns: argparse.Namespace) -> int:
    system = get_system(ns.system)
    rules, a, b = fighters_from(ns, system)
    res = design(system, rules, a, b, ",".join(ns.vary), ns.rounds, ns.lethality, ns.p_win, ns.top, ns.workers,
                 budget=ns.budget, max_memory=ns.max_memory, progress=progress_for(ns, "design"), play=ns.play)
    done = _finish(f"dicelab design {system.id}", res.settings if res.searched is None else res.searched,
                   res.settings, "settings")
    if ns.json:
        emit_json(res.to_dict())
        return done
    wish, best = res.wish, res.best[0] if res.best else None
    emit((f"best: {pairs(best.setting)} (distance {best.distance:.3f}): mean rounds "
          f"{_rounds(best.figures.mean_rounds)}, P(at least one killed) {best.figures.p_killed:.4f}, P(A wins) "
          f"{best.figures.p_a_wins:.4f}\n" if best is not None else "best: none (no setting was solved)\n")
         + assumptions_line(res.assumptions) +
         f"  {system.id} design (play {res.play}): {res.a['name']} (A) vs {res.b['name']} (B), {res.settings} settings of "
         f"{', '.join(res.vary)}\n"
         f"  wished: mean rounds {wish['rounds']:g}, P(at least one killed) {wish['lethality']:g}"
         + (f", P(A wins) {wish['p_win']:g}" if wish["p_win"] is not None else "") + f"\n  distance: {res.distance}\n")
    for p in res.best:
        f = p.figures
        emit(f"  {p.distance:7.3f}  {pairs(p.setting)}: mean rounds {_rounds(f.mean_rounds)}, P(at least one killed) {f.p_killed:.4f}, "
             f"P(A wins) {f.p_a_wins:.4f}, P(B wins) {f.p_b_wins:.4f}\n")
    if res.skipped:
        emit(f"  skipped {len(res.skipped)} settings, e.g. {res.skipped[0]}\n")
    emit(f"  {rules_line(system.id, res.variants, ns.verbose)}\n")
    return done
