"""Cross-system comparisons of checks and rule readings: success curves aligned at the 50% point, the
worth of a point, outcome distributions, criticals, dice sizes, what each rule variant moves and which
tactical options pay in a matched fight.

Every function takes a :class:`~analysis.fights.setup.Setup` (default: the book's rules, ``trained_armed``
fighters) and returns a tidy DataFrame with a ``system`` column.

>>> df = success_curves()
>>> sorted(df["system"].unique())
['kurs', 'onesix', 'tristat', 'tun']
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from analysis.base.params import Faces
from analysis.engine.combat import describe_fighter, duel_assumptions
from analysis.engine.system import System
from analysis.fights.lethality import duel_rules
from analysis.fights.setup import Setup
from analysis.present.tables import clean, success_table, text
from analysis.systems import all_systems, get_system
from analysis.systems.tristat import DICE as TRISTAT_DICE
from analysis.tools import variants as variant_tools
from analysis.tools.duels import duel_job, solve_valid
from analysis.tools.variants import alternatives, rule_alternatives, variants
from analysis.tools.worth import worth


def fifty_point(values: np.ndarray, p: np.ndarray, level: float = 0.5) -> float:
    """The value where P(success) crosses ``level`` (1/2 by default), linearly interpolated.

    >>> fifty_point(np.array([1, 2, 3]), np.array([0.2, 0.4, 0.8]))
    2.25
    >>> fifty_point(np.array([1, 2, 3]), np.array([0.2, 0.4, 0.8]), level=0.6)
    2.5
    """
    above = np.flatnonzero(p >= level)
    if above.size == 0 or above[0] == 0:
        raise ValueError(f"P(success) does not cross {level:g} inside the range")
    i = above[0]
    return float(values[i - 1] + (level - p[i - 1]) / (p[i] - p[i - 1]) * (values[i] - values[i - 1]))


SWING = (0.1, 0.9)
"""A check's swing runs from a long shot to a near-certainty: P(success) 10% to 90%."""


def swing_table(curves: pd.DataFrame, levels: tuple[float, float] = SWING) -> pd.DataFrame:
    """How swingy each system's check is: the points of its own value from P(success) = 10% to 90%
    (interpolated on :func:`success_curves`); few points, every point matters; many, the dice dominate.

    >>> t = swing_table(success_curves())
    >>> list(t.columns)[:4], bool((t["points"] > 0).all())
    (['system', 'dice', 'p_low', 'p_high'], True)
    """
    rows = []
    for sid, part in curves.groupby("system", sort=False):
        part = part.sort_values("value")
        values, p = part["value"].to_numpy(), part["p_success"].to_numpy()
        low, high = (fifty_point(values, p, level) for level in levels)
        rows.append({"system": sid, "dice": part["dice"].iloc[0], "p_low": levels[0], "p_high": levels[1],
                     "value_low": low, "value_high": high, "points": high - low})
    return pd.DataFrame(rows)


def check_mode(system: System, rules: Any, args: Any) -> str:
    """The dice of the system's standard check under ``rules`` (tristat ``2dX``, tun the check's dice)."""
    if system.id == "tristat":
        return f"2d{rules.die}"
    if system.id == "tun":
        return args.dice
    return next(iter(system.table_cases(rules, args)))[0]


def success_curves(setup: Setup | None = None) -> pd.DataFrame:
    """P(success) against each system's own value and against the modifier from its 50% point.

    One curve per system at the ruleset's own dice; columns ``system, curve, dice, value, p_success,
    modifier, fifty_point`` where ``modifier = value - fifty_point``.
    """
    setup = setup or Setup.build()
    frames = []
    for system in all_systems():
        r, a = setup.ruleset(system.id), system.args()
        df = success_table(system, r, a)
        mode_col = "dice" if "dice" in df.columns else "mode"
        mode = check_mode(system, r, a)
        df = df[df[mode_col] == mode].sort_values(system.value)
        values, p = df[system.value].to_numpy(), df["p_success"].to_numpy()
        centre = fifty_point(values, p)
        frames.append(pd.DataFrame({"system": system.id, "curve": f"{system.title} ({mode}, {system.value})",
                                    "dice": mode, "value": values, "p_success": p, "modifier": values - centre,
                                    "fifty_point": centre}))
    return pd.concat(frames, ignore_index=True)


TIE = 1e-9
"""P(success) this close to another counts as equally near 1/2 (the float noise of exact sums)."""


def standard_args(system: System, rules: Any) -> Any:
    """The check at the value whose P(success) is nearest 1/2 (the "standard character"); when two are equally
    near (a symmetric 2dX puts its 50% point halfway between two targets) the lower one, on every die alike.

    >>> tri = get_system("tristat")
    >>> [standard_args(tri, tri.rules(die=d)).target for d in (6, 12)]
    [6, 12]
    """
    df = success_curves(Setup.build(rules={system.id: rules})).query("system == @system.id")
    gaps = [(round(abs(p - 0.5) / TIE), v) for v, p in zip(df["value"], df["p_success"])]
    return system.args(**{system.value: int(min(gaps)[1])})


def worth_table(setup: Setup | None = None) -> pd.DataFrame:
    """What +1 buys (``delta_p``) and the outcome's mean and spread (``std``, in the system's own unit) across
    each system's range, aligned at the 50% point."""
    setup = setup or Setup.build()
    curves = success_curves(setup)
    frames = []
    for system in all_systems():
        centre = curves.query("system == @system.id")["fifty_point"].iloc[0]
        w = worth(system, setup.ruleset(system.id), system.args())
        df = pd.DataFrame([dict(x) for x in w.rows])
        df["system"], df["outcome"], df["modifier"] = system.id, w.outcome, df["value"] - centre
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def outcome_at_fifty(setup: Setup | None = None) -> pd.DataFrame:
    """The outcome distribution (margin, success level, effectiveness) of each system's standard check."""
    setup = setup or Setup.build()
    frames = []
    for system in all_systems():
        r = setup.ruleset(system.id)
        args = standard_args(system, r)
        res = system.check(r, args)
        d = {k: v for k, v in res.distribution.to_dict().items() if v >= 1e-6}
        frames.append(pd.DataFrame({"system": system.id, "value": getattr(args, system.value), "outcome": res.outcome,
                                    "result": list(d), "p": list(d.values())}))
    return pd.concat(frames, ignore_index=True)


SPECIAL = ("p_critical", "p_fumble", "p_equipment_fault", "p_complication")
"""The special results of a check; a system without one has no value (not applicable), never 0."""


def crits_and_fumbles(setup: Setup | None = None) -> pd.DataFrame:
    """P(critical), P(fumble) and the system's other special results at the standard check.

    Tri-Stat for every die; ТУН with its optional criticals switched on.  A result the system does not
    have is missing (NaN), a result it has that cannot happen at this check is 0.
    """
    setup = setup or Setup.build()
    rows = []
    for system in all_systems():
        r = setup.ruleset(system.id)
        if system.id == "tun":
            r = r.replace(crits=True)
        cases = [r.replace(die=d) for d in TRISTAT_DICE] if system.id == "tristat" else [r]
        for rr in cases:
            args = standard_args(system, rr)
            res = system.check(rr, args)
            row = {"system": system.id, "dice": check_mode(system, rr, args), "value": getattr(args, system.value),
                   "p_success": res.p_success, "p_critical": res.p_critical, "p_fumble": res.p_fumble}
            row.update({k: v for k, v in res.extra.items() if k in SPECIAL})
            rows.append(row)
    return pd.DataFrame(rows, columns=["system", "dice", "value", "p_success", *SPECIAL])


def dice_families(setup: Setup | None = None) -> pd.DataFrame:
    """Tri-Stat's success curves for every die and ТУН's for every dice mode."""
    setup = setup or Setup.build()
    frames = []
    for sid in ("tristat", "tun"):
        system = get_system(sid)
        df = success_table(system, setup.ruleset(sid), system.args())
        frames.append(df.rename(columns={system.value: "value"})[["system", "dice", "value", "p_success"]])
    return pd.concat(frames, ignore_index=True)


def check_shift(system: System, base: Any, alt: Any) -> float:
    """The signed change of P(success) of largest size over the check table cases both rulesets share.

    >>> tun = get_system("tun")
    >>> round(check_shift(tun, tun.rules(), tun.rules(success_rule="le")), 4)
    0.1667
    """
    keys = ["dice" if system.id in ("tristat", "tun") else "mode", system.value]
    merged = success_table(system, base, system.args()).merge(success_table(system, alt, system.args()), on=keys)
    d = (merged["p_success_y"] - merged["p_success_x"]).to_numpy()
    return float(d[np.argmax(np.abs(d))]) if d.size else 0.0


def variant_effects(setup: Setup | None = None) -> pd.DataFrame:
    """Every rule variant against the setup's ruleset: the signed largest change of P(success) over the check
    table (``None`` where the table already runs over the field: Tri-Stat's die), and the signed changes of
    P(A wins), P(at least one killed) and mean rounds in the setup's duel (``None`` where the rules refuse the
    duel, with its ``note``); float noise of exact sums is 0.

    Rows come in a stated order: the systems' order, then each ruleset's fields as declared, then each
    field's values as its spec lists them.  The duel is played as :func:`analysis.fights.lethality.duel_rules` says.
    """
    setup = setup or Setup.build()
    rows = []
    for system in all_systems():
        base = duel_rules(setup.ruleset(system.id))
        a, b = setup.fighters(system.id)
        report = {e.label: e for e in variants(system, base, a=a, b=b).effects}
        for name, value, label in rule_alternatives(system, base):
            e = report[label]
            d = e.duel_delta or {}
            rows.append({"system": system.id, "variant": label, "field": name, "value": text(value),
                         "check_shift": check_shift(system, base, base.replace(**{name: value}))
                         if e.check_applies else None,
                         "check_applies": e.check_applies,
                         "d_p_a_wins": d.get("p_a_wins"), "d_p_killed": d.get("p_killed"),
                         "d_mean_rounds": d.get("mean_rounds"), "after_out": base.after_out,
                         "lethal_at": base.lethal_at, "note": e.note})
    return clean(pd.DataFrame(rows))


def policy_effects(setup: Setup | None = None, fields: Mapping[str, Sequence[str]] | None = None) -> pd.DataFrame:
    """Which tactical options pay in the setup's duel: A takes each other value of each policy field
    (``Fighter.specs("policy")``, or ``fields[system]``), B stays plain (:func:`analysis.tools.variants.policy_effects`).

    Columns: ``p_a_wins`` and its change against the plain duel, A's and B's P(killed) (the ``lethal_at``
    level; ``None`` where the system has none) and their changes, P(someone killed), mean rounds and its
    change; ``note`` says why a duel was refused; ``warning``, which setup the option makes almost surely a slip
    (``System.slips``: played and reported all the same).
    """
    setup = setup or Setup.build()
    rows = []
    for system in all_systems():
        names = list(fields.get(system.id, ())) if fields is not None else list(system.Fighter.specs("policy"))
        if not names:
            continue
        rules = duel_rules(setup.ruleset(system.id))
        a, b = setup.fighters(system.id)
        defined = system.level_missing(rules.lethal_at) is None
        for e in variant_tools.policy_effects(system, rules, a, b, names):
            row: dict[str, Any] = {"system": system.id, "policy": e.name, "value": text(e.value), "option": e.label,
                                   "note": e.note, "warning": "; ".join(e.warnings)}
            if e.duel is not None:
                f, d = e.duel, e.duel_delta
                ends = math.isfinite(f.mean_rounds)
                row.update(p_a_wins=f.p_a_wins, d_p_a_wins=d["p_a_wins"],
                           p_a_killed=f.p_a_killed if defined else None, p_b_killed=f.p_b_killed if defined else None,
                           d_p_a_killed=d["p_a_killed"] if defined else None,
                           d_p_b_killed=d["p_b_killed"] if defined else None,
                           p_killed=f.p_killed if defined else None, mean_rounds=f.mean_rounds if ends else None,
                           d_mean_rounds=d["mean_rounds"] if ends else None)
            rows.append(row)
    return clean(pd.DataFrame(rows, columns=["system", "policy", "value", "option", "p_a_wins", "d_p_a_wins",
                                             "p_a_killed", "d_p_a_killed", "p_b_killed", "d_p_b_killed", "p_killed",
                                             "mean_rounds", "d_mean_rounds", "note"]))


def shown_value(system: System, name: str, value: Any) -> str:
    """A ruleset value as a designer names it: a die's preset by its name, anything else as typed.

    >>> kurs = get_system("kurs")
    >>> shown_value(kurs, "dk_faces", (-1, 0, 1)), shown_value(kurs, "no_defense_bonus", 2)
    ('fudge', '2')
    """
    spec = system.Rules.specs().get(name)
    if isinstance(spec, Faces):
        value = tuple(value)
        return next((preset for preset, faces in spec.presets.items() if faces == value), text(value))
    return text(value)


def assumption_ranges(setup: Setup | None = None, systems: Sequence[str] | None = None) -> pd.DataFrame:
    """How far the setup's matched duel moves over each plausible value of each lab assumption of its ruleset it
    rests on (:mod:`analysis.engine.assumptions`), and each tactical option of A over the assumptions it adds.

    One row per (system, option, assumption, value): ``option`` is ``""`` for the plain duel or a policy's label
    (``stance=no_defense``); ``current`` marks the value the ruleset has; ``p_a_wins``, ``p_killed`` (someone at
    the ``lethal_at`` level; ``None`` where the system has none) and ``mean_rounds`` (``None`` when the fight never
    ends); ``note`` says why a duel was refused.  The duels are played as
    :func:`analysis.fights.lethality.duel_rules` says.  A fighter's own field (Tri-Stat ``armor``) is the
    designer's number, not searched here (``dicelab design`` varies it).  ``systems``: only these (default all).
    """
    setup = setup or Setup.build()
    rows = []
    for system in (get_system(s) for s in systems) if systems is not None else all_systems():
        rules = duel_rules(setup.ruleset(system.id))
        a, b = setup.fighters(system.id)
        variants_, fa, fb = rules.to_dict(), describe_fighter(a, rules), describe_fighter(b, rules)
        plain = duel_assumptions(system.id, variants_, fa, fb)
        cases = [("", {}, plain)]
        for name, value, label in alternatives(system.Fighter.specs("policy"), a):
            rests = duel_assumptions(system.id, variants_, {**fa, name: value}, fb)
            cases.append((label, {name: value}, {k: v for k, v in rests.items() if k not in plain}))
        declared = {x.name: x for x in system.assumptions if x.name in system.Rules.specs()}
        points = [(option, policy, name, value) for option, policy, assumed in cases for name in assumed
                  if name in declared for value in declared[name].plausible]
        jobs = [duel_job(lambda p=policy, n=name, v=value: (rules.replace(**{n: v}), a.replace(**p), b))
                for _, policy, name, value in points]
        defined = system.level_missing(rules.lethal_at) is None
        for (option, _, name, value), f in zip(points, solve_valid(system, jobs, 1, None, None, None, "assumptions")):
            row: dict[str, Any] = {"system": system.id, "option": option, "assumption": name,
                                   "value": shown_value(system, name, value), "current": value == getattr(rules, name),
                                   "note": f if isinstance(f, str) else ""}
            if not isinstance(f, str):
                row.update(p_a_wins=f.p_a_wins, p_killed=f.p_killed if defined else None,
                           mean_rounds=f.mean_rounds if math.isfinite(f.mean_rounds) else None)
            rows.append(row)
    return pd.DataFrame(rows, columns=["system", "option", "assumption", "value", "current", "p_a_wins", "p_killed",
                                       "mean_rounds", "note"])
