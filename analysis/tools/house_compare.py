"""House rules against the book: what a ruleset changes, and what that does to the check table, to the
matched duel of each archetype and to the worth of +1, side by side with the differences.

``dicelab rules diff``, ``dicelab compare`` and ``dicelab report --compare`` all print these.

>>> from analysis.systems import get_system
>>> tun = get_system("tun")
>>> [(c["field"], c["book"], c["house"]) for c in changes("tun", tun.rules(success_rule="le"))]
[('success_rule', 'lt', 'le')]
"""

from __future__ import annotations

from operator import methodcaller
from typing import Any, Mapping

import pandas as pd

from analysis.base.params import Validated
from analysis.engine.assumptions import merged
from analysis.engine.combat import describe_fighter, rests_on
from analysis.engine.registry import house_rules_of
from analysis.fights.fighters import archetype, archetypes
from analysis.fights.play import check_play
from analysis.fights.tactics import require_decisions
from analysis.present.tables import success_table, text
from analysis.systems import get_system
from analysis.tools.compare import check_mode
from analysis.tools.duels import solve_duels
from analysis.tools.worth import worth


def book_of(rules: Validated) -> Validated:
    """The book's ruleset played the same way: every variant and constant at its default, the duel options
    (``after_out``, ``lethal_at``, ...) kept."""
    cls = type(rules)
    return cls(**{name: getattr(rules, name) for name in cls.specs("option")})


def changes(system_id: str, rules: Validated, base: Validated | None = None) -> list[dict[str, Any]]:
    """Every field of ``rules`` that differs from ``base`` (default: the book), with its kind and meaning."""
    base = base if base is not None else type(rules)()
    now, then = rules.to_dict(), base.to_dict()
    return [{"system": system_id, "field": i.name, "kind": i.kind, "book": text(then[i.name]),
             "house": text(now[i.name]), "help": i.help}
            for i in type(rules).describe() if now[i.name] != then[i.name]]


def check_rows(system_id: str, house: Validated, book: Validated) -> pd.DataFrame:
    """P(success) of the standard check over the system's value, under both rulesets, and the difference."""
    system = get_system(system_id)
    args = system.args()
    tables = []
    for name, rules in (("book", book), ("house", house)):
        df = success_table(system, rules, args)
        mode_col = "dice" if "dice" in df.columns else "mode"
        df = df[df[mode_col] == check_mode(system, rules, args)]
        tables.append(df[[system.value, "p_success"]].rename(columns={system.value: "value", "p_success": name}))
    out = tables[0].merge(tables[1], on="value", how="outer").sort_values("value", ignore_index=True)
    out["diff"] = out["house"] - out["book"]
    return out


def duel_rows(system_id: str, house: Validated, book: Validated, play: str = "book") -> pd.DataFrame:
    """Each archetype against itself under both rulesets, both sides playing as ``play`` says: P(A wins),
    P(killed) (someone at ``lethal_at``; empty where the system has no such level) and mean rounds (empty when the
    fight never ends), and the differences; a duel that cannot be played so is empty with the reason in ``note``."""
    system = get_system(system_id)
    names = list(archetypes(system_id))
    fighters = [archetype(system, name) for name in names]
    jobs = [(rules, f, f) for f in fighters for rules in (book, house)]
    solved = iter(solve_duels(system, jobs, play=play, what="compare", read=methodcaller("to_dict")))
    rows = []
    for name in names:
        row: dict[str, Any] = {"archetype": name}
        notes = []
        results = {}
        for which in ("book", "house"):
            res = next(solved)
            if isinstance(res, str):
                results[which] = None
                notes.append(f"{which}: {res}")
            else:
                results[which] = res
        for key in ("p_a_wins", "p_killed", "mean_rounds"):
            for which, res in results.items():
                row[f"{key}_{which}"] = None if res is None else res[key]
            b, h = row[f"{key}_book"], row[f"{key}_house"]
            row[f"{key}_diff"] = h - b if b is not None and h is not None else None
        notes += [f"{which}: {res['rounds_note']}" for which, res in results.items() if res and res["rounds_note"]]
        row["note"] = "; ".join(notes)
        rows.append(row)
    return pd.DataFrame(rows)


def worth_rows(system_id: str, house: Validated, book: Validated) -> pd.DataFrame:
    """What +1 buys (ΔP(success)) at each value of the standard check, under both rulesets."""
    system = get_system(system_id)
    tables = [pd.DataFrame([{"value": r["value"], name: r["delta_p"]} for r in worth(system, rules, system.args()).rows])
              for name, rules in (("book", book), ("house", house))]
    out = tables[0].merge(tables[1], on="value", how="outer").sort_values("value", ignore_index=True)
    out["diff"] = out["house"] - out["book"]
    return out.dropna(subset=["book", "house"], how="all")


def assumed(system_id: str, rules: Validated) -> dict[str, Any]:
    """The lab's assumptions the standard checks and the archetypes' matched duels rest on under ``rules``."""
    system, variants = get_system(system_id), rules.to_dict()
    fighters = [describe_fighter(archetype(system, name), rules) for name in archetypes(system_id)]
    return merged([rests_on(system_id, variants, f, f) for f in fighters] or [rests_on(system_id, variants)])


def compare_rules(house: Mapping[str, Validated], base: Mapping[str, Validated] | None = None,
                  play: str = "book") -> dict[str, dict[str, Any]]:
    """For each system of ``house``: what changed against ``base`` (default: the book played the same way),
    the check table, the archetypes' matched duels (played as ``play`` says) and the worth of +1 under both, and
    the lab's assumptions each side rests on."""
    if check_play(play) != "book":
        for sid in house:
            require_decisions(get_system(sid))
    out = {}
    for sid, rules in house.items():
        book = base[sid] if base is not None else book_of(rules)
        out[sid] = {"house_rules": house_rules_of(sid, rules.to_dict()), "changes": changes(sid, rules, book),
                    "variants": rules.to_dict(), "book_variants": book.to_dict(),
                    "assumptions": assumed(sid, rules), "book_assumptions": assumed(sid, book),
                    "checks": check_rows(sid, rules, book), "duels": duel_rows(sid, rules, book, play),
                    "worth": worth_rows(sid, rules, book), "play": play}
    return out
