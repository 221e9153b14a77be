"""Combat commands: ``archetypes``, ``exchange``, ``resolve``, ``duel``."""

from __future__ import annotations

import argparse
from typing import Any

from analysis.base.params import parse_pairs
from analysis.engine.combat import describe_fighter, parse_rolls
from analysis.fights.fighters import archetypes, load_fighter
from analysis.front.cli import (
    DEAD_NOTE,
    add_rules_options,
    caveats,
    command,
    emit,
    emit_json,
    per_system,
    rules_from,
    rules_line,
)
from analysis.present.tables import pairs, prob
from analysis.systems import all_systems, get_system

FIGHTER_HELP = "an archetype name, a .toml/.json file, or inline key=value,... (archetype=NAME starts from one)"
EXAMPLES = {
    "exchange": {
        "tristat": "dicelab exchange tristat --a body=5,mind=4,soul=4,weapon_damage=10 --b trained --json",
        "onesix": "dicelab exchange onesix --a poacher --b daisy --json",
        "tun": "dicelab exchange tun --a red --b blue --json",
        "kurs": "dicelab exchange kurs --a maximus --b tiberius --variant defense_clamp=false",
    },
    "resolve": {
        "tristat": "dicelab resolve tristat --a veteran --b novice --rolls attack=5,defense=9,damage=6",
        "onesix": "dicelab resolve onesix --a poacher --b daisy --rolls attack=10,defense=2",
        "tun": "dicelab resolve tun --a red --b blue --rolls attack=9",
        "kurs": "dicelab resolve kurs --a maximus --b tiberius --rolls attack=1,defense=-2 --json",
    },
    "duel": {
        "tristat": "dicelab duel tristat --a veteran --b trained --die 8 --json",
        "onesix": "dicelab duel onesix --a veteran_armed --b trained_armed",
        "tun": "dicelab duel tun --a red --b blue --json",
        "kurs": "dicelab duel kurs --a maximus --b tiberius --json",
    },
}


def register(sub: Any) -> None:
    p = command(sub, "archetypes", "List the ready fighters of a system (or of all) with their sources.",
                "dicelab archetypes kurs --json", run_archetypes)
    p.add_argument("system", nargs="?", help="system id (default: all)")
    p.add_argument("--json", action="store_true", help="print JSON")

    def add_pair(p: argparse.ArgumentParser, system: Any, help: str = FIGHTER_HELP, metavar: str = "FIGHTER") -> None:
        p.add_argument("--a", required=True, metavar=metavar, help=f"attacker / side A: {help}")
        p.add_argument("--b", required=True, metavar=metavar, help=f"defender / side B: {help}")
        add_rules_options(p, system)
        p.add_argument("--json", action="store_true", help="print one JSON object")

    def add_resolve(p: argparse.ArgumentParser, system: Any) -> None:
        add_pair(p, system)
        p.add_argument("--rolls", required=True, metavar="NAME=VALUE,...",
                       help=f"the dice as rolled: {', '.join(system.roll_names)}")

    per_system(sub, "exchange", "One attack of A on B, exactly: miss/defended/hit/critical, damage, B's condition",
               EXAMPLES["exchange"], run_exchange, add_pair)
    per_system(sub, "resolve", "Apply one exchange with the dice fixed, printing every step",
               EXAMPLES["resolve"], run_resolve, add_resolve)
    def add_duel(p: argparse.ArgumentParser, system: Any) -> None:
        from analysis.front.cli.games import SIDE_HELP, add_play

        add_pair(p, system, SIDE_HELP, "SIDE")
        add_play(p)
        p.add_argument("--quiet", action="store_true", help="no progress on stderr (shown past 2 s of a played duel)")

    per_system(sub, "duel", "A duel (or a fight of two sides) solved exactly as an absorbing Markov chain",
               EXAMPLES["duel"], run_duel, add_duel, note=DEAD_NOTE)


def fighters_from(ns: argparse.Namespace, system: Any) -> tuple[Any, Any, Any]:
    """(rules, A, B) from the command line."""
    return rules_from(ns, system), load_fighter(system, ns.a, "--a"), load_fighter(system, ns.b, "--b")


def run_archetypes(ns: argparse.Namespace) -> int:
    systems = [get_system(ns.system)] if ns.system is not None else all_systems()
    data = {}
    for system in systems:
        rules = system.rules()
        data[system.id] = {name: {**describe_fighter(load_fighter(system, name), rules), "note": entry.get("note", "")}
                           for name, entry in archetypes(system.id).items()}
    if ns.json:
        emit_json(data)
        return 0
    for sid, table in data.items():
        emit(f"{sid}:\n")
        for name, f in table.items():
            params = {k: v for k, v in f.items() if k not in ("name", "note", "derived")}
            emit(f"  {name}: {pairs(params)}\n      {f['note']}\n")
    return 0


def run_exchange(ns: argparse.Namespace) -> int:
    system = get_system(ns.system)
    res = system.exchange(*fighters_from(ns, system))
    data = res.to_dict()
    if ns.json:
        emit_json(data)
        return 0
    emit(f"P(hit) {prob(res.p_hit + res.p_graze)}, mean damage {res.damage.mean():.4f}  ({system.id} exchange: "
         f"{res.attacker['name']} attacks {res.defender['name']})\n" + caveats(data))
    for k in ("p_miss", "p_defended", "p_graze", "p_hit", "p_critical"):
        emit(f"  {k:<11} {prob(getattr(res, k))}\n")
    emit("  damage: " + _shown(res.damage.to_dict()) + "\n")
    emit("  defender after: " + _shown(res.condition_after) + "\n")
    for note in res.notes:
        emit(f"  note: {note}\n")
    emit(f"  {rules_line(system.id, res.variants, ns.verbose)}\n")
    return 0


def _shown(probs: dict[Any, float], floor: float = 5e-5) -> str:
    """``value: p`` pairs at 4 decimals; entries below ``floor`` (long exploding tails) summed at the end."""
    shown = ", ".join(f"{k}: {v:.4f}" for k, v in probs.items() if v >= floor)
    rest = sum(v for v in probs.values() if v < floor)
    return shown + (f", (others: {rest:.2g})" if rest > 0 else "")


def run_resolve(ns: argparse.Namespace) -> int:
    system = get_system(ns.system)
    rules, a, b = fighters_from(ns, system)
    res = system.resolve(rules, a, b, parse_rolls(parse_pairs(ns.rolls, "--rolls"), system.roll_names))
    data = res.to_dict()
    if ns.json:
        emit_json(data)
        return 0
    emit(f"=> hit={str(res.hit).lower()}, damage={res.damage}, marked={res.marked}  ({system.id}: "
         f"{res.attacker['name']} attacks {res.defender['name']})\n" + caveats(data))
    for step in res.steps:
        emit(f"  {step}\n")
    for note in data.get("notes", ()):
        emit(f"  note: {note}\n")
    emit(f"  {rules_line(system.id, res.variants, ns.verbose)}\n")
    return 0


def run_duel(ns: argparse.Namespace) -> int:
    from analysis.fights.play import PLAY_STEPS, played_duel
    from analysis.front.cli.games import group_duel, progress_bar, sides_from

    system = get_system(ns.system)
    rules, side_a, side_b = sides_from(ns, system)
    if len(side_a) > 1 or len(side_b) > 1:
        return group_duel(ns, system, rules, side_a, side_b)
    bar = progress_bar(ns, "duel", PLAY_STEPS if ns.play != "book" else 1, "step")
    try:
        res = played_duel(system, rules, side_a[0], side_b[0], ns.play, progress=bar.update)
    finally:
        bar.close()
    data = {**res.to_dict(), "play": ns.play}
    if ns.json:
        emit_json(data)
        return 0
    emit(f"P(A wins) {prob(data['p_a_wins'])}, P(B wins) {prob(data['p_b_wins'])}  ({system.id} duel, {res.model}, "
         f"play {ns.play}: {res.a['name']} (A) vs {res.b['name']} (B))\n" + caveats(data))
    for k in ("p_both_out", "p_stalemate", "p_a_out", "p_b_out", "p_a_dying", "p_b_dying", "p_a_dead", "p_b_dead",
              "p_a_killed", "p_b_killed", "p_killed"):
        value = data[k]
        emit(f"  {k:<12} " + (prob(value) if value is not None else f"n/a ({data['null_reasons'][k]})") + "\n")
    if "p_still_up" in data:
        emit(f"  {'p_still_up':<12} {prob(data['p_still_up'])}\n")
    given = data["conditional_on"]
    emit(f"  killed = {data['lethal_at']}; p_killed: at least one; after_out {data['after_out']}"
         + (f": mean attacks on the helpless one {data['mean_finish_attacks']:.3f} (over "
            f"{given['mean_finish_attacks']})" if data["mean_finish_attacks"] is not None else
            " (the fight stops at the first out: --variant after_out=finish lets the winner finish the loser)") + "\n")
    if data["mean_rounds"] is None:
        emit(f"  rounds: {data['rounds_note']}; states {data['states']}\n")
    else:
        median = data["median_rounds"] if data["median_rounds"] is not None else f"> {data['median_rounds_above']}"
        over = f" (over {given['mean_rounds']})" if "mean_rounds" in given else ""
        emit(f"  rounds: mean {data['mean_rounds']:.3f}, median {median}{over}, states {data['states']}\n")
        if data["rounds_note"]:
            emit(f"  note: {data['rounds_note']}\n")
    emit(f"  order: {res.order}\n  {rules_line(system.id, res.variants, ns.verbose)}\n")
    return 0
